#include <atomic>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "aten/DeviceRuntime.h"
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
// item() reads no memory itself: _local_scalar_dense is an op, run on the
// CPU. A tensor on another device is first copied to the CPU (one element,
// through that backend's copy kernel), as libtorch does for item() of a CUDA
// tensor, so a backend needs no _local_scalar_dense kernel of its own.
Scalar Tensor::item() const {
  TORCH_CHECK(numel() == 1, "item: a Tensor with ", numel(),
              " elements cannot be converted to Scalar; index it down to one "
              "element first.");
  if (defined() && !is_cpu()) return at::_ops::_local_scalar_dense::call(cpu());
  return at::_ops::_local_scalar_dense::call(*this);
}

Tensor Tensor::cuda() const {
  TORCH_CHECK(at::device_count(c10::kCUDA) > 0, "cuda: no CUDA device is available "
              "(torch::cuda::is_available() is false): no CUDA runtime is registered and no "
              "libember_cuda.so plugin was found on the plugin search path "
              "(c10::plugin_search_path). Keep the tensor on the CPU, or check "
              "torch::cuda::is_available() before calling cuda().");
  return to(TensorOptions(Device(c10::kCUDA)));
}

Tensor Tensor::operator[](int64_t index) const { return select(0, index); }

// toString: aten/TensorPrint.cc.
void Tensor::print() const { std::cout << toString() << std::endl; }

std::ostream& operator<<(std::ostream& out, const Tensor& t) {
  return out << t.toString();
}

}  // namespace at
