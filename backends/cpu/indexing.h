// backends/cpu/indexing.h — the CPU plugin's indexing kernels: index_select,
// gather, scatter (src, value, reduce), scatter_add, masked_fill_,
// masked_select, nonzero, index.Tensor and index_put_.
//
//   at::Tensor rows = ember::cpu::index_select(x, 0, idx);   // x[idx]
//
// Each function is registered for DispatchKey::CPU under the aten operator
// named in its comment; its C++ type is the one the dispatcher checks
// against the schema. Inputs may have any strides (expanded, transposed,
// sliced). Every index is bounds-checked before any element moves, so a bad
// index throws c10::IndexError and leaves the output untouched. Index
// tensors are Long (and Int where PyTorch accepts it). Out-of-place
// masked_fill and index_put, and stack, are composite (aten/ops/indexing.cc);
// cat is in join.h, sort and topk in sort.h.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "aten/Tensor.h"
#include "c10/core/Scalar.h"
#include "c10/util/StringUtil.h"

namespace ember::cpu {

// ---- index_select, gather (indexing_select.cc) ---------------------------------
// index_select: the slices of `self` along `dim` at the positions in `index`
// (Long or Int, 0-d or 1-d, each in [0, self.size(dim))).
at::Tensor index_select(const at::Tensor& self, int64_t dim,
                        const at::Tensor& index);  // index_select
at::Tensor& index_select_out(const at::Tensor& self, int64_t dim,
                             const at::Tensor& index,
                             at::Tensor& out);  // index_select.out
// gather: out[i][j] = self[index[i][j]][j] for dim 0 (and so on); the
// result has index's shape. index is Long with self's number of dims and no
// dim larger than self's except `dim`. sparse_grad only matters to autograd.
at::Tensor gather(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                  bool sparse_grad);  // gather
at::Tensor& gather_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                       bool sparse_grad, at::Tensor& out);  // gather.out

// ---- scatter, scatter_add (indexing_select.cc) --------------------------------
// self[index[i][j]][j] = src[i][j] for dim 0 (and so on); src has self's
// dtype. Where index repeats a position, which write wins is unspecified
// (as in PyTorch). `reduce` is "add" or "multiply" and combines instead.
at::Tensor scatter_src(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                       const at::Tensor& src);  // scatter.src
at::Tensor& scatter__src(at::Tensor& self, int64_t dim, const at::Tensor& index,
                         const at::Tensor& src);  // scatter_.src
at::Tensor& scatter_src_out(const at::Tensor& self, int64_t dim,
                            const at::Tensor& index, const at::Tensor& src,
                            at::Tensor& out);  // scatter.src_out
at::Tensor scatter_value(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                         const c10::Scalar& value);  // scatter.value
at::Tensor& scatter__value(at::Tensor& self, int64_t dim, const at::Tensor& index,
                           const c10::Scalar& value);  // scatter_.value
at::Tensor& scatter_value_out(const at::Tensor& self, int64_t dim,
                              const at::Tensor& index, const c10::Scalar& value,
                              at::Tensor& out);  // scatter.value_out
at::Tensor scatter_src_reduce(const at::Tensor& self, int64_t dim,
                              const at::Tensor& index, const at::Tensor& src,
                              c10::string_view reduce);  // scatter.reduce
at::Tensor& scatter__src_reduce(at::Tensor& self, int64_t dim,
                                const at::Tensor& index, const at::Tensor& src,
                                c10::string_view reduce);  // scatter_.reduce
at::Tensor& scatter_src_reduce_out(const at::Tensor& self, int64_t dim,
                                   const at::Tensor& index, const at::Tensor& src,
                                   c10::string_view reduce,
                                   at::Tensor& out);  // scatter.reduce_out
at::Tensor scatter_value_reduce(const at::Tensor& self, int64_t dim,
                                const at::Tensor& index, const c10::Scalar& value,
                                c10::string_view reduce);  // scatter.value_reduce
at::Tensor& scatter__value_reduce(at::Tensor& self, int64_t dim,
                                  const at::Tensor& index, const c10::Scalar& value,
                                  c10::string_view reduce);  // scatter_.value_reduce
at::Tensor& scatter_value_reduce_out(const at::Tensor& self, int64_t dim,
                                     const at::Tensor& index,
                                     const c10::Scalar& value,
                                     c10::string_view reduce,
                                     at::Tensor& out);  // scatter.value_reduce_out
// scatter_add: as scatter with reduce="add"; repeated positions sum.
at::Tensor scatter_add(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                       const at::Tensor& src);  // scatter_add
at::Tensor& scatter_add_(at::Tensor& self, int64_t dim, const at::Tensor& index,
                         const at::Tensor& src);  // scatter_add_
at::Tensor& scatter_add_out(const at::Tensor& self, int64_t dim,
                            const at::Tensor& index, const at::Tensor& src,
                            at::Tensor& out);  // scatter_add.out

// ---- masks (indexing_mask.cc) -----------------------------------------------------
// masked_fill_: self[mask] = value; mask is Bool and broadcasts to self's
// shape; a tensor value must be 0-d (converted to self's dtype).
at::Tensor& masked_fill__scalar(at::Tensor& self, const at::Tensor& mask,
                                const c10::Scalar& value);  // masked_fill_.Scalar
at::Tensor& masked_fill__tensor(at::Tensor& self, const at::Tensor& mask,
                                const at::Tensor& value);  // masked_fill_.Tensor
// masked_select: the elements of self where mask (both broadcast together)
// is true, in row-major order, as a 1-d tensor.
at::Tensor masked_select(const at::Tensor& self, const at::Tensor& mask);  // masked_select
at::Tensor& masked_select_out(const at::Tensor& self, const at::Tensor& mask,
                              at::Tensor& out);  // masked_select.out
// nonzero: the Long coordinates of the nonzero elements (NaN counts), one
// row each in row-major order: shape (n, self.dim()).
at::Tensor nonzero(const at::Tensor& self);                     // nonzero
at::Tensor& nonzero_out(const at::Tensor& self, at::Tensor& out);  // nonzero.out

// ---- advanced indexing (indexing_advanced.cc) -----------------------------------------
// index: self[indices] with NumPy's advanced-indexing rules (See Note
// [Advanced indexing] in indexing_advanced.cc). Entries are None (the whole
// dim), Long/Int tensors (negative values count from the end) or Bool/Byte
// masks (which select their nonzero positions).
at::Tensor index(const at::Tensor& self,
                 const std::vector<std::optional<at::Tensor>>& indices);  // index.Tensor
at::Tensor& index_out(const at::Tensor& self,
                      const std::vector<std::optional<at::Tensor>>& indices,
                      at::Tensor& out);  // index.Tensor_out
// index_put_: self[indices] = values (broadcast to the indexing result's
// shape, self's dtype); with accumulate, repeated positions sum.
at::Tensor& index_put_(at::Tensor& self,
                       const std::vector<std::optional<at::Tensor>>& indices,
                       const at::Tensor& values, bool accumulate);  // index_put_

}  // namespace ember::cpu
