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

namespace {

// Reads element `i` (in row-major order over sizes/strides) as a Scalar.
Scalar element(const Tensor& t, const int64_t* index) {
  int64_t offset = 0;
  for (int64_t d = 0; d < t.dim(); ++d) offset += index[d] * t.stride(d);
  const char* base = static_cast<const char*>(t.data_ptr()) +
                     offset * static_cast<int64_t>(t.itemsize());
  switch (t.scalar_type()) {
#define EMBER_READ_(cpp, name)            \
  case ScalarType::name:                  \
    return Scalar(*reinterpret_cast<const cpp*>(base));
    C10_FORALL_SCALAR_TYPES(EMBER_READ_)
#undef EMBER_READ_
    default:
      break;
  }
  C10_THROW_ERROR(Error, "item: unsupported dtype ", t.scalar_type(), ".");
}

}  // namespace

Scalar Tensor::item() const {
  TORCH_CHECK(numel() == 1, "item: a Tensor with ", numel(),
              " elements cannot be converted to Scalar; index it down to one "
              "element first.");
  TORCH_CHECK(device().is_cpu(), "item: reading a ", device(), " tensor is not "
              "supported yet; copy it to the CPU with .to(at::kCPU) first.");
  std::vector<int64_t> index(static_cast<size_t>(dim()), 0);
  return element(*this, index.data());
}

Tensor Tensor::operator[](int64_t index) const { return select(0, index); }

// toString: aten/TensorPrint.cc.
void Tensor::print() const { std::cout << toString() << std::endl; }

std::ostream& operator<<(std::ostream& out, const Tensor& t) {
  return out << t.toString();
}

}  // namespace at
