// aten/IndexDecompositions.cc — see IndexDecompositions.h.
#include "aten/IndexDecompositions.h"

#include <algorithm>
#include <string>

#include "aten/Functions.h"
#include "aten/JoinUtils.h"
#include "aten/Resize.h"
#include "registration/library.h"

namespace at {
namespace native {

Tensor& masked_fill__scalar_decomposed(Tensor& self, const Tensor& mask,
                                       const c10::Scalar& value) {
  check_masked_fill(self, mask);
  // A 0-d CPU tensor of self's dtype: a device's kernels take it by value
  // (Note [CPU scalars on a device]).
  const Tensor v = at::full({}, value, TensorOptions().dtype(self.scalar_type()));
  self.copy_(at::where(mask, v, self));
  return self;
}

Tensor& masked_fill__tensor_decomposed(Tensor& self, const Tensor& mask, const Tensor& value) {
  check_masked_fill_value(value);
  check_masked_fill(self, mask);
  self.copy_(at::where(mask, value.to(self.scalar_type()), self));
  return self;
}

namespace {

// The elements of `values` (1-d) where `flags` (1-d Bool, same length) is
// true, in order: each selected one goes to its running-sum slot, the rest
// to slot `count`, which is dropped.
Tensor compact(const Tensor& values, const Tensor& flags) {
  const int64_t count = at::sum(flags).item<int64_t>();
  const Tensor slot = at::sub(at::cumsum(flags, 0), 1);  // Long
  const Tensor target = at::where(flags, slot, at::full_like(slot, count));
  Tensor out = at::empty({count + 1}, values.options());
  out.scatter_(0, target, values);
  return out.narrow(0, 0, count).clone();
}

}  // namespace

Tensor nonzero_decomposed(const Tensor& self) {
  const int64_t nd = self.dim();
  const Tensor flags = at::ne(self.reshape({-1}), 0);
  const Tensor linear =
      compact(at::arange(self.numel(), self.options().dtype(c10::kLong)), flags);
  if (nd == 0) return at::empty({linear.numel(), 0}, linear.options());
  // Row-major coordinates of each linear position, last dim first.
  std::vector<Tensor> coords(static_cast<size_t>(nd));
  Tensor rest = linear;
  for (int64_t d = nd - 1; d >= 0; --d) {
    coords[static_cast<size_t>(d)] = at::remainder(rest, self.size(d));
    rest = at::div(rest, self.size(d), "floor");
  }
  return at::stack(coords, 1);
}

Tensor masked_select_decomposed(const Tensor& self, const Tensor& mask) {
  const char* op = "masked_select";
  check_bool_mask(mask, op);
  const std::vector<int64_t> shape = broadcast_shapes(self.sizes(), mask.sizes(), op);
  return compact(self.expand(shape).reshape({-1}), mask.expand(shape).reshape({-1}));
}

namespace {

// The plan of an advanced indexing (See index_decomposed): self's dims
// reordered as pre, indexed, post; the linear index over the indexed block
// (shape B, Long); the result's shape.
struct AdvancedIndex {
  std::vector<int64_t> perm;
  int64_t pre = 1, block = 1, post = 1;  // element counts of the three groups
  Tensor linear;
  std::vector<int64_t> result_shape;
};

AdvancedIndex plan_index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                         const char* op) {
  const int64_t nd = self.dim();
  const IndexedDims dims = expand_indices(self, indices, op);
  const std::vector<Tensor>& per_dim = dims.per_dim;
  const std::vector<int64_t>& indexed = dims.indexed;
  const std::vector<int64_t>& b_shape = dims.b_shape;
  // Each index in range, checked on its device: one read per index tensor;
  // the first bad one is looked up on the CPU only to report it.
  for (int64_t d : indexed) {
    const Tensor& idx = per_dim[static_cast<size_t>(d)];
    const int64_t size = self.size(d);
    const Tensor bad = at::logical_or(at::lt(idx, -size), at::ge(idx, size));
    if (idx.numel() > 0 && at::any(bad).item<bool>()) {
      const Tensor host_bad = bad.reshape({-1}).to(c10::kCPU);
      const Tensor host_idx = idx.reshape({-1}).to(c10::kLong).to(c10::kCPU);
      for (int64_t i = 0; i < host_bad.numel(); ++i) {
        if (host_bad.data_ptr<bool>()[i]) {
          throw_index_out_of_bounds(op, host_idx.data_ptr<int64_t>()[i], d, size);
        }
      }
    }
  }
  AdvancedIndex plan;
  const bool adjacent =
      indexed.empty() ||
      indexed.back() - indexed.front() + 1 == static_cast<int64_t>(indexed.size());
  std::vector<int64_t> pre_sizes, post_sizes;
  for (int64_t d = 0; d < nd; ++d) {
    if (per_dim[static_cast<size_t>(d)].defined()) continue;
    const bool before = adjacent && !indexed.empty() && d < indexed.front();
    if (before) {
      plan.perm.push_back(d);
      pre_sizes.push_back(self.size(d));
      plan.pre *= self.size(d);
    }
  }
  for (int64_t d : indexed) {
    plan.perm.push_back(d);
    plan.block *= self.size(d);
  }
  for (int64_t d = 0; d < nd; ++d) {
    if (per_dim[static_cast<size_t>(d)].defined()) continue;
    const bool before = adjacent && !indexed.empty() && d < indexed.front();
    if (!before) {
      plan.perm.push_back(d);
      post_sizes.push_back(self.size(d));
      plan.post *= self.size(d);
    }
  }
  // The linear index over the indexed block, row-major in `indexed` order.
  const TensorOptions longs = self.options().dtype(c10::kLong);
  plan.linear = at::zeros(b_shape, longs);
  for (int64_t d : indexed) {
    const Tensor wrapped = at::remainder(per_dim[static_cast<size_t>(d)].to(c10::kLong), self.size(d));
    plan.linear = at::add(at::mul(plan.linear, self.size(d)), wrapped);
  }
  plan.result_shape = pre_sizes;
  plan.result_shape.insert(plan.result_shape.end(), b_shape.begin(), b_shape.end());
  plan.result_shape.insert(plan.result_shape.end(), post_sizes.begin(), post_sizes.end());
  return plan;
}

}  // namespace

Tensor index_decomposed(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  const AdvancedIndex plan = plan_index(self, indices, "index");
  const Tensor grouped = self.permute(plan.perm).reshape({plan.pre, plan.block, plan.post});
  return at::index_select(grouped, 1, plan.linear.reshape({-1})).reshape(plan.result_shape);
}

Tensor& index_put__decomposed(Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                              const Tensor& values, bool accumulate) {
  const char* op = "index_put_";
  check_index_put_dtype(self, values, op);
  check_no_internal_overlap(self, op);
  const AdvancedIndex plan = plan_index(self, indices, op);
  // Leading size-1 dims of values beyond the result's rank are dropped, as
  // PyTorch does, before broadcasting.
  Tensor v = values;
  while (v.dim() > static_cast<int64_t>(plan.result_shape.size()) && v.size(0) == 1) {
    v = v.squeeze(0);
  }
  bool fits = v.dim() <= static_cast<int64_t>(plan.result_shape.size());
  for (int64_t i = 0; fits && i < v.dim(); ++i) {
    const int64_t r = plan.result_shape[plan.result_shape.size() - static_cast<size_t>(v.dim()) +
                                        static_cast<size_t>(i)];
    fits = v.size(i) == r || v.size(i) == 1;
  }
  TORCH_CHECK(fits, op, ": shape mismatch: value tensor of shape ", values.sizes(),
              " cannot be broadcast to indexing result of shape ",
              c10::IntArrayRef(plan.result_shape), ".");
  const int64_t nb = plan.linear.numel();
  if (nb == 0 || plan.pre * plan.post == 0) return self;
  // The values in result order, a copy (values may alias self).
  const Tensor src =
      v.expand(plan.result_shape).reshape({plan.pre, nb, plan.post}).clone();
  const Tensor slots = plan.linear.reshape({1, nb, 1}).expand({plan.pre, nb, plan.post});
  // Self's elements grouped as [pre, block, post] (a copy), written, and
  // copied back through the permuted view.
  Tensor target = self.permute(plan.perm);
  Tensor grouped = target.reshape({plan.pre, plan.block, plan.post}).clone();
  if (accumulate) {
    grouped.scatter_add_(1, slots, src);
  } else {
    grouped.scatter_(1, slots, src);
  }
  target.copy_(grouped.reshape(target.sizes()));
  return self;
}

namespace {

Tensor& index_out_composite(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                            Tensor& out) {
  check_out_dtype(out, self.scalar_type(), "index_out");
  check_no_overlap(out, self, "index_out");
  const Tensor result = index_decomposed(self, indices);
  resize_output(out, result.sizes(), "index_out");
  out.copy_(result);
  return out;
}

Tensor& nonzero_out_composite(const Tensor& self, Tensor& out) {
  check_out_dtype(out, c10::kLong, "nonzero_out");
  check_no_overlap(out, self, "nonzero_out");
  const Tensor result = nonzero_decomposed(self);
  resize_output(out, result.sizes(), "nonzero_out");
  out.copy_(result);
  return out;
}

Tensor& masked_select_out_composite(const Tensor& self, const Tensor& mask, Tensor& out) {
  check_out_dtype(out, self.scalar_type(), "masked_select_out");
  const Tensor result = masked_select_decomposed(self, mask);
  resize_output(out, result.sizes(), "masked_select_out");
  out.copy_(result);
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("index.Tensor", TORCH_FN(index_decomposed));
  m.impl("index.Tensor_out", TORCH_FN(index_out_composite));
  m.impl("index_put_", TORCH_FN(index_put__decomposed));
  m.impl("nonzero", TORCH_FN(nonzero_decomposed));
  m.impl("nonzero.out", TORCH_FN(nonzero_out_composite));
  m.impl("masked_select", TORCH_FN(masked_select_decomposed));
  m.impl("masked_select.out", TORCH_FN(masked_select_out_composite));
  m.impl("masked_fill_.Scalar", TORCH_FN(masked_fill__scalar_decomposed));
  m.impl("masked_fill_.Tensor", TORCH_FN(masked_fill__tensor_decomposed));
}

}  // namespace native
}  // namespace at
