// aten/JoinUtils.h — what every backend's cat, index and out= kernels check
// alike: memory overlap between outputs and inputs, out= dtypes, and cat's
// result shape and dtype. Written once so that the CPU and CUDA plugins agree
// on shapes and errors.
//
//   const at::native::CatPlan plan = at::native::plan_cat(tensors, dim, "torch.cat()");
//   at::Tensor out = ...;  // of plan.shape and plan.dtype
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "aten/Tensor.h"
#include "c10/core/ScalarType.h"
#include "c10/util/StringUtil.h"

namespace at {
namespace native {

// Whether a and b share any byte of storage (a conservative test: the byte
// ranges their strides reach intersect).
bool overlaps(const Tensor& a, const Tensor& b);

// For out= variants: `out` is defined and of dtype `dtype` (PyTorch's
// message otherwise); `out` shares no memory with `input`; no two elements
// of a written-to tensor share an address (a dim of size > 1 with stride 0,
// as expand makes).
void check_out_dtype(const Tensor& out, c10::ScalarType dtype, const char* op);
void check_no_overlap(const Tensor& out, const Tensor& input, const char* op);
void check_no_internal_overlap(const Tensor& self, const char* op);

// cat's result: the wrapped dim, the shape and the promoted dtype of the
// inputs. A 1-d tensor of size 0 takes no part (PyTorch's legacy rule):
// cat_skips() says which.
struct CatPlan {
  int64_t dim = 0;
  std::vector<int64_t> shape;
  c10::ScalarType dtype = c10::ScalarType::Undefined;
};
CatPlan plan_cat(TensorList tensors, int64_t dim, const char* op);
bool cat_skips(const Tensor& t);
// cat.out's checks: the inputs' dtype casts to out's, and out shares no
// memory with them.
void check_cat_out(TensorList tensors, const CatPlan& plan, const Tensor& out, const char* op);

// index_select's arguments: an int32 or int64 index of at most one dim (one
// element for a 0-d self); and the result's shape (self's, with `dim`'s size
// the index's count; `dim` wrapped).
void check_index_select_args(const Tensor& self, const Tensor& index);
std::vector<int64_t> index_select_shape(const Tensor& self, int64_t dim, const Tensor& index);

// gather's and scatter's dtype and shape checks (src: scatter's source, or
// null): an int64 index with self's number of dims (0-d counting as 1-d),
// no larger than self apart from `dim` (wrapped) nor than src, src of
// self's dtype. The index's values are the backend's to check (against
// self.size(dim), with throw_index_out_of_bounds).
void check_gather_scatter_args(const char* op, const Tensor& self, int64_t dim,
                               const Tensor& index, const Tensor* src);
// scatter's `reduce`: true for "add", false for "multiply"; anything else
// is refused.
bool scatter_reduce_is_add(c10::string_view reduce, const char* op);

// The broadcast of two shapes for the index ops (masked_select, index);
// throws naming `op` and both shapes.
std::vector<int64_t> broadcast_shapes(c10::IntArrayRef a, c10::IntArrayRef b, const char* op);

// Advanced indexing's indices (index, index_put_), checked: one entry per
// dim of self (undefined where not indexed) with Bool/Byte masks replaced by
// the columns of their nonzero() coordinates; the indexed dims in order;
// and B, the broadcast of the index tensors. Errors are PyTorch's
// IndexErrors. The index values are not checked here (against
// self.size(d), negative ones counting from the end): the caller does it.
struct IndexedDims {
  std::vector<Tensor> per_dim;
  std::vector<int64_t> indexed;
  std::vector<int64_t> b_shape;
};
IndexedDims expand_indices(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                           const char* op);

// index_put_'s values have self's dtype.
void check_index_put_dtype(const Tensor& self, const Tensor& values, const char* op);

// masked ops: a Bool mask; for masked_fill_, a mask that broadcasts to
// self's shape (never the other way: self is written) and shares no memory
// with self, and a 0-d value tensor.
void check_bool_mask(const Tensor& mask, const char* op);
void check_broadcasts_to(const Tensor& t, c10::IntArrayRef shape, const char* op,
                         const char* what);
void check_masked_fill(const Tensor& self, const Tensor& mask);
void check_masked_fill_value(const Tensor& value);

// Throws c10::IndexError, PyTorch's words: "op: index v is out of bounds for
// dimension dim with size size."
[[noreturn]] void throw_index_out_of_bounds(const char* op, int64_t v, int64_t dim,
                                            int64_t size);

// embedding's arguments: a 2-d weight, and int64 or int32 indices; an index
// outside the table throws c10::IndexError in PyTorch's words.
void check_embedding_weight(const Tensor& weight, const char* op);
void check_embedding_indices(const Tensor& indices, const char* op);
// embedding_dense_backward: num_weights >= 0 and grad_output of shape
// indices.sizes() + [embedding_dim].
void check_embedding_backward_shapes(const Tensor& grad_output, const Tensor& indices,
                                     int64_t num_weights, const char* op);
[[noreturn]] void throw_embedding_index_out_of_range(const char* op, int64_t v, int64_t rows);

}  // namespace native
}  // namespace at
