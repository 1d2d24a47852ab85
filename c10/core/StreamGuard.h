// c10/core/StreamGuard.h — make a stream (and its device) current for a
// scope, and restore both when the scope ends.
//
//   {
//     c10::StreamGuard guard(side_stream);   // device and stream of side_stream
//     … queue work; it goes to side_stream …
//   }                                        // previous stream and device again
//
//   c10::OptionalStreamGuard maybe(stream_or_nullopt);
//
// Device-agnostic like c10::DeviceGuard (c10/core/DeviceGuard.h): the
// registered runtime of the stream's device type does the work. Each device
// has its own current stream per thread, so a guard restores two things: the
// stream it replaced on the stream's device, and the device that was current
// (whose current stream it never touched). Guards are neither copyable nor
// movable; not thread-safe (one guard belongs to the thread that made it).
#pragma once

#include <optional>

#include "c10/core/Device.h"
#include "c10/core/Stream.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "c10/util/Exception.h"

namespace c10 {

// c10::StreamGuard
//
// Sets the current device to stream.device() and that device's current
// stream to `stream`; the destructor puts back the stream it replaced and
// then the original device. reset_stream changes both within the scope.
class StreamGuard {
 public:
  StreamGuard() = delete;

  // c10::StreamGuard::StreamGuard(stream)
  //
  // Throws c10::Error if no runtime is registered for the stream's device
  // type or it has no such device; then nothing was changed.
  explicit StreamGuard(Stream stream)
      : impl_(impl::getDeviceGuardImpl(stream.device_type())),
        original_device_(impl_->exchangeDevice(stream.device())),
        current_device_(stream.device()),
        original_stream_of_original_device_(
            impl_->getStream(original_device_)),
        original_stream_of_current_device_(impl_->exchangeStream(stream)),
        current_stream_(stream) {}

  ~StreamGuard() {
    impl_->exchangeStream(original_stream_of_current_device_);
    impl_->uncheckedSetDevice(original_device_);
  }

  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;
  StreamGuard(StreamGuard&&) = delete;
  StreamGuard& operator=(StreamGuard&&) = delete;

  // c10::StreamGuard::reset_stream
  //
  // Makes `stream` current (and its device). On another device of the same
  // type, the stream this guard replaced on the device it leaves is put back
  // first. Throws c10::Error for a stream of another device type (use
  // OptionalStreamGuard, which can switch types) or a device the runtime
  // does not have; then nothing was changed.
  void reset_stream(Stream stream) {
    TORCH_CHECK(stream.device_type() == original_device_.type(),
                "StreamGuard::reset_stream: the guard is for ",
                original_device_.type(), " streams but got ", stream,
                ". Use a c10::OptionalStreamGuard to switch device types.");
    if (stream.device() == current_device_) {
      impl_->exchangeStream(stream);
    } else {
      impl_->setDevice(stream.device());
      impl_->exchangeStream(original_stream_of_current_device_);
      current_device_ = stream.device();
      original_stream_of_current_device_ = impl_->exchangeStream(stream);
    }
    current_stream_ = stream;
  }

  // c10::StreamGuard::original_stream / current_stream
  //
  // The stream that was current on the original device when the guard was
  // made; the stream the guard last set.
  Stream original_stream() const noexcept {
    return original_stream_of_original_device_;
  }
  Stream current_stream() const noexcept { return current_stream_; }

  // c10::StreamGuard::original_device / current_device
  Device original_device() const noexcept { return original_device_; }
  Device current_device() const noexcept { return current_device_; }

 private:
  const impl::DeviceGuardImplInterface* impl_;
  Device original_device_;
  Device current_device_;
  Stream original_stream_of_original_device_;
  Stream original_stream_of_current_device_;
  Stream current_stream_;
};

// GCC (12, at -O1 with sanitizers) reports reads of a disengaged
// std::optional's payload as maybe-uninitialized in the accessors below,
// although each read is behind has_value(); the warning is false.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// c10::OptionalStreamGuard
//
// A StreamGuard that may not be engaged: built empty or from std::nullopt it
// does nothing until reset_stream engages it. reset() restores and
// disengages early. Not copyable or movable; not thread-safe.
class OptionalStreamGuard {
 public:
  OptionalStreamGuard() = default;
  explicit OptionalStreamGuard(Stream stream) { guard_.emplace(stream); }
  explicit OptionalStreamGuard(std::optional<Stream> stream) {
    if (stream.has_value()) guard_.emplace(*stream);
  }
  ~OptionalStreamGuard() = default;

  OptionalStreamGuard(const OptionalStreamGuard&) = delete;
  OptionalStreamGuard& operator=(const OptionalStreamGuard&) = delete;
  OptionalStreamGuard(OptionalStreamGuard&&) = delete;
  OptionalStreamGuard& operator=(OptionalStreamGuard&&) = delete;

  // c10::OptionalStreamGuard::reset_stream
  //
  // Engages the guard on `stream`, or, when engaged, as StreamGuard's; a
  // stream of another device type restores everything first and then
  // guards `stream` afresh.
  void reset_stream(Stream stream) {
    if (guard_.has_value() &&
        guard_->original_device().type() == stream.device_type()) {
      guard_->reset_stream(stream);
      return;
    }
    guard_.reset();
    guard_.emplace(stream);
  }

  // c10::OptionalStreamGuard::original_stream / current_stream /
  // original_device / current_device
  //
  // As StreamGuard's; std::nullopt while not engaged.
  std::optional<Stream> original_stream() const {
    return guard_.has_value() ? std::make_optional(guard_->original_stream())
                              : std::nullopt;
  }
  std::optional<Stream> current_stream() const {
    return guard_.has_value() ? std::make_optional(guard_->current_stream())
                              : std::nullopt;
  }
  std::optional<Device> original_device() const {
    return guard_.has_value() ? std::make_optional(guard_->original_device())
                              : std::nullopt;
  }
  std::optional<Device> current_device() const {
    return guard_.has_value() ? std::make_optional(guard_->current_device())
                              : std::nullopt;
  }

  // c10::OptionalStreamGuard::reset
  //
  // Restores the original stream and device now and disengages.
  void reset() { guard_.reset(); }

 private:
  std::optional<StreamGuard> guard_;
};

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace c10
