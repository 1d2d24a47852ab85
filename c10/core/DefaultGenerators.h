// c10/core/DefaultGenerators.h — the registry of each device type's default
// generators, through which at::manual_seed reaches every backend.
//
// A random op given no generator draws from its device's default generator.
// Each backend owns those (one per device, usually created at first use)
// and registers, once per device type, a function that returns the one for
// a device index:
//
//   const at::Generator& npuDefaultGenerator(c10::DeviceIndex index) { … }
//   C10_REGISTER_DEFAULT_GENERATOR(PrivateUse1, npuDefaultGenerator);
//
//   // device-agnostic code:
//   const at::Generator& g = at::detail::getDefaultGenerator(c10::Device("npu:1"));
//   for (const at::Generator& g : at::detail::getAllDefaultGenerators()) …
//
// The core registers the CPU's (aten/CPUGeneratorImpl.cc). How many devices
// a type has comes from its device runtime
// (c10/core/impl/DeviceGuardImplInterface.h), which a backend registers
// beside its generators. To seed, use at::manual_seed
// (aten/CPUGeneratorImpl.h), which seeds all of them.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "c10/core/Device.h"
#include "c10/core/DeviceType.h"
#include "c10/core/GeneratorImpl.h"

namespace at {

// at::DefaultGeneratorFn
//
// Returns the default generator of device `device_index` (0 <= index <
// the runtime's deviceCount()) of the type it is registered for. The handle
// it refers to must live as long as the registration (a never-destroyed
// static, as at::detail::getDefaultCPUGenerator). Must be thread-safe and
// must not call into this registry.
using DefaultGeneratorFn = const Generator& (*)(c10::DeviceIndex device_index);

namespace detail {

// at::detail::DefaultGeneratorRegistration
//
// Move-only handle on one registration: destroying it (or reset()) removes
// exactly that registration, if it is still the registered one. release()
// keeps the registration for the life of the process. The handle is not
// thread-safe; unregistering is.
class DefaultGeneratorRegistration final {
 public:
  DefaultGeneratorRegistration() = default;
  // Adopts the registration of `fn` for `type` (e.g. one given up with
  // release()); it is undone when this handle dies.
  DefaultGeneratorRegistration(c10::DeviceType type,
                               DefaultGeneratorFn fn) noexcept
      : type_(type), fn_(fn) {}
  ~DefaultGeneratorRegistration() { reset(); }

  DefaultGeneratorRegistration(DefaultGeneratorRegistration&& other) noexcept
      : type_(other.type_), fn_(other.release()) {}
  DefaultGeneratorRegistration& operator=(
      DefaultGeneratorRegistration&& other) noexcept {
    if (this != &other) {
      reset();
      type_ = other.type_;
      fn_ = other.release();
    }
    return *this;
  }
  DefaultGeneratorRegistration(const DefaultGeneratorRegistration&) = delete;
  DefaultGeneratorRegistration& operator=(const DefaultGeneratorRegistration&) =
      delete;

  bool active() const noexcept { return fn_ != nullptr; }
  void reset() noexcept;
  DefaultGeneratorFn release() noexcept {
    DefaultGeneratorFn fn = fn_;
    fn_ = nullptr;
    return fn;
  }

 private:
  c10::DeviceType type_ = c10::DeviceType::CPU;
  DefaultGeneratorFn fn_ = nullptr;
};

// at::detail::register_default_generator
//
// Makes `fn` give the default generators of `type` until the returned
// handle is destroyed. `where` names the registration in error messages
// (file:line). Throws c10::Error if `fn` is null or `type` already has one;
// the message names both registrations. Thread-safe.
[[nodiscard]] DefaultGeneratorRegistration register_default_generator(
    c10::DeviceType type, DefaultGeneratorFn fn, std::string where = "");

// at::detail::has_default_generator
//
// Whether default generators are registered for `type`. Lock-free.
bool has_default_generator(c10::DeviceType type) noexcept;

// at::detail::getDefaultGenerator
//
// The default generator of `device`; an index of -1 means the calling
// thread's current device of that type (CPU: the one CPU generator). Throws
// c10::Error if nothing is registered for the type, or the device does not
// exist (index >= the runtime's deviceCount()). Lock-free lookup;
// thread-safe.
const Generator& getDefaultGenerator(c10::Device device);

// at::detail::getAllDefaultGenerators
//
// The default generator of every device of every registered type: CPU's
// first, then each other type's for indices 0 … deviceCount() - 1. Throws
// c10::Error if a type has generators but no device runtime (its device
// count is unknown). Thread-safe.
std::vector<Generator> getAllDefaultGenerators();

// at::detail::DefaultGeneratorRegistrar
//
// What C10_REGISTER_DEFAULT_GENERATOR defines: a registration undone when
// the registrar is destroyed (at exit, or when the plugin loader unloads a
// plugin whose registrations failed). An error while registering is handed
// to the plugin loader (c10/core/impl/StaticRegistration.h) or rethrown.
class DefaultGeneratorRegistrar final {
 public:
  DefaultGeneratorRegistrar(c10::DeviceType type, DefaultGeneratorFn fn,
                            const char* where);
  DefaultGeneratorRegistrar(const DefaultGeneratorRegistrar&) = delete;
  DefaultGeneratorRegistrar& operator=(const DefaultGeneratorRegistrar&) =
      delete;

 private:
  DefaultGeneratorRegistration registration_;
};

}  // namespace detail
}  // namespace at

#define C10_DEFAULT_GENERATOR_CONCAT_INNER_(a, b) a##b
#define C10_DEFAULT_GENERATOR_CONCAT_(a, b) \
  C10_DEFAULT_GENERATOR_CONCAT_INNER_(a, b)
#define C10_DEFAULT_GENERATOR_STRINGIZE_INNER_(x) #x
#define C10_DEFAULT_GENERATOR_STRINGIZE_(x) \
  C10_DEFAULT_GENERATOR_STRINGIZE_INNER_(x)

// C10_REGISTER_DEFAULT_GENERATOR(DevType, fn)
//
// At namespace scope in a plugin's .cc file: registers `fn` (an
// at::DefaultGeneratorFn) for c10::DeviceType::DevType when the library is
// loaded, for as long as it stays loaded.
#define C10_REGISTER_DEFAULT_GENERATOR(DevType, fn)                         \
  static ::at::detail::DefaultGeneratorRegistrar                            \
      C10_DEFAULT_GENERATOR_CONCAT_(g_default_generator_registrar_,         \
                                    __LINE__)(                              \
          ::c10::DeviceType::DevType, (fn),                                 \
          __FILE__ ":" C10_DEFAULT_GENERATOR_STRINGIZE_(__LINE__))
