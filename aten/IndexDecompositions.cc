// aten/IndexDecompositions.cc — see IndexDecompositions.h.
#include "aten/IndexDecompositions.h"

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
  m.impl("nonzero", TORCH_FN(nonzero_decomposed));
  m.impl("nonzero.out", TORCH_FN(nonzero_out_composite));
  m.impl("masked_select", TORCH_FN(masked_select_decomposed));
  m.impl("masked_select.out", TORCH_FN(masked_select_out_composite));
  m.impl("masked_fill_.Scalar", TORCH_FN(masked_fill__scalar_decomposed));
  m.impl("masked_fill_.Tensor", TORCH_FN(masked_fill__tensor_decomposed));
}

}  // namespace native
}  // namespace at
