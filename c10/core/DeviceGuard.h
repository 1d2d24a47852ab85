// c10/core/DeviceGuard.h — make a device current for a scope, and restore
// the previous one when the scope ends.
//
//   {
//     c10::DeviceGuard guard(tensor.device());   // e.g. cuda:1
//     … launch work on cuda:1 …
//   }                                           // the previous device again
//
//   c10::OptionalDeviceGuard maybe(device_or_nullopt);  // may do nothing
//
// The guards are device-agnostic: they call the runtime registered for the
// device's type (c10/core/impl/DeviceGuardImplInterface.h), so core code
// needs no backend headers. A guard on a device type with no registered
// runtime throws c10::Error saying which plugin to load. On CPU a guard
// costs a few virtual calls that do nothing (there is one CPU device).
//
// "Current" is per thread: a guard changes only the calling thread's device.
// Guards are neither copyable nor movable (as in PyTorch): a guard restores
// state in the scope that made it. For the current stream as well, use
// c10::StreamGuard (c10/core/StreamGuard.h).
#pragma once

#include <optional>

#include "c10/core/Device.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "c10/util/Exception.h"

namespace c10 {

// c10::DeviceGuard
//
// Sets the current device on construction (an index of -1 leaves it as it
// is) and restores the device that was current then on destruction. The
// device may be changed within the scope with set_device / reset_device;
// the destructor still restores the original one. Not thread-safe: one
// guard belongs to the thread that made it.
class DeviceGuard {
 public:
  DeviceGuard() = delete;

  // c10::DeviceGuard::DeviceGuard(device)
  //
  // Throws c10::Error if no runtime is registered for device.type() or the
  // runtime has no such device; then nothing was changed.
  explicit DeviceGuard(Device device)
      : impl_(impl::getDeviceGuardImpl(device.type())),
        original_device_(device.index() == -1 ? impl_->getDevice()
                                              : impl_->exchangeDevice(device)),
        current_device_(device.index() == -1 ? original_device_ : device) {}

  ~DeviceGuard() { impl_->uncheckedSetDevice(original_device_); }

  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  DeviceGuard(DeviceGuard&&) = delete;
  DeviceGuard& operator=(DeviceGuard&&) = delete;

  // c10::DeviceGuard::set_device
  //
  // Makes `device` current; it must be of the guard's device type (throws
  // c10::Error otherwise; use reset_device to switch types). An index of -1
  // changes nothing.
  void set_device(Device device) {
    TORCH_CHECK(device.type() == original_device_.type(),
                "DeviceGuard::set_device: the guard is for ",
                original_device_.type(), " devices but got ", device,
                ". Use reset_device to switch to another device type.");
    if (device.index() == -1) return;
    impl_->setDevice(device);
    current_device_ = device;
  }

  // c10::DeviceGuard::reset_device
  //
  // Makes `device` current, of any type: for another type, first restores
  // the original device of the guard's type, then guards `device` (whose
  // previous device becomes the one the destructor restores).
  void reset_device(Device device) {
    if (device.type() == original_device_.type()) {
      set_device(device);
      return;
    }
    const impl::DeviceGuardImplInterface* next =
        impl::getDeviceGuardImpl(device.type());
    const Device next_original = device.index() == -1
                                     ? next->getDevice()
                                     : next->exchangeDevice(device);
    impl_->uncheckedSetDevice(original_device_);
    impl_ = next;
    original_device_ = next_original;
    current_device_ = device.index() == -1 ? next_original : device;
  }

  // c10::DeviceGuard::set_index — set_device on the guard's device type.
  void set_index(DeviceIndex index) {
    set_device(Device(original_device_.type(), index));
  }

  // c10::DeviceGuard::original_device / current_device
  //
  // The device current before the guard (what the destructor restores);
  // the one the guard last set.
  Device original_device() const noexcept { return original_device_; }
  Device current_device() const noexcept { return current_device_; }

 private:
  const impl::DeviceGuardImplInterface* impl_;
  Device original_device_;
  Device current_device_;
};

// GCC (12, at -O1 with sanitizers) reports reads of a disengaged
// std::optional's payload as maybe-uninitialized in the accessors below,
// although each read is behind has_value(); the warning is false.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// c10::OptionalDeviceGuard
//
// A DeviceGuard that may not be engaged: built empty or from std::nullopt it
// does nothing until set_device / reset_device engages it. reset() restores
// and disengages early. Not copyable or movable; not thread-safe.
class OptionalDeviceGuard {
 public:
  OptionalDeviceGuard() = default;
  explicit OptionalDeviceGuard(Device device) { guard_.emplace(device); }
  explicit OptionalDeviceGuard(std::optional<Device> device) {
    if (device.has_value()) guard_.emplace(*device);
  }
  ~OptionalDeviceGuard() = default;

  OptionalDeviceGuard(const OptionalDeviceGuard&) = delete;
  OptionalDeviceGuard& operator=(const OptionalDeviceGuard&) = delete;
  OptionalDeviceGuard(OptionalDeviceGuard&&) = delete;
  OptionalDeviceGuard& operator=(OptionalDeviceGuard&&) = delete;

  // c10::OptionalDeviceGuard::set_device / reset_device
  //
  // Engages the guard on `device`, or, when engaged, as DeviceGuard's.
  void set_device(Device device) {
    if (guard_.has_value()) {
      guard_->set_device(device);
    } else {
      guard_.emplace(device);
    }
  }
  void reset_device(Device device) {
    if (guard_.has_value()) {
      guard_->reset_device(device);
    } else {
      guard_.emplace(device);
    }
  }

  // c10::OptionalDeviceGuard::original_device / current_device
  //
  // As DeviceGuard's; std::nullopt while not engaged.
  std::optional<Device> original_device() const {
    return guard_.has_value() ? std::make_optional(guard_->original_device())
                              : std::nullopt;
  }
  std::optional<Device> current_device() const {
    return guard_.has_value() ? std::make_optional(guard_->current_device())
                              : std::nullopt;
  }

  // c10::OptionalDeviceGuard::reset
  //
  // Restores the original device now and disengages.
  void reset() { guard_.reset(); }

 private:
  std::optional<DeviceGuard> guard_;
};

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace c10
