#include "autograd/FunctionsManual.h"

#include <algorithm>

#include "aten/Functions.h"
#include "aten/TensorOperators.h"
#include "aten/WrapDimUtils.h"

namespace torch {
namespace autograd {
namespace generated {
namespace details {

bool any_defined(const variable_list& grads) {
  return std::any_of(grads.begin(), grads.end(), [](const at::Tensor& g) { return g.defined(); });
}

void materialize_grads(const Node& node, variable_list& grads) {
  for (size_t i = 0; i < grads.size() && i < node.num_inputs(); ++i) {
    if (grads[i].defined()) continue;
    const InputMetadata& meta = node.input_metadata(i);
    if (!c10::isFloatingType(meta.dtype())) continue;  // e.g. indices
    grads[i] = at::zeros(meta.shape(), at::TensorOptions().dtype(meta.dtype()).device(meta.device()));
  }
}

at::Tensor sum_to(const at::Tensor& grad, c10::IntArrayRef shape) {
  if (grad.sizes() == shape) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(shape.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d < lead || (shape[static_cast<size_t>(d - lead)] == 1 && grad.size(d) != 1)) {
      dims.push_back(d);
    }
  }
  at::Tensor g = dims.empty() ? grad : at::sum(grad, dims, /*keepdim=*/true);
  return g.reshape(shape);
}

at::Tensor maybe_multiply(const at::Tensor& grad, const at::Scalar& s) {
  const bool is_one = s.isBoolean() ? s.toBool() : s.toDouble() == 1.0;
  return is_one ? grad : grad * s;
}

at::Tensor reduce_to(const at::Tensor& grad, c10::IntArrayRef sizes, c10::ScalarType dtype) {
  at::Tensor g = sum_to(grad, sizes);
  if (g.scalar_type() == dtype) return g;
  at::Tensor out = at::empty(g.sizes(), g.options().dtype(dtype));
  out.copy_(g);
  return out;
}

at::Tensor mul_tensor_backward(const at::Tensor& grad, const at::Tensor& other,
                               c10::ScalarType self_dtype) {
  at::Tensor g = grad * other;
  if (g.scalar_type() == self_dtype) return g;
  at::Tensor out = at::empty(g.sizes(), g.options().dtype(self_dtype));
  out.copy_(g);
  return out;
}

at::Tensor div_tensor_self_backward(const at::Tensor& grad, const at::Tensor& other,
                                    c10::ScalarType self_dtype) {
  at::Tensor g = grad / other;
  if (g.scalar_type() == self_dtype) return g;
  at::Tensor out = at::empty(g.sizes(), g.options().dtype(self_dtype));
  out.copy_(g);
  return out;
}

at::Tensor div_tensor_other_backward(const at::Tensor& grad, const at::Tensor& self,
                                     const at::Tensor& other) {
  return -grad * ((self / other) / other);
}

at::Tensor unsqueeze_multiple(const at::Tensor& t, c10::OptionalIntArrayRef dims, size_t ndim) {
  if (!dims.has_value() || dims->empty()) {
    return t.reshape(std::vector<int64_t>(ndim, 1));
  }
  std::vector<int64_t> wrapped;
  for (int64_t d : *dims) wrapped.push_back(at::maybe_wrap_dim(d, static_cast<int64_t>(ndim), "backward"));
  std::sort(wrapped.begin(), wrapped.end());
  at::Tensor r = t;
  for (int64_t d : wrapped) r = r.unsqueeze(d);
  return r;
}

at::Tensor sum_backward(const at::Tensor& grad, c10::IntArrayRef sizes,
                        c10::OptionalIntArrayRef dims, bool keepdim) {
  if (!keepdim && !sizes.empty()) {
    return unsqueeze_multiple(grad, dims, sizes.size()).expand(sizes);
  }
  return grad.expand(sizes);
}

at::Tensor mean_backward(const at::Tensor& grad, c10::IntArrayRef sizes,
                         c10::OptionalIntArrayRef dims, int64_t numel, bool keepdim) {
  const int64_t kept = std::max<int64_t>(grad.numel(), 1);
  const double count = static_cast<double>(numel) / static_cast<double>(kept);
  return sum_backward(grad, sizes, dims, keepdim) / count;
}

at::Tensor evenly_distribute_backward(const at::Tensor& grad, const at::Tensor& self,
                                      const at::Tensor& result, c10::IntArrayRef dims,
                                      bool keepdim) {
  const size_t ndim = static_cast<size_t>(self.dim());
  at::Tensor res = result;
  at::Tensor g = grad;
  if (!keepdim && ndim > 0) {
    res = unsqueeze_multiple(result, dims, ndim);
    g = unsqueeze_multiple(grad, dims, ndim);
  }
  const at::Tensor mask = at::eq(self, res.expand(self.sizes()));
  std::vector<int64_t> all;
  if (dims.empty()) {
    for (int64_t d = 0; d < static_cast<int64_t>(ndim); ++d) all.push_back(d);
  } else {
    all = dims.vec();
  }
  const at::Tensor count = ndim == 0 ? at::ones_like(self) : at::sum(mask, all, /*keepdim=*/true);
  return (g / count) * mask;
}

at::Tensor permute_backwards(const at::Tensor& grad, c10::IntArrayRef dims) {
  std::vector<int64_t> inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    inverse[static_cast<size_t>(at::maybe_wrap_dim(dims[i], static_cast<int64_t>(dims.size()),
                                                   "permute"))] = static_cast<int64_t>(i);
  }
  return grad.permute(inverse);
}

at::Tensor select_backward(const at::Tensor& grad, c10::IntArrayRef sizes, int64_t dim,
                           int64_t index) {
  at::Tensor out = at::zeros(sizes, grad.options());
  out.select(dim, index).copy_(grad);
  return out;
}

at::Tensor slice_backward(const at::Tensor& grad, c10::IntArrayRef sizes, int64_t dim,
                          std::optional<int64_t> start, std::optional<int64_t> end,
                          int64_t step) {
  at::Tensor out = at::zeros(sizes, grad.options());
  out.slice(dim, start, end, step).copy_(grad);
  return out;
}

at::Tensor unsqueeze_to(const at::Tensor& grad, c10::IntArrayRef sizes) {
  return grad.reshape(sizes);
}

at::Tensor unsqueeze_to(const at::Tensor& grad, int64_t /*dim*/, c10::IntArrayRef sizes) {
  return grad.reshape(sizes);
}

at::Tensor diagonal_backward(const at::Tensor& grad, c10::IntArrayRef sizes, int64_t offset,
                             int64_t dim1, int64_t dim2) {
  at::Tensor out = at::zeros(sizes, grad.options());
  out.diagonal(offset, dim1, dim2).copy_(grad);
  return out;
}

at::Tensor mm_mat1_backward(const at::Tensor& grad, const at::Tensor& mat2,
                            const at::Scalar& alpha) {
  return maybe_multiply(grad.mm(mat2.t()), alpha);
}

at::Tensor mm_mat2_backward(const at::Tensor& grad, const at::Tensor& mat1,
                            const at::Scalar& alpha) {
  return maybe_multiply(mat1.t().mm(grad), alpha);
}

at::Tensor abs_backward(const at::Tensor& grad, const at::Tensor& self) {
  return grad * at::gt(self, at::zeros_like(self)) - grad * at::lt(self, at::zeros_like(self));
}

at::Tensor relu_backward(const at::Tensor& grad, const at::Tensor& result) {
  return grad * at::gt(result, at::zeros_like(result));
}

}  // namespace details
}  // namespace generated
}  // namespace autograd
}  // namespace torch
