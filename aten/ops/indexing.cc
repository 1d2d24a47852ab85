// Composite indexing kernels, registered for CompositeExplicitAutograd as in
// PyTorch: the out-of-place masked_fill and index_put (a copy, then the
// in-place op), stack (cat of unsqueezed inputs), and sort/sort.values
// (the stable overloads with stable=false).
#include <vector>

#include "aten/Functions.h"
#include "aten/WrapDimUtils.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

Tensor masked_fill_scalar(const Tensor& self, const Tensor& mask, const Scalar& value) {
  const std::vector<int64_t> shape =
      infer_broadcast_shape(self.sizes(), mask.sizes(), "masked_fill");
  Tensor result = at::empty(shape, self.options());
  result.copy_(self);
  result.masked_fill_(mask, value);
  return result;
}

Tensor masked_fill_tensor(const Tensor& self, const Tensor& mask, const Tensor& value) {
  const std::vector<int64_t> shape =
      infer_broadcast_shape(self.sizes(), mask.sizes(), "masked_fill");
  Tensor result = at::empty(shape, self.options());
  result.copy_(self);
  result.masked_fill_(mask, value);
  return result;
}

Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                 const Tensor& values, bool accumulate) {
  Tensor result = self.clone();
  at::index_put_(result, indices, values, accumulate);
  return result;
}

std::vector<Tensor> stack_inputs(TensorList tensors, int64_t dim) {
  TORCH_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  const int64_t wrapped = maybe_wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> inputs;
  inputs.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    TORCH_CHECK(tensors[i].sizes() == tensors[0].sizes(), "stack expects each tensor "
                "to be equal size, but got ", tensors[0].sizes(), " at entry 0 and ",
                tensors[i].sizes(), " at entry ", i, ".");
    inputs.push_back(tensors[i].unsqueeze(wrapped));
  }
  return inputs;
}

Tensor stack(TensorList tensors, int64_t dim) {
  const std::vector<Tensor> inputs = stack_inputs(tensors, dim);
  const int64_t wrapped = maybe_wrap_dim(dim, tensors[0].dim() + 1, "stack");
  return at::cat(inputs, wrapped);
}

Tensor& stack_out(TensorList tensors, int64_t dim, Tensor& out) {
  const std::vector<Tensor> inputs = stack_inputs(tensors, dim);
  const int64_t wrapped = maybe_wrap_dim(dim, tensors[0].dim() + 1, "stack");
  return at::cat_outf(inputs, wrapped, out);
}

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return at::sort(self, std::optional<bool>(false), dim, descending);
}

std::tuple<Tensor&, Tensor&> sort_values(const Tensor& self, int64_t dim,
                                         bool descending, Tensor& values,
                                         Tensor& indices) {
  return at::sort_outf(self, std::optional<bool>(false), dim, descending, values,
                       indices);
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("masked_fill.Scalar", TORCH_FN(at::native::masked_fill_scalar));
  m.impl("masked_fill.Tensor", TORCH_FN(at::native::masked_fill_tensor));
  m.impl("index_put", TORCH_FN(at::native::index_put));
  m.impl("stack", TORCH_FN(at::native::stack));
  m.impl("stack.out", TORCH_FN(at::native::stack_out));
  m.impl("sort", TORCH_FN(at::native::sort));
  m.impl("sort.values", TORCH_FN(at::native::sort_values));
}
