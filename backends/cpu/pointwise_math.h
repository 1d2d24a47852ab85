// backends/cpu/pointwise_math.h — exp, tanh, sigmoid and erfc written so that GCC
// vectorizes loops that call them on float, for the CPU plugin's kernels.
//
//   for (int64_t i = 0; i < n; ++i) y[i] = ember::cpu::math::exp(x[i]);
//
// double (and anything else) goes to the standard library. Internal to the
// CPU plugin.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ember::cpu::math {

// Forced inline: an out-of-line call (through the PLT of the plugin) in a
// loop stops GCC from vectorizing it, and GCC's heuristics judge these
// bodies too large to inline on their own.
#define EMBER_MATH_INLINE [[gnu::always_inline]] inline

// Note [Vectorizable exp]
// ~~~~~~~~~~~~~~~~~~~~~~~
// glibc's expf is a call GCC cannot vectorize (without -ffast-math), which
// made float32 exp, tanh and sigmoid run at a few hundred M elements/s. The
// float forms below use only arithmetic, floor, comparisons and integer
// bit manipulation, all of which GCC turns into SIMD with selects instead of
// branches: exp reduces x = n ln2 + r with |r| <= ln2 / 2 (ln2 split in two
// parts so that n ln2 is exact), evaluates a degree-6 polynomial for e^r,
// and scales by 2^n through the exponent bits, in two steps so that results
// down to the smallest subnormal come out right. Error: within 2 ulp of the
// correctly rounded value over the whole range; overflow gives inf,
// underflow 0, NaN stays NaN. tools/bench/pointwise_bench.cc measures it.

EMBER_MATH_INLINE float bits_to_float(int32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// 2^n for n in [-126, 127], as a float.
EMBER_MATH_INLINE float exp2_int(int32_t n) {
  return bits_to_float(static_cast<int32_t>(static_cast<uint32_t>(n + 127) << 23));
}

EMBER_MATH_INLINE float exp(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;       // few bits: n * kLn2Hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;   // ln 2 - kLn2Hi
  constexpr float kMax = 88.7228394f;         // above: inf
  constexpr float kMin = -103.972084f;        // below: 0 (under the smallest subnormal)
  // Adding 1.5 * 2^23 rounds to an integer (std::floor would not vectorize
  // without -fno-trapping-math).
  constexpr float kRound = 12582912.0f;
  // NaN compares false and becomes kMax here (no NaN reaches the integer
  // conversion below); it is put back at the end.
  const float xc = x < kMax ? (x > kMin ? x : kMin) : kMax;
  const float n = (xc * kLog2e + kRound) - kRound;
  const float r = (xc - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  // n lies in [-150, 128]: 2^n as 2^h * 2^(n - h), each factor normal.
  const auto ni = static_cast<int32_t>(n);
  const int32_t h = ni >> 1;  // floor(n / 2)
  const float result = p * exp2_int(h) * exp2_int(ni - h);
  const float big = x > kMax ? INFINITY : result;
  const float out = x < kMin ? 0.0f : big;
  return x != x ? x : out;  // NaN
}

// tanh: a polynomial near 0 (where 1 - 2 / (e^2x + 1) cancels), the exp
// form elsewhere; odd symmetry from the sign of x.
EMBER_MATH_INLINE float tanh(float x) {
  const float a = std::fabs(x);
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = x + x * z * p;
  // Past |x| = 9.01 tanh rounds to 1; clamping at 10 (not 9, where
  // 1 - 2 / (e + 1) rounds to the float below 1) keeps exp finite and gives
  // exactly 1 there, as libm (found by //tests/backends/cuda:element_ops_test).
  const float e = exp(2.0f * (a > 10.0f ? 10.0f : a));
  const float large = 1.0f - 2.0f / (e + 1.0f);
  const float signed_large = x < 0 ? -large : large;
  const float result = a < 0.625f ? small : signed_large;
  return x != x ? x : result;
}

EMBER_MATH_INLINE float sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }

// erfc: t exp(-x^2 + P(t)) with t = 1 / (1 + |x| / 2) and P a degree-9
// Chebyshev fit (Numerical Recipes' erfcc), whose relative error is below
// 1.2e-7 for every x >= 0; erfc(-x) = 2 - erfc(x). GELU uses it as
// 1 + erf(x) = erfc(-x), which keeps relative accuracy where 1 + erf(x)
// is tiny.
EMBER_MATH_INLINE float erfc(float x) {
  const float a = std::fabs(x);
  const float t = 1.0f / (1.0f + 0.5f * a);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  // exp(-a^2) loses relative accuracy when a^2 (up to ~100) is rounded, so
  // a = hi + lo with hi of 12 significant bits, whose square is exact:
  // exp(-a^2) = exp(-hi^2) * exp(-lo * (a + hi)).
  int32_t bits;
  std::memcpy(&bits, &a, sizeof bits);
  const float hi = bits_to_float(bits & static_cast<int32_t>(0xFFFFF000u));
  const float lo = a - hi;
  const float tail = t * exp(-hi * hi) * exp(p - lo * (a + hi));
  const float e = a > 10.0f ? 0.0f : tail;  // erfc(10) < 1e-44; inf - inf is NaN
  const float result = x < 0 ? 2.0f - e : e;
  return x != x ? x : result;
}

// Other types (double): the standard library.
template <typename T>
inline T exp(T x) {
  return std::exp(x);
}
template <typename T>
inline T tanh(T x) {
  return std::tanh(x);
}
template <typename T>
inline T erfc(T x) {
  return std::erfc(x);
}
template <typename T>
inline T sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

#undef EMBER_MATH_INLINE

}  // namespace ember::cpu::math
