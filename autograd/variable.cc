#include "autograd/variable.h"

#include "aten/Functions.h"
#include "aten/TensorOperators.h"
#include "autograd/autograd.h"
#include "autograd/functions/accumulate_grad.h"
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

const std::shared_ptr<Node>& grad_fn(const at::Tensor& t) {
  static const std::shared_ptr<Node> none;
  if (!t.defined()) return none;
  AutogradMeta* meta = get_autograd_meta(t);
  return meta != nullptr ? meta->grad_fn_ : none;
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
// other's values. PyTorch keeps their gradients right by rebasing the
// base's history (CopySlices) and regenerating the view's grad_fn. Ember
// does not implement that yet; instead it refuses, with an error, every
// case whose gradient it would get wrong:
//   - an in-place op recording history (grad mode on and some input
//     requires grad) on a view (check_inplace);
//   - a view whose base or sibling view was modified in place since the
//     view was taken (its version moved on) being used to record history,
//     when its base requires grad (gradient_edge): its grad_fn still
//     describes the old values.
// View ops mark their outputs (mark_view: root base and version) whether or
// not grad mode is on, so a view taken under NoGradGuard is refused too.
// In-place ops under NoGradGuard (optimizer steps) stay allowed.
namespace {
void check_view_is_current(const at::Tensor& t, const AutogradMeta& meta) {
  if (!at::GradMode::is_enabled() || meta.view_version_ == static_cast<uint32_t>(t._version()) ||
      !meta.view_base_.requires_grad()) {
    return;
  }
  C10_THROW_ERROR(Error, "a view of a tensor that requires grad is being used after "
                  "it or its base was modified by an in-place operation (version ",
                  t._version(), ", expected ", meta.view_version_, "). Ember's "
                  "autograd does not rebase the history of views yet, so its "
                  "gradient would be wrong. Take the view again after the in-place "
                  "op, or use out-of-place ops.");
}
}  // namespace

Edge gradient_edge(const at::Tensor& t) {
  AutogradMeta* meta = get_autograd_meta(t);
  if (meta == nullptr) return Edge();
  if (C10_UNLIKELY(meta->is_view_)) check_view_is_current(t, *meta);
  if (meta->grad_fn_) return Edge(meta->grad_fn_, meta->output_nr_);
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

void mark_view(const at::Tensor& view, const at::Tensor& base) {
  if (!view.defined() || !base.defined() || !view.unsafeGetTensorImpl()->has_storage() ||
      !base.unsafeGetTensorImpl()->has_storage() ||
      !view.storage().is_alias_of(base.storage())) {
    return;
  }
  AutogradMeta* base_meta = impl::get_autograd_meta(base);
  AutogradMeta* meta = impl::materialize_autograd_meta(view);
  meta->view_base_ = base_meta != nullptr && base_meta->is_view_ ? base_meta->view_base_ : base;
  meta->view_version_ = static_cast<uint32_t>(view._version());
  meta->is_view_ = true;
}

void mark_views(at::TensorList views, const at::Tensor& base) {
  for (const at::Tensor& v : views) mark_view(v, base);
}

void check_inplace(const at::Tensor& t, bool requires_grad) {
  if (!requires_grad) return;
  AutogradMeta* meta = impl::get_autograd_meta(t);
  if (meta != nullptr && meta->is_view_) {
    // See Note [In-place on views].
    const AutogradMeta* base = impl::get_autograd_meta(meta->view_base_);
    TORCH_CHECK(base == nullptr || base->grad_fn_ != nullptr || !base->requires_grad_,
                "a view of a leaf Variable that requires grad is being used in an "
                "in-place operation. Modify the leaf under torch::NoGradGuard, or "
                "operate on a clone.");
    C10_THROW_ERROR(Error, "an in-place operation on a view is being recorded for "
                    "autograd (grad mode is on and an input requires grad). Ember's "
                    "autograd does not rebase the history of views yet (PyTorch's "
                    "CopySlices), so the gradient of the base would be wrong. Use the "
                    "out-of-place op, modify a clone of the view, or run it under "
                    "torch::NoGradGuard if no gradient is needed.");
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
  bool is_leaf(const at::Tensor& self) const override { return impl::grad_fn(self) == nullptr; }
  int64_t output_nr(const at::Tensor& self) const override {
    AutogradMeta* meta = impl::get_autograd_meta(self);
    return meta != nullptr ? meta->output_nr_ : 0;
  }
  void retain_grad(const at::Tensor& self) const override {
    TORCH_CHECK(self.requires_grad(), "can't retain_grad on Tensor that has "
                "requires_grad=False");
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
