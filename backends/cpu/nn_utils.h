// backends/cpu/nn_utils.h — helpers shared by the CPU plugin's
// neural-network kernels (nn_softmax.cc, nn_loss.cc, nn_norm.cc,
// nn_embedding.cc): argument checks, contiguous operands, a vectorizable
// exp, and a parallel loop. Internal to the plugin.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

// Functions.h defines the inline Tensor methods (contiguous, reshape, ...).
#include "aten/Functions.h"
#include "aten/LossDecompositions.h"
#include "aten/Tensor.h"
#include "backends/cpu/parallel_loops.h"
#include "c10/core/ScalarType.h"
#include "c10/util/Exception.h"

namespace ember::cpu::nn {

// The tensor itself when contiguous, else a contiguous copy.
inline at::Tensor contiguous(const at::Tensor& t) {
  return t.is_contiguous() ? t : t.contiguous();
}

// An optional tensor that is present and defined.
inline bool present(const std::optional<at::Tensor>& t) {
  return t.has_value() && t->defined();
}

inline void check_defined(const at::Tensor& t, const char* op, const char* what) {
  TORCH_CHECK(t.defined(), op, ": the ", what, " tensor is undefined; pass a "
              "defined tensor.");
  TORCH_CHECK(t.device().type() == c10::DeviceType::CPU, op, ": expected the ",
              what, " on the CPU, but it is on ", t.device(), ".");
}

inline void check_floating(const at::Tensor& t, const char* op, const char* what) {
  at::native::check_loss_floating(t, op, what);
}

// at::Reduction as the loss ops take it.
inline void check_reduction(int64_t reduction, const char* op) {
  at::native::check_loss_reduction(reduction, op);
}

// The accumulator of a reduction over T: double for float and double,
// float for Half and BFloat16.
template <typename T>
using acc_type_t = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, float>,
                                      double, float>;

// Note [Vectorizable exp]
// ~~~~~~~~~~~~~~~~~~~~~~~
// glibc's expf is a function call per element, which GCC cannot
// vectorize, and softmax spends most of its time in exp. fast_exp is
// branch-free (selects only), so GCC turns a loop over it into SIMD code:
// x = n ln2 + r with n rounded to nearest (the 1.5 * 2^23 trick: adding it
// leaves round(k) in the low mantissa bits, read as an integer without any
// float-to-int conversion of a possible NaN), exp(r) by its Taylor series
// to degree 7 (|r| <= ln2/2, truncation < 6e-9), and 2^n built in the
// exponent bits. Error within 2 ulp of expf; exp(x) is 0 below -87.3 (a
// normal-range result instead of a denormal) and +inf above 88.3; NaN
// stays NaN.
inline float fast_exp(float x) {
  constexpr float kLo = -87.33f;
  constexpr float kHi = 88.3f;
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;
  constexpr float kLn2Lo = 1.42860682030941723212e-6f;
  constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23
  const float xc = x < kLo ? kLo : (x > kHi ? kHi : x);
  const float shifted = xc * kLog2e + kMagic;
  const float n = shifted - kMagic;
  const float r = (xc - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  uint32_t bits;
  std::memcpy(&bits, &shifted, sizeof(bits));
  // Low bits: round(k) + 2^22; the exponent field of 2^n is n + 127.
  const uint32_t scale_bits = (bits - 0x4B400000u + 127u) << 23;
  float scale;
  std::memcpy(&scale, &scale_bits, sizeof(scale));
  const float y = p * scale;
  return x < kLo ? 0.0f : (x > kHi ? HUGE_VALF : y);
}
inline double fast_exp(double x) { return std::exp(x); }

// The plugin's one parallel loop (See Note [One thread count for every loop]).
using ember::cpu::parallel_for;

}  // namespace ember::cpu::nn
