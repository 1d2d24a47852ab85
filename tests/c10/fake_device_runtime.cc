#include "tests/c10/fake_device_runtime.h"

#include "c10/util/Exception.h"

namespace ember_test {
namespace {

struct FakeEvent {
  c10::Stream stream;
  int64_t target;         // the stream's queued count when recorded
  int64_t timestamp;      // the fake clock when recorded
  c10::EventFlag flag;
};

thread_local c10::DeviceIndex tls_device = 0;
thread_local c10::StreamId tls_stream[FakeDeviceRuntime::kDevices] = {};

}  // namespace

FakeDeviceRuntime::FakeDeviceRuntime() {
  c10::register_privateuse1_backend("fakedev");
}

void FakeDeviceRuntime::reset_thread_state() {
  tls_device = 0;
  for (c10::StreamId& s : tls_stream) s = 0;
}

void FakeDeviceRuntime::check_device(c10::Device device,
                                     const char* method) const {
  TORCH_CHECK(device.type() == c10::kPrivateUse1 && device.index() >= 0 &&
                  device.index() < kDevices,
              "FakeDeviceRuntime::", method, ": no device ", device,
              "; there are ", static_cast<int>(kDevices), " fakedev devices.");
}

c10::Device FakeDeviceRuntime::exchangeDevice(c10::Device device) const {
  check_device(device, "exchangeDevice");
  const c10::Device old(c10::kPrivateUse1, tls_device);
  tls_device = device.index();
  ++switches_;
  return old;
}

c10::Device FakeDeviceRuntime::getDevice() const {
  return c10::Device(c10::kPrivateUse1, tls_device);
}

void FakeDeviceRuntime::setDevice(c10::Device device) const {
  check_device(device, "setDevice");
  tls_device = device.index();
  ++switches_;
}

void FakeDeviceRuntime::uncheckedSetDevice(c10::Device device) const noexcept {
  tls_device = device.index();
  ++switches_;
}

c10::Stream FakeDeviceRuntime::getStream(c10::Device device) const noexcept {
  const c10::DeviceIndex index = device.has_index() ? device.index() : tls_device;
  return c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::kPrivateUse1, index),
                     tls_stream[index]);
}

c10::Stream FakeDeviceRuntime::getStreamFromGlobalPool(c10::Device device,
                                                       bool) const {
  check_device(device, "getStreamFromGlobalPool");
  // Ids 1 … kStreamsPerDevice - 1, round-robin; 0 is the default stream.
  const c10::StreamId id = 1 + next_pool_stream_++ % (kStreamsPerDevice - 1);
  return c10::Stream(c10::Stream::UNSAFE, device, id);
}

c10::Stream FakeDeviceRuntime::exchangeStream(c10::Stream stream) const noexcept {
  const c10::DeviceIndex index = stream.device_index();
  const c10::Stream old(c10::Stream::UNSAFE, stream.device(), tls_stream[index]);
  tls_stream[index] = stream.id();
  return old;
}

FakeDeviceRuntime::StreamState& FakeDeviceRuntime::state(
    const c10::Stream& stream) const {
  TORCH_CHECK(stream.device_type() == c10::kPrivateUse1 &&
                  stream.device_index() >= 0 &&
                  stream.device_index() < kDevices && stream.id() >= 0 &&
                  stream.id() < kStreamsPerDevice,
              "FakeDeviceRuntime: unknown stream ", stream, ".");
  return streams_[stream.device_index()][stream.id()];
}

void FakeDeviceRuntime::record(void** event, const c10::Stream& stream,
                               c10::DeviceIndex device_index,
                               c10::EventFlag flag) const {
  TORCH_CHECK(device_index == stream.device_index(),
              "FakeDeviceRuntime::record: device index mismatch");
  if (*event == nullptr) {
    *event = new FakeEvent{stream, 0, 0, flag};
    ++created_;
  }
  auto* e = static_cast<FakeEvent*>(*event);
  e->stream = stream;
  e->target = state(stream).queued.load();
  e->timestamp = clock_++;
}

void FakeDeviceRuntime::block(void* event, const c10::Stream& stream) const {
  auto* e = static_cast<FakeEvent*>(event);
  std::lock_guard<std::mutex> lock(waits_mutex_);
  waits_.emplace_back(stream, e->stream);
}

bool FakeDeviceRuntime::queryEvent(void* event) const {
  auto* e = static_cast<FakeEvent*>(event);
  return state(e->stream).completed.load() >= e->target;
}

void FakeDeviceRuntime::destroyEvent(void* event,
                                     c10::DeviceIndex) const noexcept {
  if (event == nullptr) return;
  delete static_cast<FakeEvent*>(event);
  ++destroyed_;
}

void FakeDeviceRuntime::synchronizeEvent(void* event) const {
  auto* e = static_cast<FakeEvent*>(event);
  StreamState& s = state(e->stream);
  if (s.completed.load() < e->target) s.completed.store(e->target);
}

double FakeDeviceRuntime::elapsedTime(void* start, void* end,
                                      c10::DeviceIndex) const {
  auto* a = static_cast<FakeEvent*>(start);
  auto* b = static_cast<FakeEvent*>(end);
  TORCH_CHECK(a->flag == c10::EventFlag::BACKEND_DEFAULT &&
                  b->flag == c10::EventFlag::BACKEND_DEFAULT,
              "FakeDeviceRuntime::elapsedTime: both events must be created "
              "with EventFlag::BACKEND_DEFAULT to be timed.");
  // Each record ticks the fake clock by 1.5 ms.
  return 1.5 * static_cast<double>(b->timestamp - a->timestamp);
}

bool FakeDeviceRuntime::queryStream(const c10::Stream& stream) const {
  const StreamState& s = state(stream);
  return s.completed.load() >= s.queued.load();
}

void FakeDeviceRuntime::synchronizeStream(const c10::Stream& stream) const {
  complete(stream);
}

void FakeDeviceRuntime::synchronizeDevice(c10::DeviceIndex device_index) const {
  for (c10::StreamId id = 0; id < kStreamsPerDevice; ++id) {
    complete(c10::Stream(c10::Stream::UNSAFE,
                         c10::Device(c10::kPrivateUse1, device_index), id));
  }
}

void FakeDeviceRuntime::enqueue(const c10::Stream& stream, int64_t items) const {
  state(stream).queued += items;
}

void FakeDeviceRuntime::complete(const c10::Stream& stream) const {
  StreamState& s = state(stream);
  s.completed.store(s.queued.load());
}

int64_t FakeDeviceRuntime::pending(const c10::Stream& stream) const {
  const StreamState& s = state(stream);
  return s.queued.load() - s.completed.load();
}

std::vector<std::pair<c10::Stream, c10::Stream>> FakeDeviceRuntime::waits()
    const {
  std::lock_guard<std::mutex> lock(waits_mutex_);
  return waits_;
}

}  // namespace ember_test
