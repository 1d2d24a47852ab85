// backends/cuda/kernels/reduce_kernels.cu — sums. Of a contiguous range: each
// block reduces a grid-stride share (warp shuffles, then shared memory) into
// one partial; a second one-block launch adds the partials. Deterministic
// (no atomics): the same input gives the same bits on every run. Of the
// rows of a contiguous matrix (sum over dimensions): one block per row.
#include "backends/cuda/kernels/loops.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 1024;

template <typename Acc>
__device__ Acc block_sum(Acc v) {
  __shared__ Acc warp_sums[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : Acc(0);
  if (warp == 0) {
    for (int offset = 16; offset > 0; offset /= 2) {
      v += __shfl_down_sync(0xffffffffu, v, offset);
    }
  }
  return v;
}

template <typename T, typename Acc>
__global__ void partial_sums(const T* in, Acc* out, int64_t n) {
  Acc acc = 0;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * kThreads) {
    acc += static_cast<Acc>(in[i]);
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

template <typename T, typename Acc>
std::string run(const void* in, void* out, void* workspace, int64_t n, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  const int64_t blocks = sum_workspace_elems(n);
  partial_sums<T, Acc><<<static_cast<int>(blocks), kThreads, 0, s>>>(
      static_cast<const T*>(in), static_cast<Acc*>(workspace), n);
  std::string status = launch_status();
  if (!status.empty()) return status;
  partial_sums<Acc, Acc><<<1, kThreads, 0, s>>>(static_cast<const Acc*>(workspace),
                                                static_cast<Acc*>(out), blocks);
  return launch_status();
}

// One block per row of a contiguous rows×cols matrix.
template <typename T, typename Acc>
__global__ void row_sums(const T* in, Acc* out, int64_t cols) {
  const T* row = in + static_cast<int64_t>(blockIdx.x) * cols;
  Acc acc = 0;
  for (int64_t j = threadIdx.x; j < cols; j += kThreads) acc += static_cast<Acc>(row[j]);
  acc = block_sum(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

template <typename T, typename Acc>
std::string run_rows(const void* in, void* out, int64_t rows, int64_t cols, void* stream) {
  if (rows == 0) return "";
  if (rows > 0x7fffffff) return "sum: more than 2^31 - 1 output elements";
  row_sums<T, Acc><<<static_cast<unsigned>(rows), kThreads, 0,
                     static_cast<cudaStream_t>(stream)>>>(
      static_cast<const T*>(in), static_cast<Acc*>(out), cols);
  return launch_status();
}

}  // namespace

std::string launch_sum_rows(const void* in, void* out, int64_t rows, int64_t cols,
                            Dtype dtype, void* stream) {
  switch (dtype) {
    case Dtype::kFloat: return run_rows<float, float>(in, out, rows, cols, stream);
    case Dtype::kDouble: return run_rows<double, double>(in, out, rows, cols, stream);
    case Dtype::kLong: return run_rows<int64_t, int64_t>(in, out, rows, cols, stream);
    case Dtype::kInt: return run_rows<int32_t, int64_t>(in, out, rows, cols, stream);
    case Dtype::kBool: return run_rows<bool, int64_t>(in, out, rows, cols, stream);
  }
  return "sum: unknown dtype";
}

int64_t sum_workspace_elems(int64_t n) {
  const int64_t blocks = (n + kThreads * 4 - 1) / (kThreads * 4);
  return blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks);
}

std::string launch_sum(const void* in, void* out, void* workspace, int64_t n,
                       Dtype dtype, void* stream) {
  switch (dtype) {
    case Dtype::kFloat: return run<float, float>(in, out, workspace, n, stream);
    case Dtype::kDouble: return run<double, double>(in, out, workspace, n, stream);
    case Dtype::kLong: return run<int64_t, int64_t>(in, out, workspace, n, stream);
    case Dtype::kInt: return run<int32_t, int64_t>(in, out, workspace, n, stream);
    case Dtype::kBool: return run<bool, int64_t>(in, out, workspace, n, stream);
  }
  return "sum: unknown dtype";
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
