// backends/cuda/kernels/random_kernels.cu — the random samplers and dropout:
// one thread per Philox block, grid-stride; what a block writes is
// random::random_block (random_ops.cuh), the same function
// element_ops_test runs on the host. Compiled with --fmad=false (Note [CUDA
// random numbers equal the CPU's]).
#include <cstdint>

#include "backends/cuda/kernels/loops.cuh"
#include "backends/cuda/kernels/random_ops.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void random_kernel(RandomArgs a, int64_t blocks) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks;
       b += stride) {
    random::random_block<T>(a, b);
  }
}

unsigned grid_for(int64_t total) { return grid_stride_blocks(total, kThreads); }

}  // namespace

std::string launch_random(const RandomArgs& a, void* stream) {
  if (a.n == 0) return "";
  const bool floating = a.dtype == Dtype::kFloat || a.dtype == Dtype::kDouble;
  const bool needs_floating = a.op == RandomOp::kUniform || a.op == RandomOp::kNormal ||
                              a.op == RandomOp::kDropout;
  if (needs_floating && !floating) return "random kernels: this op needs a floating dtype";
  const int64_t blocks = random::blocks_for(a);
  const auto s = static_cast<cudaStream_t>(stream);
  switch (a.dtype) {
    case Dtype::kFloat: random_kernel<float><<<grid_for(blocks), kThreads, 0, s>>>(a, blocks); break;
    case Dtype::kDouble: random_kernel<double><<<grid_for(blocks), kThreads, 0, s>>>(a, blocks); break;
    case Dtype::kLong: random_kernel<int64_t><<<grid_for(blocks), kThreads, 0, s>>>(a, blocks); break;
    case Dtype::kInt: random_kernel<int32_t><<<grid_for(blocks), kThreads, 0, s>>>(a, blocks); break;
    case Dtype::kBool: random_kernel<bool><<<grid_for(blocks), kThreads, 0, s>>>(a, blocks); break;
    default: return "random kernels: built for the core five dtypes only";
  }
  return launch_status();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
