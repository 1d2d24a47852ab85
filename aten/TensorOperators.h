// aten/TensorOperators.h — a + b, a * 2, -a … on tensors, as in PyTorch.
#pragma once

#include "aten/ScalarOps.h"

namespace at {

inline Tensor operator-(const Tensor& t) { return at::neg(t); }

#define EMBER_BINARY_OPERATOR_(op, fn)                                              \
  inline Tensor operator op(const Tensor& a, const Tensor& b) { return at::fn(a, b); } \
  inline Tensor operator op(const Tensor& a, const Scalar& b) { return at::fn(a, b); } \
  inline Tensor operator op(const Scalar& a, const Tensor& b) {                      \
    return at::fn(at::wrapped_scalar_tensor(a, b.device()), b);                      \
  }
EMBER_BINARY_OPERATOR_(+, add)
EMBER_BINARY_OPERATOR_(-, sub)
EMBER_BINARY_OPERATOR_(*, mul)
EMBER_BINARY_OPERATOR_(/, div)
#undef EMBER_BINARY_OPERATOR_

}  // namespace at
