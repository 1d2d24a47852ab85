// aten/ReduceDecompositions.h — the vector norms (linalg.vector_norm,
// norm.ScalarOpt_dim(_dtype)) and logsumexp written with other ATen ops,
// registered for CompositeExplicitAutograd with their out= forms: a backend
// without its own kernels (CUDA, a third party's) gets them, while the CPU
// plugin keeps its fused loops. The argument checks are shared with the CPU
// kernels (aten/ReduceUtils.h). Declared here so that tests can run the
// decompositions on the CPU against the CPU kernels.
#pragma once

#include <optional>

#include "aten/Tensor.h"
#include "c10/core/Scalar.h"
#include "c10/util/OptionalArrayRef.h"

namespace at {
namespace native {

// The p-norm of |self| over `dims` (none: all), in `dtype` when given (the
// input is converted first): p = 0 counts the nonzero elements (NaN
// counts), 1 and 2 the usual, +-inf the largest/smallest magnitude, any
// other p (sum |x|^p)^(1/p).
Tensor vector_norm_decomposed(const Tensor& self, const c10::Scalar& ord,
                              c10::OptionalIntArrayRef dims, bool keepdim,
                              std::optional<c10::ScalarType> dtype, const char* op);
// log(sum(exp(x))) over `dims`, stabilized by the maximum (an all -inf or
// empty reduction is -inf, a +inf element gives +inf, NaN gives NaN);
// integer inputs give Float.
Tensor logsumexp_decomposed(const Tensor& self, IntArrayRef dims, bool keepdim);

}  // namespace native
}  // namespace at
