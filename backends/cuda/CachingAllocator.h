// backends/cuda/CachingAllocator.h — the CUDA caching allocator's policy,
// written against an interface to device memory, events and streams
// (DeviceMemoryApi) so that the same code runs on the GPU (through cudart,
// CUDACachingAllocator.cc) and in CI on a host-memory fake device
// (tests/backends/cuda/fake_device.h). PyTorch's design and the behaviour
// its users rely on:
//
//   - requests are rounded up to a multiple of 512 bytes;
//   - blocks of at most 1 MiB come from the small pool, carved out of 2 MiB
//     segments; larger ones from the large pool (20 MiB segments for
//     requests under 10 MiB, else the request rounded up to 2 MiB);
//   - a free block that is larger than needed is split, and freed
//     neighbours are merged again;
//   - a block belongs to the stream it was allocated on and is reused only
//     by allocations on that stream; record_stream marks its use by another
//     stream, and freeing it then records an event on each such stream: the
//     block returns to the pool only when all of them completed;
//   - when the device is out of memory, every cached segment that is wholly
//     free is released and the allocation retried once; if it still fails,
//     an error in PyTorch's words (tried to allocate, total capacity, free,
//     allocated and reserved by Ember);
//   - empty_cache() releases every wholly free segment; memory_stats() and
//     memory_summary() report current and peak use, counts, retries, OOMs.
//
//   ember::cuda::CachingAllocator alloc(&device_api);
//   void* p = alloc.malloc(/*device=*/0, 4096, /*stream=*/0);
//   alloc.recordStream(p, side_stream);
//   alloc.free(p);              // reusable once side_stream passed the event
//
// Thread-safe: one mutex per device. The DeviceMemoryApi must be
// thread-safe too and outlive the allocator.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "c10/core/CPUAllocator.h"
#include "c10/core/Device.h"
#include "c10/core/Stream.h"

namespace ember {
namespace cuda {

// ember::cuda::DeviceMemoryApi
//
// What the policy needs of a device: raw memory, events recorded on
// streams, and memory info for the out-of-memory message. Thread-safe.
class DeviceMemoryApi {
 public:
  virtual ~DeviceMemoryApi() = default;
  // `size` bytes of device memory, or nullptr when the device is out of
  // memory (any other failure throws c10::Error).
  virtual void* allocate(c10::DeviceIndex device, size_t size) = 0;
  virtual void release(c10::DeviceIndex device, void* ptr) = 0;
  // The device's total and currently free bytes.
  virtual void memoryInfo(c10::DeviceIndex device, size_t* free_bytes,
                          size_t* total_bytes) = 0;
  // A new event recorded on `stream` of `device`: it completes when the work
  // queued there so far has.
  virtual void* recordEvent(c10::DeviceIndex device, c10::StreamId stream) = 0;
  virtual bool queryEvent(void* event) = 0;
  virtual void synchronizeEvent(void* event) = 0;
  virtual void destroyEvent(void* event) noexcept = 0;
};

// The policy's constants (PyTorch's).
constexpr size_t kMinBlockSize = 512;        // rounding of every request
constexpr size_t kSmallSize = 1 << 20;       // largest small-pool request
constexpr size_t kSmallBuffer = 2 << 20;     // small-pool segment
constexpr size_t kLargeBuffer = 20 << 20;    // segment for requests < 10 MiB
constexpr size_t kMinLargeAlloc = 10 << 20;
constexpr size_t kRoundLarge = 2 << 20;      // rounding of larger segments

// ember::cuda::Stat — one statistic, as in PyTorch's memory_stats():
// current and peak value, and the totals added (allocated) and removed
// (freed) since the start.
struct Stat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;
  int64_t freed = 0;
  void increase(int64_t amount);
  void decrease(int64_t amount);
  void reset_peak() { peak = current; }
};

// Per statistic: all blocks, the small pool's, the large pool's.
enum StatType : size_t { kAggregate = 0, kSmallPool = 1, kLargePool = 2 };
using StatArray = std::array<Stat, 3>;

// ember::cuda::DeviceStats — one device's statistics.
struct DeviceStats {
  StatArray allocation;       // blocks handed out (count)
  StatArray segment;          // segments obtained from the device (count)
  StatArray active;           // allocated blocks plus freed ones waiting on events
  StatArray allocated_bytes;  // bytes of blocks handed out (rounded sizes)
  StatArray reserved_bytes;   // bytes of segments held
  StatArray requested_bytes;  // bytes asked for (before rounding)
  StatArray inactive_split_bytes;  // free bytes in split segments
  int64_t num_alloc_retries = 0;  // device allocations retried after freeing the cache
  int64_t num_ooms = 0;           // out-of-memory errors thrown
};

// ember::cuda::CachingAllocator
class CachingAllocator {
 public:
  explicit CachingAllocator(DeviceMemoryApi* api);
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block of at least `size` bytes (size > 0) on `device` for `stream`.
  // Throws c10::OutOfMemoryError "CUDA out of memory. Tried to allocate ..."
  // when the device has no room even after releasing the cache.
  void* malloc(c10::DeviceIndex device, size_t size, c10::StreamId stream);

  // Returns a block from malloc to its pool (after the events of its
  // record_stream uses complete). Throws c10::Error for a pointer this
  // allocator did not hand out.
  void free(void* ptr);

  // Marks that `stream` uses the block at `ptr` (from malloc); a use by the
  // allocating stream itself is ignored.
  void recordStream(void* ptr, c10::StreamId stream);

  // Releases every wholly free cached segment of every device to the device,
  // after waiting for the events of blocks freed with record_stream uses.
  void emptyCache();

  DeviceStats getStats(c10::DeviceIndex device);
  // The device's statistics in the structure every allocator shares
  // (c10::AllocatorStats; c10::memory_summary formats it): bytes are the
  // blocks' rounded sizes; cached = reserved segments' bytes not handed out,
  // in that many free blocks.
  c10::AllocatorStats allocatorStats(c10::DeviceIndex device);
  void resetPeakStats(c10::DeviceIndex device);

  // PyTorch's memory_stats() keys: "allocated_bytes.all.current",
  // "reserved_bytes.large_pool.peak", "num_alloc_retries", "num_ooms", ...
  std::map<std::string, int64_t> memoryStats(c10::DeviceIndex device);

  // A human-readable table of memoryStats (as torch.cuda.memory_summary).
  std::string memorySummary(c10::DeviceIndex device);

  // The size of the block at `ptr` (rounded) and its stream; for tests and
  // the summary. Throws for an unknown pointer.
  size_t blockSize(void* ptr);

  struct Block;
  struct DeviceState;

 private:
  DeviceState& state(c10::DeviceIndex device);
  std::pair<DeviceState*, Block*> findAllocated(void* ptr, const char* where);

  DeviceMemoryApi* api_;
  std::mutex devices_mutex_;  // guards the vector below, not the states
  std::vector<std::unique_ptr<DeviceState>> devices_;
};

// ember::cuda::formatSize — "512 bytes", "1.50 KiB", "20.00 MiB", "1.25 GiB".
std::string formatSize(uint64_t bytes);

// ember::cuda::roundSize — the size a request is served with.
size_t roundSize(size_t size);

}  // namespace cuda
}  // namespace ember
