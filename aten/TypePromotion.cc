#include "aten/TypePromotion.h"

namespace at {
namespace {

c10::ScalarType promote_skip_undefined(c10::ScalarType a, c10::ScalarType b) {
  if (a == c10::ScalarType::Undefined) return b;
  if (b == c10::ScalarType::Undefined) return a;
  return c10::promoteTypes(a, b);
}

// `higher` comes from a higher-priority group of operands; `lower` only
// matters if it brings a higher category.
c10::ScalarType combine_categories(c10::ScalarType higher, c10::ScalarType lower) {
  if (c10::isFloatingType(higher)) return higher;
  if (higher == c10::ScalarType::Bool || c10::isFloatingType(lower)) {
    return promote_skip_undefined(higher, lower);
  }
  return higher != c10::ScalarType::Undefined ? higher : lower;
}

}  // namespace

// Note [Type promotion]
// ~~~~~~~~~~~~~~~~~~~~~
// As torch.result_type: operands fall in three priority groups — tensors
// with at least one dimension, 0-dim tensors, wrapped numbers (Scalars, and
// 0-dim tensors made from a Scalar, whose floating dtype counts as the
// default dtype, Float) — and each group's dtypes are promoted together with
// c10::promoteTypes. A lower group then changes the result only if its
// category (bool < integral < floating) is higher, and then the two are
// promoted together: int32 tensor + 0-dim int64 tensor is int32, int32
// tensor + 0-dim float64 tensor is float64, float32 tensor + 0-dim float64
// tensor is float32, float16 tensor + 2.5 is float16, bool tensor + 2 is
// int64.
ResultTypeState update_result_type_state(const Tensor& tensor,
                                         const ResultTypeState& state) {
  if (!tensor.defined()) return state;
  ResultTypeState next = state;
  c10::ScalarType current = tensor.scalar_type();
  if (tensor.unsafeGetTensorImpl()->is_wrapped_number()) {
    if (c10::isFloatingType(current)) current = c10::kFloat;
    next.wrapped_result = promote_skip_undefined(next.wrapped_result, current);
  } else if (tensor.dim() > 0) {
    next.dim_result = promote_skip_undefined(next.dim_result, current);
  } else {
    next.zero_dim_result = promote_skip_undefined(next.zero_dim_result, current);
  }
  return next;
}

ResultTypeState update_result_type_state(const c10::Scalar& scalar,
                                         const ResultTypeState& state) {
  const c10::ScalarType current = scalar.isBoolean()          ? c10::ScalarType::Bool
                                  : scalar.isIntegral(false) ? c10::ScalarType::Long
                                                             : c10::ScalarType::Float;
  ResultTypeState next = state;
  next.wrapped_result = promote_skip_undefined(next.wrapped_result, current);
  return next;
}

c10::ScalarType result_type(const ResultTypeState& state) {
  return combine_categories(
      state.dim_result, combine_categories(state.zero_dim_result, state.wrapped_result));
}

c10::ScalarType result_type(c10::ArrayRef<const Tensor*> tensors) {
  // Fast path: one dtype and no wrapped numbers promote to that dtype.
  if (!tensors.empty() && tensors[0]->defined()) {
    const c10::ScalarType first = tensors[0]->scalar_type();
    bool uniform = true;
    for (const Tensor* t : tensors) {
      const c10::TensorImpl* impl = t->unsafeGetTensorImpl();
      uniform = uniform && impl != nullptr && impl->scalar_type() == first &&
                !impl->is_wrapped_number();
    }
    if (uniform) return first;
  }
  ResultTypeState state;
  for (const Tensor* t : tensors) state = update_result_type_state(*t, state);
  return result_type(state);
}

bool can_cast(c10::ScalarType from, c10::ScalarType to) {
  if (c10::isFloatingType(from) && c10::isIntegralType(to, /*includeBool=*/false)) {
    return false;
  }
  return from == c10::ScalarType::Bool || to != c10::ScalarType::Bool;
}

}  // namespace at
