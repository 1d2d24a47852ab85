// autograd/variable.h — the autograd state of a tensor (AutogradMeta) and
// the functions autograd kernels use to read and set it.
//
// A tensor that requires grad is either a leaf (no grad_fn; gradients
// accumulate into .grad through its AccumulateGrad node) or the output
// number `output_nr` of its grad_fn. The metadata is created on demand
// through c10's AutogradMetaFactory, which this package installs.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "aten/Tensor.h"
#include "autograd/edge.h"
#include "autograd/function.h"
#include "c10/core/TensorImpl.h"

namespace torch {
namespace autograd {

// How a view was made, which decides whether it may be modified in place
// while recording history (PyTorch's CreationMeta). See Note [In-place on
// views] in variable.cc.
enum class CreationMeta : uint8_t {
  DEFAULT,            // a single-output view op in grad mode
  NO_GRAD_MODE,       // made while grad mode was off
  MULTI_OUTPUT_NODE,  // an output of split/chunk/unbind
};

struct AutogradMeta : c10::AutogradMetaInterface {
  void set_requires_grad(bool requires_grad, c10::TensorImpl* self_impl) override;
  // A view made in grad mode requires grad when its base does (its history
  // is then "a view of the base's history", made on demand).
  bool requires_grad() const override {
    return requires_grad_ || grad_fn_ != nullptr ||
           (is_view_ && creation_meta_ == CreationMeta::DEFAULT && view_base_.requires_grad());
  }
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
  std::mutex mutex_;  // guards grad_accumulator_ creation and grad_fn_ regeneration
  // Set on the outputs of view ops (See Note [In-place on views] in
  // variable.cc): the root tensor whose storage the view shares (never a
  // view itself), and the version of that storage when grad_fn_ was last
  // made; a view whose version moved on gets a new grad_fn_ when read.
  at::Tensor view_base_;
  std::atomic<uint32_t> view_version_{0};  // read without mutex_ on the fast path
  bool is_view_ = false;
  CreationMeta creation_meta_ = CreationMeta::DEFAULT;
};

namespace impl {

// The tensor's AutogradMeta, or null.
AutogradMeta* get_autograd_meta(const at::Tensor& t);
// The tensor's AutogradMeta, created if needed.
AutogradMeta* materialize_autograd_meta(const at::Tensor& t);

// grad_fn, or null for leaves and tensors without history. For a view
// whose base (or another view of it) was modified in place since, first
// regenerates it as an AsStridedBackward0 of the base's current history.
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

// For in-place ops that record history (requires_grad): checks that `t`
// may be modified in place: not a leaf that requires grad, nor a view of
// one, nor a view made in no-grad mode or by a multi-output view op.
// `rebases_views`: the caller records the op with rebase_history, which
// keeps views right (CopySlices); other callers (the boxed fallback, custom
// Functions' dirty outputs) cannot, and in-place ops on views are refused.
void check_inplace(const at::Tensor& t, bool requires_grad, bool rebases_views = false);
// For view ops: records that `view` shares `base`'s storage (nothing when
// it does not, e.g. a reshape that copied). mark_views: the outputs of a
// multi-output view op (split, unbind, ...). See Note [In-place on views].
void mark_view(const at::Tensor& view, const at::Tensor& base);
void mark_views(at::TensorList views, const at::Tensor& base);
// For in-place ops: `t` now comes from `node` (output 0). When `t` is a
// view, its base's history is rebased onto a CopySlices wrapping `node`,
// and `t`'s grad_fn becomes a view of that.
void rebase_history(const at::Tensor& t, const std::shared_ptr<Node>& node);

}  // namespace autograd
}  // namespace torch
