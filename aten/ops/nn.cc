// The neural-network ops written in terms of other ops, registered for
// CompositeImplicitAutograd as in PyTorch: softmax/log_softmax (dtype
// argument, then _softmax/_log_softmax), nll_loss, nll_loss_nd, nll_loss2d,
// cross_entropy_loss, batch_norm, layer_norm and embedding_backward. Every
// backend with the underlying kernels gets them.
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "aten/Functions.h"
#include "aten/Reduction.h"
#include "aten/TensorOperators.h"
#include "aten/WrapDimUtils.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

bool present(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }

// `t` as `dtype` (itself when it already is).
Tensor to_dtype(const Tensor& t, ScalarType dtype) {
  if (t.scalar_type() == dtype) return t;
  Tensor r = at::empty(t.sizes(), t.options().dtype(dtype));
  r.copy_(t);
  return r;
}

// ---- softmax ----------------------------------------------------------------------------

// With dtype, the input is converted first (PyTorch converts on the CPU;
// only CUDA fuses Half -> Float into the kernel).
Tensor softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  TORCH_CHECK(self.defined(), "softmax: the input tensor is undefined.");
  return at::_softmax(dtype ? to_dtype(self, *dtype) : self, dim, false);
}

Tensor log_softmax_int(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  TORCH_CHECK(self.defined(), "log_softmax: the input tensor is undefined.");
  return at::_log_softmax(dtype ? to_dtype(self, *dtype) : self, dim, false);
}

// ---- nll_loss ------------------------------------------------------------------------------

Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                int64_t reduction, int64_t ignore_index) {
  return std::get<0>(at::nll_loss_forward(self, target, weight, reduction, ignore_index));
}

Tensor nll_loss2d(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                  int64_t reduction, int64_t ignore_index) {
  return std::get<0>(at::nll_loss2d_forward(self, target, weight, reduction, ignore_index));
}

// [C] and [N, C] inputs go to nll_loss, [N, C, H, W] to nll_loss2d, and
// [N, C, d1, ..., dk] (k != 2) to nll_loss2d as [N, C, 1, d1 * ... * dk].
Tensor nll_loss_nd(const Tensor& self, const Tensor& target,
                   const std::optional<Tensor>& weight, int64_t reduction,
                   int64_t ignore_index) {
  TORCH_CHECK(self.defined() && target.defined(), "nll_loss_nd: the input and target "
              "must be defined tensors.");
  TORCH_CHECK_VALUE(self.dim() >= 1, "nll_loss_nd: Expected 1 or more dimensions (got ",
                    self.dim(), ")");
  if (self.dim() != 1) {
    TORCH_CHECK_VALUE(target.dim() >= 1 && self.size(0) == target.size(0),
                      "nll_loss_nd: Expected input batch_size (", self.size(0),
                      ") to match target batch_size (",
                      target.dim() >= 1 ? target.size(0) : 0, ").");
  }
  if (self.dim() <= 2) return at::nll_loss(self, target, weight, reduction, ignore_index);
  if (self.dim() == 4) return at::nll_loss2d(self, target, weight, reduction, ignore_index);
  const int64_t n = self.size(0), c = self.size(1);
  std::vector<int64_t> out_size = {n};
  for (int64_t d = 2; d < self.dim(); ++d) out_size.push_back(self.size(d));
  TORCH_CHECK_VALUE(target.sizes().slice(1) == self.sizes().slice(2),
                    "nll_loss_nd: Expected target size ", IntArrayRef(out_size), ", got ",
                    target.sizes());
  const Tensor input = self.numel() > 0 ? self.reshape({n, c, 1, -1})
                                        : self.reshape({n, c, 0, 0});
  const Tensor tgt = target.numel() > 0 ? target.reshape({n, 1, -1})
                                        : target.reshape({n, 0, 0});
  const Tensor out = at::nll_loss2d(input, tgt, weight, reduction, ignore_index);
  return reduction == Reduction::None ? out.reshape(out_size) : out;
}

// ---- cross_entropy_loss ----------------------------------------------------------------------

// weight viewed so that it broadcasts along the class dim of an input of
// `ndim` dims.
Tensor class_weight_view(const Tensor& weight, int64_t ndim, int64_t class_dim) {
  std::vector<int64_t> shape(static_cast<size_t>(ndim), 1);
  shape[static_cast<size_t>(class_dim)] = weight.numel();
  return weight.reshape(shape);
}

// Probability targets (target has the input's shape): the loss at each
// position is -sum_c w_c t_c log_softmax(x)_c; Mean divides by the number
// of positions (not by the weights).
Tensor cross_entropy_prob_target(const Tensor& self, const Tensor& target,
                                 const std::optional<Tensor>& weight, int64_t reduction,
                                 double label_smoothing) {
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const int64_t n_classes = self.size(class_dim);
  TORCH_CHECK(!present(weight) || (weight->dim() == 1 && weight->numel() == n_classes),
              "cross_entropy: weight tensor should be defined either for all ", n_classes,
              " classes or no classes but got weight tensor of shape: ", weight->sizes());
  const Tensor logp = at::log_softmax(self, class_dim, self.scalar_type());
  Tensor t = target;
  if (label_smoothing > 0.0) {
    t = target * (1 - label_smoothing) + label_smoothing / static_cast<double>(n_classes);
  }
  Tensor terms = logp * t;
  if (present(weight)) terms = terms * class_weight_view(*weight, self.dim(), class_dim);
  switch (reduction) {
    case Reduction::None:
      return -at::sum(terms, {class_dim});
    case Reduction::Sum:
      return -at::sum(terms);
    default: {
      Tensor total = -at::sum(terms);
      if (self.numel() == 0) return total.fill_(std::numeric_limits<double>::quiet_NaN());
      return total / static_cast<double>(self.numel() / n_classes);
    }
  }
}

// Class-index targets with label smoothing: (1 - ls) * nll + ls / C *
// smooth, where smooth = -sum_c w_c log_softmax(x)_c at each position that
// is not ignored; Mean divides smooth's sum by the same total weight as nll
// (the sum of w[target] over the positions that are not ignored).
Tensor cross_entropy_label_smoothing(const Tensor& self, const Tensor& target,
                                     const std::optional<Tensor>& weight, int64_t reduction,
                                     int64_t ignore_index, double label_smoothing) {
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const int64_t n_classes = self.size(class_dim);
  const Tensor logp = at::log_softmax(self, class_dim, self.scalar_type());
  const Tensor nll = at::nll_loss_nd(logp, target, weight, reduction, ignore_index);
  const Tensor weighted =
      present(weight) ? logp * class_weight_view(*weight, self.dim(), class_dim) : logp;
  Tensor smooth = -at::sum(weighted, {class_dim});
  // Zero the ignored positions (they have no class to smooth towards).
  const Tensor ignored =
      at::eq(target, at::scalar_tensor(ignore_index, TensorOptions().dtype(kLong)));
  smooth = smooth - smooth * ignored;
  Tensor ret;
  if (reduction == Reduction::None) {
    ret = smooth;
  } else if (reduction == Reduction::Sum) {
    ret = at::sum(smooth);
  } else {
    // nll_loss of an all -1 input is the total weight of the targets.
    const Tensor minus_one = at::full({1}, -1.0, self.options()).expand(self.sizes());
    const Tensor total = at::nll_loss_nd(minus_one, target, weight, Reduction::Sum,
                                         ignore_index);
    ret = at::sum(smooth) / total;
  }
  return nll * (1 - label_smoothing) + ret * (label_smoothing / static_cast<double>(n_classes));
}

Tensor cross_entropy_loss(const Tensor& self, const Tensor& target,
                          const std::optional<Tensor>& weight, int64_t reduction,
                          int64_t ignore_index, double label_smoothing) {
  TORCH_CHECK(self.defined() && target.defined(), "cross_entropy_loss: the input and "
              "target must be defined tensors.");
  TORCH_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0, "cross_entropy_loss: "
              "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  TORCH_CHECK(self.dim() >= 1, "cross_entropy_loss: expected an input of 1 or more "
              "dimensions ([C] or [N, C, d1, ...]), but got a 0-d tensor.");
  if (self.sizes() == target.sizes()) {
    // The same shape: class probabilities (PyTorch's rule).
    TORCH_CHECK(isFloatingType(target.scalar_type()), "cross_entropy_loss: Expected "
                "floating point type for target with class probabilities, got ",
                target.scalar_type());
    TORCH_CHECK(ignore_index < 0, "cross_entropy_loss: ignore_index is not supported "
                "for floating point target");
    return cross_entropy_prob_target(self, target, weight, reduction, label_smoothing);
  }
  if (label_smoothing > 0.0) {
    return cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index,
                                         label_smoothing);
  }
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  return at::nll_loss_nd(at::log_softmax(self, class_dim, self.scalar_type()), target,
                         weight, reduction, ignore_index);
}

// ---- normalization ---------------------------------------------------------------------------

Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                  const std::optional<Tensor>& running_var, bool training, double momentum,
                  double eps, bool /*cudnn_enabled*/) {
  TORCH_CHECK(input.defined(), "batch_norm: the input tensor is undefined.");
  TORCH_CHECK(input.dim() >= 2, "batch_norm: expected an input of at least 2 dimensions "
              "(N, C, ...), but got a ", input.dim(), "-d input of shape ", input.sizes(), ".");
  const int64_t c = input.size(1);
  const std::pair<const char*, const std::optional<Tensor>*> params[] = {
      {"weight", &weight}, {"bias", &bias}, {"running_mean", &running_mean},
      {"running_var", &running_var}};
  for (const auto& [name, t] : params) {
    TORCH_CHECK(!present(*t) || (*t)->numel() == c, "batch_norm: ", name,
                " should contain ", c, " elements not ", (*t)->numel());
  }
  // PyTorch returns an empty input unchanged (no statistics to compute).
  if (input.numel() == 0) return input.clone();
  return std::get<0>(at::native_batch_norm(input, weight, bias, running_mean, running_var,
                                           training, momentum, eps));
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  double eps, bool /*cudnn_enable*/) {
  return std::get<0>(at::native_layer_norm(input, normalized_shape, weight, bias, eps));
}

// ---- embedding -------------------------------------------------------------------------------

Tensor embedding_backward(const Tensor& grad, const Tensor& indices, int64_t num_weights,
                          int64_t padding_idx, bool scale_grad_by_freq, bool sparse) {
  TORCH_CHECK(!sparse, "embedding_backward: sparse gradients are not supported (Ember "
              "has no sparse tensors); use sparse=false.");
  return at::embedding_dense_backward(grad, indices, num_weights, padding_idx,
                                      scale_grad_by_freq);
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("softmax.int", TORCH_FN(at::native::softmax_int));
  m.impl("log_softmax.int", TORCH_FN(at::native::log_softmax_int));
  m.impl("nll_loss", TORCH_FN(at::native::nll_loss));
  m.impl("nll_loss2d", TORCH_FN(at::native::nll_loss2d));
  m.impl("nll_loss_nd", TORCH_FN(at::native::nll_loss_nd));
  m.impl("cross_entropy_loss", TORCH_FN(at::native::cross_entropy_loss));
  m.impl("batch_norm", TORCH_FN(at::native::batch_norm));
  m.impl("layer_norm", TORCH_FN(at::native::layer_norm));
  m.impl("embedding_backward", TORCH_FN(at::native::embedding_backward));
}
