// aten/IndexDecompositions.h — masked_fill_ written with other ATen ops
// (where, then copy_), registered for CompositeExplicitAutograd: a backend
// without its own kernel (CUDA, a third party's) gets it, while the CPU
// plugin keeps its loop. The checks are shared with the CPU kernel
// (aten/JoinUtils.h). Declared here so that tests can run them on the CPU.
#pragma once

#include "aten/Tensor.h"
#include "c10/core/Scalar.h"

namespace at {
namespace native {

// self[mask] = value, mask broadcast to self; the value converted to
// self's dtype as Scalar::to converts it.
Tensor& masked_fill__scalar_decomposed(Tensor& self, const Tensor& mask, const c10::Scalar& value);
Tensor& masked_fill__tensor_decomposed(Tensor& self, const Tensor& mask, const Tensor& value);

}  // namespace native
}  // namespace at
