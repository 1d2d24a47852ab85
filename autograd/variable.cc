#include "autograd/variable.h"

#include "aten/Functions.h"
#include "aten/TensorOperators.h"
#include "autograd/autograd.h"
#include "autograd/functions/accumulate_grad.h"
#include "autograd/functions/tensor.h"
#include "autograd/grad_mode.h"

namespace torch {
namespace autograd {

void AutogradMeta::set_requires_grad(bool requires_grad, c10::TensorImpl* self_impl) {
  TORCH_CHECK(!requires_grad || c10::isFloatingType(self_impl->dtype()),
              "Only Tensors of floating point dtype can require gradients, but "
              "this tensor is ", self_impl->dtype(), ". Convert it first, e.g. "
              "t.to(torch::kFloat).requires_grad_().");
  TORCH_CHECK(requires_grad || grad_fn_ == nullptr,
              "you can only change requires_grad flags of leaf variables. If you "
              "want to use a computed variable in a subgraph that doesn't require "
              "differentiation use var_no_grad = var.detach().");
  requires_grad_ = requires_grad;
}

namespace impl {

AutogradMeta* get_autograd_meta(const at::Tensor& t) {
  return static_cast<AutogradMeta*>(t.unsafeGetTensorImpl()->autograd_meta());
}

AutogradMeta* materialize_autograd_meta(const at::Tensor& t) {
  c10::TensorImpl* impl = t.unsafeGetTensorImpl();
  if (impl->autograd_meta() == nullptr) {
    impl->set_autograd_meta(std::make_unique<AutogradMeta>());
  }
  return static_cast<AutogradMeta*>(impl->autograd_meta());
}

std::shared_ptr<Node> grad_accumulator(const at::Tensor& t) {
  AutogradMeta* meta = get_autograd_meta(t);
  if (meta == nullptr || !meta->requires_grad_ || meta->grad_fn_) return nullptr;
  std::lock_guard<std::mutex> lock(meta->mutex_);
  std::shared_ptr<Node> acc = meta->grad_accumulator_.lock();
  if (acc) return acc;
  // The node refers to the leaf through a tensor sharing its TensorImpl.
  acc = make_node<AccumulateGrad>(t);
  meta->grad_accumulator_ = acc;
  return acc;
}

// Note [In-place on views]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// A view shares its base's memory, so an in-place op on either changes the
// other's values; autograd keeps both gradients right as PyTorch does.
//
// View ops mark their outputs (mark_view) whether or not grad mode is on:
// the root base (never itself a view), the version of the shared storage,
// and how the view was made (CreationMeta).
//
// An in-place op on a view `v` of base `b` that records history (Node fn,
// recorded with v as its input 0) is not recorded on v alone, which would
// leave b's history describing its old values: rebase_history makes b's
// grad_fn a CopySlices wrapping fn (autograd/functions/tensor.h). Its
// backward runs fn on the part of b's gradient that v covers (v's geometry
// relative to b), writes fn's input gradient back there and passes fn's
// other gradients (e.g. add_'s `other`) on. v's own grad_fn is then made
// again as a view of b's new history.
//
// Every other view of b (and b's views after an in-place op on b itself)
// now has a grad_fn describing old values. Their storage version moved on,
// so when grad_fn or gradient_edge is read, a view whose recorded version
// differs gets a new grad_fn (regenerate_view_grad_fn): AsStridedBackward0
// with its geometry, from b's current gradient edge. Nothing is made while
// neither the view nor its base has history.
//
// PyTorch's refusals stay (check_inplace): an in-place op recording history
// on a view of a leaf that requires grad (b's .grad would be wrong); on a
// view made in no-grad mode (ambiguous: was the view meant to be tracked?);
// and on an output of a multi-output view op (split, chunk, unbind: their
// shared Node cannot be rebased per output). The last two are also refused
// when such a view is used after its base changed (regeneration). Under
// NoGradGuard nothing is recorded and every in-place op is allowed.
// Callers that record an in-place op without rebase_history (the boxed
// fallback, custom Functions' dirty outputs) refuse views instead.
namespace {
[[noreturn]] void throw_view_rebase_error(const AutogradMeta& meta, bool indirect) {
  const std::string modified = indirect ? "its base or another view of its base has been"
                                        : "is being";
  std::string msg;
  if (meta.creation_meta_ == CreationMeta::NO_GRAD_MODE) {
    msg = c10::str("A view was created in no_grad mode and ", modified, " modified inplace "
                   "with grad mode enabled. Given that this use case is ambiguous and "
                   "error-prone, it is forbidden. You can clarify your code by moving both "
                   "the view and the inplace either both inside the no_grad block (if you "
                   "don't want the inplace to be tracked) or both outside (if you want the "
                   "inplace to be tracked).");
  } else {
    const std::string what = meta.grad_fn_ ? c10::str("Output ", meta.output_nr_, " of ",
                                                      meta.grad_fn_->name(), " is a view")
                                           : std::string("This tensor is a view");
    msg = c10::str(what, " and ", modified, " modified inplace. This view is the output of "
                   "a function that returns multiple views. Such functions do not allow the "
                   "output views to be modified inplace. You should replace the inplace "
                   "operation by an out-of-place one (or clone() the view first).");
  }
  C10_THROW_ERROR(Error, msg);
}

// See Note [In-place on views]. Caller holds meta.mutex_.
void regenerate_view_grad_fn(const at::Tensor& t, AutogradMeta& meta, uint32_t version) {
  if (meta.creation_meta_ != CreationMeta::DEFAULT) throw_view_rebase_error(meta, true);
  meta.grad_fn_ = make_view_of_base_node(t, meta.view_base_);
  meta.output_nr_ = 0;
  meta.view_version_.store(version, std::memory_order_release);
}

// The view's grad_fn, made again if the view is stale.
const std::shared_ptr<Node>& current_view_grad_fn(const at::Tensor& t, AutogradMeta& meta) {
  const uint32_t version = static_cast<uint32_t>(t._version());
  if (meta.view_version_.load(std::memory_order_acquire) == version) return meta.grad_fn_;
  std::lock_guard<std::mutex> lock(meta.mutex_);
  if (meta.view_version_.load(std::memory_order_relaxed) != version &&
      (meta.grad_fn_ || meta.view_base_.requires_grad())) {
    regenerate_view_grad_fn(t, meta, version);
  }
  return meta.grad_fn_;
}
}  // namespace

const std::shared_ptr<Node>& grad_fn(const at::Tensor& t) {
  static const std::shared_ptr<Node> none;
  if (!t.defined()) return none;
  AutogradMeta* meta = get_autograd_meta(t);
  if (meta == nullptr) return none;
  if (C10_UNLIKELY(meta->is_view_)) return current_view_grad_fn(t, *meta);
  return meta->grad_fn_;
}

Edge gradient_edge(const at::Tensor& t) {
  AutogradMeta* meta = get_autograd_meta(t);
  if (meta == nullptr) return Edge();
  const std::shared_ptr<Node>& fn =
      C10_UNLIKELY(meta->is_view_) ? current_view_grad_fn(t, *meta) : meta->grad_fn_;
  if (fn) return Edge(fn, meta->output_nr_);
  return Edge(grad_accumulator(t), 0);
}

void set_gradient_edge(const at::Tensor& t, Edge edge) {
  AutogradMeta* meta = materialize_autograd_meta(t);
  meta->grad_fn_ = std::move(edge.function);
  meta->output_nr_ = edge.input_nr;
}

}  // namespace impl

bool compute_requires_grad(std::initializer_list<const at::Tensor*> tensors) {
  if (!at::GradMode::is_enabled()) return false;
  for (const at::Tensor* t : tensors) {
    if (t != nullptr && t->defined() && t->requires_grad()) return true;
  }
  return false;
}

bool compute_requires_grad(at::TensorList tensors) {
  if (!at::GradMode::is_enabled()) return false;
  for (const at::Tensor& t : tensors) {
    if (t.defined() && t.requires_grad()) return true;
  }
  return false;
}

void set_history(const at::Tensor& t, const std::shared_ptr<Node>& node) {
  if (!t.defined()) {
    node->add_input_metadata_undefined();
    return;
  }
  const uint32_t nr = node->add_input_metadata(t);
  impl::set_gradient_edge(t, Edge(node, nr));
}

namespace {
// PyTorch's propagate_creation_meta: a view of a view keeps the first
// restriction it was made under.
void mark_view_impl(const at::Tensor& view, const at::Tensor& base, CreationMeta creation) {
  if (!view.defined() || !base.defined() || !view.unsafeGetTensorImpl()->has_storage() ||
      !base.unsafeGetTensorImpl()->has_storage() ||
      !view.storage().is_alias_of(base.storage())) {
    return;
  }
  // A view op returning its input's own TensorImpl must not make it a view
  // of itself (the metadata would own the tensor: a reference cycle).
  if (view.unsafeGetTensorImpl() == base.unsafeGetTensorImpl()) return;
  AutogradMeta* base_meta = impl::get_autograd_meta(base);
  const bool base_is_view = base_meta != nullptr && base_meta->is_view_;
  AutogradMeta* meta = impl::materialize_autograd_meta(view);
  meta->view_base_ = base_is_view ? base_meta->view_base_ : base;
  TORCH_INTERNAL_ASSERT(meta->view_base_.unsafeGetTensorImpl() != view.unsafeGetTensorImpl(),
                        "mark_view: a tensor cannot be a view of itself");
  meta->view_version_.store(static_cast<uint32_t>(view._version()), std::memory_order_release);
  meta->is_view_ = true;
  meta->creation_meta_ = base_is_view && base_meta->creation_meta_ != CreationMeta::DEFAULT
                             ? base_meta->creation_meta_
                             : creation;
}
}  // namespace

void mark_view(const at::Tensor& view, const at::Tensor& base) {
  mark_view_impl(view, base, at::GradMode::is_enabled() ? CreationMeta::DEFAULT
                                                        : CreationMeta::NO_GRAD_MODE);
}

void mark_views(at::TensorList views, const at::Tensor& base) {
  const CreationMeta creation = at::GradMode::is_enabled() ? CreationMeta::MULTI_OUTPUT_NODE
                                                           : CreationMeta::NO_GRAD_MODE;
  for (const at::Tensor& v : views) mark_view_impl(v, base, creation);
}

void check_inplace(const at::Tensor& t, bool requires_grad, bool rebases_views) {
  if (!requires_grad || !at::GradMode::is_enabled()) return;
  AutogradMeta* meta = impl::get_autograd_meta(t);
  if (meta != nullptr && meta->is_view_) {
    // See Note [In-place on views].
    if (meta->creation_meta_ != CreationMeta::DEFAULT) {
      impl::throw_view_rebase_error(*meta, false);
    }
    const AutogradMeta* base = impl::get_autograd_meta(meta->view_base_);
    TORCH_CHECK(base == nullptr || base->grad_fn_ != nullptr || !base->requires_grad_,
                "a view of a leaf Variable that requires grad is being used in an "
                "in-place operation. Modify the leaf under torch::NoGradGuard, or "
                "operate on a clone.");
    TORCH_CHECK(rebases_views, "an in-place operation on a view is being recorded for "
                "autograd by an op without a derivative formula or a custom Function "
                "marking it dirty, which cannot rebase the view's base (PyTorch's "
                "CopySlices), so the base's gradient would be wrong. Apply it to a "
                "clone of the view, or to the base itself.");
    return;
  }
  TORCH_CHECK(meta == nullptr || meta->grad_fn_ != nullptr || !meta->requires_grad_,
              "a leaf Variable that requires grad is being used in an in-place "
              "operation. Modify it under torch::NoGradGuard (e.g. for an "
              "optimizer step), or operate on a clone.");
}

void rebase_history(const at::Tensor& t, const std::shared_ptr<Node>& node) {
  AutogradMeta* meta = impl::materialize_autograd_meta(t);
  TORCH_INTERNAL_ASSERT(node->num_inputs() == 0, "rebase_history: node already has inputs");
  node->add_input_metadata(t);
  if (meta->is_view_) {
    // See Note [In-place on views].
    const at::Tensor& base = meta->view_base_;
    auto copy_slices = make_node<CopySlices>(base, t, node);
    impl::set_gradient_edge(base, Edge(std::move(copy_slices), 0));
    std::lock_guard<std::mutex> lock(meta->mutex_);
    impl::regenerate_view_grad_fn(t, *meta, static_cast<uint32_t>(t._version()));
    return;
  }
  meta->grad_fn_ = node;
  meta->output_nr_ = 0;
}

namespace {

// ---- c10's factory and aten's hooks ---------------------------------------------------

struct Factory final : c10::impl::AutogradMetaFactory {
  std::unique_ptr<c10::AutogradMetaInterface> make() const override {
    return std::make_unique<AutogradMeta>();
  }
};

// A non-leaf's tensor hook, run as a pre hook of its grad_fn on the gradient
// of that output. Holds the hook itself (shared with the tensor's metadata,
// so remove_hook can empty it): the tensor may be gone by the time the
// backward runs.
struct TensorHook final : FunctionPreHook {
  TensorHook(std::shared_ptr<std::function<at::Tensor(const at::Tensor&)>> hook,
             uint32_t output_nr)
      : hook_(std::move(hook)), output_nr_(output_nr) {}
  variable_list operator()(const variable_list& grads) override {
    if (!*hook_ || output_nr_ >= grads.size() || !grads[output_nr_].defined()) return grads;
    variable_list out = grads;
    at::Tensor replaced = (*hook_)(out[output_nr_]);
    if (replaced.defined()) out[output_nr_] = std::move(replaced);
    return out;
  }
  std::shared_ptr<std::function<at::Tensor(const at::Tensor&)>> hook_;
  uint32_t output_nr_;
};

// retain_grad(): stores the gradient of a non-leaf into its .grad, if the
// tensor still exists.
struct RetainGradHook final : FunctionPreHook {
  RetainGradHook(c10::weak_intrusive_ptr<c10::TensorImpl> tensor, uint32_t output_nr)
      : tensor_(std::move(tensor)), output_nr_(output_nr) {}
  variable_list operator()(const variable_list& grads) override {
    c10::intrusive_ptr<c10::TensorImpl> impl = tensor_.lock();
    if (!impl || output_nr_ >= grads.size() || !grads[output_nr_].defined()) return grads;
    auto* meta = static_cast<AutogradMeta*>(impl->autograd_meta());
    if (meta == nullptr || !meta->retains_grad_) return grads;
    const at::Tensor& g = grads[output_nr_];
    meta->grad_ = meta->grad_.defined() ? meta->grad_ + g : g.clone();
    return grads;
  }
  c10::weak_intrusive_ptr<c10::TensorImpl> tensor_;
  uint32_t output_nr_;
};

struct Hooks final : at::impl::VariableHooksInterface {
  const std::shared_ptr<Node>& grad_fn(const at::Tensor& self) const override {
    return impl::grad_fn(self);
  }
  const at::Tensor& grad(const at::Tensor& self) const override {
    static const at::Tensor undefined;
    AutogradMeta* meta = impl::get_autograd_meta(self);
    return meta != nullptr ? meta->grad_ : undefined;
  }
  at::Tensor& mutable_grad(const at::Tensor& self) const override {
    return impl::materialize_autograd_meta(self)->grad_;
  }
  void set_requires_grad(const at::Tensor& self, bool requires_grad) const override {
    TORCH_CHECK(self.defined(), "requires_grad_: the tensor is undefined.");
    self.unsafeGetTensorImpl()->set_requires_grad(requires_grad);
  }
  // As PyTorch: the recorded grad_fn, not made again for a stale view.
  bool is_leaf(const at::Tensor& self) const override {
    AutogradMeta* meta = impl::get_autograd_meta(self);
    return meta == nullptr || meta->grad_fn_ == nullptr;
  }
  int64_t output_nr(const at::Tensor& self) const override {
    AutogradMeta* meta = impl::get_autograd_meta(self);
    return meta != nullptr ? meta->output_nr_ : 0;
  }
  void retain_grad(const at::Tensor& self) const override {
    TORCH_CHECK(self.requires_grad(), "can't retain_grad on Tensor that has "
                "requires_grad=False");
    impl::grad_fn(self);  // a stale view's grad_fn is made again first
    AutogradMeta* meta = impl::materialize_autograd_meta(self);
    if (!meta->grad_fn_ || meta->retains_grad_) return;  // leaves keep .grad anyway
    meta->retains_grad_ = true;
    meta->grad_fn_->tensor_pre_hooks().push_back(std::make_unique<RetainGradHook>(
        c10::weak_intrusive_ptr<c10::TensorImpl>(self.getIntrusivePtr()), meta->output_nr_));
  }
  bool retains_grad(const at::Tensor& self) const override {
    AutogradMeta* meta = impl::get_autograd_meta(self);
    return meta != nullptr && meta->retains_grad_;
  }
  void backward(const at::Tensor& self, const at::Tensor& gradient,
                std::optional<bool> retain_graph, bool create_graph,
                std::optional<at::TensorList> inputs) const override {
    variable_list in;
    if (inputs.has_value()) in.assign(inputs->begin(), inputs->end());
    variable_list grads;
    if (gradient.defined()) grads.push_back(gradient);
    torch::autograd::backward({self}, grads, retain_graph, create_graph, in);
  }
  unsigned register_hook(const at::Tensor& self,
                         std::function<at::Tensor(const at::Tensor&)> hook) const override {
    TORCH_CHECK(self.requires_grad(), "cannot register a hook on a tensor that "
                "doesn't require gradient");
    impl::grad_fn(self);  // a stale view's grad_fn is made again first
    AutogradMeta* meta = impl::materialize_autograd_meta(self);
    meta->hooks_.push_back(
        std::make_shared<std::function<at::Tensor(const at::Tensor&)>>(std::move(hook)));
    // A leaf's hooks run in its AccumulateGrad, which reads them from the
    // metadata; a non-leaf's run as a pre hook of its grad_fn.
    if (meta->grad_fn_) {
      meta->grad_fn_->tensor_pre_hooks().push_back(
          std::make_unique<TensorHook>(meta->hooks_.back(), meta->output_nr_));
    }
    return static_cast<unsigned>(meta->hooks_.size() - 1);
  }
  void remove_hook(const at::Tensor& self, unsigned pos) const override {
    AutogradMeta* meta = impl::get_autograd_meta(self);
    TORCH_CHECK(meta != nullptr && pos < meta->hooks_.size(), "remove_hook: Invalid index ",
                pos, " passed to remove_hook; use the handle register_hook returned.");
    *meta->hooks_[pos] = nullptr;
  }
  void set_data(const at::Tensor& self, const at::Tensor& new_data) const override {
    TORCH_CHECK(self.defined() && new_data.defined(), "set_data: both tensors must be "
                "defined, but ", self.defined() ? "new_data" : "self", " is undefined.");
    AutogradMeta* meta = impl::get_autograd_meta(self);
    if (meta != nullptr) {
      TORCH_CHECK(meta->grad_fn_ == nullptr,
                  "set_data: the tensor has autograd history (a grad_fn); only a leaf's "
                  "data can be replaced. Call it on a leaf, or detach() first.");
      // A leaf's AccumulateGrad records the dtype and device gradients must
      // have; a later graph gets a fresh one with the new metadata.
      if (new_data.scalar_type() != self.scalar_type() || new_data.device() != self.device()) {
        std::lock_guard<std::mutex> lock(meta->mutex_);
        meta->grad_accumulator_.reset();
      }
    }
    self.unsafeGetTensorImpl()->shallow_copy_from(*new_data.unsafeGetTensorImpl());
  }
};

const bool g_installed = [] {
  static Factory factory;
  c10::impl::SetAutogradMetaFactory(&factory);
  static Hooks hooks;
  at::impl::SetVariableHooks(&hooks);
  return true;
}();

}  // namespace
}  // namespace autograd
}  // namespace torch
