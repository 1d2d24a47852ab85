#include "autograd/saved_variable.h"

#include "aten/Functions.h"
#include "autograd/function.h"
#include "autograd/variable.h"

namespace torch {
namespace autograd {

namespace {
// "[CPUFloatType [2, 2]]", as PyTorch describes a tensor in this message.
std::string describe(const at::Tensor& t) {
  std::string device = t.device().type() == c10::DeviceType::CPU ? "CPU" : t.device().str();
  return c10::str("[", device, c10::toString(t.scalar_type()), "Type ", t.sizes(), "]");
}
}  // namespace

SavedVariable::SavedVariable(const at::Tensor& variable, bool is_output) {
  if (!variable.defined()) return;
  was_defined_ = true;
  is_output_ = is_output;
  saved_version_ = variable.unsafeGetTensorImpl()->version();
  requires_grad_ = variable.requires_grad();
  type_description_ = describe(variable);
  AutogradMeta* meta = impl::get_autograd_meta(variable);
  if (meta != nullptr) output_nr_ = meta->output_nr_;
  if (is_output) {
    // Saving the output with its grad_fn would make the Node own itself.
    data_ = variable.detach();
    data_.unsafeGetTensorImpl()->set_version_counter(
        variable.unsafeGetTensorImpl()->version_counter());
  } else {
    data_ = variable.detach();
    if (meta != nullptr) {
      grad_fn_ = meta->grad_fn_;
      is_leaf_ = grad_fn_ == nullptr;
      if (is_leaf_ && requires_grad_) grad_accumulator_ = impl::grad_accumulator(variable);
    }
  }
}

void SavedVariable::reset_data() {
  data_ = at::Tensor();
  grad_fn_.reset();
  released_ = true;
}

at::Tensor SavedVariable::unpack(const std::shared_ptr<Node>& saved_for) const {
  if (!was_defined_) return at::Tensor();
  TORCH_CHECK(!released_, "Trying to backward through the graph a second time (or "
              "directly access saved tensors after they have already been freed). "
              "Saved intermediate values of the graph are freed when you call "
              ".backward() or autograd.grad(). Specify retain_graph=True if you need "
              "to backward through the graph a second time or if you need to access "
              "saved tensors after calling backward.");
  const uint32_t current = data_.unsafeGetTensorImpl()->version();
  if (current != saved_version_) {
    const std::shared_ptr<Node>& fn = is_output_ ? saved_for : grad_fn_;
    std::string origin = fn ? c10::str(", which is output ", output_nr_, " of ", fn->name())
                            : std::string();
    C10_THROW_ERROR(Error, "one of the variables needed for gradient computation has "
                    "been modified by an inplace operation: ", type_description_, origin,
                    ", is at version ", current, "; expected version ", saved_version_,
                    " instead. Hint: the backtrace further above shows the operation "
                    "that failed to compute its gradient. The variable in question was "
                    "changed in there or anywhere later. Good luck!");
  }
  if (!requires_grad_) return data_;
  // A fresh tensor over the same data, with the saved history, so that
  // create_graph passes can differentiate through it.
  at::Tensor var = data_.detach();
  var.unsafeGetTensorImpl()->set_version_counter(data_.unsafeGetTensorImpl()->version_counter());
  if (is_output_) {
    if (saved_for) impl::set_gradient_edge(var, Edge(saved_for, output_nr_));
  } else if (grad_fn_) {
    impl::set_gradient_edge(var, Edge(grad_fn_, output_nr_));
  } else if (is_leaf_) {
    // The leaf itself: its AccumulateGrad, so a gradient of the backward
    // reaches the same .grad.
    std::shared_ptr<Node> acc = grad_accumulator_.lock();
    if (acc) {
      impl::set_gradient_edge(var, Edge(acc, 0));
    } else {
      var.requires_grad_(true);
    }
  }
  return var;
}

}  // namespace autograd
}  // namespace torch
