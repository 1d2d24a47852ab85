// backends/cuda/kernels/nn_kernels.cu — what a classifier's training step
// needs beyond the pointwise ops: softmax and log_softmax over the last
// dimension of a contiguous matrix and their backward, nll_loss and its
// backward, threshold_backward (ReLU's gradient) and scaling by a host
// scalar. Float, Double, Half and BFloat16 (the last two computed in float:
// T below is the stored type, C = opmath_t<T> what a kernel computes in);
// threshold_backward also the integer dtypes.
#include <cmath>
#include <string>
#include <type_traits>

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
// R is the result's type: T's, or float for Half in (half_to_float).
template <typename T, typename R, bool Log>
__global__ void softmax_rows(const T* in, R* out, int64_t cols) {
  using C = opmath_t<T>;
  const T* x = in + blockIdx.x * cols;
  R* y = out + blockIdx.x * cols;
  C m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    const C v = static_cast<C>(x[c]);
    m = v > m ? v : m;
  }
  m = block_all<Combine::kMax>(m);
  C s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) s += exp(static_cast<C>(x[c]) - m);
  s = block_all<Combine::kSum>(s);
  if (Log) {
    const C log_s = log(s);
    for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
      y[c] = R(static_cast<C>(x[c]) - m - log_s);
    }
  } else {
    for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
      y[c] = R(exp(static_cast<C>(x[c]) - m) / s);
    }
  }
}

// log_softmax: gi = g - exp(y) * sum(g); softmax: gi = y * (g - sum(g * y)).
// R is grad_in's type: T's, or Half for float grads (half_to_float).
template <typename T, typename R, bool Log>
__global__ void softmax_backward_rows(const T* grad, const T* out, R* grad_in, int64_t cols) {
  using C = opmath_t<T>;
  const int64_t base = blockIdx.x * cols;
  C s = 0;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    const C g = static_cast<C>(grad[base + c]);
    s += Log ? g : g * static_cast<C>(out[base + c]);
  }
  s = block_all<Combine::kSum>(s);
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) {
    const C g = static_cast<C>(grad[base + c]), y = static_cast<C>(out[base + c]);
    grad_in[base + c] = R(Log ? g - exp(y) * s : y * (g - s));
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
  using C = opmath_t<T>;
  C loss = 0, wsum = 0;
  for (int64_t i = threadIdx.x; i < n; i += kThreads) {
    const int64_t t = target[i];
    C li = 0;
    if (t != ignore_index) {
      if (t < 0 || t >= classes) {
        atomicCAS(reinterpret_cast<unsigned long long*>(bad),
                  static_cast<unsigned long long>(INT64_MIN), static_cast<unsigned long long>(t));
      } else {
        const C w = weight ? static_cast<C>(weight[t]) : C(1);
        li = -w * static_cast<C>(x[i * classes + t]);
        wsum += w;
      }
    }
    if (reduction == 0) out[i] = T(li);
    loss += li;
  }
  loss = block_all<Combine::kSum>(loss);
  wsum = block_all<Combine::kSum>(wsum);
  if (threadIdx.x == 0) {
    if (reduction != 0) out[0] = T(reduction == 1 ? loss / wsum : loss);
    *total_weight = T(wsum);
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
  using C = opmath_t<T>;
  const int64_t t = target[i];
  if (t == ignore_index || t < 0 || t >= classes) return;
  C g = static_cast<C>(reduction == 0 ? grad_output[i] : grad_output[0]);
  if (reduction == 1) g /= static_cast<C>(*total_weight);
  grad_input[i * classes + t] = T(-(weight ? static_cast<C>(weight[t]) : C(1)) * g);
}

template <typename T>
struct ThresholdBackwardFn {
  double threshold;
  __device__ void operator()(char* const* p) const {
    const T g = *reinterpret_cast<const T*>(p[1]);
    const T x = *reinterpret_cast<const T*>(p[2]);
    *reinterpret_cast<T*>(p[0]) = convert<double>(x) <= threshold ? convert<T>(0) : g;
  }
};

template <typename T>
struct ScaleFn {
  opmath_t<T> factor;
  __device__ void operator()(char* const* p) const {
    *reinterpret_cast<T*>(p[0]) =
        T(static_cast<opmath_t<T>>(*reinterpret_cast<const T*>(p[1])) * factor);
  }
};

// Calls f(T{}) for the stored type of a floating `dtype`; for the others
// (which the host refuses first) returns that `op` has floating kernels only.
template <typename F>
std::string dispatch_floating(Dtype dtype, const char* op, F&& f) {
  switch (dtype) {
    case Dtype::kFloat: return f(float{});
    case Dtype::kDouble: return f(double{});
    case Dtype::kHalf: return f(Half{});
    case Dtype::kBFloat16: return f(BFloat16{});
    default: return std::string(op) + " is built for floating dtypes only";
  }
}

int blocks_for(int64_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

}  // namespace

std::string launch_softmax(const void* in, void* out, int64_t rows, int64_t cols, bool log,
                           Dtype dtype, bool half_to_float, void* stream) {
  if (rows == 0 || cols == 0) return "";
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned grid = static_cast<unsigned>(rows);
  auto run = [&](auto in_tag, auto out_tag) {
    using T = decltype(in_tag);
    using R = decltype(out_tag);
    const T* x = static_cast<const T*>(in);
    R* y = static_cast<R*>(out);
    if (log) softmax_rows<T, R, true><<<grid, kThreads, 0, s>>>(x, y, cols);
    else softmax_rows<T, R, false><<<grid, kThreads, 0, s>>>(x, y, cols);
    return launch_status();
  };
  if (half_to_float) {
    if (dtype != Dtype::kHalf) return "softmax: half_to_float takes Half input";
    return run(Half{}, float{});
  }
  return dispatch_floating(dtype, "softmax", [&](auto tag) { return run(tag, tag); });
}

std::string launch_softmax_backward(const void* grad, const void* out, void* grad_in,
                                    int64_t rows, int64_t cols, bool log, Dtype dtype,
                                    bool half_to_float, void* stream) {
  if (rows == 0 || cols == 0) return "";
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned grid = static_cast<unsigned>(rows);
  auto run = [&](auto in_tag, auto out_tag) {
    using T = decltype(in_tag);
    using R = decltype(out_tag);
    auto g = static_cast<const T*>(grad);
    auto y = static_cast<const T*>(out);
    auto gi = static_cast<R*>(grad_in);
    if (log) softmax_backward_rows<T, R, true><<<grid, kThreads, 0, s>>>(g, y, gi, cols);
    else softmax_backward_rows<T, R, false><<<grid, kThreads, 0, s>>>(g, y, gi, cols);
    return launch_status();
  };
  if (half_to_float) {
    if (dtype != Dtype::kFloat) return "softmax backward: half_to_float takes Float gradients";
    return run(float{}, Half{});
  }
  return dispatch_floating(dtype, "softmax backward", [&](auto tag) { return run(tag, tag); });
}

std::string launch_nll_forward(const NllArgs& a, void* out, void* total_weight, int64_t* bad,
                               void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  return dispatch_floating(a.dtype, "nll_loss", [&](auto tag) {
    using T = decltype(tag);
    nll_forward<T><<<1, kThreads, 0, s>>>(
        static_cast<const T*>(a.input), a.target, static_cast<const T*>(a.weight),
        static_cast<T*>(out), static_cast<T*>(total_weight), a.n, a.classes, a.reduction,
        a.ignore_index, bad);
    return launch_status();
  });
}

std::string launch_nll_backward(const NllArgs& a, const void* grad_output,
                                const void* total_weight, void* grad_input, void* stream) {
  if (a.n == 0) return "";
  const auto s = static_cast<cudaStream_t>(stream);
  return dispatch_floating(a.dtype, "nll_loss backward", [&](auto tag) {
    using T = decltype(tag);
    nll_backward<T><<<blocks_for(a.n), kThreads, 0, s>>>(
        static_cast<const T*>(grad_output), a.target, static_cast<const T*>(a.weight),
        static_cast<const T*>(total_weight), static_cast<T*>(grad_input), a.n, a.classes,
        a.reduction, a.ignore_index);
    return launch_status();
  });
}

std::string launch_threshold_backward(const Iteration& it, Dtype dtype, double threshold,
                                      void* stream) {
  if (dtype == Dtype::kBool) return "threshold_backward is not built for bool";
  return dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same<T, bool>::value) {
      return std::string("threshold_backward is not built for bool");
    } else {
      return launch_elementwise_typed<3, T>(it, ThresholdBackwardFn<T>{threshold}, stream);
    }
  });
}

std::string launch_scale(const Iteration& it, Dtype dtype, double factor, void* stream) {
  return dispatch_floating(dtype, "scaling", [&](auto tag) {
    using T = decltype(tag);
    return launch_elementwise_typed<2, T>(it, ScaleFn<T>{static_cast<opmath_t<T>>(factor)},
                                          stream);
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
