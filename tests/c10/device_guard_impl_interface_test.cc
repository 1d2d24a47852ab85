// The device runtime registry (c10/core/impl/DeviceGuardImplInterface.h)
// and the CPU runtime the core registers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "tests/c10/fake_device_runtime.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using c10::impl::getDeviceGuardImpl;
using c10::impl::hasDeviceGuardImpl;
using c10::impl::registerDeviceGuardImpl;
using ember_test::errorOf;
using ember_test::FakeDeviceRuntime;

TEST(DeviceRuntimeRegistry, CpuIsRegisteredByTheCore) {
  ASSERT_TRUE(hasDeviceGuardImpl(c10::kCPU));
  EXPECT_EQ(getDeviceGuardImpl(c10::kCPU)->type(), c10::kCPU);
}

TEST(DeviceRuntimeRegistry, MissingRuntimeErrorNamesTheDeviceAndThePlugin) {
  ASSERT_FALSE(hasDeviceGuardImpl(c10::kCUDA));
  EXPECT_THAT(errorOf([] { getDeviceGuardImpl(c10::kCUDA); }),
              AllOf(HasSubstr("getDeviceGuardImpl: no device runtime "
                              "registered for cuda; load the CUDA plugin "
                              "(libember_cuda.so"),
                    HasSubstr("before using cuda devices, streams or events")));
}

TEST(DeviceRuntimeRegistry, OutOfRangeDeviceTypeIsAnError) {
  EXPECT_THAT(errorOf([] { getDeviceGuardImpl(static_cast<c10::DeviceType>(9)); }),
              HasSubstr("device type value 9 is out of range"));
  EXPECT_FALSE(hasDeviceGuardImpl(static_cast<c10::DeviceType>(-1)));
}

TEST(DeviceRuntimeRegistry, RegistrationLastsAsLongAsItsHandle) {
  FakeDeviceRuntime runtime;
  ASSERT_FALSE(hasDeviceGuardImpl(c10::kPrivateUse1));
  {
    auto handle = registerDeviceGuardImpl(c10::kPrivateUse1, &runtime, "here");
    EXPECT_TRUE(handle.active());
    EXPECT_EQ(getDeviceGuardImpl(c10::kPrivateUse1), &runtime);
    // Moving the handle moves the registration, it does not end it.
    c10::impl::DeviceGuardImplRegistration moved = std::move(handle);
    EXPECT_FALSE(handle.active());  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(getDeviceGuardImpl(c10::kPrivateUse1), &runtime);
  }
  EXPECT_FALSE(hasDeviceGuardImpl(c10::kPrivateUse1));
  EXPECT_THAT(errorOf([] { getDeviceGuardImpl(c10::kPrivateUse1); }),
              HasSubstr("no device runtime registered for fakedev; load the "
                        "FAKEDEV plugin (libember_fakedev.so"));
  // Registering again after the handle died works.
  auto again = registerDeviceGuardImpl(c10::kPrivateUse1, &runtime, "again");
  EXPECT_EQ(getDeviceGuardImpl(c10::kPrivateUse1), &runtime);
  again.reset();
  EXPECT_FALSE(hasDeviceGuardImpl(c10::kPrivateUse1));
}

TEST(DeviceRuntimeRegistry, SecondRegistrationIsRefusedNamingBoth) {
  FakeDeviceRuntime first;
  FakeDeviceRuntime second;
  auto handle =
      registerDeviceGuardImpl(c10::kPrivateUse1, &first, "first_plugin.cc:10");
  EXPECT_THAT(
      errorOf([&] {
        auto h = registerDeviceGuardImpl(c10::kPrivateUse1, &second,
                                         "second_plugin.cc:20");
      }),
      AllOf(HasSubstr("registerDeviceGuardImpl: a device runtime for fakedev "
                      "is already registered (ember_test::FakeDeviceRuntime, "
                      "registered at first_plugin.cc:10); refusing a second "
                      "one (ember_test::FakeDeviceRuntime, registered at "
                      "second_plugin.cc:20)"),
            HasSubstr("Load only one backend plugin for fakedev")));
  // The refused registration changed nothing.
  EXPECT_EQ(getDeviceGuardImpl(c10::kPrivateUse1), &first);
}

TEST(DeviceRuntimeRegistry, AStaleHandleDoesNotRemoveANewerRegistration) {
  FakeDeviceRuntime first;
  FakeDeviceRuntime second;
  auto handle = registerDeviceGuardImpl(c10::kPrivateUse1, &first, "first");
  const c10::impl::DeviceGuardImplInterface* released = handle.release();
  EXPECT_EQ(released, &first);
  EXPECT_FALSE(handle.active());
  // Adopt the released registration and end it, then register another; a
  // handle naming the first must not unregister the second.
  c10::impl::DeviceGuardImplRegistration(c10::kPrivateUse1, released).reset();
  auto newer = registerDeviceGuardImpl(c10::kPrivateUse1, &second, "second");
  c10::impl::DeviceGuardImplRegistration(c10::kPrivateUse1, &first).reset();
  EXPECT_EQ(getDeviceGuardImpl(c10::kPrivateUse1), &second);
}

TEST(DeviceRuntimeRegistry, ARuntimeOfAnotherTypeOrNullIsRefused) {
  FakeDeviceRuntime runtime;  // a PrivateUse1 runtime
  EXPECT_THAT(errorOf([&] {
                auto h = registerDeviceGuardImpl(c10::kCUDA, &runtime, "x.cc:1");
              }),
              HasSubstr("registerDeviceGuardImpl: ember_test::FakeDeviceRuntime "
                        "registered at x.cc:1 as the runtime for cuda is the "
                        "runtime for fakedev"));
  EXPECT_FALSE(hasDeviceGuardImpl(c10::kCUDA));
  EXPECT_THAT(errorOf([&] {
                auto h = registerDeviceGuardImpl(c10::kCUDA, nullptr, "y.cc:2");
              }),
              HasSubstr("the runtime for cuda registered at y.cc:2 is null"));
}

// A runtime that implements only what is required: the optional methods
// throw, naming the runtime and what it lacks.
struct MinimalRuntime final : c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return c10::kPrivateUse1; }
  c10::Device exchangeDevice(c10::Device d) const override { return d; }
  c10::Device getDevice() const override { return {c10::kPrivateUse1, 0}; }
  void setDevice(c10::Device) const override {}
  void uncheckedSetDevice(c10::Device) const noexcept override {}
  c10::Stream getStream(c10::Device d) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override { return s; }
  c10::DeviceIndex deviceCount() const noexcept override { return 1; }
};

TEST(DeviceGuardImplInterface, OptionalMethodsThrowNamingTheRuntime) {
  FakeDeviceRuntime naming;  // names PrivateUse1 "fakedev"
  MinimalRuntime runtime;
  const c10::Stream s(c10::Stream::DEFAULT, c10::Device(c10::kPrivateUse1, 0));
  EXPECT_EQ(runtime.getDefaultStream(s.device()), s);
  void* event = nullptr;
  EXPECT_THAT(errorOf([&] {
                runtime.record(&event, s, 0, c10::EventFlag::PYTORCH_DEFAULT);
              }),
              HasSubstr("DeviceGuardImplInterface::record: the fakedev device "
                        "runtime ((anonymous namespace)::MinimalRuntime) does "
                        "not support events"));
  EXPECT_THAT(errorOf([&] { runtime.synchronizeDevice(0); }),
              HasSubstr("does not support synchronizing devices"));
  EXPECT_THAT(errorOf([&] { runtime.getStreamFromGlobalPool(s.device()); }),
              HasSubstr("does not support a pool of streams"));
  runtime.destroyEvent(nullptr, 0);  // optional and silent
}

TEST(CpuGuardImpl, HasOneDeviceOneStreamAndCompleteEvents) {
  const auto* cpu = getDeviceGuardImpl(c10::kCPU);
  EXPECT_EQ(cpu->deviceCount(), 1);
  EXPECT_EQ(cpu->getDevice(), c10::Device(c10::kCPU));
  EXPECT_EQ(cpu->exchangeDevice(c10::Device(c10::kCPU, 0)), c10::Device(c10::kCPU));
  const c10::Stream s = cpu->getStream(c10::Device(c10::kCPU));
  EXPECT_EQ(s, c10::Stream(c10::Stream::DEFAULT, c10::Device(c10::kCPU)));
  EXPECT_EQ(s.id(), 0);
  EXPECT_EQ(cpu->exchangeStream(s), s);
  EXPECT_EQ(cpu->getDefaultStream(c10::Device(c10::kCPU)), s);
  EXPECT_EQ(cpu->getStreamFromGlobalPool(c10::Device(c10::kCPU)), s);
  EXPECT_TRUE(cpu->queryStream(s));
  cpu->synchronizeStream(s);
  cpu->synchronizeDevice(0);

  void* start = nullptr;
  void* end = nullptr;
  cpu->record(&start, s, -1, c10::EventFlag::BACKEND_DEFAULT);
  ASSERT_NE(start, nullptr);  // created on first record
  cpu->record(&end, s, -1, c10::EventFlag::BACKEND_DEFAULT);
  EXPECT_TRUE(cpu->queryEvent(start));
  cpu->block(start, s);
  cpu->synchronizeEvent(start);
  EXPECT_GE(cpu->elapsedTime(start, end, -1), 0.0);
  cpu->destroyEvent(start, -1);
  cpu->destroyEvent(end, -1);
}

TEST(CpuGuardImpl, RefusesOtherDevices) {
  const auto* cpu = getDeviceGuardImpl(c10::kCPU);
  EXPECT_THAT(errorOf([&] { cpu->setDevice(c10::Device(c10::kCUDA, 0)); }),
              HasSubstr("CPUGuardImpl::setDevice: expected a CPU device, but "
                        "got cuda:0"));
}

// A runtime whose device count is set in its constructor, so that a reader
// that calls it reads memory the registering thread wrote just before
// registering.
struct FreshRuntime final : c10::impl::DeviceGuardImplInterface {
  explicit FreshRuntime(c10::DeviceIndex count) : count_(count) {}
  c10::DeviceType type() const override { return c10::kPrivateUse1; }
  c10::Device exchangeDevice(c10::Device d) const override { return d; }
  c10::Device getDevice() const override { return {c10::kPrivateUse1, 0}; }
  void setDevice(c10::Device) const override {}
  void uncheckedSetDevice(c10::Device) const noexcept override {}
  c10::Stream getStream(c10::Device d) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override { return s; }
  c10::DeviceIndex deviceCount() const noexcept override { return count_; }
  c10::DeviceIndex count_;
};

// Readers look the runtime up and call it while another thread constructs a
// new runtime, registers it and unregisters it, over and over. Under TSan
// this checks the registry's memory order: a reader that sees a pointer must
// also see the object constructed before it was registered (with relaxed
// loads and stores TSan reports the reads of the vtable and of count_).
// Runtimes stay alive until the readers have stopped, as the contract asks.
TEST(DeviceRuntimeRegistry, ConcurrentLookupsWhileRegisteringAndUnregistering) {
  constexpr int kMaxRounds = 200000;
  std::vector<std::unique_ptr<FreshRuntime>> runtimes;
  runtimes.reserve(kMaxRounds);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> seen{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        if (hasDeviceGuardImpl(c10::kPrivateUse1)) {
          try {
            const auto* impl = getDeviceGuardImpl(c10::kPrivateUse1);
            EXPECT_EQ(impl->deviceCount(), 2);
            ++seen;
          } catch (const c10::Error&) {
            // Unregistered between the two loads: the missing-runtime error.
          }
        }
        EXPECT_EQ(getDeviceGuardImpl(c10::kCPU)->deviceCount(), 1);
      }
    });
  }
  // At least 2000 rounds, and on until readers have seen runtimes. (No
  // yield: with more threads than cores it would wait out a time slice.)
  for (int i = 0; i < kMaxRounds && (i < 2000 || seen.load() < 100); ++i) {
    runtimes.push_back(std::make_unique<FreshRuntime>(2));
    auto handle = registerDeviceGuardImpl(c10::kPrivateUse1,
                                          runtimes.back().get(), "loop");
  }
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_FALSE(hasDeviceGuardImpl(c10::kPrivateUse1));
  EXPECT_GT(seen.load(), 0);
}

}  // namespace
