// autograd/variable.h — the autograd state of a tensor (AutogradMeta) and
// the functions autograd kernels use to read and set it.
//
// A tensor that requires grad is either a leaf (no grad_fn; gradients
// accumulate into .grad through its AccumulateGrad node) or the output
// number `output_nr` of its grad_fn. The metadata is created on demand
// through c10's AutogradMetaFactory, which this package installs.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "aten/Tensor.h"
#include "autograd/edge.h"
#include "autograd/function.h"
#include "c10/core/TensorImpl.h"

namespace torch {
namespace autograd {

struct AutogradMeta : c10::AutogradMetaInterface {
  void set_requires_grad(bool requires_grad, c10::TensorImpl* self_impl) override;
  bool requires_grad() const override { return requires_grad_ || grad_fn_ != nullptr; }
  at::Tensor& mutable_grad() override { return grad_; }
  const at::Tensor& grad() const override { return grad_; }

  at::Tensor grad_;
  std::shared_ptr<Node> grad_fn_;
  // A leaf's AccumulateGrad, shared by every graph that uses the leaf while
  // one exists (weak: the graph owns it).
  std::weak_ptr<Node> grad_accumulator_;
  bool requires_grad_ = false;  // set by the user on a leaf
  bool retains_grad_ = false;
  uint32_t output_nr_ = 0;
  // Hooks registered with register_hook, by handle; a removed one holds an
  // empty function. Shared with the Node that runs them (non-leaves).
  std::vector<std::shared_ptr<std::function<at::Tensor(const at::Tensor&)>>> hooks_;
  std::mutex mutex_;  // guards grad_accumulator_ creation
  // Set on the outputs of view ops (See Note [In-place on views] in
  // variable.cc): the root tensor whose storage the view shares, and the
  // version of that storage when the view was taken.
  at::Tensor view_base_;
  uint32_t view_version_ = 0;
  bool is_view_ = false;
};

namespace impl {

// The tensor's AutogradMeta, or null.
AutogradMeta* get_autograd_meta(const at::Tensor& t);
// The tensor's AutogradMeta, created if needed.
AutogradMeta* materialize_autograd_meta(const at::Tensor& t);

// grad_fn, or null for leaves and tensors without history.
const std::shared_ptr<Node>& grad_fn(const at::Tensor& t);
// The edge a gradient for `t` flows along: (grad_fn, output_nr) for
// non-leaves, (AccumulateGrad, 0) for leaves that require grad, invalid
// otherwise.
Edge gradient_edge(const at::Tensor& t);
// A leaf's AccumulateGrad (created if needed), or null if t does not
// require grad.
std::shared_ptr<Node> grad_accumulator(const at::Tensor& t);
// Makes `t` the output `edge.input_nr` of `edge.function`.
void set_gradient_edge(const at::Tensor& t, Edge edge);

}  // namespace impl

// Whether an op on these tensors must record history: grad mode is on and
// one of them requires grad.
bool compute_requires_grad(std::initializer_list<const at::Tensor*> tensors);
bool compute_requires_grad(at::TensorList tensors);

// Records `node` as the creator of `t` (its next input number), adding the
// input metadata. Undefined tensors get an undefined input slot.
void set_history(const at::Tensor& t, const std::shared_ptr<Node>& node);

// For in-place ops: checks that `t` may be modified in place under autograd
// (not a leaf that requires grad, unless grad mode is off).
void check_inplace(const at::Tensor& t, bool requires_grad);
// For view ops: records that `view` shares `base`'s storage (nothing when
// it does not, e.g. a reshape that copied). See Note [In-place on views].
void mark_view(const at::Tensor& view, const at::Tensor& base);
void mark_views(at::TensorList views, const at::Tensor& base);
// For in-place ops: `t` now comes from `node` (output 0).
void rebase_history(const at::Tensor& t, const std::shared_ptr<Node>& node);

}  // namespace autograd
}  // namespace torch
