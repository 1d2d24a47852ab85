// c10/core/impl/DeviceGuardImplInterface.h — the device runtime seam: what a
// backend implements so that device-agnostic code can switch devices and
// streams and use events, and the registry that finds it by DeviceType.
//
// The core knows no device API. A backend plugin implements this interface
// for its DeviceType and registers it from a static initializer when it is
// loaded; the core registers a trivial one for CPU:
//
//   struct NpuGuardImpl final : c10::impl::DeviceGuardImplInterface {
//     c10::DeviceType type() const override { return c10::kPrivateUse1; }
//     c10::Device exchangeDevice(c10::Device d) const override { … }
//     …
//   };
//   C10_REGISTER_GUARD_IMPL(PrivateUse1, NpuGuardImpl);   // in the plugin
//
//   // device-agnostic code:
//   const auto* impl = c10::impl::getDeviceGuardImpl(tensor.device().type());
//   c10::Stream s = impl->getStream(tensor.device());
//
// Most code should not call an implementation directly but use the RAII
// guards (c10/core/DeviceGuard.h, c10/core/StreamGuard.h) and c10::Event
// (c10/core/Event.h), which restore what they change.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "c10/core/Device.h"
#include "c10/core/DeviceType.h"
#include "c10/core/Stream.h"
#include "c10/util/Exception.h"

namespace c10 {

// c10::EventFlag
//
// How a runtime creates the native event behind a c10::Event:
// PYTORCH_DEFAULT is the cheapest event that can order streams (no timing,
// as PyTorch's default); BACKEND_DEFAULT is the runtime's own default, which
// records timestamps where the device can, so elapsedTime works.
enum class EventFlag {
  PYTORCH_DEFAULT,
  BACKEND_DEFAULT,
};

namespace impl {

// c10::impl::DeviceGuardImplInterface
//
// One device type's runtime: the current device and, per device, the current
// stream of the calling thread; events; synchronization; the device count.
// "Current" state is per thread, as in CUDA.
//
// Every method is const and must be thread-safe: one object serves every
// thread for the life of its registration. An implementation is borrowed by
// the registry, not owned, and must outlive every use: keep it alive at
// least until its registration is undone and no thread can still be inside
// one of its methods (in practice: a static object of the plugin, which is
// never unloaded once it loaded; registration/plugin_loader.h).
//
// Methods with a body here are optional: the base throws c10::Error saying
// the runtime lacks the feature (getDefaultStream returns stream 0 and
// destroyEvent does nothing).
struct DeviceGuardImplInterface {
  DeviceGuardImplInterface() = default;
  DeviceGuardImplInterface(const DeviceGuardImplInterface&) = default;
  DeviceGuardImplInterface& operator=(const DeviceGuardImplInterface&) =
      default;
  virtual ~DeviceGuardImplInterface();

  // c10::impl::DeviceGuardImplInterface::type
  //
  // The device type this implementation is for; the registry checks it.
  virtual DeviceType type() const = 0;

  // c10::impl::DeviceGuardImplInterface::exchangeDevice
  //
  // Makes `device` (of type()) current for the calling thread and returns
  // the device that was current. Throws c10::Error for an index the runtime
  // does not have.
  virtual Device exchangeDevice(Device device) const = 0;

  // c10::impl::DeviceGuardImplInterface::getDevice / setDevice
  //
  // The calling thread's current device (always with an index, except on
  // CPU); makes `device` current, throwing c10::Error as exchangeDevice.
  virtual Device getDevice() const = 0;
  virtual void setDevice(Device device) const = 0;

  // c10::impl::DeviceGuardImplInterface::uncheckedSetDevice
  //
  // setDevice for destructors: never throws. Only called with a device that
  // was current before (so known to be valid); a runtime that fails anyway
  // reports it the way it reports asynchronous errors (a warning).
  virtual void uncheckedSetDevice(Device device) const noexcept = 0;

  // c10::impl::DeviceGuardImplInterface::getStream
  //
  // The calling thread's current stream on `device` (each device has one
  // current stream per thread; the default stream until a guard changes
  // it).
  virtual Stream getStream(Device device) const noexcept = 0;

  // c10::impl::DeviceGuardImplInterface::getDefaultStream
  //
  // The default stream (id 0) of `device`.
  virtual Stream getDefaultStream(Device device) const;

  // c10::impl::DeviceGuardImplInterface::getStreamFromGlobalPool
  //
  // A stream of `device` from the runtime's pool (streams are reused
  // round-robin, never destroyed). Throws c10::Error where the runtime has
  // no pool.
  virtual Stream getStreamFromGlobalPool(Device device,
                                         bool isHighPriority = false) const;

  // c10::impl::DeviceGuardImplInterface::exchangeStream
  //
  // Makes `stream` the calling thread's current stream on stream.device()
  // and returns the one that was current there. Does not change the current
  // device. Never throws: `stream` comes from the runtime.
  virtual Stream exchangeStream(Stream stream) const noexcept = 0;

  // c10::impl::DeviceGuardImplInterface::record
  //
  // Records the native event `*event` on `stream`: it completes when the
  // work queued on `stream` so far has. If `*event` is null the runtime
  // first creates one (on device `device_index`, with `flag`) and stores it
  // in `*event`; c10::Event relies on that to create events lazily.
  virtual void record(void** event, const Stream& stream,
                      DeviceIndex device_index, EventFlag flag) const;

  // c10::impl::DeviceGuardImplInterface::block
  //
  // Makes work queued on `stream` after this call wait until `event`
  // completes, without blocking the calling thread. `event` is non-null
  // (c10::Event only blocks on an event it recorded).
  virtual void block(void* event, const Stream& stream) const;

  // c10::impl::DeviceGuardImplInterface::queryEvent
  //
  // Whether `event` has completed; never waits.
  virtual bool queryEvent(void* event) const;

  // c10::impl::DeviceGuardImplInterface::destroyEvent
  //
  // Frees a native event made by record(); `event` may be null. Never
  // throws (called from c10::Event's destructor).
  virtual void destroyEvent(void* event, DeviceIndex device_index) const
      noexcept;

  // c10::impl::DeviceGuardImplInterface::synchronizeEvent
  //
  // Blocks the calling thread until `event` completes.
  virtual void synchronizeEvent(void* event) const;

  // c10::impl::DeviceGuardImplInterface::elapsedTime
  //
  // Milliseconds from `start` to `end`, both recorded and completed, both
  // created with EventFlag::BACKEND_DEFAULT on a runtime that times events.
  virtual double elapsedTime(void* start, void* end,
                             DeviceIndex device_index) const;

  // c10::impl::DeviceGuardImplInterface::queryStream / synchronizeStream
  //
  // Whether all work queued on `stream` has completed; blocks the calling
  // thread until it has.
  virtual bool queryStream(const Stream& stream) const;
  virtual void synchronizeStream(const Stream& stream) const;

  // c10::impl::DeviceGuardImplInterface::synchronizeDevice
  //
  // Blocks the calling thread until all work on device `device_index`, on
  // every stream, has completed.
  virtual void synchronizeDevice(DeviceIndex device_index) const;

  // c10::impl::DeviceGuardImplInterface::deviceCount
  //
  // How many devices of type() this process can use (0 when there are none,
  // e.g. no driver); never throws, so it can be asked anywhere.
  virtual DeviceIndex deviceCount() const noexcept = 0;

 protected:
  // Throws the "this runtime does not support <what>" error of the optional
  // methods.
  [[noreturn]] void unsupported(const char* method, const char* what) const;
};

// Note [Device runtime registry]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// One atomic pointer per DeviceType. Readers (getDeviceGuardImpl, on every
// guard) do one acquire load and never lock. Writers (register and
// unregister, rare) serialize on a mutex in DeviceGuardImplInterface.cc that
// also guards the bookkeeping used by error messages.
//
// Memory order: registration stores the pointer with release after the
// implementation object was constructed; a reader's acquire load that sees
// the pointer therefore also sees the constructed object (its vtable and
// members). Nothing else is published through the slot, so acquire/release
// is enough; unregistration stores null, and a reader that still saw the old
// pointer uses an object that, by the contract above, is still alive.
//
// The slots are a namespace-scope array with a constant initializer (null)
// in a file with no dynamic initializers, so any library's static
// initializer may register or look up regardless of initialization order.
namespace detail {
extern std::atomic<const DeviceGuardImplInterface*>
    device_guard_impl_registry[kNumDeviceTypes];

[[noreturn]] C10_NOINLINE C10_COLD void reportMissingDeviceGuardImpl(
    DeviceType type);
}  // namespace detail

// c10::impl::getDeviceGuardImpl
//
// The runtime registered for `type`. Throws c10::Error naming the device
// type and the plugin to load if there is none. Lock-free (one acquire
// load); thread-safe.
inline const DeviceGuardImplInterface* getDeviceGuardImpl(DeviceType type) {
  const auto slot = static_cast<uint8_t>(type);
  const DeviceGuardImplInterface* impl =
      slot < kNumDeviceTypes
          ? detail::device_guard_impl_registry[slot].load(
                std::memory_order_acquire)  // See Note [Device runtime registry]
          : nullptr;
  if (C10_UNLIKELY(impl == nullptr)) {
    detail::reportMissingDeviceGuardImpl(type);
  }
  return impl;
}

// c10::impl::hasDeviceGuardImpl
//
// Whether a runtime is registered for `type`. Lock-free; thread-safe.
inline bool hasDeviceGuardImpl(DeviceType type) noexcept {
  const auto slot = static_cast<uint8_t>(type);
  return slot < kNumDeviceTypes &&
         detail::device_guard_impl_registry[slot].load(
             std::memory_order_acquire) != nullptr;
}

// c10::impl::DeviceGuardImplRegistration
//
// Move-only handle on one registration: destroying it (or reset()) removes
// exactly that registration, and only if it is still the registered one.
// release() keeps the registration for the life of the process. The handle
// itself is not thread-safe; unregistering is (it takes the writers' lock).
class DeviceGuardImplRegistration final {
 public:
  DeviceGuardImplRegistration() = default;
  // Adopts the registration of `impl` for `type` (e.g. one given up with
  // release()); it is undone when this handle dies.
  DeviceGuardImplRegistration(DeviceType type,
                              const DeviceGuardImplInterface* impl) noexcept
      : type_(type), impl_(impl) {}
  ~DeviceGuardImplRegistration() { reset(); }

  DeviceGuardImplRegistration(DeviceGuardImplRegistration&& other) noexcept
      : type_(other.type_), impl_(other.release()) {}
  DeviceGuardImplRegistration& operator=(
      DeviceGuardImplRegistration&& other) noexcept {
    if (this != &other) {
      reset();
      type_ = other.type_;
      impl_ = other.release();
    }
    return *this;
  }
  DeviceGuardImplRegistration(const DeviceGuardImplRegistration&) = delete;
  DeviceGuardImplRegistration& operator=(const DeviceGuardImplRegistration&) =
      delete;

  // Whether this handle still owns a registration.
  bool active() const noexcept { return impl_ != nullptr; }

  // Undoes the registration now; then the handle owns nothing.
  void reset() noexcept;

  // Gives up the handle without undoing the registration; returns the
  // implementation.
  const DeviceGuardImplInterface* release() noexcept {
    const DeviceGuardImplInterface* impl = impl_;
    impl_ = nullptr;
    return impl;
  }

 private:
  DeviceType type_ = DeviceType::CPU;
  const DeviceGuardImplInterface* impl_ = nullptr;
};

// c10::impl::registerDeviceGuardImpl
//
// Makes `impl` the runtime of `type` until the returned handle is
// destroyed. `where` names the registration in error messages (file:line;
// C10_REGISTER_GUARD_IMPL passes its own). Throws c10::Error if `impl` is
// null, if impl->type() is not `type`, or if `type` already has a runtime —
// the message names both registrations; unregister the first one before
// registering another. Thread-safe; `impl` is borrowed (see
// DeviceGuardImplInterface for how long it must live).
[[nodiscard]] DeviceGuardImplRegistration registerDeviceGuardImpl(
    DeviceType type, const DeviceGuardImplInterface* impl,
    std::string where = "");

// c10::impl::DeviceGuardImplRegistrar
//
// What C10_REGISTER_GUARD_IMPL defines: owns an implementation and its
// registration, undone (before the implementation is deleted) when the
// registrar is destroyed — at exit, or when the plugin loader unloads a
// plugin whose registrations failed. An error while registering is handed
// to the plugin loader (c10/core/impl/StaticRegistration.h) or rethrown.
class DeviceGuardImplRegistrar final {
 public:
  DeviceGuardImplRegistrar(DeviceType type,
                           std::unique_ptr<const DeviceGuardImplInterface> impl,
                           const char* where);
  ~DeviceGuardImplRegistrar();
  DeviceGuardImplRegistrar(const DeviceGuardImplRegistrar&) = delete;
  DeviceGuardImplRegistrar& operator=(const DeviceGuardImplRegistrar&) =
      delete;

 private:
  std::unique_ptr<const DeviceGuardImplInterface> impl_;
  DeviceGuardImplRegistration registration_;
};

}  // namespace impl
}  // namespace c10

#define C10_GUARD_IMPL_CONCAT_INNER_(a, b) a##b
#define C10_GUARD_IMPL_CONCAT_(a, b) C10_GUARD_IMPL_CONCAT_INNER_(a, b)
#define C10_GUARD_IMPL_STRINGIZE_INNER_(x) #x
#define C10_GUARD_IMPL_STRINGIZE_(x) C10_GUARD_IMPL_STRINGIZE_INNER_(x)

// C10_REGISTER_GUARD_IMPL(DevType, Impl)
//
// At namespace scope in a plugin's .cc file: when the library is loaded,
// creates an `Impl` (default-constructed) and registers it as the runtime of
// c10::DeviceType::DevType, e.g. C10_REGISTER_GUARD_IMPL(PrivateUse1,
// NpuGuardImpl). The registration lasts while the library stays loaded.
#define C10_REGISTER_GUARD_IMPL(DevType, Impl)                               \
  static ::c10::impl::DeviceGuardImplRegistrar C10_GUARD_IMPL_CONCAT_(       \
      g_device_guard_impl_registrar_, __LINE__)(                            \
      ::c10::DeviceType::DevType,                                            \
      std::unique_ptr<const ::c10::impl::DeviceGuardImplInterface>(          \
          new Impl()),                                                       \
      __FILE__ ":" C10_GUARD_IMPL_STRINGIZE_(__LINE__))
