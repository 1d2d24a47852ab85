#include <atomic>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "aten/Functions.h"

namespace at {

namespace impl {
namespace {
std::atomic<VariableHooksInterface*> g_variable_hooks{nullptr};
}  // namespace

void SetVariableHooks(VariableHooksInterface* hooks) {
  // Release/acquire: a reader that sees the pointer sees the object.
  g_variable_hooks.store(hooks, std::memory_order_release);
}

VariableHooksInterface* GetVariableHooks() {
  VariableHooksInterface* hooks = g_variable_hooks.load(std::memory_order_acquire);
  TORCH_CHECK(hooks != nullptr, "autograd is not available in this process (no "
              "variable hooks are installed). Link the autograd package (depend "
              "on //:ember) to use grad, backward and requires_grad_.");
  return hooks;
}
}  // namespace impl

std::ostream& operator<<(std::ostream& out, const TensorOptions& options) {
  out << "TensorOptions(dtype=" << options.dtype() << ", device=" << options.device()
      << ", layout=" << options.layout()
      << ", requires_grad=" << (options.requires_grad() ? "true" : "false") << ")";
  return out;
}

// Note [item through the dispatcher]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// item() reads no memory itself: _local_scalar_dense is an op, so the
// backend that owns the tensor's memory reads the element (the CPU plugin
// directly; a GPU backend after a copy to the host). A backend without that
// kernel gets the dispatcher's missing-kernel error naming the op and key.
Scalar Tensor::item() const {
  TORCH_CHECK(numel() == 1, "item: a Tensor with ", numel(),
              " elements cannot be converted to Scalar; index it down to one "
              "element first.");
  return at::_ops::_local_scalar_dense::call(*this);
}

Tensor Tensor::operator[](int64_t index) const { return select(0, index); }

// toString: aten/TensorPrint.cc.
void Tensor::print() const { std::cout << toString() << std::endl; }

std::ostream& operator<<(std::ostream& out, const Tensor& t) {
  return out << t.toString();
}

}  // namespace at
