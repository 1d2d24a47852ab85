// aten/PointwiseChecks.cc — see PointwiseChecks.h.
#include "aten/PointwiseChecks.h"

#include <string>

#include "c10/core/Scalar.h"
#include "c10/util/Exception.h"

namespace at {
namespace native {

void refuse_bool(const Tensor& self, const char* op, const char* why) {
  TORCH_CHECK(!self.defined() || self.scalar_type() != c10::kBool, op, ": ", why);
}

void refuse_bool_pair(const Tensor& self, const Tensor& other, const char* op) {
  if (!self.defined() || !other.defined()) return;
  TORCH_CHECK(self.scalar_type() != c10::kBool || other.scalar_type() != c10::kBool,
              op, ": bool tensors are not supported. Convert them to an integer "
              "or floating dtype first.");
}

void check_neg(const Tensor& self, const char* op) {
  refuse_bool(self, op, "Negation, the `-` operator, on a bool tensor is not "
              "supported. If you are trying to invert a mask, use the `~` or "
              "`logical_not()` operator instead.");
}

void check_relu(const Tensor& self, const char* op) {
  refuse_bool(self, op, "bool tensors are not supported (relu is max(x, 0), which "
              "is not defined for bool). Convert the tensor to an integer or "
              "floating dtype first.");
}

void check_rounding(const Tensor& self, const char* op) {
  refuse_bool(self, op, "bool tensors are not supported. Convert the tensor to "
              "an integer or floating dtype first.");
}

void check_alpha(c10::ScalarType result, const c10::Scalar& alpha, const char* op) {
  TORCH_CHECK(!alpha.isBoolean() || result == c10::kBool, op,
              ": Boolean alpha only supported for Boolean results, but the "
              "result is ", result, ". Pass a number as alpha.");
  TORCH_CHECK(c10::isFloatingType(result) || alpha.isIntegral(/*includeBool=*/true),
              op, ": For integral input tensors, argument alpha must not be a "
              "floating point number, but got the floating-point alpha ", alpha,
              " for ", result, " tensors. Pass an integer alpha, or convert the tensors to a "
              "floating dtype.");
}

void check_sub_operands(const Tensor& self, const Tensor& other, const char* op) {
  if (!self.defined() || !other.defined()) return;
  const bool a = self.scalar_type() == c10::kBool;
  const bool b = other.scalar_type() == c10::kBool;
  TORCH_CHECK(!(a && b), op, ": Subtraction, the `-` operator, with two bool "
              "tensors is not supported. Use the `^` or `logical_xor()` "
              "operator instead.");
  TORCH_CHECK(!(a || b), op, ": Subtraction, the `-` operator, with a bool "
              "tensor is not supported. If you are trying to invert a mask, "
              "use the `~` or `logical_not()` operator instead.");
}

void check_addc_value(c10::ScalarType result, const c10::Scalar& value, const char* op) {
  TORCH_CHECK(c10::isFloatingType(result) || value.isIntegral(/*includeBool=*/true), op,
              ": For integral input tensors, argument value must not be a "
              "floating point number, but got ", value, " for ", result,
              " tensors. Pass an integer value, or convert the tensors to a "
              "floating dtype.");
}

void check_addcdiv_operands(const Tensor& tensor1, const Tensor& tensor2, const char* op) {
  TORCH_CHECK(!tensor1.defined() || !tensor2.defined() ||
                  !c10::isIntegralType(tensor1.scalar_type(), /*includeBool=*/true) ||
                  !c10::isIntegralType(tensor2.scalar_type(), /*includeBool=*/true),
              op, ": Integer division with addcdiv is no longer supported, and in "
              "a future release addcdiv will perform a true division of tensor1 "
              "and tensor2. The historic addcdiv behavior can be implemented as "
              "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
              "for integer inputs and as (input + value * tensor1 / tensor2) for "
              "float inputs.");
}

void check_lerp_dtype(const Tensor& self, const Tensor& other, const char* what,
                      const char* op) {
  if (!self.defined() || !other.defined()) return;
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), op, ": expected dtype ",
              self.scalar_type(), " for `", what, "` but got dtype ",
              other.scalar_type(), ". Convert it to the dtype of self.");
}

void check_where_condition(const Tensor& condition, const char* op) {
  TORCH_CHECK(!condition.defined() || condition.scalar_type() == c10::kBool, op,
              ": expected condition to be a boolean tensor, but got a tensor with "
              "dtype ", condition.scalar_type(), ". Compare it first (e.g. "
              "condition != 0).");
}

void check_clamp_args(bool has_min, bool has_max, const Tensor& self, const char* op) {
  TORCH_CHECK(has_min || has_max, op,
              ": At least one of 'min' or 'max' must not be None. Pass a lower "
              "bound, an upper bound or both.");
  TORCH_CHECK(!self.defined() || self.scalar_type() != c10::kBool, op,
              ": bool tensors are not supported. Convert the tensor to an "
              "integer or floating dtype first.");
}

bool gelu_is_tanh(c10::string_view approximate, const char* op) {
  if (approximate == "none") return false;
  if (approximate == "tanh") return true;
  C10_THROW_ERROR(Error, op, ": approximate argument must be either none or tanh, "
                  "but got '", std::string(approximate), "'.");
}

void check_elu_backward(bool is_result, const c10::Scalar& alpha) {
  TORCH_CHECK(!is_result || alpha.toDouble() >= 0, "elu_backward: In-place elu "
              "backward calculation is triggered with a negative slope which is "
              "not supported. This is caused by calling in-place forward function "
              "with a negative slope, please call out-of-place version instead.");
}

void check_leaky_relu_backward(bool self_is_result, double negative_slope) {
  TORCH_CHECK(!self_is_result || negative_slope >= 0, "leaky_relu_backward: In-place "
              "leakyReLu backward calculation is triggered with a negative slope "
              "which is not supported. This is caused by calling in-place forward "
              "function with a negative slope, please call out-of-place version "
              "instead. File an issue at https://github.com/pytorch/pytorch if you "
              "do require supporting in-place leakRelu backward calculation with "
              "negative slope");
}

void check_bitwise_dtype(c10::ScalarType dtype, const char* op) {
  TORCH_CHECK(c10::isIntegralType(dtype, /*includeBool=*/true), op,
              ": not implemented for '", dtype, "' tensors; bitwise operators (`&`, `|`, `^`) "
              "take integral or bool tensors. Use logical_and/logical_or/logical_xor, or "
              "convert with .to(torch::kBool).");
}

void check_bitwise_not(const Tensor& self, const char* op) {
  TORCH_CHECK(!self.defined() || c10::isIntegralType(self.scalar_type(), /*includeBool=*/true),
              op, ": not implemented for '", self.scalar_type(), "' tensors; `~` and "
              "bitwise_not take integral or bool tensors. Use logical_not, or convert with "
              ".to(torch::kBool).");
}

void check_round_decimals(const Tensor& self, const char* op) {
  TORCH_CHECK(!self.defined() || c10::isFloatingType(self.scalar_type()), op,
              ": round with decimals is only supported for floating dtypes, but "
              "the tensor is ", self.scalar_type(), ". Call round without "
              "decimals, or convert the tensor to a floating dtype first.");
}

void check_pow_scalar_exponent(c10::ScalarType result, const c10::Scalar& exponent,
                               const char* op) {
  TORCH_CHECK(result != c10::kBool, op, ": bool tensors are not supported. Convert "
              "the tensor to an integer or floating dtype first.");
  if (c10::isIntegralType(result, /*includeBool=*/false)) {
    TORCH_CHECK(!exponent.isIntegral(false) || exponent.toLong() >= 0, op,
                ": Integers to negative integer powers are not allowed (got "
                "exponent ", exponent, " for a ", result, " tensor). Use a "
                "floating-point base or a non-negative exponent.");
  }
}

DivMode div_rounding_mode(const std::optional<c10::string_view>& mode, const char* op) {
  if (!mode.has_value()) return DivMode::kTrue;
  if (*mode == "trunc") return DivMode::kTrunc;
  if (*mode == "floor") return DivMode::kFloor;
  C10_THROW_ERROR(Error, op, ": expected rounding_mode to be one of None, "
                  "'trunc', or 'floor' but found '", std::string(*mode), "'.");
}

void throw_zero_division(const char* op) {
  TORCH_CHECK(false, op, ": ZeroDivisionError: integer division or remainder by zero. "
              "Make sure the divisor has no zeros, or divide floating-point "
              "tensors (which give inf or nan).");
  __builtin_unreachable();
}

namespace {
template <typename T>
void check_holds(const c10::Scalar& a, const c10::Scalar& b) {
  (void)a.to<T>();
  (void)b.to<T>();
}
}  // namespace

void check_hardtanh_bounds(c10::ScalarType dtype, const c10::Scalar& min_val,
                           const c10::Scalar& max_val, const char* op) {
  try {
    switch (dtype) {
      case c10::kByte: check_holds<uint8_t>(min_val, max_val); break;
      case c10::kChar: check_holds<int8_t>(min_val, max_val); break;
      case c10::kShort: check_holds<int16_t>(min_val, max_val); break;
      case c10::kInt: check_holds<int32_t>(min_val, max_val); break;
      case c10::kLong: check_holds<int64_t>(min_val, max_val); break;
      default: break;
    }
  } catch (const c10::Error& e) {
    TORCH_CHECK(false, op, ": min_val and max_val must be values of the input's dtype ", dtype,
                ": ", e.what_without_backtrace());
  }
}

}  // namespace native
}  // namespace at
