// c10/core/impl/DeviceGuardImplInterface.cc — the optional methods' errors
// and the registry of device runtimes.
//
// This file must have no dynamic initializers: See Note [Device runtime
// registry] in DeviceGuardImplInterface.h.
#include "c10/core/impl/DeviceGuardImplInterface.h"

#include <memory>
#include <mutex>
#include <typeinfo>
#include <utility>

#include "c10/core/impl/StaticRegistration.h"
#include "c10/util/TypeName.h"


namespace c10 {
namespace impl {

namespace detail {
std::atomic<const DeviceGuardImplInterface*>
    device_guard_impl_registry[kNumDeviceTypes] = {};
}  // namespace detail

namespace {

std::string deviceName(DeviceType type) {
  if (!isValidDeviceType(type)) {
    return c10::str("device type ", static_cast<int>(type));
  }
  return DeviceTypeName(type, /*lower_case=*/true);
}

// What the writers keep besides the slots: where each registration was made
// and by which class, for the second-registration error. Leaked: plugins'
// registrars unregister from static destructors at exit, in any order
// relative to this file's.
struct Writers {
  std::mutex mutex;
  std::string where[kNumDeviceTypes];
  std::string impl_type[kNumDeviceTypes];
};

Writers& writers() {
  static Writers* const w = new Writers();
  return *w;
}

void unregister(DeviceType type, const DeviceGuardImplInterface* impl) noexcept {
  const auto slot = static_cast<uint8_t>(type);
  if (slot >= kNumDeviceTypes) return;
  Writers& w = writers();
  std::lock_guard<std::mutex> lock(w.mutex);
  // Only the registration this handle made: another may have replaced it
  // after this one was released and a new one registered.
  if (detail::device_guard_impl_registry[slot].load(
          std::memory_order_relaxed) != impl) {
    return;
  }
  // See Note [Device runtime registry]: the release pairs with readers'
  // acquire like the registering store does.
  detail::device_guard_impl_registry[slot].store(nullptr,
                                                 std::memory_order_release);
  w.where[slot].clear();
  w.impl_type[slot].clear();
}

}  // namespace

DeviceGuardImplInterface::~DeviceGuardImplInterface() = default;

void DeviceGuardImplInterface::unsupported(const char* method,
                                           const char* what) const {
  const std::string name = deviceName(type());
  C10_THROW_ERROR(Error, "DeviceGuardImplInterface::", method, ": the ", name,
                  " device runtime (", demangled_name(typeid(*this)),
                  ") does not support ", what, ". Use a backend whose runtime "
                  "implements ", method, ", or avoid ", what, " on ", name,
                  ".");
}

Stream DeviceGuardImplInterface::getDefaultStream(Device device) const {
  return Stream(Stream::DEFAULT, device);
}

Stream DeviceGuardImplInterface::getStreamFromGlobalPool(Device, bool) const {
  unsupported("getStreamFromGlobalPool", "a pool of streams");
}

void DeviceGuardImplInterface::record(void**, const Stream&, DeviceIndex,
                                      EventFlag) const {
  unsupported("record", "events");
}

void DeviceGuardImplInterface::block(void*, const Stream&) const {
  unsupported("block", "events");
}

bool DeviceGuardImplInterface::queryEvent(void*) const {
  unsupported("queryEvent", "events");
}

void DeviceGuardImplInterface::destroyEvent(void*, DeviceIndex) const
    noexcept {}

void DeviceGuardImplInterface::synchronizeEvent(void*) const {
  unsupported("synchronizeEvent", "events");
}

double DeviceGuardImplInterface::elapsedTime(void*, void*, DeviceIndex) const {
  unsupported("elapsedTime", "timing events");
}

bool DeviceGuardImplInterface::queryStream(const Stream&) const {
  unsupported("queryStream", "querying streams");
}

void DeviceGuardImplInterface::synchronizeStream(const Stream&) const {
  unsupported("synchronizeStream", "synchronizing streams");
}

void DeviceGuardImplInterface::synchronizeDevice(DeviceIndex) const {
  unsupported("synchronizeDevice", "synchronizing devices");
}

namespace detail {

void reportMissingDeviceGuardImpl(DeviceType type) {
  if (!isValidDeviceType(type)) {
    C10_THROW_ERROR(Error, "getDeviceGuardImpl: device type value ",
                    static_cast<int>(type), " is out of range; expected a "
                    "c10::DeviceType in [0, ", kNumDeviceTypes, ").");
  }
  const std::string name = deviceName(type);
  const std::string upper = DeviceTypeName(type, /*lower_case=*/false);
  C10_THROW_ERROR(Error, "getDeviceGuardImpl: no device runtime registered "
                  "for ", name, "; load the ", upper, " plugin (libember_",
                  name, ".so, with torch::load_library or through "
                  "EMBER_PLUGIN_PATH) before using ", name, " devices, "
                  "streams or events.");
}

}  // namespace detail

void DeviceGuardImplRegistration::reset() noexcept {
  if (impl_ != nullptr) unregister(type_, release());
}

DeviceGuardImplRegistration registerDeviceGuardImpl(
    DeviceType type, const DeviceGuardImplInterface* impl, std::string where) {
  TORCH_CHECK(isValidDeviceType(type), "registerDeviceGuardImpl: device type "
              "value ", static_cast<int>(type), " is out of range; expected a "
              "c10::DeviceType in [0, ", kNumDeviceTypes, ").");
  const std::string name = deviceName(type);
  if (where.empty()) where = "an unnamed place";
  TORCH_CHECK(impl != nullptr, "registerDeviceGuardImpl: the runtime for ",
              name, " registered at ", where, " is null. Pass a "
              "DeviceGuardImplInterface that lives as long as its "
              "registration.");
  const DeviceType impl_type = impl->type();
  TORCH_CHECK(impl_type == type, "registerDeviceGuardImpl: ",
              demangled_name(typeid(*impl)), " registered at ", where,
              " as the runtime for ", name, " is the runtime for ",
              deviceName(impl_type), " (its type() returns ",
              deviceName(impl_type), "). Register it for ",
              deviceName(impl_type), ", or return ", name, " from type().");
  const auto slot = static_cast<uint8_t>(type);
  Writers& w = writers();
  std::lock_guard<std::mutex> lock(w.mutex);
  const DeviceGuardImplInterface* existing =
      detail::device_guard_impl_registry[slot].load(std::memory_order_relaxed);
  TORCH_CHECK(existing == nullptr, "registerDeviceGuardImpl: a device runtime "
              "for ", name, " is already registered (", w.impl_type[slot],
              ", registered at ", w.where[slot], "); refusing a second one (",
              demangled_name(typeid(*impl)), ", registered at ", where, "). Load "
              "only one backend plugin for ", name, ", or destroy the first "
              "registration's handle before registering another.");
  w.where[slot] = std::move(where);
  w.impl_type[slot] = demangled_name(typeid(*impl));
  // See Note [Device runtime registry].
  detail::device_guard_impl_registry[slot].store(impl,
                                                 std::memory_order_release);
  return DeviceGuardImplRegistration(type, impl);
}

DeviceGuardImplRegistrar::DeviceGuardImplRegistrar(
    DeviceType type, std::unique_ptr<const DeviceGuardImplInterface> impl,
    const char* where)
    : impl_(std::move(impl)) {
  try {
    registration_ = registerDeviceGuardImpl(type, impl_.get(), where);
  } catch (...) {
    if (!report_static_registration_error(std::current_exception())) throw;
  }
}

DeviceGuardImplRegistrar::~DeviceGuardImplRegistrar() {
  // Unregister before impl_ is deleted. Members die in reverse order, which
  // already does this; the call makes the order independent of the layout.
  registration_.reset();
}

}  // namespace impl
}  // namespace c10
