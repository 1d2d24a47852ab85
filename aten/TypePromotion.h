// aten/TypePromotion.h — PyTorch's type promotion: the dtype an op computes
// in when its operands' dtypes differ (torch.result_type), and whether a
// result may be written to an output of another dtype (torch.can_cast).
//
//   const at::Tensor* operands[] = {&a, &b};
//   c10::ScalarType t = at::result_type(operands);     // a + b computes in t
//   at::can_cast(c10::kFloat, c10::kInt);               // false
//
//   at::ResultTypeState state;                          // mixed Tensor/Scalar
//   state = at::update_result_type_state(a, state);
//   state = at::update_result_type_state(c10::Scalar(2.5), state);
//   c10::ScalarType u = at::result_type(state);
//
// One implementation for every caller: the at::result_type ops
// (aten/ops/conversion.cc) and at::TensorIteratorBase (aten/TensorIterator.h),
// which every backend's elementwise kernels build on. See Note [Type
// promotion] in TypePromotion.cc. Plain functions of their arguments: safe
// from any thread.
#pragma once

#include "aten/Tensor.h"
#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"
#include "c10/util/ArrayRef.h"

namespace at {

// at::ResultTypeState
//
// The running promotion of the three priority groups of Note [Type
// promotion]: tensors with dimensions, 0-dim tensors, wrapped numbers
// (Scalars, and 0-dim tensors made from one). Undefined: the group is empty.
struct ResultTypeState {
  c10::ScalarType dim_result = c10::ScalarType::Undefined;
  c10::ScalarType zero_dim_result = c10::ScalarType::Undefined;
  c10::ScalarType wrapped_result = c10::ScalarType::Undefined;
};

// at::update_result_type_state
//
// `state` with `tensor` (skipped when undefined) or `scalar` added to its
// group. A Scalar counts as a wrapped number of dtype Bool, Long or Float
// (floating Scalars count as the default dtype, Float).
ResultTypeState update_result_type_state(const Tensor& tensor,
                                         const ResultTypeState& state);
ResultTypeState update_result_type_state(const c10::Scalar& scalar,
                                         const ResultTypeState& state);

// at::result_type(const ResultTypeState&)
//
// The dtype the collected operands promote to; Undefined when none was
// collected.
c10::ScalarType result_type(const ResultTypeState& state);

// at::result_type(ArrayRef<const Tensor*>)
//
// The dtype these tensors promote to (undefined ones are skipped). A
// uniform dtype without wrapped numbers is returned without the group
// walk: the common case of an elementwise kernel.
c10::ScalarType result_type(c10::ArrayRef<const Tensor*> tensors);

// at::can_cast
//
// Whether a result of dtype `from` may be written to an output of dtype
// `to`: not floating to integral, not non-bool to bool (torch.can_cast).
bool can_cast(c10::ScalarType from, c10::ScalarType to);

}  // namespace at
