// aten/PointwiseChecks.h — the argument checks of the pointwise ops that
// every backend makes before its loop, written once so that the CPU and
// CUDA plugins refuse the same calls with the same words (PyTorch's, with
// how to fix them). Each throws c10::Error naming `op`; an undefined tensor
// passes (the iterator reports it).
#pragma once

#include <optional>

#include "aten/Tensor.h"
#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"
#include "c10/util/StringUtil.h"

namespace at {
namespace native {

// `self` is not Bool; the message is `op: why`.
void refuse_bool(const Tensor& self, const char* op, const char* why);
// Not both of `self` and `other` Bool (pow, fmod, remainder).
void refuse_bool_pair(const Tensor& self, const Tensor& other, const char* op);
// neg, relu and the rounding ops (floor, ceil, round, trunc) refuse Bool.
void check_neg(const Tensor& self, const char* op);
void check_relu(const Tensor& self, const char* op);
void check_rounding(const Tensor& self, const char* op);
// add/sub's alpha against the result dtype: a bool alpha only for Bool
// results, an integral one for integral results.
void check_alpha(c10::ScalarType result, const c10::Scalar& alpha, const char* op);
// sub refuses Bool operands (PyTorch's words point to `^` and `~`).
void check_sub_operands(const Tensor& self, const Tensor& other, const char* op);
// addcmul/addcdiv's value against the result dtype.
void check_addc_value(c10::ScalarType result, const c10::Scalar& value, const char* op);
// addcdiv refuses two integral divisors' operands.
void check_addcdiv_operands(const Tensor& tensor1, const Tensor& tensor2, const char* op);
// lerp: `other` (named `what`) has self's dtype.
void check_lerp_dtype(const Tensor& self, const Tensor& other, const char* what,
                      const char* op);
// where's condition is Bool.
void check_where_condition(const Tensor& condition, const char* op);
// clamp: at least one bound, and no Bool tensor.
void check_clamp_args(bool has_min, bool has_max, const Tensor& self, const char* op);
// gelu's approximate argument: "none" (false) or "tanh" (true).
bool gelu_is_tanh(c10::string_view approximate, const char* op);
// The in-place forms' backward needs a non-negative slope.
void check_elu_backward(bool is_result, const c10::Scalar& alpha);
void check_leaky_relu_backward(bool self_is_result, double negative_slope);
// bitwise_and/or/xor compute in an integral or Bool dtype.
void check_bitwise_dtype(c10::ScalarType dtype, const char* op);
// bitwise_not takes integral or Bool tensors.
void check_bitwise_not(const Tensor& self, const char* op);
// round with decimals takes floating tensors.
void check_round_decimals(const Tensor& self, const char* op);

// hardtanh's bounds on an integral `dtype`: each must be a value the dtype
// holds after dropping its fraction, as PyTorch's checked Scalar conversion
// ("value cannot be converted to type uint8_t without overflow"); a
// floating dtype takes any bounds.
void check_hardtanh_bounds(c10::ScalarType dtype, const c10::Scalar& min_val,
                           const c10::Scalar& max_val, const char* op);
// pow with a Scalar exponent: not Bool, and no negative integer exponent for
// an integral result.
void check_pow_scalar_exponent(c10::ScalarType result, const c10::Scalar& exponent,
                               const char* op);

// div's rounding_mode: none (true division), "trunc" or "floor"; anything
// else is refused in PyTorch's words.
enum class DivMode { kTrue, kTrunc, kFloor };
DivMode div_rounding_mode(const std::optional<c10::string_view>& mode, const char* op);

// Integer division or remainder by zero: PyTorch's ZeroDivisionError, as a
// c10::Error naming `op`.
[[noreturn]] void throw_zero_division(const char* op);

}  // namespace native
}  // namespace at
