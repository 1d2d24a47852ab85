// A plugin that registers a runtime for CUDA (which succeeds) and then a
// second runtime for PrivateUse1, which the onecore plugin already
// registered: the loader must refuse it, name both registrations, and unload
// it, which undoes its CUDA registration too.
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "sdk/plugin.h"

EMBER_PLUGIN(second_runtime)

namespace {

template <c10::DeviceType kType>
struct OneDeviceRuntime final : c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return kType; }
  c10::Device exchangeDevice(c10::Device d) const override { return d; }
  c10::Device getDevice() const override { return c10::Device(kType, 0); }
  void setDevice(c10::Device) const override {}
  void uncheckedSetDevice(c10::Device) const noexcept override {}
  c10::Stream getStream(c10::Device d) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override {
    return s;
  }
  c10::DeviceIndex deviceCount() const noexcept override { return 1; }
};

using CudaRuntime = OneDeviceRuntime<c10::DeviceType::CUDA>;
using SecondPrivateUse1Runtime = OneDeviceRuntime<c10::DeviceType::PrivateUse1>;

}  // namespace

C10_REGISTER_GUARD_IMPL(CUDA, CudaRuntime);
C10_REGISTER_GUARD_IMPL(PrivateUse1, SecondPrivateUse1Runtime);
