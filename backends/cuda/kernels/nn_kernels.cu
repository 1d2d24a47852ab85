// backends/cuda/kernels/nn_kernels.cu — what a classifier's training step
// needs beyond the pointwise ops: softmax and log_softmax over the last
// dimension of a contiguous matrix and their backward, nll_loss and its
// backward, threshold_backward (ReLU's gradient) and scaling by a host
// scalar. Float and double.
#include <cmath>

#include "backends/cuda/kernels/loops.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kThreads = 256;

enum class Combine { kSum, kMax };

template <Combine C, typename T>
__device__ T combine(T a, T b) {
  if constexpr (C == Combine::kSum) {
    return a + b;
  } else {
    return a > b ? a : b;
  }
}

template <Combine C, typename T>
__device__ T identity() {
  if constexpr (C == Combine::kSum) {
    return T(0);
  } else {
    return -INFINITY;
  }
}

// The block's combined value, returned to every thread.
template <Combine C, typename T>
__device__ T block_all(T v) {
  __shared__ T warp_vals[kThreads / 32];
  __shared__ T result;
  for (int offset = 16; offset > 0; offset /= 2) {
    v = combine<C>(v, __shfl_down_sync(0xffffffffu, v, offset));
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_vals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kThreads / 32 ? warp_vals[lane] : identity<C, T>();
    for (int offset = 16; offset > 0; offset /= 2) {
      v = combine<C>(v, __shfl_down_sync(0xffffffffu, v, offset));
    }
    if (lane == 0) result = v;
  }
  __syncthreads();
  const T r = result;
  __syncthreads();  // result and warp_vals are reused by the next call
  return r;
}

// One block per row: max, then the sum of exp(x - max), then the outputs.
template <typename T, bool Log>
__global__ void softmax_rows(const T* in, T* out, int64_t cols) {
  const T* x = in + blockIdx.x * cols;
  T* y = out + blockIdx.x * cols;
  T m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) m = x[c] > m ? x[c] : m;
  m = block_all<Combine::kMax>(m);
  T s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) s += exp(x[c] - m);
  s = block_all<Combine::kSum>(s);
  if (Log) {
    const T log_s = log(s);
    for (int64_t c = threadIdx.x; c < cols; c += kThreads) y[c] = x[c] - m - log_s;
  } else {
    for (int64_t c = threadIdx.x; c < cols; c += kThreads) y[c] = exp(x[c] - m) / s;
  }
}

// log_softmax: gi = g - exp(y) * sum(g); softmax: gi = y * (g - sum(g * y)).
template <typename T, bool Log>
__global__ void softmax_backward_rows(const T* grad, const T* out, T* grad_in, int64_t cols) {
  const int64_t base = blockIdx.x * cols;
  T s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    s += Log ? grad[base + c] : grad[base + c] * out[base + c];
  }
  s = block_all<Combine::kSum>(s);
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    const T g = grad[base + c], y = out[base + c];
    grad_in[base + c] = Log ? g - exp(y) * s : y * (g - s);
  }
}

// One block: per sample i with target t (not ignore_index), loss_i =
// -w[t] * x[i, t]; out is the per-sample losses (reduction none) or their
// sum (divided by the summed weights for mean); total_weight gets the summed
// weights. A target outside [0, classes) sets *bad to it (first one wins).
template <typename T>
__global__ void nll_forward(const T* x, const int64_t* target, const T* weight, T* out,
                            T* total_weight, int64_t n, int64_t classes, int reduction,
                            int64_t ignore_index, int64_t* bad) {
  T loss = 0, wsum = 0;
  for (int64_t i = threadIdx.x; i < n; i += kThreads) {
    const int64_t t = target[i];
    T li = 0;
    if (t != ignore_index) {
      if (t < 0 || t >= classes) {
        atomicCAS(reinterpret_cast<unsigned long long*>(bad),
                  static_cast<unsigned long long>(INT64_MIN), static_cast<unsigned long long>(t));
      } else {
        const T w = weight ? weight[t] : T(1);
        li = -w * x[i * classes + t];
        wsum += w;
      }
    }
    if (reduction == 0) out[i] = li;
    loss += li;
  }
  loss = block_all<Combine::kSum>(loss);
  wsum = block_all<Combine::kSum>(wsum);
  if (threadIdx.x == 0) {
    if (reduction != 0) out[0] = reduction == 1 ? loss / wsum : loss;
    *total_weight = wsum;
  }
}

// grad_input (zeroed by the caller) [i, t] = -w[t] * g, g the sample's
// grad_output (reduction none) or the one grad_output (divided by
// total_weight for mean).
template <typename T>
__global__ void nll_backward(const T* grad_output, const int64_t* target, const T* weight,
                             const T* total_weight, T* grad_input, int64_t n,
                             int64_t classes, int reduction, int64_t ignore_index) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  const int64_t t = target[i];
  if (t == ignore_index || t < 0 || t >= classes) return;
  T g = reduction == 0 ? grad_output[i] : grad_output[0];
  if (reduction == 1) g /= *total_weight;
  grad_input[i * classes + t] = -(weight ? weight[t] : T(1)) * g;
}

template <typename T>
struct ThresholdBackwardFn {
  double threshold;
  __device__ void operator()(char* const* p) const {
    const T g = *reinterpret_cast<const T*>(p[1]);
    const T x = *reinterpret_cast<const T*>(p[2]);
    *reinterpret_cast<T*>(p[0]) = static_cast<double>(x) <= threshold ? T(0) : g;
  }
};

template <typename T>
struct ScaleFn {
  T factor;
  __device__ void operator()(char* const* p) const {
    *reinterpret_cast<T*>(p[0]) = *reinterpret_cast<const T*>(p[1]) * factor;
  }
};

int blocks_for(int64_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

}  // namespace

std::string launch_softmax(const void* in, void* out, int64_t rows, int64_t cols, bool log,
                           Dtype dtype, void* stream) {
  if (rows == 0 || cols == 0) return "";
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned grid = static_cast<unsigned>(rows);
  switch (dtype) {
    case Dtype::kFloat:
      if (log) softmax_rows<float, true><<<grid, kThreads, 0, s>>>(static_cast<const float*>(in), static_cast<float*>(out), cols);
      else softmax_rows<float, false><<<grid, kThreads, 0, s>>>(static_cast<const float*>(in), static_cast<float*>(out), cols);
      return launch_status();
    case Dtype::kDouble:
      if (log) softmax_rows<double, true><<<grid, kThreads, 0, s>>>(static_cast<const double*>(in), static_cast<double*>(out), cols);
      else softmax_rows<double, false><<<grid, kThreads, 0, s>>>(static_cast<const double*>(in), static_cast<double*>(out), cols);
      return launch_status();
    default: break;
  }
  return "softmax is built for float and double only";
}

std::string launch_softmax_backward(const void* grad, const void* out, void* grad_in,
                                    int64_t rows, int64_t cols, bool log, Dtype dtype,
                                    void* stream) {
  if (rows == 0 || cols == 0) return "";
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned grid = static_cast<unsigned>(rows);
  switch (dtype) {
    case Dtype::kFloat: {
      auto g = static_cast<const float*>(grad);
      auto y = static_cast<const float*>(out);
      auto gi = static_cast<float*>(grad_in);
      if (log) softmax_backward_rows<float, true><<<grid, kThreads, 0, s>>>(g, y, gi, cols);
      else softmax_backward_rows<float, false><<<grid, kThreads, 0, s>>>(g, y, gi, cols);
      return launch_status();
    }
    case Dtype::kDouble: {
      auto g = static_cast<const double*>(grad);
      auto y = static_cast<const double*>(out);
      auto gi = static_cast<double*>(grad_in);
      if (log) softmax_backward_rows<double, true><<<grid, kThreads, 0, s>>>(g, y, gi, cols);
      else softmax_backward_rows<double, false><<<grid, kThreads, 0, s>>>(g, y, gi, cols);
      return launch_status();
    }
    default: break;
  }
  return "softmax backward is built for float and double only";
}

std::string launch_nll_forward(const NllArgs& a, void* out, void* total_weight, int64_t* bad,
                               void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  switch (a.dtype) {
    case Dtype::kFloat:
      nll_forward<float><<<1, kThreads, 0, s>>>(
          static_cast<const float*>(a.input), a.target, static_cast<const float*>(a.weight),
          static_cast<float*>(out), static_cast<float*>(total_weight), a.n, a.classes,
          a.reduction, a.ignore_index, bad);
      return launch_status();
    case Dtype::kDouble:
      nll_forward<double><<<1, kThreads, 0, s>>>(
          static_cast<const double*>(a.input), a.target, static_cast<const double*>(a.weight),
          static_cast<double*>(out), static_cast<double*>(total_weight), a.n, a.classes,
          a.reduction, a.ignore_index, bad);
      return launch_status();
    default: break;
  }
  return "nll_loss is built for float and double only";
}

std::string launch_nll_backward(const NllArgs& a, const void* grad_output,
                                const void* total_weight, void* grad_input, void* stream) {
  if (a.n == 0) return "";
  const auto s = static_cast<cudaStream_t>(stream);
  switch (a.dtype) {
    case Dtype::kFloat:
      nll_backward<float><<<blocks_for(a.n), kThreads, 0, s>>>(
          static_cast<const float*>(grad_output), a.target, static_cast<const float*>(a.weight),
          static_cast<const float*>(total_weight), static_cast<float*>(grad_input), a.n,
          a.classes, a.reduction, a.ignore_index);
      return launch_status();
    case Dtype::kDouble:
      nll_backward<double><<<blocks_for(a.n), kThreads, 0, s>>>(
          static_cast<const double*>(grad_output), a.target, static_cast<const double*>(a.weight),
          static_cast<const double*>(total_weight), static_cast<double*>(grad_input), a.n,
          a.classes, a.reduction, a.ignore_index);
      return launch_status();
    default: break;
  }
  return "nll_loss backward is built for float and double only";
}

std::string launch_threshold_backward(const Iteration& it, Dtype dtype, double threshold,
                                      void* stream) {
  switch (dtype) {
    case Dtype::kFloat:
      return launch_elementwise_typed<3, float>(it, ThresholdBackwardFn<float>{threshold}, stream);
    case Dtype::kDouble:
      return launch_elementwise_typed<3, double>(it, ThresholdBackwardFn<double>{threshold}, stream);
    case Dtype::kLong:
      return launch_elementwise_typed<3, int64_t>(it, ThresholdBackwardFn<int64_t>{threshold}, stream);
    case Dtype::kInt:
      return launch_elementwise_typed<3, int32_t>(it, ThresholdBackwardFn<int32_t>{threshold}, stream);
    case Dtype::kBool: break;
  }
  return "threshold_backward is not built for bool";
}

std::string launch_scale(const Iteration& it, Dtype dtype, double factor, void* stream) {
  switch (dtype) {
    case Dtype::kFloat:
      return launch_elementwise_typed<2, float>(it, ScaleFn<float>{static_cast<float>(factor)}, stream);
    case Dtype::kDouble:
      return launch_elementwise_typed<2, double>(it, ScaleFn<double>{factor}, stream);
    default: break;
  }
  return "scaling is built for float and double only";
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
