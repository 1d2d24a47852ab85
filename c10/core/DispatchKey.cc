#include "c10/core/DispatchKey.h"

#include "c10/util/Exception.h"

namespace c10 {

const char* toString(DispatchKey key) {
  switch (key) {
    case DispatchKey::Undefined: return "Undefined";
    case DispatchKey::Dense: return "Dense";
    case DispatchKey::BackendSelect: return "BackendSelect";
    case DispatchKey::ADInplaceOrView: return "ADInplaceOrView";
    case DispatchKey::AutogradFunctionality: return "AutogradFunctionality";
    case DispatchKey::CPU: return "CPU";
    case DispatchKey::CUDA: return "CUDA";
    case DispatchKey::PrivateUse1: return "PrivateUse1";
    case DispatchKey::AutogradCPU: return "AutogradCPU";
    case DispatchKey::AutogradCUDA: return "AutogradCUDA";
    case DispatchKey::AutogradPrivateUse1: return "AutogradPrivateUse1";
    case DispatchKey::Autograd: return "Autograd";
    case DispatchKey::CompositeImplicitAutograd: return "CompositeImplicitAutograd";
    case DispatchKey::CompositeExplicitAutograd: return "CompositeExplicitAutograd";
  }
  return "UNKNOWN_DISPATCH_KEY";
}

const char* toString(BackendComponent component) {
  switch (component) {
    case BackendComponent::InvalidBit: return "InvalidBit";
    case BackendComponent::CPUBit: return "CPUBit";
    case BackendComponent::CUDABit: return "CUDABit";
    case BackendComponent::PrivateUse1Bit: return "PrivateUse1Bit";
  }
  return "UNKNOWN_BACKEND_BIT";
}

std::ostream& operator<<(std::ostream& out, DispatchKey key) {
  return out << toString(key);
}

std::ostream& operator<<(std::ostream& out, BackendComponent component) {
  return out << toString(component);
}

DispatchKey parseDispatchKey(const std::string& name) {
  std::string valid;
  for (int i = 0; i < kNumDispatchKeys; ++i) {
    const auto key = static_cast<DispatchKey>(i);
    if (name == toString(key)) return key;
    if (i > 0) valid += ", ";
    valid += toString(key);
  }
  C10_THROW_ERROR(Error, "parseDispatchKey: unknown dispatch key \"", name,
              "\"; expected one of: ", valid, ".");
}

namespace detail {
void invalidBackendComponent(BackendComponent component) {
  C10_THROW_ERROR(Error, "backendComponentToDeviceType: ", toString(component),
                  " names no device type; expected CPUBit, CUDABit or "
                  "PrivateUse1Bit.");
}
}  // namespace detail

}  // namespace c10
