#include "registration/KernelFunction.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "registration/Dispatcher.h"

namespace c10 {

std::string CppSignature::name() const {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(index_.name(), nullptr, nullptr, &status), &std::free);
  return status == 0 && demangled ? std::string(demangled.get())
                                   : std::string(index_.name());
}

void KernelFunction::fallthroughKernel(OperatorKernel*, const OperatorHandle& op,
                                       DispatchKeySet ks, Stack*) {
  TORCH_INTERNAL_ASSERT(false, "a fallthrough kernel of ", op.operator_name(),
                        " was called for ", ks,
                        "; the dispatcher should have skipped it");
}

}  // namespace c10
