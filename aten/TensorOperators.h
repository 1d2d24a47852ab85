// aten/TensorOperators.h — the C++ operators on tensors, as in PyTorch:
// arithmetic (a + b, a * 2, -a), comparisons (t > 0, a == b: Bool tensors),
// bitwise/boolean (a & b, a | b, a ^ b, ~a on integral or bool tensors).
// Compound assignment (a += b, mask &= other) are at::Tensor members
// (aten/Tensor.h).
//
//   at::Tensor mask = (x > 0) & (x < 1);   // Bool
//   at::Tensor y = 2 * x - 1;
//
// A Scalar operand takes part in type promotion as a wrapped number. With
// the Scalar on the left, the comparison is mirrored (`0 < t` is `t > 0`).
#pragma once

#include "aten/ScalarOps.h"

namespace at {

inline Tensor operator-(const Tensor& t) { return at::neg(t); }
inline Tensor operator~(const Tensor& t) { return at::bitwise_not(t); }

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
EMBER_BINARY_OPERATOR_(&, bitwise_and)
EMBER_BINARY_OPERATOR_(|, bitwise_or)
EMBER_BINARY_OPERATOR_(^, bitwise_xor)
#undef EMBER_BINARY_OPERATOR_

// `mirrored` is the comparison with its operands swapped (a < b is b > a).
#define EMBER_COMPARISON_OPERATOR_(op, fn, mirrored)                                 \
  inline Tensor operator op(const Tensor& a, const Tensor& b) { return at::fn(a, b); } \
  inline Tensor operator op(const Tensor& a, const Scalar& b) { return at::fn(a, b); } \
  inline Tensor operator op(const Scalar& a, const Tensor& b) { return at::mirrored(b, a); }
EMBER_COMPARISON_OPERATOR_(==, eq, eq)
EMBER_COMPARISON_OPERATOR_(!=, ne, ne)
EMBER_COMPARISON_OPERATOR_(<, lt, gt)
EMBER_COMPARISON_OPERATOR_(<=, le, ge)
EMBER_COMPARISON_OPERATOR_(>, gt, lt)
EMBER_COMPARISON_OPERATOR_(>=, ge, le)
#undef EMBER_COMPARISON_OPERATOR_

}  // namespace at
