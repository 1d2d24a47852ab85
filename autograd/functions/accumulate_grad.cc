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

// Note [Keeping the incoming gradient]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The first gradient a leaf receives becomes its .grad without a copy when
// nothing else can see or change its memory: the handle is the only one
// (use_count 1), the tensor is contiguous, carries no history, and its
// storage has no other owner. A view that the backward itself made (e.g.
// TBackward's grad.t(); view ops record their base even in no-grad mode)
// qualifies too when its recorded base is held by nothing but that record:
// the storage then has exactly two owners, the view and its base, and the
// base goes away with the view. Such a view is kept through detach(), which
// drops the view record, as PyTorch keeps new_grad.detach(). Anything else
// is cloned.
namespace {
enum class Keep { kNo, kAsIs, kDetached };

Keep keepable(const at::Tensor& g) {
  if (g.use_count() != 1 || !g.is_contiguous()) return Keep::kNo;
  const AutogradMeta* meta = impl::get_autograd_meta(g);
  if (meta == nullptr) return g.storage().use_count() == 1 ? Keep::kAsIs : Keep::kNo;
  if (meta->grad_fn_ != nullptr || meta->requires_grad_ || !meta->is_view_) return Keep::kNo;
  const at::Tensor& base = meta->view_base_;
  const bool sole_base = base.defined() && base.use_count() == 1 &&
                         impl::get_autograd_meta(base) == nullptr;
  return sole_base && g.storage().use_count() == 2 ? Keep::kDetached : Keep::kNo;
}
}  // namespace

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
      switch (keepable(new_grad)) {
        case Keep::kAsIs: grad = std::move(new_grad); break;
        case Keep::kDetached: grad = new_grad.detach(); break;
        case Keep::kNo: grad = new_grad.clone(); break;
      }
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
