#include "autograd/functions/accumulate_grad.h"

#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"

namespace torch {
namespace autograd {

AccumulateGrad::AccumulateGrad(at::Tensor variable)
    // The leaf has no grad_fn, so its sequence number does not order it
    // among others; use the maximum, as PyTorch does, so leaves run as soon
    // as they are ready.
    : Node(UINT64_MAX), variable_(std::move(variable)) {
  add_input_metadata(variable_);
}

variable_list AccumulateGrad::apply(variable_list&& grads) {
  TORCH_INTERNAL_ASSERT(grads.size() == 1, "AccumulateGrad expects one gradient");
  at::Tensor new_grad = std::move(grads[0]);
  if (!new_grad.defined()) return {};
  AutogradMeta* meta = impl::get_autograd_meta(variable_);
  TORCH_INTERNAL_ASSERT(meta != nullptr, "AccumulateGrad: the leaf lost its metadata");
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& hook : meta->hooks_) {
    if (!*hook) continue;
    at::Tensor replaced = (*hook)(new_grad);
    if (replaced.defined()) new_grad = std::move(replaced);
  }
  if (!meta->requires_grad_) return {};  // turned off since the forward
  at::Tensor& grad = meta->grad_;
  if (!at::GradMode::is_enabled()) {
    if (!grad.defined()) {
      // Steal the buffer when nothing else refers to it (no copy).
      const bool stealable = new_grad.use_count() == 1 && new_grad.is_contiguous() &&
                             new_grad.storage().use_count() == 1 &&
                             impl::get_autograd_meta(new_grad) == nullptr;
      grad = stealable ? new_grad : new_grad.clone();
    } else {
      at::NoGradGuard no_grad;
      grad.add_(new_grad);
    }
  } else {
    // create_graph: .grad gets history; never modify it in place.
    grad = grad.defined() ? at::add(grad, new_grad) : new_grad;
  }
  return {};
}

}  // namespace autograd
}  // namespace torch
