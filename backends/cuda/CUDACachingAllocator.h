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

}  // namespace cuda
}  // namespace ember
