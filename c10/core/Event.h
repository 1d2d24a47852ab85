// c10/core/Event.h — a marker in a device stream, for ordering work between
// streams and for waiting on it.
//
//   c10::Event ready(stream_a.device_type());
//   ready.record(stream_a);   // completes when stream_a's work so far has
//   ready.block(stream_b);    // stream_b's later work waits for it
//   if (!ready.query()) ready.synchronize();  // the calling thread waits
//
// An Event is device-agnostic: it calls the runtime registered for its
// device type (c10/core/impl/DeviceGuardImplInterface.h), which creates the
// native event the first time the Event is recorded. Events that are never
// recorded cost nothing and count as complete. On CPU every recorded event
// is complete at once (CPU work is synchronous).
#pragma once

#include <utility>

#include "c10/core/Device.h"
#include "c10/core/DeviceType.h"
#include "c10/core/Stream.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"

namespace c10 {

// c10::Event
//
// Move-only owner of one native event, destroyed with it. The runtime is
// looked up once, at construction (which throws c10::Error if no runtime is
// registered for the device type) and used for the Event's life, so the
// runtime must stay registered-or-alive that long. Not thread-safe: one
// thread uses an Event at a time (the native event may be waited on from
// anywhere through the runtime).
class Event final {
 public:
  // c10::Event::Event
  //
  // An unrecorded event for `device_type`; `flag` is passed to the runtime
  // when it creates the native event (BACKEND_DEFAULT for elapsedTime).
  explicit Event(DeviceType device_type,
                 EventFlag flag = EventFlag::PYTORCH_DEFAULT);
  ~Event();

  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;

  DeviceType device_type() const noexcept { return device_type_; }
  // -1 until the event is first recorded, then the recording stream's.
  DeviceIndex device_index() const noexcept { return device_index_; }
  Device device() const noexcept { return Device(device_type_, device_index_); }
  EventFlag flag() const noexcept { return flag_; }
  bool was_marked_for_recording() const noexcept {
    return was_marked_for_recording_;
  }
  // The native event (null until first recorded); the runtime's type.
  void* eventId() const noexcept { return event_; }

  // c10::Event::record
  //
  // Marks the current end of `stream`'s work; the event completes when that
  // work has. Recording again moves the mark. Throws c10::Error if `stream`
  // is not on this event's device type, or on another device than the one
  // the event was first recorded on.
  void record(const Stream& stream);

  // c10::Event::recordOnce — record(stream) unless recorded already.
  void recordOnce(const Stream& stream);

  // c10::Event::block
  //
  // Makes `stream`'s later work wait for this event, without blocking the
  // calling thread. No-op for an unrecorded event. Throws c10::Error if
  // `stream` is on another device type.
  void block(const Stream& stream) const;

  // c10::Event::query
  //
  // Whether the recorded work has completed (true if never recorded).
  bool query() const;

  // c10::Event::synchronize
  //
  // Blocks the calling thread until the event completes (returns at once if
  // never recorded).
  void synchronize() const;

  // c10::Event::elapsedTime
  //
  // Milliseconds from this event to `end`. Both must be recorded, on the
  // same device type, with a runtime and flag that time events; throws
  // c10::Error otherwise.
  double elapsedTime(const Event& end) const;

 private:
  void check_stream(const Stream& stream, const char* method) const;

  const impl::DeviceGuardImplInterface* impl_;
  void* event_ = nullptr;
  DeviceType device_type_;
  DeviceIndex device_index_ = -1;
  EventFlag flag_;
  bool was_marked_for_recording_ = false;
};

}  // namespace c10
