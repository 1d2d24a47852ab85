// c10::DeviceGuard, OptionalDeviceGuard, StreamGuard and OptionalStreamGuard
// over a fake two-device runtime registered for the test.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>

#include "c10/core/DeviceGuard.h"
#include "c10/core/StreamGuard.h"
#include "tests/c10/fake_device_runtime.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_test::errorOf;
using ember_test::FakeDeviceRuntime;

c10::Device dev(int index) { return c10::Device(c10::kPrivateUse1, index); }
c10::Stream stream(int device, c10::StreamId id) {
  return c10::Stream(c10::Stream::UNSAFE, dev(device), id);
}

class Guards : public ::testing::Test {
 protected:
  void SetUp() override { FakeDeviceRuntime::reset_thread_state(); }

  c10::Device current() const { return runtime_.getDevice(); }
  c10::Stream current_stream(int device) const {
    return runtime_.getStream(dev(device));
  }

  FakeDeviceRuntime runtime_;
  c10::impl::DeviceGuardImplRegistration registration_ =
      c10::impl::registerDeviceGuardImpl(c10::kPrivateUse1, &runtime_,
                                         "tests/c10/device_guard_test.cc");
};

TEST_F(Guards, DeviceGuardSetsAndRestoresTheDevice) {
  {
    c10::DeviceGuard guard(dev(1));
    EXPECT_EQ(current(), dev(1));
    EXPECT_EQ(guard.original_device(), dev(0));
    EXPECT_EQ(guard.current_device(), dev(1));
  }
  EXPECT_EQ(current(), dev(0));
}

TEST_F(Guards, NestedDeviceGuardsRestoreInReverseOrder) {
  {
    c10::DeviceGuard outer(dev(1));
    {
      c10::DeviceGuard inner(dev(0));
      EXPECT_EQ(current(), dev(0));
      EXPECT_EQ(inner.original_device(), dev(1));
    }
    EXPECT_EQ(current(), dev(1));
  }
  EXPECT_EQ(current(), dev(0));
}

TEST_F(Guards, DeviceGuardRestoresWhenAnExceptionUnwinds) {
  EXPECT_THROW(
      {
        c10::DeviceGuard guard(dev(1));
        c10::DeviceGuard inner(dev(0));
        c10::DeviceGuard again(dev(1));
        throw std::runtime_error("unwind");
      },
      std::runtime_error);
  EXPECT_EQ(current(), dev(0));
}

TEST_F(Guards, DeviceGuardOnAMissingDeviceThrowsAndChangesNothing) {
  EXPECT_THAT(errorOf([] { c10::DeviceGuard guard(dev(7)); }),
              HasSubstr("FakeDeviceRuntime::exchangeDevice: no device fakedev:7"));
  EXPECT_EQ(current(), dev(0));
}

TEST_F(Guards, DeviceGuardWithoutAnIndexKeepsTheCurrentDevice) {
  runtime_.setDevice(dev(1));
  const int switches = runtime_.device_switches();
  {
    c10::DeviceGuard guard{c10::Device(c10::kPrivateUse1)};
    EXPECT_EQ(guard.original_device(), dev(1));
    EXPECT_EQ(guard.current_device(), dev(1));
    EXPECT_EQ(runtime_.device_switches(), switches);  // only read
  }
  EXPECT_EQ(current(), dev(1));
}

TEST_F(Guards, DeviceGuardChangesDeviceWithinItsScope) {
  {
    c10::DeviceGuard guard(dev(0));
    guard.set_index(1);
    EXPECT_EQ(current(), dev(1));
    EXPECT_EQ(guard.current_device(), dev(1));
    guard.set_device(dev(0));
    EXPECT_EQ(current(), dev(0));
    guard.set_device(dev(1));
    EXPECT_THAT(errorOf([&] { guard.set_device(c10::Device(c10::kCPU)); }),
                HasSubstr("DeviceGuard::set_device: the guard is for fakedev "
                          "devices but got cpu. Use reset_device"));
    EXPECT_EQ(current(), dev(1));
  }
  EXPECT_EQ(current(), dev(0));
}

TEST_F(Guards, ResetDeviceToAnotherTypeRestoresTheFirstType) {
  {
    c10::DeviceGuard guard(dev(1));
    guard.reset_device(c10::Device(c10::kCPU));
    EXPECT_EQ(current(), dev(0));  // the fakedev device was restored at once
    EXPECT_EQ(guard.current_device(), c10::Device(c10::kCPU));
    guard.reset_device(dev(1));
    EXPECT_EQ(current(), dev(1));
    EXPECT_EQ(guard.original_device(), dev(0));
  }
  EXPECT_EQ(current(), dev(0));
}

TEST_F(Guards, DeviceGuardOnCpuLeavesOtherDevicesAlone) {
  const int switches = runtime_.device_switches();
  {
    c10::DeviceGuard guard{c10::Device(c10::kCPU)};
    EXPECT_EQ(guard.original_device(), c10::Device(c10::kCPU));
    c10::StreamGuard stream_guard(
        c10::Stream(c10::Stream::DEFAULT, c10::Device(c10::kCPU)));
    EXPECT_EQ(stream_guard.original_stream().id(), 0);
  }
  EXPECT_EQ(runtime_.device_switches(), switches);
}

TEST_F(Guards, DeviceGuardOnATypeWithoutRuntimeSaysWhichPluginToLoad) {
  EXPECT_THAT(errorOf([] { c10::DeviceGuard guard(c10::Device(c10::kCUDA, 0)); }),
              HasSubstr("no device runtime registered for cuda; load the CUDA "
                        "plugin"));
}

TEST_F(Guards, OptionalDeviceGuardDoesNothingUntilEngaged) {
  {
    c10::OptionalDeviceGuard guard;
    EXPECT_EQ(guard.original_device(), std::nullopt);
    c10::OptionalDeviceGuard from_nullopt(std::optional<c10::Device>{});
    EXPECT_EQ(from_nullopt.current_device(), std::nullopt);
    EXPECT_EQ(current(), dev(0));
    guard.set_device(dev(1));
    EXPECT_EQ(current(), dev(1));
    EXPECT_EQ(guard.original_device(), dev(0));
    guard.reset();
    EXPECT_EQ(current(), dev(0));
    EXPECT_EQ(guard.current_device(), std::nullopt);
    guard.reset_device(dev(1));
  }
  EXPECT_EQ(current(), dev(0));
  {
    c10::OptionalDeviceGuard guard(std::make_optional(dev(1)));
    EXPECT_EQ(current(), dev(1));
  }
  EXPECT_EQ(current(), dev(0));
}

TEST_F(Guards, StreamGuardSetsStreamAndDeviceAndRestoresBoth) {
  {
    c10::StreamGuard guard(stream(1, 2));
    EXPECT_EQ(current(), dev(1));
    EXPECT_EQ(current_stream(1), stream(1, 2));
    EXPECT_EQ(current_stream(0), stream(0, 0));  // the other device untouched
    EXPECT_EQ(guard.original_stream(), stream(0, 0));
    EXPECT_EQ(guard.original_device(), dev(0));
    EXPECT_EQ(guard.current_stream(), stream(1, 2));
    EXPECT_EQ(guard.current_device(), dev(1));
  }
  EXPECT_EQ(current(), dev(0));
  EXPECT_EQ(current_stream(1), stream(1, 0));
}

TEST_F(Guards, NestedStreamGuardsOnTwoDevicesRestoreEachDevicesStream) {
  {
    c10::StreamGuard a(stream(0, 1));
    {
      c10::StreamGuard b(stream(1, 3));
      {
        c10::StreamGuard c(stream(1, 2));
        EXPECT_EQ(current_stream(1), stream(1, 2));
        EXPECT_EQ(current_stream(0), stream(0, 1));
      }
      EXPECT_EQ(current_stream(1), stream(1, 3));
      EXPECT_EQ(current(), dev(1));
    }
    EXPECT_EQ(current_stream(1), stream(1, 0));
    EXPECT_EQ(current_stream(0), stream(0, 1));
    EXPECT_EQ(current(), dev(0));
  }
  EXPECT_EQ(current_stream(0), stream(0, 0));
}

TEST_F(Guards, StreamGuardRestoresWhenAnExceptionUnwinds) {
  EXPECT_THROW(
      {
        c10::StreamGuard a(stream(1, 1));
        c10::StreamGuard b(stream(0, 2));
        throw std::runtime_error("unwind");
      },
      std::runtime_error);
  EXPECT_EQ(current(), dev(0));
  EXPECT_EQ(current_stream(0), stream(0, 0));
  EXPECT_EQ(current_stream(1), stream(1, 0));
}

TEST_F(Guards, ResetStreamOnAnotherDevicePutsBackTheStreamItLeaves) {
  {
    c10::StreamGuard guard(stream(0, 1));
    guard.reset_stream(stream(0, 2));  // same device: only the stream
    EXPECT_EQ(current_stream(0), stream(0, 2));
    guard.reset_stream(stream(1, 3));  // another device
    EXPECT_EQ(current(), dev(1));
    EXPECT_EQ(current_stream(0), stream(0, 0));
    EXPECT_EQ(current_stream(1), stream(1, 3));
    EXPECT_EQ(guard.original_stream(), stream(0, 0));
    EXPECT_THAT(errorOf([&] {
                  guard.reset_stream(
                      c10::Stream(c10::Stream::DEFAULT, c10::Device(c10::kCPU)));
                }),
                HasSubstr("StreamGuard::reset_stream: the guard is for fakedev "
                          "streams but got stream 0 on device cpu"));
    EXPECT_THAT(errorOf([&] { guard.reset_stream(stream(5, 1)); }),
                HasSubstr("no device fakedev:5"));
    EXPECT_EQ(current(), dev(1));  // the refused calls changed nothing
    EXPECT_EQ(current_stream(1), stream(1, 3));
  }
  EXPECT_EQ(current(), dev(0));
  EXPECT_EQ(current_stream(0), stream(0, 0));
  EXPECT_EQ(current_stream(1), stream(1, 0));
}

TEST_F(Guards, OptionalStreamGuardEngagesAndSwitchesTypes) {
  {
    c10::OptionalStreamGuard guard;
    EXPECT_EQ(guard.current_stream(), std::nullopt);
    guard.reset_stream(stream(1, 1));
    EXPECT_EQ(current_stream(1), stream(1, 1));
    EXPECT_EQ(guard.original_device(), dev(0));
    guard.reset_stream(c10::Stream(c10::Stream::DEFAULT, c10::Device(c10::kCPU)));
    // Switching types restored everything of the first type.
    EXPECT_EQ(current(), dev(0));
    EXPECT_EQ(current_stream(1), stream(1, 0));
    guard.reset_stream(stream(1, 2));
    EXPECT_EQ(current_stream(1), stream(1, 2));
  }
  EXPECT_EQ(current_stream(1), stream(1, 0));
  EXPECT_EQ(current(), dev(0));
  {
    c10::OptionalStreamGuard guard(std::make_optional(stream(0, 3)));
    EXPECT_EQ(current_stream(0), stream(0, 3));
    guard.reset();
    EXPECT_EQ(current_stream(0), stream(0, 0));
  }
}

}  // namespace
