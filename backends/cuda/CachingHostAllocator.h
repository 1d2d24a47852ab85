// backends/cuda/CachingHostAllocator.h — the policy of the pinned
// (page-locked) host memory behind `pin_memory()` and `non_blocking` copies,
// written like the device allocator's (CachingAllocator.h) against small
// interfaces, so that the same code runs on cudart (cudaHostAlloc) and in CI
// on host memory with fake streams (tests/backends/cuda/fake_device.h).
// PyTorch's design and the behaviour its users rely on:
//
//   - page-locked memory is slow to get and to give back (a driver call that
//     maps the pages for the device), so freed blocks are cached and reused;
//   - a request is rounded up to a power of two (at least 512 bytes) and
//     served by a free block of exactly that size class;
//   - a non_blocking copy from or to a pinned block is queued on a stream and
//     reads or writes the block later: recordEvent(ptr, stream) marks that
//     use, and a block freed before its copies ran is reused only once the
//     events recorded on those streams at free() have completed;
//   - when the host runs out of page-locked memory, the cached free blocks
//     are given back and the allocation retried once; then
//     c10::OutOfMemoryError;
//   - emptyCache() gives back every free block; stats() counts blocks,
//     bytes and driver calls.
//
//   ember::cuda::CachingHostAllocator pinned(&host_api, &device_api);
//   void* p = pinned.malloc(1 << 20);
//   pinned.recordEvent(p, /*device=*/0, stream);  // a copy queued on `stream`
//   pinned.free(p);            // reusable once `stream` passed the event
//
// Thread-safe: one mutex. The interfaces must be thread-safe too and outlive
// the allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/cuda/CachingAllocator.h"

namespace ember {
namespace cuda {

// ember::cuda::HostMemoryApi — page-locked host memory. Thread-safe.
class HostMemoryApi {
 public:
  virtual ~HostMemoryApi() = default;
  // `size` bytes of page-locked host memory, or nullptr when the host has
  // none left (any other failure throws c10::Error).
  virtual void* allocateHost(size_t size) = 0;
  virtual void releaseHost(void* ptr) = 0;
};

// ember::cuda::HostStats — the pinned allocator's statistics.
struct HostStats {
  Stat allocation;        // blocks handed out (count)
  Stat segment;           // blocks obtained from the driver (count)
  Stat allocated_bytes;   // bytes of blocks handed out (rounded sizes)
  Stat reserved_bytes;    // bytes of blocks held, cached or not
  int64_t num_host_alloc = 0;  // calls to HostMemoryApi::allocateHost
  int64_t num_host_free = 0;   // calls to HostMemoryApi::releaseHost
  int64_t num_alloc_retries = 0;
  int64_t num_ooms = 0;
};

class CachingHostAllocator {
 public:
  CachingHostAllocator(HostMemoryApi* host, DeviceMemoryApi* events);
  // Gives back the free blocks. Blocks still handed out, or waiting on
  // events, are the program's: they stay mapped (as in PyTorch, where the
  // allocator lives until the process ends).
  ~CachingHostAllocator();
  CachingHostAllocator(const CachingHostAllocator&) = delete;
  CachingHostAllocator& operator=(const CachingHostAllocator&) = delete;

  // A pinned block of at least `size` bytes; nullptr for size 0. Throws
  // c10::OutOfMemoryError when the host has no page-locked memory left.
  void* malloc(size_t size);
  // Returns a block from malloc (its start). Throws c10::Error for a
  // pointer this allocator did not hand out, or one freed twice.
  void free(void* ptr);
  // Marks that work queued on `stream` of `device` uses the block holding
  // `ptr` (any address inside it). Returns false, doing nothing, when `ptr`
  // is not in a block this allocator handed out: the caller's memory is
  // then pageable and its copy must not be asynchronous.
  bool recordEvent(const void* ptr, c10::DeviceIndex device, c10::StreamId stream);
  // Whether `ptr` lies in a block handed out and not yet freed (what
  // Tensor::is_pinned() asks).
  bool isPinned(const void* ptr) const;
  // The size of the block holding `ptr` and its start, for a handed-out
  // block; {nullptr, 0} otherwise.
  std::pair<void*, size_t> blockOf(const void* ptr) const;
  // Gives back every free block (after collecting completed events).
  void emptyCache();
  HostStats stats() const;
  void resetPeakStats();

  // The size class of a request: a power of two, at least 512 bytes.
  static size_t roundSize(size_t size);

 private:
  struct Block {
    void* ptr = nullptr;
    size_t size = 0;
    bool allocated = false;
    int pending_events = 0;  // events recorded at free() not yet completed
    std::vector<std::pair<c10::DeviceIndex, c10::StreamId>> streams;  // recordEvent
  };
  struct PendingEvent {
    void* event;
    Block* block;
  };

  Block* findContaining(const void* ptr) const;  // under mutex_
  void collectEvents();                          // under mutex_
  void releaseFreeBlocks();                      // under mutex_

  HostMemoryApi* const host_;
  DeviceMemoryApi* const events_api_;
  mutable std::mutex mutex_;
  std::map<uintptr_t, std::unique_ptr<Block>> blocks_;  // by start address
  std::map<size_t, std::vector<Block*>> free_;          // by size class
  std::vector<PendingEvent> pending_;
  HostStats stats_;
};

}  // namespace cuda
}  // namespace ember
