// backends/cuda/kernels/loops.cuh — the elementwise launch of every
// pointwise kernel: one thread per element, grid-stride, addresses from
// the Iteration (See Note [CUDA offset calculator]) or, when every operand
// is contiguous, from the index directly.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "backends/cuda/kernels/launch.h"

namespace ember {
namespace cuda {
namespace kernels {

struct Offsets {
  int64_t off[kMaxOperands];
};

__device__ __forceinline__ Offsets offsets_of(const Iteration& it, int64_t index,
                                              int nops) {
  Offsets o;
  for (int k = 0; k < kMaxOperands; ++k) o.off[k] = 0;
  for (int d = 0; d < it.ndim; ++d) {
    const int64_t size = it.sizes[d];
    const int64_t coord = index % size;
    index /= size;
    for (int k = 0; k < nops; ++k) o.off[k] += coord * it.strides[k][d];
  }
  return o;
}

// f(char* const* ptrs) is called once per element with each operand's
// element address.
template <int NOps, typename F>
__global__ void elementwise_kernel(Iteration it, F f) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < it.numel; i += stride) {
    char* ptrs[NOps];
    if (it.contiguous) {
      for (int k = 0; k < NOps; ++k) ptrs[k] = it.data[k] + i * it.strides[k][0];
    } else {
      const Offsets o = offsets_of(it, i, NOps);
      for (int k = 0; k < NOps; ++k) ptrs[k] = it.data[k] + o.off[k];
    }
    f(ptrs);
  }
}

inline std::string launch_status() {
  const cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return "";
  return std::string(cudaGetErrorString(err)) + " (" + cudaGetErrorName(err) + ")";
}

template <int NOps, typename F>
std::string launch_elementwise(const Iteration& it, F f, void* stream) {
  if (it.numel == 0) return "";
  constexpr int kThreads = 256;
  const int64_t wanted = (it.numel + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(wanted < 65535 * 8 ? wanted : 65535 * 8);
  elementwise_kernel<NOps><<<blocks, kThreads, 0,
                             static_cast<cudaStream_t>(stream)>>>(it, f);
  return launch_status();
}

// Calls f.template operator()<T>() for the C++ type of `dtype`.
template <typename F>
std::string dispatch_dtype(Dtype dtype, F&& f) {
  switch (dtype) {
    case Dtype::kFloat: return f(float{});
    case Dtype::kDouble: return f(double{});
    case Dtype::kLong: return f(int64_t{});
    case Dtype::kInt: return f(int32_t{});
    case Dtype::kBool: return f(bool{});
  }
  return "unknown dtype";
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
