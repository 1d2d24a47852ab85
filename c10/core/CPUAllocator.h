// c10/core/CPUAllocator.h — the default allocator for host memory.
//
// Every CPU tensor's memory comes from here unless a backend registers a
// replacement with a higher priority (SetCPUAllocator). Blocks are 64-byte
// aligned, so vectorized kernels may use aligned loads on a storage's first
// element. The allocator keeps counters (bytes in use, the peak, totals) and
// a cache of freed blocks, both readable, and the cache can be released:
//
//   c10::DataPtr block = c10::GetCPUAllocator()->allocate(4096);
//   c10::CPUAllocatorStats stats = c10::cpu_allocator_stats();
//   // stats.bytes_in_use >= 4096
//   std::cout << c10::cpu_memory_summary();   // a table, as PyTorch's memory_summary()
//   c10::cpu_allocator_empty_cache();          // gives cached free blocks back to the system
//
// Small (<= 64 bytes) and large (64 KiB to 64 MiB) freed blocks are kept for
// reuse (See Note [Small CPU blocks] and Note [Large CPU blocks] in
// CPUAllocator.cc); everything else goes straight back to the system.
// Requests from about 2 MiB on (their size class plus 64 bytes of padding)
// are mappings of their own that ask Linux for 2 MiB pages, which streaming
// kernels read faster; EMBER_CPU_HUGE_PAGES=0 in the environment turns that
// off (See Note [Huge pages for large blocks]).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

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
// A snapshot of the default CPU allocator's counters. "Bytes" of blocks in
// use are the bytes requested (not counting alignment padding or malloc's
// own overhead); cached bytes are what the cached free blocks hold from
// malloc. The same structure serves other devices' allocators
// (c10::AllocatorStats).
struct CPUAllocatorStats {
  int64_t bytes_in_use = 0;           // requested bytes not yet freed
  int64_t peak_bytes = 0;             // highest bytes_in_use since start or reset
  int64_t allocation_count = 0;       // successful non-zero allocations, ever
  int64_t free_count = 0;             // frees of those, ever
  int64_t allocated_bytes_total = 0;  // bytes of all those allocations, ever
  int64_t cached_bytes = 0;           // free blocks kept for reuse, all threads
  int64_t cached_blocks = 0;          // how many blocks that is
  // Blocks handed out now.
  int64_t active_blocks() const { return allocation_count - free_count; }
  // Bytes freed, ever.
  int64_t freed_bytes_total() const { return allocated_bytes_total - bytes_in_use; }
  // Memory the allocator holds from malloc (in use and cached, no padding).
  int64_t reserved_bytes() const { return bytes_in_use + cached_bytes; }
};
using AllocatorStats = CPUAllocatorStats;

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

// c10::cpu_allocator_empty_cache
//
// Gives the cached free blocks back to the system (as torch.cuda.empty_cache()
// does for its device): the large blocks (shared by all threads) at once,
// the small ones (at most 32 KiB per thread) at once for the calling thread
// and for threads that have exited; a thread still running releases its
// small blocks at its next allocation or free of a large block (they are
// touched by that thread alone). Blocks in use are not affected.
// Thread-safe.
void cpu_allocator_empty_cache();

// c10::memory_summary
//
// A text table of `stats`, as PyTorch's torch.cuda.memory_summary(): for
// allocated, cached and reserved memory and for blocks, the current value,
// the peak, and totals allocated and freed. `title` names the device
// ("CPU"). Sizes are printed in B/KiB/MiB/GiB.
std::string memory_summary(const AllocatorStats& stats, const std::string& title);

// c10::cpu_memory_summary
//
// memory_summary(cpu_allocator_stats(), "CPU").
std::string cpu_memory_summary();

}  // namespace c10
