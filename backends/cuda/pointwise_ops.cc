// backends/cuda/pointwise_ops.cc — the pointwise ops on the CUDA key with one
// or two inputs: add/sub/mul/div (also with rounding_mode), the unary math
// and rounding ops, comparisons and logical ops, bitwise ops, fmod/remainder,
// pow, maximum/minimum, isnan/isinf. Each runs the GPU TensorIterator
// (shapes, promotion, out= rules; 0-dim CPU operands and Scalars taken by
// value: Note [CPU scalars on a device]) and one kernel of kernels/. The
// argument checks are the core's (aten/PointwiseChecks.h), shared with the
// CPU plugin, so both refuse the same calls with the same words. Three-input
// ops are in ternary_ops.cc, activations in activation_ops.cc.
#include <cmath>
#include <optional>

#include "aten/PointwiseChecks.h"
#include "backends/cuda/PointwiseSupport.h"
#include "registration/library.h"

namespace ember {
namespace cuda {
namespace pointwise {

at::Tensor wrap(const c10::Scalar& s) {
  return at::wrapped_scalar_tensor(s, c10::Device(c10::kCPU));
}

kernels::Dtype compute_dtype(const CUDAIterator& iter, const char* op, bool bool_ok) {
  const c10::ScalarType t = iter.common_dtype();
  TORCH_CHECK_NOT_IMPLEMENTED(bool_ok || t != c10::kBool, op,
                              ": Bool operands are not supported by this op on CUDA. "
                              "Convert them to an integer or floating dtype first.");
  return kernel_dtype(t, op, KernelDtypes::kAll);
}

void check_out(const at::Tensor& out, const char* op) {
  TORCH_CHECK(out.defined(), op, ": the out tensor is undefined; pass a "
              "defined tensor (of any shape: it is resized), or call the "
              "functional ", op, ".");
}

OpParams number_param(const c10::Scalar& s, c10::ScalarType dtype) {
  OpParams p;
  p.d[0] = s.toDouble();
  if (!c10::isFloatingType(dtype)) p.i[0] = s.isBoolean() ? s.toBool() : s.toLong();
  return p;
}

at::Tensor unary(const char* op, UnaryOp kind, const at::Tensor& out, const at::Tensor& self,
                 bool int_to_float, const OpParams& p, bool bool_ok) {
  CUDAIterator iter(at::TensorIteratorConfig(op).add_output(out).add_input(self)
                        .promote_integer_inputs_to_float(int_to_float));
  const kernels::Dtype dtype = compute_dtype(iter, op, bool_ok);
  iter.run(op, [&](const kernels::Iteration& it, void* stream) {
    return kernels::launch_unary(it, kind, dtype, p, stream);
  });
  return iter.output();
}

at::Tensor floating_unary(const char* op, UnaryOp kind, const at::Tensor& out,
                          const at::Tensor& self, const OpParams& p) {
  CUDAIterator iter(at::TensorIteratorConfig(op).add_output(out).add_input(self));
  TORCH_CHECK_NOT_IMPLEMENTED(c10::isFloatingType(iter.common_dtype()), op,
                              ": not implemented for '", iter.common_dtype(),
                              "'; pass a floating tensor.");
  const kernels::Dtype dtype = kernel_dtype(iter.common_dtype(), op, KernelDtypes::kAll);
  iter.run(op, [&](const kernels::Iteration& it, void* stream) {
    return kernels::launch_unary(it, kind, dtype, p, stream);
  });
  return iter.output();
}

}  // namespace pointwise

namespace {

using namespace pointwise;  // NOLINT: this file's helpers
using kernels::CompareOp;
using kernels::PredicateOp;

// ---- binary -----------------------------------------------------------------------

at::Tensor run_add(const char* op, const at::Tensor& out, const at::Tensor& a,
                   const at::Tensor& b, const c10::Scalar& alpha) {
  return binary(op, BinaryOp::kAdd, out, a, b, false, true, [&](c10::ScalarType t) {
    at::native::check_alpha(t, alpha, op);
    return number_param(alpha, t);
  });
}
at::Tensor run_sub(const char* op, const at::Tensor& out, const at::Tensor& a,
                   const at::Tensor& b, const c10::Scalar& alpha) {
  at::native::check_sub_operands(a, b, op);
  return binary(op, BinaryOp::kSub, out, a, b, false, false, [&](c10::ScalarType t) {
    at::native::check_alpha(t, alpha, op);
    return number_param(alpha, t);
  });
}

#define EMBER_CUDA_ALPHA_OP(name)                                                   \
  at::Tensor name(const at::Tensor& self, const at::Tensor& other,                  \
                  const c10::Scalar& alpha) {                                       \
    return run_##name(#name, at::Tensor(), self, other, alpha);                     \
  }                                                                                 \
  at::Tensor& name##_(at::Tensor& self, const at::Tensor& other,                    \
                      const c10::Scalar& alpha) {                                   \
    run_##name(#name "_", self, self, other, alpha);                                \
    return self;                                                                    \
  }                                                                                 \
  at::Tensor& name##_out(const at::Tensor& self, const at::Tensor& other,           \
                         const c10::Scalar& alpha, at::Tensor& out) {               \
    run_##name(#name, out, self, other, alpha);                                     \
    return out;                                                                     \
  }
EMBER_CUDA_ALPHA_OP(add)
EMBER_CUDA_ALPHA_OP(sub)
#undef EMBER_CUDA_ALPHA_OP

// name(self, other), name_, name_out from a binary kernel.
#define EMBER_CUDA_BINARY_OP(name, kind, int_to_float, bool_ok)                      \
  at::Tensor name(const at::Tensor& self, const at::Tensor& other) {                  \
    return binary(#name, kind, at::Tensor(), self, other, int_to_float, bool_ok);     \
  }                                                                                   \
  [[maybe_unused]] at::Tensor& name##_(at::Tensor& self, const at::Tensor& other) {   \
    binary(#name "_", kind, self, self, other, int_to_float, bool_ok);                \
    return self;                                                                      \
  }                                                                                   \
  at::Tensor& name##_out(const at::Tensor& self, const at::Tensor& other,             \
                         at::Tensor& out) {                                           \
    binary(#name, kind, out, self, other, int_to_float, bool_ok);                     \
    return out;                                                                       \
  }
EMBER_CUDA_BINARY_OP(mul, BinaryOp::kMul, false, true)
EMBER_CUDA_BINARY_OP(div, BinaryOp::kDiv, true, false)
EMBER_CUDA_BINARY_OP(maximum, BinaryOp::kMaximum, false, true)
EMBER_CUDA_BINARY_OP(minimum, BinaryOp::kMinimum, false, true)
#undef EMBER_CUDA_BINARY_OP

// ---- bitwise and/or/xor (Tensor and Scalar forms) -------------------------------------

at::Tensor run_bitwise(const char* op, BinaryOp kind, const at::Tensor& out,
                       const at::Tensor& a, const at::Tensor& b) {
  return binary(op, kind, out, a, b, false, true, [&](c10::ScalarType t) {
    at::native::check_bitwise_dtype(t, op);
    return OpParams{};
  });
}

#define EMBER_CUDA_TENSOR_SCALAR_OPS(name, run)                                        \
  at::Tensor name(const at::Tensor& self, const at::Tensor& other) {                    \
    return run(#name, at::Tensor(), self, other);                                       \
  }                                                                                     \
  at::Tensor name##_scalar(const at::Tensor& self, const c10::Scalar& other) {          \
    return run(#name, at::Tensor(), self, wrap(other));                                 \
  }                                                                                     \
  at::Tensor& name##_(at::Tensor& self, const at::Tensor& other) {                      \
    run(#name "_", self, self, other);                                                  \
    return self;                                                                        \
  }                                                                                     \
  at::Tensor& name##_scalar_(at::Tensor& self, const c10::Scalar& other) {              \
    run(#name "_", self, self, wrap(other));                                            \
    return self;                                                                        \
  }                                                                                     \
  at::Tensor& name##_out(const at::Tensor& self, const at::Tensor& other,               \
                         at::Tensor& out) {                                             \
    run(#name, out, self, other);                                                       \
    return out;                                                                         \
  }                                                                                     \
  at::Tensor& name##_scalar_out(const at::Tensor& self, const c10::Scalar& other,       \
                                at::Tensor& out) {                                      \
    run(#name, out, self, wrap(other));                                                 \
    return out;                                                                         \
  }

#define EMBER_CUDA_BITWISE_RUN(name, kind)                                              \
  at::Tensor run_##name(const char* op, const at::Tensor& out, const at::Tensor& a,     \
                        const at::Tensor& b) {                                          \
    return run_bitwise(op, kind, out, a, b);                                            \
  }
EMBER_CUDA_BITWISE_RUN(bitwise_and, BinaryOp::kBitAnd)
EMBER_CUDA_BITWISE_RUN(bitwise_or, BinaryOp::kBitOr)
EMBER_CUDA_BITWISE_RUN(bitwise_xor, BinaryOp::kBitXor)
#undef EMBER_CUDA_BITWISE_RUN
EMBER_CUDA_TENSOR_SCALAR_OPS(bitwise_and, run_bitwise_and)
EMBER_CUDA_TENSOR_SCALAR_OPS(bitwise_or, run_bitwise_or)
EMBER_CUDA_TENSOR_SCALAR_OPS(bitwise_xor, run_bitwise_xor)

// ---- comparisons and logical ops (Bool results) ----------------------------------------

at::Tensor compare(const char* op, CompareOp kind, const at::Tensor& out, const at::Tensor& a,
                   const at::Tensor& b) {
  CUDAIterator iter(at::TensorIteratorConfig(op).add_output(out).add_input(a).add_input(b)
                        .declare_static_dtype(c10::kBool));
  const kernels::Dtype dtype = kernel_dtype(iter.common_dtype(), op, KernelDtypes::kAll);
  iter.run(op, [&](const kernels::Iteration& it, void* stream) {
    return kernels::launch_compare(it, kind, dtype, stream);
  });
  return iter.output();
}

#define EMBER_CUDA_COMPARE_RUN(name, kind)                                              \
  at::Tensor run_##name(const char* op, const at::Tensor& out, const at::Tensor& a,     \
                        const at::Tensor& b) {                                          \
    return compare(op, kind, out, a, b);                                                \
  }
EMBER_CUDA_COMPARE_RUN(eq, CompareOp::kEq)
EMBER_CUDA_COMPARE_RUN(ne, CompareOp::kNe)
EMBER_CUDA_COMPARE_RUN(lt, CompareOp::kLt)
EMBER_CUDA_COMPARE_RUN(le, CompareOp::kLe)
EMBER_CUDA_COMPARE_RUN(gt, CompareOp::kGt)
EMBER_CUDA_COMPARE_RUN(ge, CompareOp::kGe)
#undef EMBER_CUDA_COMPARE_RUN
EMBER_CUDA_TENSOR_SCALAR_OPS(eq, run_eq)
EMBER_CUDA_TENSOR_SCALAR_OPS(ne, run_ne)
EMBER_CUDA_TENSOR_SCALAR_OPS(lt, run_lt)
EMBER_CUDA_TENSOR_SCALAR_OPS(le, run_le)
EMBER_CUDA_TENSOR_SCALAR_OPS(gt, run_gt)
EMBER_CUDA_TENSOR_SCALAR_OPS(ge, run_ge)

#define EMBER_CUDA_LOGICAL_OP(name, kind)                                               \
  at::Tensor name(const at::Tensor& self, const at::Tensor& other) {                    \
    return compare(#name, kind, at::Tensor(), self, other);                             \
  }                                                                                     \
  at::Tensor& name##_(at::Tensor& self, const at::Tensor& other) {                      \
    compare(#name "_", kind, self, self, other);                                        \
    return self;                                                                        \
  }                                                                                     \
  at::Tensor& name##_out(const at::Tensor& self, const at::Tensor& other,               \
                         at::Tensor& out) {                                             \
    compare(#name, kind, out, self, other);                                             \
    return out;                                                                         \
  }
EMBER_CUDA_LOGICAL_OP(logical_and, CompareOp::kLogicalAnd)
EMBER_CUDA_LOGICAL_OP(logical_or, CompareOp::kLogicalOr)
EMBER_CUDA_LOGICAL_OP(logical_xor, CompareOp::kLogicalXor)
#undef EMBER_CUDA_LOGICAL_OP

// ---- fmod / remainder ---------------------------------------------------------------------

// An integer divisor of zero raises a device word the host reads after the
// kernel (which waits for it), to throw the CPU's ZeroDivisionError; floating
// operands give inf or NaN and need no check.
at::Tensor run_checked_division(const char* op, BinaryOp kind, const at::Tensor& out,
                                const at::Tensor& a, const at::Tensor& b) {
  CUDAIterator iter(at::TensorIteratorConfig(op).add_output(out).add_input(a).add_input(b));
  const kernels::Dtype dtype = compute_dtype(iter, op, false);
  OpParams p;
  at::Tensor flag;
  if (!c10::isFloatingType(iter.common_dtype())) {
    flag = empty_cuda({1}, c10::kInt, iter.device(), op);
    flag.fill_(0);
    p.zero_division = static_cast<unsigned*>(flag.data_ptr());
  }
  iter.run(op, [&](const kernels::Iteration& it, void* stream) {
    return kernels::launch_binary(it, kind, dtype, p, stream);
  });
  if (flag.defined() && flag.item<int32_t>() != 0) at::native::throw_zero_division(op);
  return iter.output();
}
#define EMBER_CUDA_MODULO_RUN(name, kind)                                               \
  at::Tensor run_##name(const char* op, const at::Tensor& out, const at::Tensor& a,     \
                        const at::Tensor& b) {                                          \
    at::native::refuse_bool_pair(a, b, op);                                             \
    return run_checked_division(op, kind, out, a, b);                                   \
  }
EMBER_CUDA_MODULO_RUN(fmod, BinaryOp::kFmod)
EMBER_CUDA_MODULO_RUN(remainder, BinaryOp::kRemainder)
#undef EMBER_CUDA_MODULO_RUN
EMBER_CUDA_TENSOR_SCALAR_OPS(fmod, run_fmod)
EMBER_CUDA_TENSOR_SCALAR_OPS(remainder, run_remainder)
#undef EMBER_CUDA_TENSOR_SCALAR_OPS
// div with rounding_mode: true division as div, else truncating or flooring
// in the promoted dtype (integers stay integers).
at::Tensor run_div_mode(const char* op, const at::Tensor& out, const at::Tensor& a,
                        const at::Tensor& b, const std::optional<c10::string_view>& mode) {
  switch (at::native::div_rounding_mode(mode, op)) {
    case at::native::DivMode::kTrue: return binary(op, BinaryOp::kDiv, out, a, b, true);
    case at::native::DivMode::kTrunc: return run_checked_division(op, BinaryOp::kDivTrunc, out, a, b);
    case at::native::DivMode::kFloor: return run_checked_division(op, BinaryOp::kDivFloor, out, a, b);
  }
  return at::Tensor();
}
at::Tensor div_tensor_mode(const at::Tensor& self, const at::Tensor& other,
                           std::optional<c10::string_view> mode) {
  return run_div_mode("div", at::Tensor(), self, other, mode);
}
at::Tensor& div_tensor_mode_(at::Tensor& self, const at::Tensor& other,
                             std::optional<c10::string_view> mode) {
  run_div_mode("div_", self, self, other, mode);
  return self;
}
at::Tensor& div_out_mode(const at::Tensor& self, const at::Tensor& other,
                         std::optional<c10::string_view> mode, at::Tensor& out) {
  check_out(out, "div");
  run_div_mode("div", out, self, other, mode);
  return out;
}

at::Tensor remainder_scalar_tensor(const c10::Scalar& self, const at::Tensor& other) {
  return run_remainder("remainder", at::Tensor(), wrap(self), other);
}

// ---- pow ------------------------------------------------------------------------------------

at::Tensor run_pow(const char* op, const at::Tensor& out, const at::Tensor& a,
                   const at::Tensor& b) {
  at::native::refuse_bool_pair(a, b, op);
  return binary(op, BinaryOp::kPow, out, a, b);
}
at::Tensor run_pow_scalar_exponent(const char* op, const at::Tensor& out,
                                   const at::Tensor& self, const c10::Scalar& exponent) {
  return binary(op, BinaryOp::kPow, out, self, wrap(exponent), false, false,
                [&](c10::ScalarType t) {
                  at::native::check_pow_scalar_exponent(t, exponent, op);
                  return OpParams{};
                });
}
at::Tensor pow(const at::Tensor& self, const at::Tensor& exponent) {
  return run_pow("pow", at::Tensor(), self, exponent);
}
at::Tensor& pow_out(const at::Tensor& self, const at::Tensor& exponent, at::Tensor& out) {
  run_pow("pow", out, self, exponent);
  return out;
}
at::Tensor& pow_(at::Tensor& self, const at::Tensor& exponent) {
  run_pow("pow_", self, self, exponent);
  return self;
}
at::Tensor pow_tensor_scalar(const at::Tensor& self, const c10::Scalar& exponent) {
  return run_pow_scalar_exponent("pow", at::Tensor(), self, exponent);
}
at::Tensor& pow_tensor_scalar_out(const at::Tensor& self, const c10::Scalar& exponent,
                                  at::Tensor& out) {
  run_pow_scalar_exponent("pow", out, self, exponent);
  return out;
}
at::Tensor& pow_scalar_(at::Tensor& self, const c10::Scalar& exponent) {
  run_pow_scalar_exponent("pow_", self, self, exponent);
  return self;
}
at::Tensor pow_scalar_base(const c10::Scalar& self, const at::Tensor& exponent) {
  return run_pow("pow", at::Tensor(), wrap(self), exponent);
}
at::Tensor& pow_scalar_base_out(const c10::Scalar& self, const at::Tensor& exponent,
                                at::Tensor& out) {
  run_pow("pow", out, wrap(self), exponent);
  return out;
}

// ---- unary ----------------------------------------------------------------------------------

// name, name_ and name_out; `pre(self, op)` checks the argument first.
#define EMBER_CUDA_UNARY_OP(name, kind, int_to_float, bool_ok, pre)                    \
  at::Tensor name(const at::Tensor& self) {                                            \
    pre(self, #name);                                                                  \
    return unary(#name, kind, at::Tensor(), self, int_to_float, OpParams{}, bool_ok);  \
  }                                                                                    \
  at::Tensor& name##_(at::Tensor& self) {                                              \
    pre(self, #name "_");                                                              \
    unary(#name "_", kind, self, self, int_to_float, OpParams{}, bool_ok);             \
    return self;                                                                       \
  }                                                                                    \
  at::Tensor& name##_out(const at::Tensor& self, at::Tensor& out) {                    \
    pre(self, #name);                                                                  \
    unary(#name, kind, out, self, int_to_float, OpParams{}, bool_ok);                  \
    return out;                                                                        \
  }

void no_check(const at::Tensor&, const char*) {}
EMBER_CUDA_UNARY_OP(relu, UnaryOp::kRelu, false, false, at::native::check_relu)
EMBER_CUDA_UNARY_OP(neg, UnaryOp::kNeg, false, false, at::native::check_neg)
EMBER_CUDA_UNARY_OP(abs, UnaryOp::kAbs, false, true, no_check)
EMBER_CUDA_UNARY_OP(sign, UnaryOp::kSign, false, true, no_check)
EMBER_CUDA_UNARY_OP(floor, UnaryOp::kFloor, false, false, at::native::check_rounding)
EMBER_CUDA_UNARY_OP(ceil, UnaryOp::kCeil, false, false, at::native::check_rounding)
EMBER_CUDA_UNARY_OP(round, UnaryOp::kRound, false, false, at::native::check_rounding)
EMBER_CUDA_UNARY_OP(trunc, UnaryOp::kTrunc, false, false, at::native::check_rounding)
EMBER_CUDA_UNARY_OP(bitwise_not, UnaryOp::kBitwiseNot, false, true,
                    at::native::check_bitwise_not)
EMBER_CUDA_UNARY_OP(exp, UnaryOp::kExp, true, false, no_check)
EMBER_CUDA_UNARY_OP(log, UnaryOp::kLog, true, false, no_check)
EMBER_CUDA_UNARY_OP(sqrt, UnaryOp::kSqrt, true, false, no_check)
EMBER_CUDA_UNARY_OP(tanh, UnaryOp::kTanh, true, false, no_check)
EMBER_CUDA_UNARY_OP(sigmoid, UnaryOp::kSigmoid, true, false, no_check)
EMBER_CUDA_UNARY_OP(log1p, UnaryOp::kLog1p, true, false, no_check)
EMBER_CUDA_UNARY_OP(expm1, UnaryOp::kExpm1, true, false, no_check)
EMBER_CUDA_UNARY_OP(rsqrt, UnaryOp::kRsqrt, true, false, no_check)
EMBER_CUDA_UNARY_OP(reciprocal, UnaryOp::kReciprocal, true, false, no_check)
EMBER_CUDA_UNARY_OP(sin, UnaryOp::kSin, true, false, no_check)
EMBER_CUDA_UNARY_OP(cos, UnaryOp::kCos, true, false, no_check)
#undef EMBER_CUDA_UNARY_OP

OpParams round_params(int64_t decimals) {
  OpParams p;
  p.flag = decimals < 0 ? 1 : 0;
  p.d[0] = std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals));
  return p;
}
at::Tensor round_decimals(const at::Tensor& self, int64_t decimals) {
  at::native::check_round_decimals(self, "round");
  return unary("round", UnaryOp::kRoundDecimals, at::Tensor(), self, false,
               round_params(decimals));
}
at::Tensor& round_decimals_(at::Tensor& self, int64_t decimals) {
  at::native::check_round_decimals(self, "round_");
  unary("round_", UnaryOp::kRoundDecimals, self, self, false, round_params(decimals));
  return self;
}
at::Tensor& round_decimals_out(const at::Tensor& self, int64_t decimals, at::Tensor& out) {
  at::native::check_round_decimals(self, "round");
  unary("round", UnaryOp::kRoundDecimals, out, self, false, round_params(decimals));
  return out;
}

// ---- predicates (Bool results) ----------------------------------------------------------

at::Tensor predicate(const char* op, PredicateOp kind, const at::Tensor& out,
                     const at::Tensor& self) {
  CUDAIterator iter(at::TensorIteratorConfig(op).add_output(out).add_input(self)
                        .declare_static_dtype(c10::kBool));
  const kernels::Dtype dtype = kernel_dtype(iter.common_dtype(), op, KernelDtypes::kAll);
  iter.run(op, [&](const kernels::Iteration& it, void* stream) {
    return kernels::launch_predicate(it, kind, dtype, stream);
  });
  return iter.output();
}
at::Tensor logical_not(const at::Tensor& self) {
  return predicate("logical_not", PredicateOp::kLogicalNot, at::Tensor(), self);
}
at::Tensor& logical_not_(at::Tensor& self) {
  predicate("logical_not_", PredicateOp::kLogicalNot, self, self);
  return self;
}
at::Tensor& logical_not_out(const at::Tensor& self, at::Tensor& out) {
  predicate("logical_not", PredicateOp::kLogicalNot, out, self);
  return out;
}
at::Tensor isnan(const at::Tensor& self) {
  return predicate("isnan", PredicateOp::kIsnan, at::Tensor(), self);
}
at::Tensor isinf(const at::Tensor& self) {
  return predicate("isinf", PredicateOp::kIsinf, at::Tensor(), self);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("add.Tensor", TORCH_FN(add));
  m.impl("add_.Tensor", TORCH_FN(add_));
  m.impl("add.out", TORCH_FN(add_out));
  m.impl("sub.Tensor", TORCH_FN(sub));
  m.impl("sub_.Tensor", TORCH_FN(sub_));
  m.impl("sub.out", TORCH_FN(sub_out));
  m.impl("mul.Tensor", TORCH_FN(mul));
  m.impl("mul_.Tensor", TORCH_FN(mul_));
  m.impl("mul.out", TORCH_FN(mul_out));
  m.impl("div.Tensor", TORCH_FN(div));
  m.impl("div_.Tensor", TORCH_FN(div_));
  m.impl("div.out", TORCH_FN(div_out));
  m.impl("div.Tensor_mode", TORCH_FN(div_tensor_mode));
  m.impl("div_.Tensor_mode", TORCH_FN(div_tensor_mode_));
  m.impl("div.out_mode", TORCH_FN(div_out_mode));
  m.impl("maximum", TORCH_FN(maximum));
  m.impl("maximum.out", TORCH_FN(maximum_out));
  m.impl("minimum", TORCH_FN(minimum));
  m.impl("minimum.out", TORCH_FN(minimum_out));
#define EMBER_CUDA_REGISTER_TENSOR_SCALAR(name)                 \
  m.impl(#name ".Tensor", TORCH_FN(name));                      \
  m.impl(#name ".Scalar", TORCH_FN(name##_scalar));             \
  m.impl(#name "_.Tensor", TORCH_FN(name##_));                  \
  m.impl(#name "_.Scalar", TORCH_FN(name##_scalar_));           \
  m.impl(#name ".Tensor_out", TORCH_FN(name##_out));            \
  m.impl(#name ".Scalar_out", TORCH_FN(name##_scalar_out));
  EMBER_CUDA_REGISTER_TENSOR_SCALAR(eq)
  EMBER_CUDA_REGISTER_TENSOR_SCALAR(ne)
  EMBER_CUDA_REGISTER_TENSOR_SCALAR(lt)
  EMBER_CUDA_REGISTER_TENSOR_SCALAR(le)
  EMBER_CUDA_REGISTER_TENSOR_SCALAR(gt)
  EMBER_CUDA_REGISTER_TENSOR_SCALAR(ge)
  EMBER_CUDA_REGISTER_TENSOR_SCALAR(bitwise_and)
  EMBER_CUDA_REGISTER_TENSOR_SCALAR(bitwise_or)
  EMBER_CUDA_REGISTER_TENSOR_SCALAR(bitwise_xor)
  EMBER_CUDA_REGISTER_TENSOR_SCALAR(fmod)
  EMBER_CUDA_REGISTER_TENSOR_SCALAR(remainder)
#undef EMBER_CUDA_REGISTER_TENSOR_SCALAR
#define EMBER_CUDA_REGISTER_THREE(name)        \
  m.impl(#name, TORCH_FN(name));               \
  m.impl(#name "_", TORCH_FN(name##_));        \
  m.impl(#name ".out", TORCH_FN(name##_out));
  EMBER_CUDA_REGISTER_THREE(logical_and)
  EMBER_CUDA_REGISTER_THREE(logical_or)
  EMBER_CUDA_REGISTER_THREE(logical_xor)
  EMBER_CUDA_REGISTER_THREE(logical_not)
  EMBER_CUDA_REGISTER_THREE(relu)
  EMBER_CUDA_REGISTER_THREE(neg)
  EMBER_CUDA_REGISTER_THREE(abs)
  EMBER_CUDA_REGISTER_THREE(sign)
  EMBER_CUDA_REGISTER_THREE(floor)
  EMBER_CUDA_REGISTER_THREE(ceil)
  EMBER_CUDA_REGISTER_THREE(round)
  EMBER_CUDA_REGISTER_THREE(trunc)
  EMBER_CUDA_REGISTER_THREE(bitwise_not)
  EMBER_CUDA_REGISTER_THREE(exp)
  EMBER_CUDA_REGISTER_THREE(log)
  EMBER_CUDA_REGISTER_THREE(sqrt)
  EMBER_CUDA_REGISTER_THREE(tanh)
  EMBER_CUDA_REGISTER_THREE(sigmoid)
  EMBER_CUDA_REGISTER_THREE(log1p)
  EMBER_CUDA_REGISTER_THREE(expm1)
  EMBER_CUDA_REGISTER_THREE(rsqrt)
  EMBER_CUDA_REGISTER_THREE(reciprocal)
  EMBER_CUDA_REGISTER_THREE(sin)
  EMBER_CUDA_REGISTER_THREE(cos)
#undef EMBER_CUDA_REGISTER_THREE
  m.impl("round.decimals", TORCH_FN(round_decimals));
  m.impl("round_.decimals", TORCH_FN(round_decimals_));
  m.impl("round.decimals_out", TORCH_FN(round_decimals_out));
  m.impl("isnan", TORCH_FN(isnan));
  m.impl("isinf", TORCH_FN(isinf));
  m.impl("remainder.Scalar_Tensor", TORCH_FN(remainder_scalar_tensor));
  m.impl("pow.Tensor_Tensor", TORCH_FN(pow));
  m.impl("pow.Tensor_Tensor_out", TORCH_FN(pow_out));
  m.impl("pow.Tensor_Scalar", TORCH_FN(pow_tensor_scalar));
  m.impl("pow.Tensor_Scalar_out", TORCH_FN(pow_tensor_scalar_out));
  m.impl("pow.Scalar", TORCH_FN(pow_scalar_base));
  m.impl("pow.Scalar_out", TORCH_FN(pow_scalar_base_out));
  m.impl("pow_.Scalar", TORCH_FN(pow_scalar_));
  m.impl("pow_.Tensor", TORCH_FN(pow_));
}

}  // namespace cuda
}  // namespace ember
