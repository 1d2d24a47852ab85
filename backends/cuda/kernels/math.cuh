// backends/cuda/kernels/math.cuh — the element functions that several
// kernel files share (floating T: float or double), written as the CPU
// plugin computes them so that both devices agree to rounding.
#pragma once

#include <cmath>
#include <type_traits>

#include "backends/cuda/kernels/loops.cuh"

namespace ember {
namespace cuda {
namespace kernels {

constexpr double kSqrt1_2 = 0.70710678118654752440;     // 1 / sqrt(2)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;   // 1 / sqrt(2 pi)
constexpr double kGeluCubic = 0.044715;

// x itself when it is NaN, else `value` (integers have no NaN).
template <typename T>
__device__ __forceinline__ T nan_or(T x, T value) {
  if constexpr (std::is_floating_point<T>::value) {
    return x != x ? x : value;
  } else {
    return value;
  }
}
// max(x, lo) and min(x, hi); a NaN in either gives NaN (clamp's rule).
template <typename T>
__device__ __forceinline__ T clamp_below(T x, T lo) {
  return nan_or(lo, nan_or(x, x < lo ? lo : x));
}
template <typename T>
__device__ __forceinline__ T clamp_above(T x, T hi) {
  return nan_or(hi, nan_or(x, x > hi ? hi : x));
}

template <typename T>
__device__ __forceinline__ T sigmoid(T x) {
  return T(1) / (T(1) + exp(-x));
}

template <typename T>
__device__ __forceinline__ T gelu(T x) {
  return T(0.5) * x * erfc(-x * T(kSqrt1_2));
}
template <typename T>
__device__ __forceinline__ T gelu_tanh(T x) {
  const T inner = T(kSqrt2OverPi) * (x + T(kGeluCubic) * x * x * x);
  return T(0.5) * x * (T(1) + tanh(inner));
}
template <typename T>
__device__ __forceinline__ T gelu_derivative(T x) {
  const T cdf = T(0.5) * erfc(-x * T(kSqrt1_2));
  const T pdf = T(kInvSqrt2Pi) * exp(T(-0.5) * x * x);
  return cdf + x * pdf;
}
template <typename T>
__device__ __forceinline__ T gelu_tanh_derivative(T x) {
  const T inner = T(kSqrt2OverPi) * (x + T(kGeluCubic) * x * x * x);
  const T t = tanh(inner);
  const T d_inner = T(kSqrt2OverPi) * (T(1) + T(3 * kGeluCubic) * x * x);
  return T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * d_inner;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
