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

namespace {
// A new TensorImpl over the same data and version counter, without autograd
// metadata: how an op's own output is saved (keeping the output itself would
// make the Node own itself through the output's grad_fn). Built directly,
// not through the detach op, as this runs for every saved output.
at::Tensor shallow_copy_without_history(const at::Tensor& t) {
  const c10::TensorImpl* src = t.unsafeGetTensorImpl();
  auto impl = c10::make_intrusive<c10::TensorImpl>(
      c10::Storage(src->storage()),
      c10::DispatchKeySet(c10::computeDispatchKey(src->device().type())), src->dtype());
  impl->set_sizes_and_strides(src->sizes(), src->strides(), src->storage_offset());
  impl->set_version_counter(src->version_counter());
  return at::Tensor(std::move(impl));
}
}  // namespace

SavedVariable::SavedVariable(const at::Tensor& variable, bool is_output) {
  if (!variable.defined()) return;
  was_defined_ = true;
  is_output_ = is_output;
  saved_version_ = variable.unsafeGetTensorImpl()->version();
  requires_grad_ = variable.requires_grad();
  AutogradMeta* meta = impl::get_autograd_meta(variable);
  if (meta != nullptr) output_nr_ = meta->output_nr_;
  if (is_output) {
    data_ = shallow_copy_without_history(variable);
  } else {
    // An input is kept as it is (it does not refer to this Node); unpack()
    // hands it back with its own history. Its creator is remembered for the
    // error message, as an in-place op may replace it.
    data_ = variable;
    if (meta != nullptr && meta->grad_fn_) grad_fn_at_save_ = meta->grad_fn_;
  }
}

SavedTensorInfo SavedVariable::info(std::string name) const {
  SavedTensorInfo out;
  out.name = std::move(name);
  out.defined = was_defined_;
  out.released = released_;
  if (was_defined_ && !released_ && data_.defined()) {
    out.sizes = data_.sizes().vec();
    out.dtype = data_.scalar_type();
  }
  return out;
}

void SavedVariable::reset_data() {
  data_ = at::Tensor();
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
    const std::shared_ptr<Node> fn = is_output_ ? saved_for : grad_fn_at_save_.lock();
    std::string origin = fn ? c10::str(", which is output ", output_nr_, " of ", fn->name())
                            : std::string();
    C10_THROW_ERROR(Error, "one of the variables needed for gradient computation has "
                    "been modified by an inplace operation: ", describe(data_), origin,
                    ", is at version ", current, "; expected version ", saved_version_,
                    " instead. Hint: the backtrace further above shows the operation "
                    "that failed to compute its gradient. The variable in question was "
                    "changed in there or anywhere later. Good luck!");
  }
  if (!is_output_ || !requires_grad_ || !saved_for) return data_;
  // A saved output: a fresh tensor over the same data with the Node as its
  // grad_fn, so that create_graph passes can differentiate through it.
  at::Tensor var = shallow_copy_without_history(data_);
  impl::set_gradient_edge(var, Edge(saved_for, output_nr_));
  return var;
}

}  // namespace autograd
}  // namespace torch
