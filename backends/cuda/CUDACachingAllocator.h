// backends/cuda/CUDACachingAllocator.h — the plugin's caching allocator: the
// policy of CachingAllocator.h on cudart's memory, events and streams,
// registered as c10's allocator for DeviceType::CUDA. Internal to the
// plugin; programs use <c10/cuda/CUDACachingAllocator.h>.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "c10/core/Device.h"
#include "c10/core/Stream.h"

namespace ember {
namespace cuda {

void emptyCache();
std::map<std::string, int64_t> memoryStats(c10::DeviceIndex device);
std::string memorySummary(c10::DeviceIndex device);
void resetPeakMemoryStats(c10::DeviceIndex device);
// Marks that `stream` uses the allocation at `ptr` (see
// CachingAllocator::recordStream).
void recordStream(void* ptr, const c10::Stream& stream);

// If `host_ptr` lies in pinned memory handed out by the plugin's host
// allocator, marks its use by work queued on `stream` (an asynchronous copy)
// and returns true; the block is then reused only after the stream passed
// it. False for pageable memory: the caller must copy synchronously.
bool recordPinnedUse(const void* host_ptr, const c10::Stream& stream);

// Gives back the cached pinned blocks (PyTorch's
// CachingHostAllocator_emptyCache).
void emptyHostCache();

// The pinned host allocator's statistics: "<stat>.<metric>" for stat
// allocation, segment, allocated_bytes, reserved_bytes and metric current,
// peak, allocated, freed; num_host_alloc, num_host_free, num_alloc_retries,
// num_ooms.
std::map<std::string, int64_t> hostMemoryStats();

}  // namespace cuda
}  // namespace ember
