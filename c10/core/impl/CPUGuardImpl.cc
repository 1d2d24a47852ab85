// c10/core/impl/CPUGuardImpl.cc — the CPU's device runtime, registered by
// the core itself.
//
// There is one CPU device (index -1 or 0) and one stream, the default one.
// CPU work runs synchronously on the calling thread, so when an event is
// recorded everything before it has finished: events are complete as soon
// as they are recorded, blocking on them and synchronizing do nothing, and
// elapsedTime measures the wall-clock time between two recordings.
#include <chrono>

#include "c10/core/impl/DeviceGuardImplInterface.h"

namespace c10 {
namespace impl {
namespace {

// A recorded CPU event: when it was recorded.
struct CpuEvent {
  std::chrono::steady_clock::time_point when;
};

inline Device cpuDevice() { return Device(DeviceType::CPU, -1); }

struct CPUGuardImpl final : DeviceGuardImplInterface {
  DeviceType type() const override { return DeviceType::CPU; }

  Device exchangeDevice(Device device) const override {
    check_cpu(device, "exchangeDevice");
    return cpuDevice();
  }
  Device getDevice() const override { return cpuDevice(); }
  void setDevice(Device device) const override {
    check_cpu(device, "setDevice");
  }
  void uncheckedSetDevice(Device) const noexcept override {}

  Stream getStream(Device) const noexcept override {
    return Stream(Stream::DEFAULT, cpuDevice());
  }
  Stream getStreamFromGlobalPool(Device, bool) const override {
    return Stream(Stream::DEFAULT, cpuDevice());
  }
  Stream exchangeStream(Stream) const noexcept override {
    return Stream(Stream::DEFAULT, cpuDevice());
  }

  void record(void** event, const Stream& stream, DeviceIndex,
              EventFlag) const override {
    check_cpu(stream.device(), "record");
    if (*event == nullptr) *event = new CpuEvent();
    static_cast<CpuEvent*>(*event)->when = std::chrono::steady_clock::now();
  }
  void block(void*, const Stream& stream) const override {
    check_cpu(stream.device(), "block");
  }
  bool queryEvent(void*) const override { return true; }
  void destroyEvent(void* event, DeviceIndex) const noexcept override {
    delete static_cast<CpuEvent*>(event);
  }
  void synchronizeEvent(void*) const override {}
  double elapsedTime(void* start, void* end, DeviceIndex) const override {
    TORCH_INTERNAL_ASSERT(start != nullptr && end != nullptr,
                          "CPUGuardImpl::elapsedTime: c10::Event passes "
                          "recorded events only");
    const auto delta = static_cast<CpuEvent*>(end)->when -
                       static_cast<CpuEvent*>(start)->when;
    return std::chrono::duration<double, std::milli>(delta).count();
  }

  bool queryStream(const Stream&) const override { return true; }
  void synchronizeStream(const Stream&) const override {}
  void synchronizeDevice(DeviceIndex) const override {}

  DeviceIndex deviceCount() const noexcept override { return 1; }

 private:
  static void check_cpu(Device device, const char* method) {
    TORCH_CHECK(device.is_cpu(), "CPUGuardImpl::", method, ": expected a CPU "
                "device, but got ", device, ". Use the runtime of ", device,
                "'s type (c10::impl::getDeviceGuardImpl(", device.type(),
                ")).");
  }
};

// The core's own runtime is registered once and never unregistered: code
// that runs during exit (static destructors, detached threads) may still
// guard the CPU. The object is leaked for the same reason.
[[maybe_unused]] const bool g_cpu_registered = [] {
  registerDeviceGuardImpl(DeviceType::CPU, new CPUGuardImpl(),
                          "c10/core/impl/CPUGuardImpl.cc")
      .release();
  return true;
}();

}  // namespace
}  // namespace impl
}  // namespace c10
