// c10/core/DefaultGenerators.cc — the default-generator registry.
//
// Like the device runtime registry (See Note [Device runtime registry] in
// c10/core/impl/DeviceGuardImplInterface.h): one atomic function pointer per
// DeviceType, read with one acquire load, written under a mutex. This file
// must have no dynamic initializers, so that registrations from any
// library's static initializers work whatever the order.
#include "c10/core/DefaultGenerators.h"

#include <mutex>
#include <utility>

#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "c10/core/impl/StaticRegistration.h"
#include "c10/util/Exception.h"

namespace at {
namespace detail {
namespace {

// Constant-initialized. Release stores after the registering code ran pair
// with acquire loads in readers, so a reader that sees a function also sees
// whatever the plugin set up before registering it; the pointer is the only
// thing published through a slot.
std::atomic<DefaultGeneratorFn> g_generators[c10::kNumDeviceTypes] = {};

// Where each registration was made, for the second-registration error.
// Leaked: registrars unregister from static destructors at exit.
struct Writers {
  std::mutex mutex;
  std::string where[c10::kNumDeviceTypes];
};

Writers& writers() {
  static Writers* const w = new Writers();
  return *w;
}

std::string deviceName(c10::DeviceType type) {
  return c10::DeviceTypeName(type, /*lower_case=*/true);
}

DefaultGeneratorFn load(c10::DeviceType type) noexcept {
  const auto slot = static_cast<uint8_t>(type);
  return slot < c10::kNumDeviceTypes
             ? g_generators[slot].load(std::memory_order_acquire)
             : nullptr;
}

}  // namespace

void DefaultGeneratorRegistration::reset() noexcept {
  DefaultGeneratorFn fn = release();
  if (fn == nullptr) return;
  const auto slot = static_cast<uint8_t>(type_);
  if (slot >= c10::kNumDeviceTypes) return;
  Writers& w = writers();
  std::lock_guard<std::mutex> lock(w.mutex);
  if (g_generators[slot].load(std::memory_order_relaxed) != fn) return;
  g_generators[slot].store(nullptr, std::memory_order_release);
  w.where[slot].clear();
}

DefaultGeneratorRegistration register_default_generator(
    c10::DeviceType type, DefaultGeneratorFn fn, std::string where) {
  TORCH_CHECK(c10::isValidDeviceType(type), "register_default_generator: "
              "device type value ", static_cast<int>(type), " is out of "
              "range; expected a c10::DeviceType in [0, ",
              c10::kNumDeviceTypes, ").");
  const std::string name = deviceName(type);
  if (where.empty()) where = "an unnamed place";
  TORCH_CHECK(fn != nullptr, "register_default_generator: the function "
              "registered for ", name, " at ", where, " is null. Pass a "
              "function that returns the default generator of a device "
              "index.");
  const auto slot = static_cast<uint8_t>(type);
  Writers& w = writers();
  std::lock_guard<std::mutex> lock(w.mutex);
  TORCH_CHECK(g_generators[slot].load(std::memory_order_relaxed) == nullptr,
              "register_default_generator: default generators for ", name,
              " are already registered (at ", w.where[slot], "); refusing a "
              "second registration (at ", where, "). Load only one backend "
              "plugin for ", name, ", or destroy the first registration's "
              "handle before registering another.");
  w.where[slot] = std::move(where);
  g_generators[slot].store(fn, std::memory_order_release);
  return DefaultGeneratorRegistration(type, fn);
}

bool has_default_generator(c10::DeviceType type) noexcept {
  return load(type) != nullptr;
}

const Generator& getDefaultGenerator(c10::Device device) {
  const c10::DeviceType type = device.type();
  DefaultGeneratorFn fn = load(type);
  if (C10_UNLIKELY(fn == nullptr)) {
    const std::string name = c10::isValidDeviceType(type)
                                 ? deviceName(type)
                                 : c10::str(static_cast<int>(type));
    C10_THROW_ERROR(Error, "getDefaultGenerator: no default generator is "
                    "registered for ", name, "; load the backend plugin for ",
                    name, " (libember_", name, ".so) before drawing random "
                    "numbers on it.");
  }
  if (type == c10::DeviceType::CPU) return fn(0);
  const c10::impl::DeviceGuardImplInterface* runtime =
      c10::impl::getDeviceGuardImpl(type);
  const c10::DeviceIndex index =
      device.has_index() ? device.index() : runtime->getDevice().index();
  const c10::DeviceIndex count = runtime->deviceCount();
  TORCH_CHECK(index < count, "getDefaultGenerator: device ",
              c10::Device(type, index), " does not exist; there ",
              count == 1 ? "is " : "are ", static_cast<int>(count), " ",
              deviceName(type), " device", count == 1 ? "" : "s",
              ". Pass an index in [0, ", static_cast<int>(count), ").");
  return fn(index);
}

std::vector<Generator> getAllDefaultGenerators() {
  std::vector<Generator> all;
  for (int t = 0; t < c10::kNumDeviceTypes; ++t) {
    const auto type = static_cast<c10::DeviceType>(t);
    DefaultGeneratorFn fn = load(type);
    if (fn == nullptr) continue;
    if (type == c10::DeviceType::CPU) {
      all.push_back(fn(0));
      continue;
    }
    TORCH_CHECK(c10::impl::hasDeviceGuardImpl(type), "getAllDefaultGenerators: "
                "default generators are registered for ", deviceName(type),
                " but no device runtime, so the number of ", deviceName(type),
                " devices is unknown. The ", deviceName(type), " plugin must "
                "register its runtime too (C10_REGISTER_GUARD_IMPL).");
    const c10::DeviceIndex count =
        c10::impl::getDeviceGuardImpl(type)->deviceCount();
    for (c10::DeviceIndex i = 0; i < count; ++i) all.push_back(fn(i));
  }
  return all;
}

DefaultGeneratorRegistrar::DefaultGeneratorRegistrar(c10::DeviceType type,
                                                     DefaultGeneratorFn fn,
                                                     const char* where) {
  try {
    registration_ = register_default_generator(type, fn, where);
  } catch (...) {
    if (!c10::impl::report_static_registration_error(std::current_exception())) {
      throw;
    }
  }
}

}  // namespace detail
}  // namespace at
