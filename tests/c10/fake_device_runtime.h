// A fake device runtime for tests: PrivateUse1 named "fakedev", two devices,
// four streams per device (the default one and a pool of three), and events
// whose completion the test controls.
//
// Work is modelled as counters: enqueue(stream, n) queues n items,
// complete(stream) finishes everything queued so far. An event recorded on a
// stream completes once the stream has finished what was queued before the
// record. block() only logs which stream waits on which event's stream.
//
//   ember_test::FakeDeviceRuntime runtime;          // not registered yet
//   auto handle = c10::impl::registerDeviceGuardImpl(
//       c10::kPrivateUse1, &runtime, "test");
//   runtime.reset_thread_state();                   // device 0, default streams
#pragma once

#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

#include "c10/core/impl/DeviceGuardImplInterface.h"

namespace ember_test {

class FakeDeviceRuntime final : public c10::impl::DeviceGuardImplInterface {
 public:
  static constexpr c10::DeviceIndex kDevices = 2;
  static constexpr c10::StreamId kStreamsPerDevice = 4;

  // Names PrivateUse1 "fakedev" (allowed once per process; again is a no-op).
  FakeDeviceRuntime();

  c10::DeviceType type() const override { return c10::kPrivateUse1; }
  c10::Device exchangeDevice(c10::Device device) const override;
  c10::Device getDevice() const override;
  void setDevice(c10::Device device) const override;
  void uncheckedSetDevice(c10::Device device) const noexcept override;
  c10::Stream getStream(c10::Device device) const noexcept override;
  c10::Stream getStreamFromGlobalPool(c10::Device device,
                                      bool isHighPriority) const override;
  c10::Stream exchangeStream(c10::Stream stream) const noexcept override;
  void record(void** event, const c10::Stream& stream,
              c10::DeviceIndex device_index,
              c10::EventFlag flag) const override;
  void block(void* event, const c10::Stream& stream) const override;
  bool queryEvent(void* event) const override;
  void destroyEvent(void* event,
                    c10::DeviceIndex device_index) const noexcept override;
  void synchronizeEvent(void* event) const override;
  double elapsedTime(void* start, void* end,
                     c10::DeviceIndex device_index) const override;
  bool queryStream(const c10::Stream& stream) const override;
  void synchronizeStream(const c10::Stream& stream) const override;
  void synchronizeDevice(c10::DeviceIndex device_index) const override;
  c10::DeviceIndex deviceCount() const noexcept override { return kDevices; }

  // The calling thread back to device 0 with default streams everywhere.
  static void reset_thread_state();

  // Test controls and observations.
  void enqueue(const c10::Stream& stream, int64_t items) const;
  void complete(const c10::Stream& stream) const;
  int64_t pending(const c10::Stream& stream) const;
  // (waiting stream, stream the event was recorded on), in call order.
  std::vector<std::pair<c10::Stream, c10::Stream>> waits() const;
  int events_created() const { return created_.load(); }
  int events_destroyed() const { return destroyed_.load(); }
  // How many setDevice/exchangeDevice/uncheckedSetDevice calls changed or
  // set the device, for checking that a guard did (not) call the runtime.
  int device_switches() const { return switches_.load(); }

 private:
  struct StreamState {
    std::atomic<int64_t> queued{0};
    std::atomic<int64_t> completed{0};
  };
  StreamState& state(const c10::Stream& stream) const;
  void check_device(c10::Device device, const char* method) const;

  mutable StreamState streams_[kDevices][kStreamsPerDevice];
  mutable std::atomic<int> created_{0};
  mutable std::atomic<int> destroyed_{0};
  mutable std::atomic<int> switches_{0};
  mutable std::atomic<int64_t> clock_{0};
  mutable std::atomic<c10::StreamId> next_pool_stream_{0};
  mutable std::mutex waits_mutex_;
  mutable std::vector<std::pair<c10::Stream, c10::Stream>> waits_;
};

}  // namespace ember_test
