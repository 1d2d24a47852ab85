// c10/core/CPUAllocator.h — the default allocator for host memory.
//
// Every CPU tensor's memory comes from here unless a backend registers a
// replacement with a higher priority (SetCPUAllocator). Blocks are 64-byte
// aligned, so vectorized kernels may use aligned loads on a storage's first
// element. The allocator keeps counters (bytes in use and number of
// allocations, exact; the peak, see cpu_allocator_stats) that tests and
// memory profiling read:
//
//   c10::DataPtr block = c10::GetCPUAllocator()->allocate(4096);
//   c10::CPUAllocatorStats stats = c10::cpu_allocator_stats();
//   // stats.bytes_in_use >= 4096
//
// Not a caching allocator: each allocate()/free goes to malloc, which is
// already fast for small blocks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "c10/core/Allocator.h"

namespace c10 {

// c10::kCPUAlignment
//
// Alignment, in bytes, of every block handed out by alloc_cpu and the
// default CPU allocator (one cache line; enough for AVX-512 loads).
constexpr size_t kCPUAlignment = 64;

// c10::alloc_cpu / c10::free_cpu
//
// The raw primitives behind the default CPU allocator: a kCPUAlignment-aligned
// block of `nbytes` bytes (nullptr when nbytes == 0), and its release
// (nullptr is ignored). Counted in cpu_allocator_stats(). alloc_cpu throws
// c10::Error when memory runs out. Thread-safe; a block may be freed on any
// thread. Only free_cpu may free what alloc_cpu returned.
void* alloc_cpu(size_t nbytes);
void free_cpu(void* data);

// c10::GetDefaultCPUAllocator
//
// The built-in CPU allocator, whatever is registered. It lives for the whole
// process (it is never destroyed, so tensors freed during static
// destruction are safe). Its raw_deleter() is free_cpu.
Allocator* GetDefaultCPUAllocator();

// c10::GetCPUAllocator
//
// The allocator currently registered for DeviceType::CPU (by default,
// GetDefaultCPUAllocator(), registered at static-initialization time with
// priority 0).
Allocator* GetCPUAllocator();

// c10::SetCPUAllocator
//
// Shorthand for SetAllocator(DeviceType::CPU, alloc, priority).
void SetCPUAllocator(Allocator* alloc, uint8_t priority = 0);

// c10::CPUAllocatorStats
//
// A snapshot of the default CPU allocator's counters. Sizes are the bytes
// requested (not counting alignment padding or malloc's own overhead).
struct CPUAllocatorStats {
  int64_t bytes_in_use;      // requested bytes not yet freed
  int64_t peak_bytes;        // highest bytes_in_use since start or reset
  int64_t allocation_count;  // successful non-zero allocations, ever
};

// c10::cpu_allocator_stats
//
// Reads the counters. Thread-safe; while other threads allocate, the fields
// are each exact at some moment but not necessarily the same one. The peak is
// exact while one thread at a time allocates; when several threads allocate
// at once it may be misjudged by less than 64 KiB per thread, because each
// thread counts in its own slot and publishes in 64 KiB steps (no atomic
// read-modify-write per allocation). See Note [CPU allocator counters].
CPUAllocatorStats cpu_allocator_stats();

// c10::reset_cpu_allocator_peak
//
// Sets peak_bytes to the current bytes_in_use. Thread-safe, but a peak
// reached by a concurrent allocation during the reset may be lost.
void reset_cpu_allocator_peak();

}  // namespace c10
