// <c10/cuda/CUDACachingAllocator.h> — the CUDA caching allocator's controls,
// with libtorch's names (torch.cuda.empty_cache / memory_stats /
// memory_summary in Python; c10::cuda::CUDACachingAllocator in C++).
//
//   namespace alloc = c10::cuda::CUDACachingAllocator;
//   alloc::recordStream(t.storage().data_ptr(), side_stream);  // t used there
//   alloc::emptyCache();                         // release cached segments
//   int64_t peak = alloc::memory_stats(0)["allocated_bytes.all.peak"];
//   std::cout << alloc::memory_summary(0);
//
// The policy (pools, rounding, per-stream blocks) is described in
// docs/cuda.md, "Caching allocator". All but emptyCache throw "no CUDA
// device: ..." where there is none.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "backends/cuda/CUDARuntime.h"
#include "c10/core/Allocator.h"
#include "c10/cuda/CUDAStream.h"

namespace c10 {
namespace cuda {
namespace CUDACachingAllocator {

// Releases every cached segment that holds no live allocation.
inline void emptyCache() { impl::cudaRuntime().emptyCache(); }

// PyTorch's memory_stats() keys: "<stat>.<pool>.<metric>" with stat one of
// allocation, segment, active, allocated_bytes, reserved_bytes,
// requested_bytes, inactive_split_bytes; pool all, small_pool, large_pool;
// metric current, peak, allocated, freed; plus num_alloc_retries, num_ooms.
inline std::map<std::string, int64_t> memory_stats(DeviceIndex device) {
  return impl::cudaRuntime().memoryStats(device);
}
inline std::string memory_summary(DeviceIndex device) {
  return impl::cudaRuntime().memorySummary(device);
}
inline void resetPeakStats(DeviceIndex device) {
  impl::cudaRuntime().resetPeakMemoryStats(device);
}

// Marks that `stream` uses the memory of `data_ptr` (allocated on another
// stream): when it is freed, it is reused only after the work queued on
// `stream` by then has completed.
inline void recordStream(const DataPtr& data_ptr, CUDAStream stream) {
  impl::cudaRuntime().recordStream(data_ptr.get(), stream.unwrap());
}

}  // namespace CUDACachingAllocator
}  // namespace cuda
}  // namespace c10
