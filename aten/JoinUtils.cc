// aten/JoinUtils.cc — see JoinUtils.h.
#include "aten/JoinUtils.h"

#include <algorithm>
#include <string>
#include <utility>

#include "aten/Functions.h"
#include "aten/TypePromotion.h"
#include "aten/WrapDimUtils.h"
#include "c10/util/Exception.h"

namespace at {
namespace native {

bool overlaps(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined() || a.numel() == 0 || b.numel() == 0) return false;
  if (!a.storage().is_alias_of(b.storage())) return false;
  auto range = [](const Tensor& t) {
    int64_t last = 0;
    for (int64_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
    const auto item = static_cast<int64_t>(t.itemsize());
    const int64_t begin = t.storage_offset() * item;
    return std::make_pair(begin, begin + (last + 1) * item);
  };
  const auto ra = range(a);
  const auto rb = range(b);
  return ra.first < rb.second && rb.first < ra.second;
}

void check_out_dtype(const Tensor& out, c10::ScalarType dtype, const char* op) {
  TORCH_CHECK(out.defined(), op, ": the out= tensor is undefined; pass a tensor.");
  TORCH_CHECK(out.scalar_type() == dtype, op, ": expected out tensor to have dtype ",
              dtype, ", but got ", out.scalar_type(), " instead. Pass an out= "
              "tensor of dtype ", dtype, ".");
}

void check_no_overlap(const Tensor& out, const Tensor& input, const char* op) {
  TORCH_CHECK(!overlaps(out, input), op, ": unsupported operation: some elements "
              "of the input tensor and the written-to tensor refer to a single "
              "memory location. Pass an out= tensor that shares no memory with "
              "the inputs.");
}

void check_no_internal_overlap(const Tensor& self, const char* op) {
  for (int64_t d = 0; d < self.dim(); ++d) {
    TORCH_CHECK(!(self.size(d) > 1 && self.stride(d) == 0), op,
                ": unsupported operation: more than one element of the "
                "written-to tensor refers to a single memory location (shape ",
                self.sizes(), ", stride ", self.strides(), "). Please clone() "
                "the tensor before performing the operation.");
  }
}

bool cat_skips(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

CatPlan plan_cat(TensorList tensors, int64_t dim, const char* op) {
  TORCH_CHECK(!tensors.empty(), op, ": expected a non-empty list of Tensors.");
  std::vector<const Tensor*> all;
  for (size_t i = 0; i < tensors.size(); ++i) {
    TORCH_CHECK(tensors[i].defined(), op, ": tensor number ", i,
                " in the list is undefined.");
    TORCH_CHECK(tensors[i].dim() > 0, op, ": zero-dimensional tensor (at position ",
                i, ") cannot be concatenated. Unsqueeze it to 1-d first.");
    all.push_back(&tensors[i]);
  }
  CatPlan plan;
  plan.dtype = at::result_type(c10::ArrayRef<const Tensor*>(all));
  const Tensor* first = nullptr;
  size_t first_i = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!cat_skips(tensors[i])) {
      first = &tensors[i];
      first_i = i;
      break;
    }
  }
  if (first == nullptr) {  // every input is a legacy empty tensor
    (void)at::maybe_wrap_dim(dim, 1, op);
    plan.shape = {0};
    return plan;
  }
  plan.dim = at::maybe_wrap_dim(dim, first->dim(), op);
  plan.shape.assign(first->sizes().begin(), first->sizes().end());
  plan.shape[static_cast<size_t>(plan.dim)] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (cat_skips(t)) continue;
    TORCH_CHECK(t.dim() == first->dim(), op, ": Tensors must have same number of "
                "dimensions: got ", first->dim(), " (tensor number ", first_i,
                ") and ", t.dim(), " (tensor number ", i, ").");
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d == plan.dim) continue;
      TORCH_CHECK(t.size(d) == first->size(d), op, ": Sizes of tensors must match "
                  "except in dimension ", plan.dim, ". Expected size ", first->size(d),
                  " but got size ", t.size(d), " for tensor number ", i,
                  " in the list (shapes ", first->sizes(), " and ", t.sizes(), ").");
    }
    plan.shape[static_cast<size_t>(plan.dim)] += t.size(plan.dim);
  }
  return plan;
}

void check_cat_out(TensorList tensors, const CatPlan& plan, const Tensor& out, const char* op) {
  TORCH_CHECK(out.defined(), op, ": the out= tensor is undefined; pass a tensor.");
  TORCH_CHECK(at::can_cast(plan.dtype, out.scalar_type()), op, ": input types can't be "
              "cast to the desired output type ", out.scalar_type(), " (the inputs "
              "promote to ", plan.dtype, ").");
  for (const Tensor& t : tensors) {
    TORCH_CHECK(!overlaps(out, t), op, ": unsupported operation: the input tensors "
                "cannot refer to any of the output memory locations. Pass an out= "
                "tensor that shares no memory with the inputs.");
  }
}

void check_index_select_args(const Tensor& self, const Tensor& index) {
  TORCH_CHECK(index.scalar_type() == c10::ScalarType::Long ||
                  index.scalar_type() == c10::ScalarType::Int,
              "index_select(): Expected dtype int32 or int64 for index, but got ",
              index.scalar_type(), ". Convert the index with .to(at::kLong).");
  TORCH_CHECK(index.dim() <= 1, "index_select(): Index is supposed to be a vector, "
              "but got an index of shape ", index.sizes(), ". Flatten it first.");
  if (self.dim() == 0) {
    TORCH_CHECK_INDEX(index.numel() == 1, "index_select(): a 0-d input takes "
                      "exactly one index, but got ", index.numel(), ".");
  }
}

std::vector<int64_t> index_select_shape(const Tensor& self, int64_t dim, const Tensor& index) {
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  if (self.dim() > 0) shape[static_cast<size_t>(dim)] = index.numel();
  return shape;
}

void throw_index_out_of_bounds(const char* op, int64_t v, int64_t dim, int64_t size) {
  TORCH_CHECK_INDEX(false, op, ": index ", v, " is out of bounds for dimension ", dim,
                    " with size ", size, ".");
  __builtin_unreachable();
}

void check_embedding_weight(const Tensor& weight, const char* op) {
  TORCH_CHECK(weight.dim() == 2, op, ": 'weight' must be 2-D [num_embeddings, "
              "embedding_dim], but got a ", weight.dim(), "-d tensor of shape ",
              weight.sizes(), ".");
}

void check_embedding_indices(const Tensor& indices, const char* op) {
  TORCH_CHECK(indices.scalar_type() == c10::kLong || indices.scalar_type() == c10::kInt,
              op, ": Expected tensor for argument #1 'indices' to have one of the "
              "following scalar types: Long, Int; but got ", indices.scalar_type(),
              " instead. Convert the indices with .to(torch::kLong).");
}

void check_embedding_backward_shapes(const Tensor& grad_output, const Tensor& indices,
                                     int64_t num_weights, const char* op) {
  TORCH_CHECK(num_weights >= 0, op, ": num_weights must be non-negative, but got ",
              num_weights, ".");
  const int64_t n = indices.numel();
  TORCH_CHECK(grad_output.dim() >= 1 && grad_output.numel() ==
                  n * grad_output.size(-1) && (grad_output.dim() - 1 == indices.dim()),
              op, ": grad_output must have shape indices.sizes() + [embedding_dim] (",
              indices.sizes(), " + [D]), but got ", grad_output.sizes(), ".");
}

void throw_embedding_index_out_of_range(const char* op, int64_t v, int64_t rows) {
  TORCH_CHECK_INDEX(false, op, ": index ", v, " is out of range for an embedding of ", rows,
                    " rows (index out of range in self); indices must be in [0, ",
                    rows - 1, "].");
  __builtin_unreachable();
}

void check_gather_scatter_args(const char* op, const Tensor& self, int64_t dim,
                               const Tensor& index, const Tensor* src) {
  TORCH_CHECK(index.scalar_type() == c10::ScalarType::Long, op,
              "(): Expected dtype int64 for index, but got ", index.scalar_type(),
              ". Convert the index with .to(at::kLong).");
  const int64_t self_dim = std::max<int64_t>(self.dim(), 1);
  const int64_t index_dim = std::max<int64_t>(index.dim(), 1);
  TORCH_CHECK(index_dim == self_dim, op, "(): Index tensor must have the same number "
              "of dimensions as ", src == nullptr ? "input" : "self", " tensor (got ",
              index.sizes(), " for index and ", self.sizes(), ").");
  if (src != nullptr) {
    TORCH_CHECK(std::max<int64_t>(src->dim(), 1) == index_dim, op, "(): Index tensor "
                "must have the same number of dimensions as src tensor (got ",
                index.sizes(), " for index and ", src->sizes(), ").");
    TORCH_CHECK(src->scalar_type() == self.scalar_type(), op, "(): Expected self.dtype "
                "to be equal to src.dtype, but got ", self.scalar_type(), " and ",
                src->scalar_type(), ".");
  }
  if (index.numel() == 0) return;
  // A 0-d tensor's size along its one "dim" is 1.
  auto size_at = [](const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); };
  for (int64_t d = 0; d < index_dim; ++d) {
    const bool self_ok = d == dim || size_at(index, d) <= size_at(self, d);
    const bool src_ok = src == nullptr || size_at(index, d) <= size_at(*src, d);
    TORCH_CHECK(self_ok && src_ok, op, "(): Expected index ", index.sizes(),
                " to be smaller than self ", self.sizes(), " apart from dimension ",
                dim, src != nullptr ? " and to be smaller size than src " : "",
                src != nullptr ? c10::str(src->sizes()) : std::string(), ".");
  }
}

bool scatter_reduce_is_add(c10::string_view reduce, const char* op) {
  if (reduce == "add") return true;
  if (reduce == "multiply") return false;
  C10_THROW_ERROR(Error, c10::str(op, "(): reduce argument must be either add or "
                                      "multiply, but got '", std::string(reduce), "'."));
}

std::vector<int64_t> broadcast_shapes(c10::IntArrayRef a, c10::IntArrayRef b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    TORCH_CHECK(x == y || x == 1 || y == 1, op, ": shapes ", a, " and ", b,
                " cannot be broadcast together; the trailing dimensions must "
                "match or be 1.");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

IndexedDims expand_indices(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                           const char* op) {
  const int64_t nd = self.dim();
  std::vector<Tensor> per_dim;
  int64_t consumed = 0;
  for (const auto& entry : indices) {
    if (!entry.has_value() || !entry->defined()) {
      per_dim.emplace_back();
      ++consumed;
      continue;
    }
    const Tensor& idx = *entry;
    const c10::ScalarType t = idx.scalar_type();
    if (t == c10::kBool || t == c10::kByte) {
      TORCH_CHECK_INDEX(idx.dim() > 0, op, ": a 0-dimensional boolean index is not "
                        "supported; unsqueeze it or index with a 1-d mask instead.");
      TORCH_CHECK_INDEX(consumed + idx.dim() <= nd, op, ": too many indices for tensor "
                        "of dimension ", nd, " (the mask of shape ", idx.sizes(),
                        " at position ", per_dim.size(), " reaches past the last dim).");
      for (int64_t j = 0; j < idx.dim(); ++j) {
        TORCH_CHECK_INDEX(idx.size(j) == self.size(consumed + j), op, ": The shape of "
                          "the mask ", idx.sizes(), " at index ", j, " does not match "
                          "the shape of the indexed tensor ", self.sizes(), " at index ",
                          consumed + j, ".");
      }
      const Tensor nz = at::nonzero(idx.to(c10::kBool));
      for (int64_t j = 0; j < idx.dim(); ++j) per_dim.push_back(nz.select(1, j));
      consumed += idx.dim();
      continue;
    }
    TORCH_CHECK_INDEX(t == c10::kLong || t == c10::kInt, op,
                      ": tensors used as indices must be long, int, byte or bool "
                      "tensors, but got an index of dtype ", t, ".");
    TORCH_CHECK_INDEX(consumed < nd, op, ": too many indices for tensor of dimension ",
                      nd, " (got ", indices.size(), ").");
    per_dim.push_back(idx);
    ++consumed;
  }
  TORCH_CHECK_INDEX(consumed <= nd, op, ": too many indices for tensor of dimension ",
                    nd, " (got ", indices.size(), ").");
  per_dim.resize(static_cast<size_t>(nd));
  // B, the broadcast of the index tensors.
  std::vector<int64_t> b_shape;
  std::vector<int64_t> indexed;
  for (int64_t d = 0; d < nd; ++d) {
    const Tensor& idx = per_dim[static_cast<size_t>(d)];
    if (!idx.defined()) continue;
    if (indexed.empty()) {
      b_shape = idx.sizes().vec();
    } else {
      const size_t n = std::max(b_shape.size(), idx.sizes().size());
      std::vector<int64_t> out(n);
      for (size_t i = 0; i < n; ++i) {
        const int64_t x = i < n - b_shape.size() ? 1 : b_shape[i - (n - b_shape.size())];
        const int64_t y = i < n - idx.sizes().size()
                              ? 1
                              : idx.size(static_cast<int64_t>(i - (n - idx.sizes().size())));
        if (!(x == y || x == 1 || y == 1)) {
          std::string shapes;
          for (const Tensor& other : per_dim) {
            if (!other.defined()) continue;
            shapes += (shapes.empty() ? "" : ", ") + c10::str(other.sizes());
          }
          C10_THROW_ERROR(IndexError, c10::str(op, ": shape mismatch: indexing tensors "
                                               "could not be broadcast together with "
                                               "shapes ", shapes, "."));
        }
        out[i] = x == 1 ? y : x;
      }
      b_shape = out;
    }
    indexed.push_back(d);
  }
  return {per_dim, indexed, b_shape};
}

void check_index_put_dtype(const Tensor& self, const Tensor& values, const char* op) {
  TORCH_CHECK(values.scalar_type() == self.scalar_type(), op, ": Index put requires "
              "the source and destination dtypes match, got ", self.scalar_type(),
              " for the destination and ", values.scalar_type(), " for the source. "
              "Convert values with .to(self.scalar_type()).");
}

void check_bool_mask(const Tensor& mask, const char* op) {
  TORCH_CHECK(mask.scalar_type() == c10::ScalarType::Bool, op,
              " only supports boolean masks, but got mask with dtype ",
              mask.scalar_type(), ". Pass a Bool mask (e.g. mask.ne(0)).");
}

void check_broadcasts_to(const Tensor& t, c10::IntArrayRef shape, const char* op,
                         const char* what) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  const int64_t td = t.dim();
  bool ok = td <= nd;
  for (int64_t i = 0; ok && i < td; ++i) {
    const int64_t s = t.size(i);
    ok = s == shape[static_cast<size_t>(nd - td + i)] || s == 1;
  }
  TORCH_CHECK(ok, op, ": ", what, " of shape ", t.sizes(), " cannot be broadcast to shape ",
              shape, ".");
}

void check_masked_fill(const Tensor& self, const Tensor& mask) {
  check_bool_mask(mask, "masked_fill_");
  check_broadcasts_to(mask, self.sizes(), "masked_fill_", "mask");
  check_no_overlap(self, mask, "masked_fill_");
}

void check_masked_fill_value(const Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value "
              "tensor, but got tensor with ", value.dim(), " dimension(s). Pass a "
              "0-d tensor or a number.");
}

}  // namespace native
}  // namespace at
