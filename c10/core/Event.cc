// c10/core/Event.cc — c10::Event over the registered device runtime.
#include "c10/core/Event.h"

namespace c10 {

Event::Event(DeviceType device_type, EventFlag flag)
    : impl_(impl::getDeviceGuardImpl(device_type)),
      device_type_(device_type),
      flag_(flag) {}

Event::~Event() {
  if (event_ != nullptr) impl_->destroyEvent(event_, device_index_);
}

Event::Event(Event&& other) noexcept
    : impl_(other.impl_),
      event_(std::exchange(other.event_, nullptr)),
      device_type_(other.device_type_),
      device_index_(other.device_index_),
      flag_(other.flag_),
      was_marked_for_recording_(
          std::exchange(other.was_marked_for_recording_, false)) {}

Event& Event::operator=(Event&& other) noexcept {
  // Swapping hands this event's native event to `other`, which frees it.
  std::swap(impl_, other.impl_);
  std::swap(event_, other.event_);
  std::swap(device_type_, other.device_type_);
  std::swap(device_index_, other.device_index_);
  std::swap(flag_, other.flag_);
  std::swap(was_marked_for_recording_, other.was_marked_for_recording_);
  return *this;
}

void Event::check_stream(const Stream& stream, const char* method) const {
  TORCH_CHECK(stream.device_type() == device_type_, "Event::", method,
              ": the event is for ", DeviceTypeName(device_type_, true),
              " but the stream is ", stream, ". Use a stream of ",
              DeviceTypeName(device_type_, true), ", or an event created for ",
              DeviceTypeName(stream.device_type(), true), ".");
}

void Event::record(const Stream& stream) {
  check_stream(stream, "record");
  TORCH_CHECK(device_index_ == -1 || device_index_ == stream.device_index(),
              "Event::record: the event was recorded on device ",
              Device(device_type_, device_index_), " but the stream is ",
              stream, "; an event stays on the device it was first recorded "
              "on. Use a new event for the other device.");
  impl_->record(&event_, stream, stream.device_index(), flag_);
  device_index_ = stream.device_index();
  was_marked_for_recording_ = true;
}

void Event::recordOnce(const Stream& stream) {
  if (!was_marked_for_recording_) record(stream);
}

void Event::block(const Stream& stream) const {
  if (!was_marked_for_recording_) return;
  check_stream(stream, "block");
  impl_->block(event_, stream);
}

bool Event::query() const {
  if (!was_marked_for_recording_) return true;
  return impl_->queryEvent(event_);
}

void Event::synchronize() const {
  if (!was_marked_for_recording_) return;
  impl_->synchronizeEvent(event_);
}

double Event::elapsedTime(const Event& end) const {
  TORCH_CHECK(end.device_type_ == device_type_, "Event::elapsedTime: the "
              "events are for different device types (",
              DeviceTypeName(device_type_, true), " and ",
              DeviceTypeName(end.device_type_, true), "). Time two events of "
              "one device type.");
  TORCH_CHECK(was_marked_for_recording_ && end.was_marked_for_recording_,
              "Event::elapsedTime: both events must be recorded, but the ",
              was_marked_for_recording_ ? "end" : "start", " event was not. "
              "Call record(stream) on both first.");
  return impl_->elapsedTime(event_, end.event_, device_index_);
}

}  // namespace c10
