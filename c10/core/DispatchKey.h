// c10/core/DispatchKey.h — the keys the dispatcher chooses kernels by.
//
// A key is either
//  - a *functionality* key (Dense, BackendSelect, ADInplaceOrView,
//    AutogradFunctionality), one bit each in a DispatchKeySet; or
//  - a *runtime per-backend* key (CPU, AutogradCUDA, …): a per-backend
//    functionality paired with a backend component; or
//  - an *alias* key (Autograd, CompositeImplicitAutograd,
//    CompositeExplicitAutograd): used only to register a kernel for many
//    runtime keys at once, never present in a tensor's key set.
//
// See Note [DispatchKeySet layout] in DispatchKeySet.h for how they map to
// bits.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "c10/core/DeviceType.h"

namespace c10 {

// c10::BackendComponent
//
// The backends a per-backend functionality can be specialised for. Bit i of
// a key set's backend part is component i + 1. Part of the plugin ABI.
enum class BackendComponent : uint8_t {
  InvalidBit = 0,
  CPUBit,
  CUDABit,
  PrivateUse1Bit,
  EndOfBackendKeys = PrivateUse1Bit,
};

constexpr int kNumBackends = static_cast<int>(BackendComponent::EndOfBackendKeys);

// c10::DispatchKey
//
// Functionality keys are listed lowest priority first: when several are in a
// key set, the one listed last wins. Part of the plugin ABI.
enum class DispatchKey : uint16_t {
  Undefined = 0,

  // ---- functionality keys, increasing priority ----
  Dense,            // per backend: the backend's own kernels
  BackendSelect,    // factories with no tensor argument pick a backend
  ADInplaceOrView,  // version counter bumps and view bookkeeping
  AutogradFunctionality,  // per backend: records the autograd graph
  EndOfFunctionalityKeys = AutogradFunctionality,

  // ---- runtime per-backend keys ----
  CPU,
  CUDA,
  PrivateUse1,
  AutogradCPU,
  AutogradCUDA,
  AutogradPrivateUse1,
  EndOfRuntimeBackendKeys = AutogradPrivateUse1,

  // ---- alias keys (registration only) ----
  Autograd,                   // every AutogradX key
  CompositeImplicitAutograd,  // the "catch-all": autograd and backend keys
  CompositeExplicitAutograd,  // every backend (Dense) key
  EndOfAliasKeys = CompositeExplicitAutograd,
};

constexpr int kNumFunctionalityKeys =
    static_cast<int>(DispatchKey::EndOfFunctionalityKeys);  // excl. Undefined
constexpr int kNumDispatchKeys = static_cast<int>(DispatchKey::EndOfAliasKeys) + 1;

static_assert(static_cast<int>(DispatchKey::AutogradCPU) -
                      static_cast<int>(DispatchKey::CPU) ==
                  kNumBackends,
              "each per-backend functionality lists one key per backend, in "
              "BackendComponent order");

// c10::toString / operator<<
const char* toString(DispatchKey key);
const char* toString(BackendComponent component);
std::ostream& operator<<(std::ostream& out, DispatchKey key);
std::ostream& operator<<(std::ostream& out, BackendComponent component);

// c10::parseDispatchKey
//
// The key whose toString() is `name`; throws c10::Error listing every valid
// name otherwise.
DispatchKey parseDispatchKey(const std::string& name);

// c10::isAliasDispatchKey
constexpr bool isAliasDispatchKey(DispatchKey k) {
  return k > DispatchKey::EndOfRuntimeBackendKeys && k <= DispatchKey::EndOfAliasKeys;
}

// c10::isPerBackendFunctionalityKey
//
// True for the functionality keys that have one runtime key per backend.
constexpr bool isPerBackendFunctionalityKey(DispatchKey k) {
  return k == DispatchKey::Dense || k == DispatchKey::AutogradFunctionality;
}

// c10::isRuntimePerBackendKey
constexpr bool isRuntimePerBackendKey(DispatchKey k) {
  return k > DispatchKey::EndOfFunctionalityKeys &&
         k <= DispatchKey::EndOfRuntimeBackendKeys;
}

// c10::isFunctionalityKey (Undefined excluded)
constexpr bool isFunctionalityKey(DispatchKey k) {
  return k > DispatchKey::Undefined && k <= DispatchKey::EndOfFunctionalityKeys;
}

// c10::toFunctionalityKey
//
// CPU → Dense, AutogradCUDA → AutogradFunctionality; functionality keys map to
// themselves; alias keys and Undefined to Undefined.
constexpr DispatchKey toFunctionalityKey(DispatchKey k) {
  if (k <= DispatchKey::EndOfFunctionalityKeys) return k;
  if (k >= DispatchKey::CPU && k < DispatchKey::AutogradCPU) return DispatchKey::Dense;
  if (k >= DispatchKey::AutogradCPU && k <= DispatchKey::EndOfRuntimeBackendKeys) {
    return DispatchKey::AutogradFunctionality;
  }
  return DispatchKey::Undefined;
}

// c10::toBackendComponent
//
// The backend of a runtime per-backend key (AutogradCUDA → CUDABit);
// InvalidBit for any other key.
constexpr BackendComponent toBackendComponent(DispatchKey k) {
  if (k >= DispatchKey::CPU && k < DispatchKey::AutogradCPU) {
    return static_cast<BackendComponent>(static_cast<int>(k) -
                                         static_cast<int>(DispatchKey::CPU) + 1);
  }
  if (k >= DispatchKey::AutogradCPU && k <= DispatchKey::EndOfRuntimeBackendKeys) {
    return static_cast<BackendComponent>(
        static_cast<int>(k) - static_cast<int>(DispatchKey::AutogradCPU) + 1);
  }
  return BackendComponent::InvalidBit;
}

// c10::toRuntimePerBackendFunctionalityKey
//
// (Dense, CUDABit) → CUDA; (AutogradFunctionality, CPUBit) → AutogradCPU.
// Undefined when the pair does not name a runtime key.
constexpr DispatchKey toRuntimePerBackendFunctionalityKey(
    DispatchKey functionality, BackendComponent backend) {
  if (backend == BackendComponent::InvalidBit) return DispatchKey::Undefined;
  const int offset = static_cast<int>(backend) - 1;
  if (functionality == DispatchKey::Dense) {
    return static_cast<DispatchKey>(static_cast<int>(DispatchKey::CPU) + offset);
  }
  if (functionality == DispatchKey::AutogradFunctionality) {
    return static_cast<DispatchKey>(static_cast<int>(DispatchKey::AutogradCPU) + offset);
  }
  return DispatchKey::Undefined;
}

// c10::toBackendComponent(DeviceType)
//
// The backend that holds tensors of a device type: CPU → CPUBit, ….
constexpr BackendComponent toBackendComponent(DeviceType type) {
  switch (type) {
    case DeviceType::CPU:
      return BackendComponent::CPUBit;
    case DeviceType::CUDA:
      return BackendComponent::CUDABit;
    case DeviceType::PrivateUse1:
      return BackendComponent::PrivateUse1Bit;
  }
  return BackendComponent::InvalidBit;
}

namespace detail {
[[noreturn]] void invalidBackendComponent(BackendComponent component);
}

// c10::backendComponentToDeviceType
//
// CPUBit → CPU, …; throws c10::Error for InvalidBit.
inline DeviceType backendComponentToDeviceType(BackendComponent component) {
  switch (component) {
    case BackendComponent::CPUBit: return DeviceType::CPU;
    case BackendComponent::CUDABit: return DeviceType::CUDA;
    case BackendComponent::PrivateUse1Bit: return DeviceType::PrivateUse1;
    case BackendComponent::InvalidBit: break;
  }
  detail::invalidBackendComponent(component);
}

// c10::computeDispatchKey
//
// The backend (Dense) key of a tensor on `device_type`: CPU, CUDA or
// PrivateUse1.
constexpr DispatchKey computeDispatchKey(DeviceType device_type) {
  return toRuntimePerBackendFunctionalityKey(DispatchKey::Dense,
                                             toBackendComponent(device_type));
}

}  // namespace c10
