// backends/cpu/indexing.h — the CPU plugin's indexing kernels: index_select,
// gather, scatter (src, value, reduce), scatter_add, masked_fill_,
// masked_select, nonzero, index.Tensor and index_put_.
//
//   at::Tensor rows = ember::cpu::index_select(x, 0, idx);   // x[idx]
//
// Each kernel is declared in the generated CPUKernels.h and registered by
// RegisterCPU.cc (`dispatch=CPU:...` in aten/native_functions). Inputs may have any strides (expanded, transposed,
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
#include "backends/cpu/CPUKernels.h"
#include "c10/core/Scalar.h"
#include "c10/util/StringUtil.h"

namespace ember::cpu {

// ---- index_select, gather (indexing_select.cc) ---------------------------------
// index_select: the slices of `self` along `dim` at the positions in `index`
// (Long or Int, 0-d or 1-d, each in [0, self.size(dim))).
// gather: out[i][j] = self[index[i][j]][j] for dim 0 (and so on); the
// result has index's shape. index is Long with self's number of dims and no
// dim larger than self's except `dim`. sparse_grad only matters to autograd.

// ---- scatter, scatter_add (indexing_select.cc) --------------------------------
// self[index[i][j]][j] = src[i][j] for dim 0 (and so on); src has self's
// dtype. Where index repeats a position, which write wins is unspecified
// (as in PyTorch). `reduce` is "add" or "multiply" and combines instead.
// scatter_add: as scatter with reduce="add"; repeated positions sum.

// ---- masks (indexing_mask.cc) -----------------------------------------------------
// masked_fill_: self[mask] = value; mask is Bool and broadcasts to self's
// shape; a tensor value must be 0-d (converted to self's dtype).
// masked_select: the elements of self where mask (both broadcast together)
// is true, in row-major order, as a 1-d tensor.
// nonzero: the Long coordinates of the nonzero elements (NaN counts), one
// row each in row-major order: shape (n, self.dim()).

// ---- advanced indexing (indexing_advanced.cc) -----------------------------------------
// index: self[indices] with NumPy's advanced-indexing rules (See Note
// [Advanced indexing] in indexing_advanced.cc). Entries are None (the whole
// dim), Long/Int tensors (negative values count from the end) or Bool/Byte
// masks (which select their nonzero positions).
// index_put_: self[indices] = values (broadcast to the indexing result's
// shape, self's dtype); with accumulate, repeated positions sum.

}  // namespace ember::cpu
