// aten/CompareDecompositions.h — isclose and equal written with other ATen
// ops, registered for CompositeExplicitAutograd: a backend without its own
// kernels (CUDA, a third party's) gets them (and so allclose), while the CPU
// plugin keeps its loops. The arithmetic is the CPU kernel's: for floating
// dtypes |a - b| in the dtype against atol + rtol * |b| computed in double,
// for integers everything in double. Declared here so that tests can run
// them on the CPU against the CPU kernels.
#pragma once

#include "aten/Tensor.h"

namespace at {
namespace native {

// isclose's arguments: defined, one dtype, rtol and atol >= 0.
void check_isclose_args(const Tensor& self, const Tensor& other, double rtol, double atol);
// equal's arguments: defined, on one device.
void check_equal_args(const Tensor& self, const Tensor& other);

Tensor isclose_decomposed(const Tensor& self, const Tensor& other, double rtol, double atol,
                          bool equal_nan);
bool equal_decomposed(const Tensor& self, const Tensor& other);

}  // namespace native
}  // namespace at
