// aten/IndexDecompositions.h — masked_fill_ (where, then copy_), nonzero,
// masked_select, index and index_put_ written with other ATen ops, registered for CompositeExplicitAutograd: a backend
// without its own kernels (CUDA, a third party's) gets them, while the CPU
// plugin keeps its loops. The checks are shared with the CPU kernel
// (aten/JoinUtils.h). Declared here so that tests can run them on the CPU.
#pragma once

#include <optional>
#include <vector>

#include "aten/Tensor.h"
#include "c10/core/Scalar.h"

namespace at {
namespace native {

// self[mask] = value, mask broadcast to self; the value converted to
// self's dtype as Scalar::to converts it.
Tensor& masked_fill__scalar_decomposed(Tensor& self, const Tensor& mask, const c10::Scalar& value);
Tensor& masked_fill__tensor_decomposed(Tensor& self, const Tensor& mask, const Tensor& value);

// nonzero: the positions of the nonzero elements (NaN counts) in row-major
// order, as [count, dim] Long; masked_select: self's elements where mask
// (both broadcast) is true, row-major. Both compact with a running sum of
// the flags and a scatter into count + 1 slots (the last collects the
// unselected); the count is read back once (a device sync).
Tensor nonzero_decomposed(const Tensor& self);
Tensor masked_select_decomposed(const Tensor& self, const Tensor& mask);

// index.Tensor (self[indices]) and index_put_ (self[indices] = values,
// or += with accumulate), Note [Advanced indexing] of the CPU plugin: masks
// become their nonzero() columns, the index tensors broadcast to one shape
// B, negative indices count from the end; the result is pre x B x post.
// Here the indexed dims are moved together (a permutation), their indices
// folded into one linear index over them, and the values taken with
// index_select, or written with scatter / scatter_add through a copy of self
// in that order. Errors are the CPU kernel's.
Tensor index_decomposed(const Tensor& self, const std::vector<std::optional<Tensor>>& indices);
Tensor& index_put__decomposed(Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                              const Tensor& values, bool accumulate);

}  // namespace native
}  // namespace at
