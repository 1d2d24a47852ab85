// backends/cpu/pointwise.h — the CPU plugin's pointwise kernels beyond the
// arithmetic of kernels.h, as plain C++ functions.
//
// Each is registered for DispatchKey::CPU under the aten operator named in
// its comment (pointwise_*.cc), with exactly the C++
// type the dispatcher checks against the schema. Programs call them through
// at::sin, Tensor::clamp_, …; tests of the plugin may call them directly:
//
//   at::Tensor y = ember::cpu::clamp(x, /*min=*/0, /*max=*/std::nullopt);
//
// Naming: `op` is the functional form, `op_` in place, `op_out` the out=
// form; a `_scalar` / `_tensor` suffix picks the Scalar or Tensor overload
// where both exist. Every kernel broadcasts, follows PyTorch's type
// promotion and accepts any strides; errors throw c10::Error. Which dtypes
// each accepts is in docs/ops/pointwise.md.
#pragma once

#include <cstdint>
#include <optional>

#include "aten/Tensor.h"
#include "c10/core/Scalar.h"
#include "c10/util/StringUtil.h"

namespace ember::cpu {

// ---- div with rounding_mode (pointwise_arith.cc) ---------------------------
// rounding_mode: none (true division), "trunc" or "floor"; integer inputs
// stay integral with "trunc"/"floor", and integer division by zero throws
// (ZeroDivisionError).
at::Tensor div_tensor_mode(const at::Tensor& self, const at::Tensor& other,
                           std::optional<c10::string_view> rounding_mode);  // div.Tensor_mode
at::Tensor& div_out_mode(const at::Tensor& self, const at::Tensor& other,
                         std::optional<c10::string_view> rounding_mode,
                         at::Tensor& out);                                  // div.out_mode
at::Tensor& div_tensor_mode_(at::Tensor& self, const at::Tensor& other,
                             std::optional<c10::string_view> rounding_mode);  // div_.Tensor_mode

// ---- unary (pointwise_unary.cc) --------------------------------------------
// Each `name` has name(self), name_(self) and name_out(self, out),
// registered as `name`, `name_` and `name.out`.
#define EMBER_DECLARE_UNARY_(name)                  \
  at::Tensor name(const at::Tensor& self);          \
  at::Tensor& name##_(at::Tensor& self);            \
  at::Tensor& name##_out(const at::Tensor& self, at::Tensor& out);
// Same dtype: neg (not Bool), abs, sign, floor/ceil/round/trunc (integers
// unchanged, not Bool).
EMBER_DECLARE_UNARY_(neg)
EMBER_DECLARE_UNARY_(abs)
EMBER_DECLARE_UNARY_(sign)
EMBER_DECLARE_UNARY_(floor)
EMBER_DECLARE_UNARY_(ceil)
EMBER_DECLARE_UNARY_(round)
EMBER_DECLARE_UNARY_(trunc)
// Floating results: integral and bool inputs give Float.
EMBER_DECLARE_UNARY_(exp)
EMBER_DECLARE_UNARY_(log)
EMBER_DECLARE_UNARY_(sqrt)
EMBER_DECLARE_UNARY_(log1p)
EMBER_DECLARE_UNARY_(expm1)
EMBER_DECLARE_UNARY_(rsqrt)
EMBER_DECLARE_UNARY_(reciprocal)
EMBER_DECLARE_UNARY_(sin)
EMBER_DECLARE_UNARY_(cos)
EMBER_DECLARE_UNARY_(tanh)
EMBER_DECLARE_UNARY_(sigmoid)
// Bool result (in place: self's dtype).
EMBER_DECLARE_UNARY_(logical_not)
#undef EMBER_DECLARE_UNARY_
at::Tensor& relu_(at::Tensor& self);                                     // relu_
at::Tensor round_decimals(const at::Tensor& self, int64_t decimals);     // round.decimals
at::Tensor& round_decimals_(at::Tensor& self, int64_t decimals);         // round_.decimals
at::Tensor& round_decimals_out(const at::Tensor& self, int64_t decimals,
                               at::Tensor& out);                         // round.decimals_out
at::Tensor isnan(const at::Tensor& self);                                // isnan
at::Tensor isinf(const at::Tensor& self);                                // isinf

// ---- binary (pointwise_binary.cc) --------------------------------------------
// Ops with Tensor and Scalar overloads: name (name.Tensor), name_scalar
// (name.Scalar), name_ / name_scalar_ (name_.Tensor / name_.Scalar),
// name_out / name_scalar_out (name.Tensor_out / name.Scalar_out).
#define EMBER_DECLARE_BINARY_(name)                                              \
  at::Tensor name(const at::Tensor& self, const at::Tensor& other);              \
  at::Tensor name##_scalar(const at::Tensor& self, const c10::Scalar& other);    \
  at::Tensor& name##_(at::Tensor& self, const at::Tensor& other);                \
  at::Tensor& name##_scalar_(at::Tensor& self, const c10::Scalar& other);        \
  at::Tensor& name##_out(const at::Tensor& self, const at::Tensor& other,        \
                         at::Tensor& out);                                       \
  at::Tensor& name##_scalar_out(const at::Tensor& self, const c10::Scalar& other, \
                                at::Tensor& out);
// Comparisons: Bool results (in place: self's dtype).
EMBER_DECLARE_BINARY_(eq)
EMBER_DECLARE_BINARY_(ne)
EMBER_DECLARE_BINARY_(lt)
EMBER_DECLARE_BINARY_(le)
EMBER_DECLARE_BINARY_(gt)
EMBER_DECLARE_BINARY_(ge)
// fmod: sign of the dividend; remainder: sign of the divisor. Not Bool.
EMBER_DECLARE_BINARY_(fmod)
EMBER_DECLARE_BINARY_(remainder)
#undef EMBER_DECLARE_BINARY_
// Tensor-only ops: name, name_ (name_), name_out (name.out; for pow
// pow.Tensor_Tensor, pow_.Tensor, pow.Tensor_Tensor_out).
#define EMBER_DECLARE_TENSOR_BINARY_(name)                                \
  at::Tensor name(const at::Tensor& self, const at::Tensor& other);       \
  at::Tensor& name##_(at::Tensor& self, const at::Tensor& other);         \
  at::Tensor& name##_out(const at::Tensor& self, const at::Tensor& other, \
                         at::Tensor& out);
EMBER_DECLARE_TENSOR_BINARY_(logical_and)
EMBER_DECLARE_TENSOR_BINARY_(logical_or)
EMBER_DECLARE_TENSOR_BINARY_(logical_xor)
EMBER_DECLARE_TENSOR_BINARY_(pow)
#undef EMBER_DECLARE_TENSOR_BINARY_
at::Tensor maximum(const at::Tensor& self, const at::Tensor& other);     // maximum
at::Tensor& maximum_out(const at::Tensor& self, const at::Tensor& other,
                        at::Tensor& out);                                // maximum.out
at::Tensor minimum(const at::Tensor& self, const at::Tensor& other);     // minimum
at::Tensor& minimum_out(const at::Tensor& self, const at::Tensor& other,
                        at::Tensor& out);                                // minimum.out
at::Tensor pow_tensor_scalar(const at::Tensor& self,
                             const c10::Scalar& exponent);               // pow.Tensor_Scalar
at::Tensor& pow_tensor_scalar_out(const at::Tensor& self, const c10::Scalar& exponent,
                                  at::Tensor& out);                      // pow.Tensor_Scalar_out
at::Tensor& pow_scalar_(at::Tensor& self, const c10::Scalar& exponent);  // pow_.Scalar
at::Tensor pow_scalar_base(const c10::Scalar& self,
                           const at::Tensor& exponent);                  // pow.Scalar
at::Tensor& pow_scalar_base_out(const c10::Scalar& self, const at::Tensor& exponent,
                                at::Tensor& out);                        // pow.Scalar_out
at::Tensor remainder_scalar_tensor(const c10::Scalar& self,
                                   const at::Tensor& other);             // remainder.Scalar_Tensor

// ---- where, clamp, addcmul, addcdiv, lerp (pointwise_ternary.cc) -------------
at::Tensor where_self(const at::Tensor& condition, const at::Tensor& self,
                      const at::Tensor& other);                          // where.self
at::Tensor& where_self_out(const at::Tensor& condition, const at::Tensor& self,
                           const at::Tensor& other, at::Tensor& out);    // where.self_out
at::Tensor clamp(const at::Tensor& self, const std::optional<c10::Scalar>& min,
                 const std::optional<c10::Scalar>& max);                 // clamp
at::Tensor& clamp_(at::Tensor& self, const std::optional<c10::Scalar>& min,
                   const std::optional<c10::Scalar>& max);               // clamp_
at::Tensor& clamp_out(const at::Tensor& self, const std::optional<c10::Scalar>& min,
                      const std::optional<c10::Scalar>& max, at::Tensor& out);  // clamp.out
at::Tensor clamp_tensor(const at::Tensor& self, const std::optional<at::Tensor>& min,
                        const std::optional<at::Tensor>& max);           // clamp.Tensor
at::Tensor& clamp_tensor_(at::Tensor& self, const std::optional<at::Tensor>& min,
                          const std::optional<at::Tensor>& max);         // clamp_.Tensor
at::Tensor& clamp_tensor_out(const at::Tensor& self, const std::optional<at::Tensor>& min,
                             const std::optional<at::Tensor>& max,
                             at::Tensor& out);                           // clamp.Tensor_out
// clamp_min / clamp_max: name, name_, name_out (Scalar bound); name_tensor,
// name_tensor_, name_tensor_out (Tensor bound).
#define EMBER_DECLARE_CLAMP_ONE_SIDE_(name)                                          \
  at::Tensor name(const at::Tensor& self, const c10::Scalar& bound);                 \
  at::Tensor& name##_(at::Tensor& self, const c10::Scalar& bound);                   \
  at::Tensor& name##_out(const at::Tensor& self, const c10::Scalar& bound,           \
                         at::Tensor& out);                                           \
  at::Tensor name##_tensor(const at::Tensor& self, const at::Tensor& bound);         \
  at::Tensor& name##_tensor_(at::Tensor& self, const at::Tensor& bound);             \
  at::Tensor& name##_tensor_out(const at::Tensor& self, const at::Tensor& bound,     \
                                at::Tensor& out);
EMBER_DECLARE_CLAMP_ONE_SIDE_(clamp_min)
EMBER_DECLARE_CLAMP_ONE_SIDE_(clamp_max)
#undef EMBER_DECLARE_CLAMP_ONE_SIDE_
// addcmul: self + value * tensor1 * tensor2; addcdiv: self + value *
// tensor1 / tensor2 (not for two integral tensors).
#define EMBER_DECLARE_ADDC_(name)                                                    \
  at::Tensor name(const at::Tensor& self, const at::Tensor& tensor1,                 \
                  const at::Tensor& tensor2, const c10::Scalar& value);              \
  at::Tensor& name##_(at::Tensor& self, const at::Tensor& tensor1,                   \
                      const at::Tensor& tensor2, const c10::Scalar& value);          \
  at::Tensor& name##_out(const at::Tensor& self, const at::Tensor& tensor1,          \
                         const at::Tensor& tensor2, const c10::Scalar& value,        \
                         at::Tensor& out);
EMBER_DECLARE_ADDC_(addcmul)
EMBER_DECLARE_ADDC_(addcdiv)
#undef EMBER_DECLARE_ADDC_
at::Tensor lerp_scalar(const at::Tensor& self, const at::Tensor& end,
                       const c10::Scalar& weight);                       // lerp.Scalar
at::Tensor& lerp_scalar_(at::Tensor& self, const at::Tensor& end,
                         const c10::Scalar& weight);                     // lerp_.Scalar
at::Tensor& lerp_scalar_out(const at::Tensor& self, const at::Tensor& end,
                            const c10::Scalar& weight, at::Tensor& out);  // lerp.Scalar_out
at::Tensor lerp_tensor(const at::Tensor& self, const at::Tensor& end,
                       const at::Tensor& weight);                        // lerp.Tensor
at::Tensor& lerp_tensor_(at::Tensor& self, const at::Tensor& end,
                         const at::Tensor& weight);                      // lerp_.Tensor
at::Tensor& lerp_tensor_out(const at::Tensor& self, const at::Tensor& end,
                            const at::Tensor& weight, at::Tensor& out);  // lerp.Tensor_out

// ---- activations and their backward ops (pointwise_activation.cc) -----------
// Floating dtypes only, except hardtanh and threshold_backward /
// hardtanh_backward (every numeric dtype).
at::Tensor leaky_relu(const at::Tensor& self, const c10::Scalar& negative_slope);
at::Tensor& leaky_relu_(at::Tensor& self, const c10::Scalar& negative_slope);
at::Tensor& leaky_relu_out(const at::Tensor& self, const c10::Scalar& negative_slope,
                           at::Tensor& out);
at::Tensor gelu(const at::Tensor& self, c10::string_view approximate);
at::Tensor& gelu_(at::Tensor& self, c10::string_view approximate);
at::Tensor& gelu_out(const at::Tensor& self, c10::string_view approximate, at::Tensor& out);
at::Tensor silu(const at::Tensor& self);
at::Tensor& silu_(at::Tensor& self);
at::Tensor& silu_out(const at::Tensor& self, at::Tensor& out);
at::Tensor elu(const at::Tensor& self, const c10::Scalar& alpha, const c10::Scalar& scale,
               const c10::Scalar& input_scale);
at::Tensor& elu_(at::Tensor& self, const c10::Scalar& alpha, const c10::Scalar& scale,
                 const c10::Scalar& input_scale);
at::Tensor& elu_out(const at::Tensor& self, const c10::Scalar& alpha,
                    const c10::Scalar& scale, const c10::Scalar& input_scale,
                    at::Tensor& out);
at::Tensor softplus(const at::Tensor& self, const c10::Scalar& beta,
                    const c10::Scalar& threshold);
at::Tensor& softplus_out(const at::Tensor& self, const c10::Scalar& beta,
                         const c10::Scalar& threshold, at::Tensor& out);
at::Tensor hardtanh(const at::Tensor& self, const c10::Scalar& min_val,
                    const c10::Scalar& max_val);
at::Tensor& hardtanh_(at::Tensor& self, const c10::Scalar& min_val,
                      const c10::Scalar& max_val);
at::Tensor& hardtanh_out(const at::Tensor& self, const c10::Scalar& min_val,
                         const c10::Scalar& max_val, at::Tensor& out);
at::Tensor threshold_backward(const at::Tensor& grad_output, const at::Tensor& self,
                              const c10::Scalar& threshold);
at::Tensor sigmoid_backward(const at::Tensor& grad_output, const at::Tensor& output);
at::Tensor tanh_backward(const at::Tensor& grad_output, const at::Tensor& output);
at::Tensor gelu_backward(const at::Tensor& grad_output, const at::Tensor& self,
                         c10::string_view approximate);
at::Tensor silu_backward(const at::Tensor& grad_output, const at::Tensor& self);
at::Tensor elu_backward(const at::Tensor& grad_output, const c10::Scalar& alpha,
                        const c10::Scalar& scale, const c10::Scalar& input_scale,
                        bool is_result, const at::Tensor& self_or_result);
at::Tensor softplus_backward(const at::Tensor& grad_output, const at::Tensor& self,
                             const c10::Scalar& beta, const c10::Scalar& threshold);
at::Tensor leaky_relu_backward(const at::Tensor& grad_output, const at::Tensor& self,
                               const c10::Scalar& negative_slope, bool self_is_result);
at::Tensor hardtanh_backward(const at::Tensor& grad_output, const at::Tensor& self,
                             const c10::Scalar& min_val, const c10::Scalar& max_val);

}  // namespace ember::cpu
