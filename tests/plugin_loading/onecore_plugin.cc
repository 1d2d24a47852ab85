// A backend plugin for the one-core test: kernels for PrivateUse1, named
// "onecore" by the test, registered with the same macros a user writes, and
// the device runtime and default generators a backend registers beside them.
#include <atomic>
#include <cstdint>

#include <torch/library.h>

#include "c10/core/DefaultGenerators.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "sdk/plugin.h"

EMBER_PLUGIN(onecore)

namespace {
at::TensorBase tagged(const at::TensorBase& self, int64_t tag) {
  static_cast<float*>(self.data_ptr())[0] = static_cast<float>(tag);
  return self;
}

// Three devices, one stream each. The current device is process-wide here
// (a real runtime keeps it per thread); the test only switches it on one
// thread.
std::atomic<c10::DeviceIndex> g_current{0};

struct OnecoreRuntime final : c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return c10::kPrivateUse1; }
  c10::Device exchangeDevice(c10::Device d) const override {
    TORCH_CHECK(d.index() >= 0 && d.index() < 3, "onecore: no device ", d);
    return c10::Device(c10::kPrivateUse1, g_current.exchange(d.index()));
  }
  c10::Device getDevice() const override {
    return c10::Device(c10::kPrivateUse1, g_current.load());
  }
  void setDevice(c10::Device d) const override { exchangeDevice(d); }
  void uncheckedSetDevice(c10::Device d) const noexcept override {
    g_current.store(d.index());
  }
  c10::Stream getStream(c10::Device d) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, s.device());
  }
  c10::DeviceIndex deviceCount() const noexcept override { return 3; }
};

struct OnecoreGenerator final : c10::GeneratorImpl {
  explicit OnecoreGenerator(c10::DeviceIndex index)
      : GeneratorImpl(c10::Device(c10::kPrivateUse1, index),
                      c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)) {}
  void set_current_seed(uint64_t s) override { seed_ = s; }
  uint64_t current_seed() const override { return seed_; }
  uint64_t seed() override { return seed_ = 1; }
  uint64_t seed_ = 0;
};

const at::Generator& onecoreGenerator(c10::DeviceIndex index) {
  static const at::Generator* const generators[3] = {
      new at::Generator(at::make_generator<OnecoreGenerator>(0)),
      new at::Generator(at::make_generator<OnecoreGenerator>(1)),
      new at::Generator(at::make_generator<OnecoreGenerator>(2)),
  };
  return *generators[index];
}
}  // namespace

TORCH_LIBRARY_IMPL(onecore_ops, PrivateUse1, m) { m.impl("tag", &tagged); }

C10_REGISTER_GUARD_IMPL(PrivateUse1, OnecoreRuntime);
C10_REGISTER_DEFAULT_GENERATOR(PrivateUse1, &onecoreGenerator);
