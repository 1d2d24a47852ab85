// <ATen/cuda/CachingHostAllocator.h> — the pinned host allocator behind
// Tensor::pin_memory() and non_blocking copies (docs/cuda.md, "Pinned memory
// and non_blocking copies"), with PyTorch's names:
//
//   at::cuda::CachingHostAllocator_emptyCache();   // give cached pinned blocks back
//   int64_t held = at::cuda::CachingHostAllocator_memoryStats()["reserved_bytes.current"];
//
// Neither needs a device: without one nothing was pinned, the cache is empty
// and every figure is 0.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "backends/cuda/CUDARuntime.h"

namespace at {
namespace cuda {

// Gives back every cached pinned block that no tensor and no queued copy
// uses (blocks freed while a copy was queued go back once it has run).
inline void CachingHostAllocator_emptyCache() {
  c10::cuda::impl::cudaRuntime().emptyHostCache();
}

// "<stat>.<metric>" for stat allocation, segment, allocated_bytes,
// reserved_bytes and metric current, peak, allocated, freed; and
// num_host_alloc, num_host_free, num_alloc_retries, num_ooms.
inline std::map<std::string, int64_t> CachingHostAllocator_memoryStats() {
  return c10::cuda::impl::cudaRuntime().hostMemoryStats();
}

}  // namespace cuda
}  // namespace at
