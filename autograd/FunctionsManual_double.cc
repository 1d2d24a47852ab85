// The derivatives of backward ops (for double backward) and of the ops that
// gained one late (var_mean, std_mean, binary_cross_entropy's target,
// scatter.reduce). Declared in autograd/FunctionsManual.h; used by
// autograd/derivatives.txt.
//
// Note [Double backward through views]
// A first derivative computed with create_graph=true is itself recorded, so
// every helper here (and every formula of derivatives.txt) must be built
// from differentiable ops. The gradients of select, slice and diagonal used
// to be written into a zero tensor through a view with copy_, which (with
// create_graph) records a CopySlices per call; they are now ops
// (select_backward, slice_backward, diagonal_backward, composite kernels in
// aten/ops/views.cc) whose own derivative is the forward view of the
// gradient, as in PyTorch.
#include <cmath>
#include <string>

#include "aten/Functions.h"
#include "aten/Reduction.h"
#include "aten/TensorOperators.h"
#include "autograd/FunctionsManual.h"

namespace torch {
namespace autograd {
namespace generated {
namespace details {

namespace {

constexpr int64_t kNone = at::Reduction::None, kMean = at::Reduction::Mean;

bool present(const std::optional<at::Tensor>& t) { return t.has_value() && t->defined(); }

// r summed down to a 0-d tensor for the Mean and Sum reductions (the
// gradient of a reduced loss's scalar grad_output).
at::Tensor reduce_like_loss(const at::Tensor& r, int64_t reduction, int64_t n) {
  if (reduction == kNone) return r;
  at::Tensor s = r.sum();
  return reduction == kMean ? s / static_cast<double>(std::max<int64_t>(n, 1)) : s;
}

// 1 / n for the Mean reduction, else 1.
double loss_norm(int64_t reduction, int64_t n) {
  return reduction == kMean ? 1.0 / static_cast<double>(std::max<int64_t>(n, 1)) : 1.0;
}

// x (1 - x), bounded below as the binary_cross_entropy kernels bound it.
at::Tensor bce_denominator(const at::Tensor& self) {
  return at::clamp_min(self * (1 - self), 1e-12);
}

}  // namespace

// ---- softmax ---------------------------------------------------------------------------------

// gi = y * (go - sum(go * y)); w.r.t. y with incoming g:
// g * (go - sum(go * y)) - go * sum(g * y).
at::Tensor softmax_double_backward(const at::Tensor& grad, const at::Tensor& grad_output,
                                   int64_t dim, const at::Tensor& output) {
  const at::Tensor go_dot_y = at::sum(grad_output * output, {dim}, /*keepdim=*/true);
  const at::Tensor g_dot_y = at::sum(grad * output, {dim}, /*keepdim=*/true);
  return grad * (grad_output - go_dot_y) - grad_output * g_dot_y;
}

// gi = go - exp(y) * sum(go); w.r.t. y: -g * exp(y) * sum(go).
at::Tensor log_softmax_double_backward(const at::Tensor& grad, const at::Tensor& grad_output,
                                       int64_t dim, const at::Tensor& output) {
  return -grad * at::exp(output) * at::sum(grad_output, {dim}, /*keepdim=*/true);
}

// ---- losses ----------------------------------------------------------------------------------

// mse_loss_backward: gi = 2 (x - t) go (/ n for Mean), n = gi.numel().
at::Tensor mse_loss_double_backward_grad_output(const at::Tensor& grad, const at::Tensor& self,
                                                const at::Tensor& target, int64_t reduction) {
  return reduce_like_loss(grad * (self - target) * 2, reduction, grad.numel());
}

at::Tensor mse_loss_double_backward(const at::Tensor& grad, const at::Tensor& grad_output,
                                    int64_t reduction) {
  return grad * grad_output * (2 * loss_norm(reduction, grad.numel()));
}

// loss = -w (t log x + (1 - t) log(1 - x)): d/dt = w (log(1 - x) - log x).
at::Tensor binary_cross_entropy_target_backward(const at::Tensor& grad, const at::Tensor& self,
                                                const at::Tensor& target,
                                                const std::optional<at::Tensor>& weight,
                                                int64_t reduction) {
  at::Tensor g = (at::log1p(-self) - at::log(self)) * grad;
  if (present(weight)) g = g * *weight;
  (void)target;
  return g * loss_norm(reduction, self.numel());
}

// binary_cross_entropy_backward: gi = go w (x - t) / (x (1 - x)) (/ n).
at::Tensor binary_cross_entropy_double_backward_grad_output(
    const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
    const std::optional<at::Tensor>& weight, int64_t reduction) {
  at::Tensor r = grad * (self - target) / bce_denominator(self);
  if (present(weight)) r = r * *weight;
  return reduce_like_loss(r, reduction, self.numel());
}

// d/dx of (x - t) / (x (1 - x)) = ((x - t)^2 + t (1 - t)) / (x (1 - x))^2.
at::Tensor binary_cross_entropy_double_backward(const at::Tensor& grad_output,
                                                const at::Tensor& grad, const at::Tensor& self,
                                                const at::Tensor& target,
                                                const std::optional<at::Tensor>& weight,
                                                int64_t reduction) {
  const at::Tensor d = bce_denominator(self);
  const at::Tensor diff = self - target;
  at::Tensor r = grad * grad_output * (diff * diff + target * (1 - target)) / (d * d);
  if (present(weight)) r = r * *weight;
  return r * loss_norm(reduction, self.numel());
}

// d/dt of (x - t) / (x (1 - x)) = -1 / (x (1 - x)).
at::Tensor binary_cross_entropy_double_backward_target(
    const at::Tensor& grad, const at::Tensor& grad_output, const at::Tensor& self,
    const at::Tensor& target, const std::optional<at::Tensor>& weight, int64_t reduction) {
  (void)target;
  at::Tensor r = -grad * grad_output / bce_denominator(self);
  if (present(weight)) r = r * *weight;
  return r * loss_norm(reduction, self.numel());
}

// loss = -w (p t log s(x) + (1 - t) log(1 - s(x))), with log s(x) = -softplus(-x)
// and log(1 - s(x)) = -softplus(x): d/dt = w (p softplus(-x) - softplus(x)).
at::Tensor bce_with_logits_target_backward(const at::Tensor& grad, const at::Tensor& self,
                                           const at::Tensor& target,
                                           const std::optional<at::Tensor>& weight,
                                           const std::optional<at::Tensor>& pos_weight,
                                           int64_t reduction) {
  (void)target;
  at::Tensor d = present(pos_weight)
                     ? *pos_weight * at::softplus(-self) - at::softplus(self)
                     : -self;
  if (present(weight)) d = d * *weight;
  at::Tensor g = d * grad;
  if (reduction == kMean) g = g / static_cast<double>(std::max<int64_t>(g.numel(), 1));
  return g;
}

// ---- pooling ---------------------------------------------------------------------------------

at::Tensor max_pool_double_backward(const at::Tensor& grad, const at::Tensor& indices) {
  TORCH_CHECK(grad.dim() >= 2 && grad.dim() == indices.dim(),
              "max_pool2d_with_indices_backward (double backward): expected the gradient ",
              "(sizes ", grad.sizes(), ") and the indices (sizes ", indices.sizes(),
              ") to have the same number of dims, at least 2. Pass the indices "
              "max_pool2d_with_indices returned.");
  std::vector<int64_t> in_shape(grad.sizes().begin(), grad.sizes().end() - 2);
  std::vector<int64_t> idx_shape = in_shape;
  in_shape.push_back(grad.size(-2) * grad.size(-1));
  idx_shape.push_back(indices.size(-2) * indices.size(-1));
  const int64_t last = static_cast<int64_t>(in_shape.size()) - 1;
  return grad.reshape(in_shape).gather(last, indices.reshape(idx_shape)).reshape(indices.sizes());
}

std::vector<int64_t> last_two_sizes(c10::IntArrayRef sizes) {
  TORCH_CHECK(sizes.size() >= 2, "adaptive pooling (double backward): expected a gradient "
              "with at least 2 dims, but got sizes ", sizes, ".");
  return {sizes[sizes.size() - 2], sizes[sizes.size() - 1]};
}

// ---- convolution -----------------------------------------------------------------------------

// convolution_backward maps (gO, I, W) to gI = A_W^T gO, gW = B_I^T gO and
// gb = sum(gO), where A_W I = B_I W = conv(I, W). Given ggI, ggW, ggb:
//   d/dgO = conv(ggI, W) + conv(I, ggW) + ggb (broadcast)  (the adjoints' adjoints)
//   d/dW  = the weight gradient of conv(ggI, W) against gO
//   d/dI  = the input gradient of conv(I, ggW) against gO
// convolution and convolution_backward handle transposed and grouped
// convolutions alike, so the same three lines cover them.
std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_double_backward(
    const at::Tensor& ggI, const at::Tensor& ggW, const at::Tensor& ggb, const at::Tensor& gO,
    const at::Tensor& weight, const at::Tensor& input, c10::IntArrayRef stride,
    c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed,
    c10::IntArrayRef output_padding, int64_t groups, const std::vector<bool>& output_mask) {
  at::Tensor ggO, gI, gW;
  if (output_mask[0]) {
    if (ggI.defined()) {
      ggO = at::convolution(ggI, weight, ggb.defined() ? std::optional<at::Tensor>(ggb)
                                                       : std::optional<at::Tensor>(),
                            stride, padding, dilation, transposed, output_padding, groups);
    }
    if (ggW.defined()) {
      at::Tensor t = at::convolution(input, ggW, std::nullopt, stride, padding, dilation,
                                     transposed, output_padding, groups);
      ggO = ggO.defined() ? ggO + t : t;
    }
    if (ggb.defined() && !ggI.defined()) {
      std::vector<int64_t> shape(static_cast<size_t>(gO.dim()), 1);
      shape[1] = ggb.numel();
      at::Tensor t = ggb.reshape(shape).expand(gO.sizes());
      ggO = ggO.defined() ? ggO + t : t;
    }
  }
  if (output_mask[1] && ggW.defined()) {
    gI = std::get<0>(at::convolution_backward(gO, input, ggW, std::nullopt, stride, padding,
                                              dilation, transposed, output_padding, groups,
                                              {true, false, false}));
  }
  if (output_mask[2] && ggI.defined()) {
    gW = std::get<1>(at::convolution_backward(gO, ggI, weight, std::nullopt, stride, padding,
                                              dilation, transposed, output_padding, groups,
                                              {false, true, false}));
  }
  return {ggO, gI, gW};
}

// ---- reductions ------------------------------------------------------------------------------

at::Tensor var_mean_backward(const at::Tensor& grad_var, const at::Tensor& grad_mean,
                             const at::Tensor& self, c10::OptionalIntArrayRef dim,
                             const std::optional<at::Scalar>& correction, bool keepdim) {
  at::Tensor g;
  if (grad_var.defined()) g = var_backward(grad_var, self, dim, correction, keepdim);
  if (grad_mean.defined()) {
    at::Tensor m = mean_backward(grad_mean, self.sizes(), dim, self.numel(), keepdim);
    g = g.defined() ? g + m : m;
  }
  return g;
}

at::Tensor std_mean_backward(const at::Tensor& grad_std, const at::Tensor& grad_mean,
                             const at::Tensor& self, const at::Tensor& std,
                             c10::OptionalIntArrayRef dim,
                             const std::optional<at::Scalar>& correction, bool keepdim) {
  at::Tensor g;
  if (grad_std.defined()) g = std_backward(std, grad_std, self, dim, correction, keepdim);
  if (grad_mean.defined()) {
    at::Tensor m = mean_backward(grad_mean, self.sizes(), dim, self.numel(), keepdim);
    g = g.defined() ? g + m : m;
  }
  return g;
}

// ---- scatter.reduce --------------------------------------------------------------------------

namespace {
void check_scatter_reduce_differentiable(c10::string_view reduce) {
  if (reduce == "add") return;
  C10_THROW_ERROR(NotImplementedError,
                  "the derivative for 'aten::scatter' with reduce='", std::string(reduce),
                  "' is not implemented (only reduce='add' is differentiable, as its "
                  "gradient is scatter_add's). Compute the product from differentiable ops, "
                  "or detach the inputs.");
}
}  // namespace

at::Tensor scatter_reduce_self_backward(const at::Tensor& grad, c10::string_view reduce) {
  check_scatter_reduce_differentiable(reduce);
  return grad;
}

at::Tensor scatter_reduce_src_backward(const at::Tensor& grad, int64_t dim,
                                       const at::Tensor& index, c10::string_view reduce) {
  check_scatter_reduce_differentiable(reduce);
  return grad.gather(dim, index);
}

}  // namespace details
}  // namespace generated
}  // namespace autograd
}  // namespace torch
