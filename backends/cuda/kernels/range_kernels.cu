// backends/cuda/kernels/range_kernels.cu — arange and linspace: one thread
// per element, grid-stride, each range::range_element (range_ops.cuh).
// Compiled with --fmad=false, so the values are the CPU's.
#include <cstdint>

#include "backends/cuda/kernels/loops.cuh"
#include "backends/cuda/kernels/range_ops.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void range_kernel(RangeArgs a) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n;
       i += stride) {
    static_cast<T*>(a.out)[i] = range::range_element<T>(a, i);
  }
}

unsigned grid_for(int64_t total) { return grid_stride_blocks(total, kThreads); }

}  // namespace

std::string launch_range(const RangeArgs& a, void* stream) {
  if (a.n == 0) return "";
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned grid = grid_for(a.n);
  switch (a.dtype) {
    case Dtype::kFloat: range_kernel<float><<<grid, kThreads, 0, s>>>(a); break;
    case Dtype::kDouble: range_kernel<double><<<grid, kThreads, 0, s>>>(a); break;
    case Dtype::kLong: range_kernel<int64_t><<<grid, kThreads, 0, s>>>(a); break;
    case Dtype::kInt: range_kernel<int32_t><<<grid, kThreads, 0, s>>>(a); break;
    case Dtype::kBool: return "arange/linspace: no Bool results";
    default: return "arange/linspace: built for float, double, int64 and int32 only";
  }
  return launch_status();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
