// aten/WrapDimUtils.h — shape helpers shared by ops and backends: wrapping
// negative dims, inferring a -1 size, broadcasting.
#pragma once

#include <cstdint>
#include <vector>

#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"

namespace at {

// at::maybe_wrap_dim
//
// A dim in [-ndim, ndim) made non-negative; 0-dim tensors accept -1 and 0.
// Throws IndexError naming `where` and the valid range.
inline int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, const char* where) {
  const int64_t n = ndim == 0 ? 1 : ndim;
  TORCH_CHECK_INDEX(dim >= -n && dim < n, where, ": dimension ", dim,
                    " is out of range for a ", ndim, "-d tensor; expected a "
                    "dimension in [", -n, ", ", n - 1, "].");
  return dim < 0 ? dim + n : dim;
}

// at::infer_size
//
// `shape` with its one -1 replaced so that it holds `numel` elements.
std::vector<int64_t> infer_size(c10::IntArrayRef shape, int64_t numel,
                                const char* where);

// at::infer_broadcast_shape
//
// The broadcast of two shapes (PyTorch's rules); throws naming `where`.
std::vector<int64_t> infer_broadcast_shape(c10::IntArrayRef a, c10::IntArrayRef b,
                                           const char* where);

// at::compute_view_strides
//
// Strides that let a tensor of `old_sizes`/`old_strides` be viewed as
// `new_sizes` without copying, or an empty result if no such strides exist.
bool compute_view_strides(c10::IntArrayRef old_sizes, c10::IntArrayRef old_strides,
                          c10::IntArrayRef new_sizes, std::vector<int64_t>* new_strides);

}  // namespace at
