// l1_loss, smooth_l1_loss, huber_loss and kl_div: the pointwise losses of
// libtorch, written in terms of other ops and registered for
// CompositeImplicitAutograd (differentiable through the ops they call; at
// |x - y| = 0 the subgradient is 0, as PyTorch's sign()).
#include <string>

#include "aten/Functions.h"
#include "aten/Reduction.h"
#include "aten/TensorOperators.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

Tensor reduce(const Tensor& loss, int64_t reduction, const char* op) {
  switch (reduction) {
    case Reduction::None:
      return loss;
    case Reduction::Mean:
      return loss.mean();
    case Reduction::Sum:
      return loss.sum();
    default:
      break;
  }
  C10_THROW_ERROR(Error, op, ": reduction ", reduction, " is not one of None (0), Mean (1) "
                  "or Sum (2); pass at::Reduction::Mean, Sum or None.");
}

// input - target, after checking what the pointwise losses require.
Tensor difference(const Tensor& self, const Tensor& target, const char* op) {
  TORCH_CHECK(self.defined() && target.defined(), op,
              ": the input and the target must be defined tensors.");
  TORCH_CHECK(self.sizes() == target.sizes(), op, ": the target's size (", target.sizes(),
              ") must be the input's size (", self.sizes(), "); reshape one of them (Ember "
              "does not broadcast a loss's target, and PyTorch warns when it does).");
  return self - target;
}

Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return reduce(difference(self, target, "l1_loss").abs(), reduction, "l1_loss");
}

// 0.5 d² / beta where |d| < beta, |d| - 0.5 beta elsewhere; beta = 0 is l1.
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  TORCH_CHECK(beta >= 0, "smooth_l1_loss: beta must be non-negative, but got ", beta, ".");
  const Tensor d = difference(self, target, "smooth_l1_loss").abs();
  if (beta == 0.0) return reduce(d, reduction, "smooth_l1_loss");
  const Tensor loss = at::where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta);
  return reduce(loss, reduction, "smooth_l1_loss");
}

// 0.5 d² where |d| <= delta, delta (|d| - 0.5 delta) elsewhere.
Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  TORCH_CHECK(delta > 0, "huber_loss: delta must be positive, but got ", delta, ".");
  const Tensor d = difference(self, target, "huber_loss").abs();
  const Tensor loss = at::where(d <= delta, d * d * 0.5, (d - 0.5 * delta) * delta);
  return reduce(loss, reduction, "huber_loss");
}

// target (log target - input); target = 0 contributes 0. `input` holds
// log-probabilities; with log_target the target does too. Mean averages
// over every element, as PyTorch's "mean" (its "batchmean" is sum / N).
Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  TORCH_CHECK(self.defined() && target.defined(),
              "kl_div: the input and the target must be defined tensors.");
  Tensor loss;
  if (log_target) {
    loss = target.exp() * (target - self);
  } else {
    // xlogy(target, target): 0 where target is 0.
    const Tensor safe = at::where(target > 0, target, at::ones_like(target));
    loss = target * safe.log() - target * self;
  }
  return reduce(loss, reduction, "kl_div");
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("l1_loss", TORCH_FN(at::native::l1_loss));
  m.impl("smooth_l1_loss", TORCH_FN(at::native::smooth_l1_loss));
  m.impl("huber_loss", TORCH_FN(at::native::huber_loss));
  m.impl("kl_div", TORCH_FN(at::native::kl_div));
}
