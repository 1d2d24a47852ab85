#include "autograd/FunctionsManual.h"

#include <algorithm>
#include <cmath>

#include "aten/Functions.h"
#include "aten/Reduction.h"
#include "aten/TensorOperators.h"
#include "aten/WrapDimUtils.h"
#include "c10/core/StridedExtent.h"

namespace torch {
namespace autograd {
namespace generated {
namespace details {

bool any_defined(const variable_list& grads) {
  return std::any_of(grads.begin(), grads.end(), [](const at::Tensor& g) { return g.defined(); });
}

at::Tensor not_implemented(const char* op, const char* input) {
  C10_THROW_ERROR(NotImplementedError, "the derivative for 'aten::", op, "' with respect to '",
                  input, "' is not implemented.");
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

at::Tensor _to_copy_backward(const at::Tensor& grad, const at::TensorOptions& self_options) {
  return grad.to(self_options.device(), self_options.dtype());
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

at::Tensor unsqueeze_to(const at::Tensor& grad, c10::IntArrayRef sizes) {
  return grad.reshape(sizes);
}

at::Tensor unsqueeze_to(const at::Tensor& grad, int64_t /*dim*/, c10::IntArrayRef sizes) {
  return grad.reshape(sizes);
}

// Note [Gradients in their operand's layout]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// linear(x, w) multiplies by w.t(), a column-major view of the row-major
// weight. Its gradient mat1.t().mm(grad) comes out row-major; TBackward
// turns it into a column-major view for w, which AccumulateGrad cannot keep
// as w's .grad (the layout differs from w's), so it copies every weight
// gradient on every step. Computing (grad.t().mm(mat1)).t() instead gives
// the same values in column-major layout; its transpose is then row-major,
// like w, and is kept as is. PyTorch does the same.
namespace {
bool is_column_major(c10::IntArrayRef sizes, c10::IntArrayRef strides) {
  return sizes.size() == 2 && strides[0] == 1 && strides[1] == sizes[0] && sizes[0] > 1 &&
         sizes[1] > 1;
}
}  // namespace

at::Tensor mm_mat1_backward(const at::Tensor& grad, const at::Tensor& mat2,
                            c10::IntArrayRef mat1_sizes, c10::IntArrayRef mat1_strides,
                            const at::Scalar& alpha) {
  if (is_column_major(mat1_sizes, mat1_strides)) {
    return maybe_multiply(mat2.mm(grad.t()).t(), alpha);
  }
  return maybe_multiply(grad.mm(mat2.t()), alpha);
}

at::Tensor mm_mat2_backward(const at::Tensor& grad, const at::Tensor& mat1,
                            c10::IntArrayRef mat2_sizes, c10::IntArrayRef mat2_strides,
                            const at::Scalar& alpha) {
  if (is_column_major(mat2_sizes, mat2_strides)) {
    return maybe_multiply(grad.t().mm(mat1).t(), alpha);
  }
  return maybe_multiply(mat1.t().mm(grad), alpha);
}

// ---- pointwise -----------------------------------------------------------------------------

at::Tensor pow_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& exponent) {
  const double e = exponent.toDouble();
  if (e == 0.0) return at::zeros_like(self);
  return grad * e * self.pow(e - 1);
}

at::Tensor pow_backward_self(const at::Tensor& grad, const at::Tensor& self,
                             const at::Tensor& exponent) {
  const at::Tensor d = grad * exponent * self.pow(exponent - 1);
  return at::where(at::eq(exponent, 0), at::zeros_like(d), d);
}

at::Tensor pow_backward_exponent(const at::Tensor& grad, const at::Tensor& self,
                                 const at::Tensor& exponent, const at::Tensor& result) {
  // d(x^y)/dy = x^y log x; 0 where x == 0 and y >= 0 (the limit).
  const at::Tensor d = grad * result * at::log(self);
  const at::Tensor zero_base = at::logical_and(at::eq(self, 0), at::ge(exponent, 0));
  return at::where(zero_base, at::zeros_like(d), d);
}

at::Tensor clamp_backward(const at::Tensor& grad, const at::Tensor& self,
                          const std::optional<at::Scalar>& min,
                          const std::optional<at::Scalar>& max) {
  at::Tensor keep = at::ones_like(self, at::kBool);
  if (min.has_value()) keep = at::logical_and(keep, at::ge(self, *min));
  if (max.has_value()) keep = at::logical_and(keep, at::le(self, *max));
  return at::where(keep, grad, at::zeros_like(grad));
}

at::Tensor bce_with_logits_backward(const at::Tensor& grad, const at::Tensor& self,
                                    const at::Tensor& target,
                                    const std::optional<at::Tensor>& weight,
                                    const std::optional<at::Tensor>& pos_weight,
                                    int64_t reduction) {
  const at::Tensor s = at::sigmoid(self);
  at::Tensor g;
  if (pos_weight.has_value() && pos_weight->defined()) {
    const at::Tensor t = *pos_weight * target;
    g = (t + 1 - target) * s - t;
  } else {
    g = s - target;
  }
  if (weight.has_value() && weight->defined()) g = g * *weight;
  g = g * grad;
  if (reduction == at::Reduction::Mean) {
    g = g / static_cast<double>(std::max<int64_t>(g.numel(), 1));
  }
  return g;
}

// ---- reductions ----------------------------------------------------------------------------

at::Tensor value_selecting_reduction_backward(const at::Tensor& grad, int64_t dim,
                                              const at::Tensor& indices,
                                              c10::IntArrayRef sizes, bool keepdim) {
  at::Tensor out = at::zeros(sizes, grad.options());
  if (sizes.empty()) return grad.reshape(sizes);  // 0-d input: the only element
  const int64_t d = at::maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()), "backward");
  const at::Tensor g = keepdim ? grad : grad.unsqueeze(d);
  const at::Tensor idx = keepdim ? indices : indices.unsqueeze(d);
  return out.scatter(d, idx, g);
}

at::Tensor prod_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result) {
  if (self.numel() == 0) return at::zeros_like(self);
  const at::Tensor zeros = at::eq(self, 0);
  const int64_t zero_count = zeros.sum().item<int64_t>();
  if (zero_count == 0) return grad * result / self;
  if (zero_count > 1) return at::zeros_like(self);
  const at::Tensor others = at::where(zeros, at::ones_like(self), self).prod();
  return at::where(zeros, grad * others, at::zeros_like(self));
}

at::Tensor prod_dim_backward(const at::Tensor& grad, const at::Tensor& self,
                             const at::Tensor& result, int64_t dim, bool keepdim) {
  if (self.dim() == 0) return grad;
  const int64_t d = at::maybe_wrap_dim(dim, self.dim(), "prod");
  const at::Tensor g = keepdim ? grad : grad.unsqueeze(d);
  const at::Tensor r = keepdim ? result : result.unsqueeze(d);
  const at::Tensor zeros = at::eq(self, 0);
  const at::Tensor zero_count = at::sum(zeros, {d}, /*keepdim=*/true);
  const at::Tensor others = at::prod(at::where(zeros, at::ones_like(self), self), d, true);
  const at::Tensor no_zero = g * r / self;
  const at::Tensor one_zero = at::where(zeros, g * others, at::zeros_like(no_zero));
  return at::where(at::eq(zero_count, 0), no_zero,
                   at::where(at::eq(zero_count, 1), one_zero, at::zeros_like(no_zero)));
}

at::Tensor cumsum_backward(const at::Tensor& grad, int64_t dim) {
  if (grad.dim() == 0) return grad;
  // The reversed cumulative sum: total - (inclusive prefix) + element.
  const at::Tensor total = at::sum(grad, {dim}, /*keepdim=*/true);
  return total - at::cumsum(grad, dim) + grad;
}

namespace {
int64_t reduced_count(const at::Tensor& self, c10::OptionalIntArrayRef dim) {
  if (!dim.has_value() || dim->empty()) return self.numel();
  int64_t n = 1;
  for (int64_t d : *dim) n *= self.size(d);
  return n;
}
}  // namespace

at::Tensor var_backward(const at::Tensor& grad, const at::Tensor& self,
                        c10::OptionalIntArrayRef dim, const std::optional<at::Scalar>& correction,
                        bool keepdim) {
  const double c = correction.has_value() ? correction->toDouble() : 1.0;
  const double n = static_cast<double>(reduced_count(self, dim));
  const at::Tensor g = keepdim || self.dim() == 0
                           ? grad
                           : unsqueeze_multiple(grad, dim, static_cast<size_t>(self.dim()));
  std::vector<int64_t> dims;
  if (dim.has_value() && !dim->empty()) {
    dims = dim->vec();
  } else {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  }
  const at::Tensor mean = dims.empty() ? self : at::mean(self, dims, /*keepdim=*/true);
  return g * (self - mean) * (2.0 / (n - c));
}

at::Tensor std_backward(const at::Tensor& result, const at::Tensor& grad, const at::Tensor& self,
                        c10::OptionalIntArrayRef dim, const std::optional<at::Scalar>& correction,
                        bool keepdim) {
  const at::Tensor grad_var = (grad / (result * 2)).masked_fill(at::eq(result, 0), 0);
  return var_backward(grad_var, self, dim, correction, keepdim);
}

at::Tensor norm_backward(const at::Tensor& grad, const at::Tensor& self,
                         const std::optional<at::Scalar>& p_opt, const at::Tensor& norm,
                         c10::OptionalIntArrayRef dim, bool keepdim) {
  const double p = p_opt.has_value() ? p_opt->toDouble() : 2.0;
  const size_t ndim = static_cast<size_t>(self.dim());
  at::Tensor g = grad, n = norm;
  if (!keepdim && ndim > 0) {
    g = unsqueeze_multiple(grad, dim, ndim);
    n = unsqueeze_multiple(norm, dim, ndim);
  }
  if (p == 0.0) return at::zeros_like(self);
  if (p == 1.0) return self.sign() * g;
  if (p == 2.0) return self * (g / n).masked_fill(at::eq(n, 0), 0);
  if (std::isinf(p)) {
    const at::Tensor hit = at::eq(at::abs(self), n.expand(self.sizes()));
    std::vector<int64_t> dims;
    if (dim.has_value() && !dim->empty()) {
      dims = dim->vec();
    } else {
      for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
    }
    const at::Tensor count = dims.empty() ? at::ones_like(n) : at::sum(hit, dims, true);
    return self.sign() * hit * (g / count);
  }
  const at::Tensor scale = (g / n.pow(p - 1)).masked_fill(at::eq(n, 0), 0);
  return self * at::abs(self).pow(p - 2) * scale;
}

at::Tensor logsumexp_backward(const at::Tensor& grad, const at::Tensor& self,
                              const at::Tensor& result, c10::IntArrayRef dim, bool keepdim) {
  at::Tensor g = grad, r = result;
  if (!keepdim && self.dim() > 0) {
    g = unsqueeze_multiple(grad, dim, static_cast<size_t>(self.dim()));
    r = unsqueeze_multiple(result, dim, static_cast<size_t>(self.dim()));
  }
  return g * at::exp(self - r);
}

// ---- indexing and joining ------------------------------------------------------------------

at::Tensor index_select_backward(const at::Tensor& grad, c10::IntArrayRef sizes, int64_t dim,
                                 const at::Tensor& index) {
  if (sizes.empty()) return grad.reshape(sizes);
  const int64_t d = at::maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()), "index_select");
  std::vector<int64_t> shape(static_cast<size_t>(grad.dim()), 1);
  shape[static_cast<size_t>(d)] = index.numel();
  const at::Tensor idx = index.reshape({-1}).reshape(shape).expand(grad.sizes());
  return at::zeros(sizes, grad.options()).scatter_add(d, idx, grad);
}

std::vector<at::Tensor> cat_backward(const at::Tensor& grad, int64_t dim,
                                     const std::vector<at::Tensor>& tensors) {
  std::vector<at::Tensor> out(tensors.size());
  const int64_t d = at::maybe_wrap_dim(dim, grad.dim(), "cat");
  int64_t start = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const at::Tensor& t = tensors[i];
    if (t.dim() == 1 && t.size(0) == 0 && grad.dim() != 1) {
      out[i] = at::zeros_like(t);  // a legacy empty tensor cat skipped
      continue;
    }
    const int64_t len = t.size(d);
    out[i] = grad.narrow(d, start, len);
    start += len;
  }
  return out;
}

at::Tensor masked_select_backward(const at::Tensor& grad, const at::Tensor& self,
                                  const at::Tensor& mask) {
  const std::vector<int64_t> shape = at::infer_broadcast_shape(self.sizes(), mask.sizes(),
                                                               "masked_select");
  at::Tensor out = at::zeros(shape, grad.options());
  return out.index_put({std::optional<at::Tensor>(mask.expand(shape))}, grad, false);
}

// ---- convolution ---------------------------------------------------------------------------

c10::OptionalIntArrayRef bias_sizes_opt(const at::Tensor& bias) {
  if (!bias.defined()) return c10::OptionalIntArrayRef();
  return c10::OptionalIntArrayRef(bias.sizes());
}

// ---- as_strided -----------------------------------------------------------------------------

namespace {
// The storage location (minus `base`) of each element of the geometry, in
// the order of its elements, as a Long tensor.
at::Tensor storage_indices(c10::IntArrayRef sizes, c10::IntArrayRef strides, int64_t offset,
                           const at::TensorOptions& options) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  at::Tensor out = at::empty({n}, options.dtype(at::kLong));
  int64_t* p = out.data_ptr<int64_t>();
  const size_t dims = sizes.size();
  std::vector<int64_t> idx(dims, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t pos = offset;
    for (size_t d = 0; d < dims; ++d) pos += idx[d] * strides[d];
    p[k] = pos;
    for (size_t d = dims; d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// One past the last storage location the geometry reaches (its offset if
// it is empty); as_strided checked the geometry (Note [Strided extent]).
int64_t storage_end(c10::IntArrayRef sizes, c10::IntArrayRef strides, int64_t offset) {
  int64_t extent = 0;
  TORCH_CHECK(c10::strided_extent(sizes, strides, &extent), "as_strided_backward: sizes ",
              sizes, " with strides ", strides, " reach further than a 64-bit size holds.");
  return offset + extent;
}
}  // namespace

at::Tensor as_strided_backward(const at::Tensor& grad, c10::IntArrayRef input_sizes,
                               c10::IntArrayRef input_strides, int64_t input_storage_offset,
                               c10::IntArrayRef sizes, c10::IntArrayRef strides,
                               std::optional<int64_t> storage_offset) {
  const int64_t out_offset = storage_offset.value_or(input_storage_offset);
  const int64_t lo = std::min(input_storage_offset, out_offset);
  const int64_t hi = std::max(storage_end(input_sizes, input_strides, input_storage_offset),
                              storage_end(sizes, strides, out_offset));
  const at::TensorOptions index_options = grad.options().dtype(at::kLong);
  // The gradient of each storage location the output read.
  at::Tensor out_index = storage_indices(sizes, strides, out_offset - lo, index_options);
  at::Tensor storage = at::zeros({hi - lo}, grad.options())
                           .index_put({std::optional<at::Tensor>(out_index)},
                                      grad.reshape({-1}), /*accumulate=*/true);
  at::Tensor in_index =
      storage_indices(input_sizes, input_strides, input_storage_offset - lo, index_options);
  at::Tensor result = storage.index_select(0, in_index);
  // Input elements sharing a location (e.g. a base made by empty_strided
  // with a zero stride) split its gradient.
  std::vector<int32_t> uses(static_cast<size_t>(hi - lo), 0);
  bool overlaps = false;
  const int64_t* p = in_index.data_ptr<int64_t>();
  for (int64_t k = 0; k < in_index.numel(); ++k) overlaps = ++uses[p[k]] > 1 || overlaps;
  if (overlaps) {
    at::Tensor count = at::empty({in_index.numel()}, grad.options().dtype(at::kDouble));
    double* c = count.data_ptr<double>();
    for (int64_t k = 0; k < in_index.numel(); ++k) c[k] = uses[p[k]];
    result = result / count.to(grad.scalar_type());
  }
  return result.view(input_sizes);
}

}  // namespace details
}  // namespace generated
}  // namespace autograd
}  // namespace torch
