// at::manual_seed and torch::manual_seed through the default-generator
// registry (c10/core/DefaultGenerators.h): the CPU generator and every
// device of a registered backend, here a fake two-device PrivateUse1 one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <mutex>

#include <torch/autograd.h>
#include <torch/types.h>
#include <torch/utils.h>

#include "c10/core/DefaultGenerators.h"
#include "c10/core/DeviceGuard.h"
#include "tests/c10/fake_device_runtime.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_test::errorOf;
using ember_test::FakeDeviceRuntime;

struct FakeGenerator final : c10::GeneratorImpl {
  explicit FakeGenerator(c10::DeviceIndex index)
      : GeneratorImpl(c10::Device(c10::kPrivateUse1, index),
                      c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)) {}
  void set_current_seed(uint64_t s) override { seed_ = s; }
  uint64_t current_seed() const override { return seed_; }
  uint64_t seed() override { return seed_ = 1; }
  uint64_t seed_ = 0;
};

const at::Generator& fakeDefaultGenerator(c10::DeviceIndex index) {
  static const at::Generator* const generators[FakeDeviceRuntime::kDevices] = {
      new at::Generator(at::make_generator<FakeGenerator>(0)),
      new at::Generator(at::make_generator<FakeGenerator>(1)),
  };
  return *generators[index];
}

uint64_t seedOf(const at::Generator& g) {
  std::lock_guard<std::mutex> lock(g.mutex());
  return g.current_seed();
}

class ManualSeedOnDevices : public ::testing::Test {
 protected:
  void SetUp() override { FakeDeviceRuntime::reset_thread_state(); }

  FakeDeviceRuntime runtime_;
  c10::impl::DeviceGuardImplRegistration runtime_registration_ =
      c10::impl::registerDeviceGuardImpl(c10::kPrivateUse1, &runtime_,
                                         "tests/aten/manual_seed_test.cc");
};

TEST(DefaultGenerators, TheCpuGeneratorIsRegisteredByTheCore) {
  ASSERT_TRUE(at::detail::has_default_generator(c10::kCPU));
  EXPECT_EQ(at::detail::getDefaultGenerator(c10::Device(c10::kCPU)),
            at::detail::getDefaultCPUGenerator());
  EXPECT_EQ(at::detail::getDefaultGenerator(c10::Device(c10::kCPU, 0)),
            at::detail::getDefaultCPUGenerator());
  const auto all = at::detail::getAllDefaultGenerators();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0], at::detail::getDefaultCPUGenerator());
}

TEST(DefaultGenerators, MissingRegistrationSaysWhichPluginToLoad) {
  EXPECT_FALSE(at::detail::has_default_generator(c10::kCUDA));
  EXPECT_THAT(errorOf([] { at::detail::getDefaultGenerator(c10::Device("cuda:0")); }),
              HasSubstr("getDefaultGenerator: no default generator is "
                        "registered for cuda; load the backend plugin for cuda "
                        "(libember_cuda.so)"));
}

TEST(ManualSeed, SeedsTheCpuGeneratorAndMakesRandomOpsRepeat) {
  at::manual_seed(123);
  EXPECT_EQ(seedOf(at::detail::getDefaultCPUGenerator()), 123u);
  const at::Tensor a = at::randn({8});
  torch::manual_seed(123);
  const at::Tensor b = at::randn({8});
  EXPECT_TRUE(at::equal(a, b));
  torch::manual_seed(9);
  EXPECT_EQ(seedOf(at::detail::getDefaultCPUGenerator()), 9u);
}

TEST_F(ManualSeedOnDevices, ReachesEveryDeviceOfARegisteredBackend) {
  {
    auto handle = at::detail::register_default_generator(
        c10::kPrivateUse1, &fakeDefaultGenerator, "fake.cc:1");
    EXPECT_TRUE(at::detail::has_default_generator(c10::kPrivateUse1));
    EXPECT_EQ(at::detail::getAllDefaultGenerators().size(), 3u);  // cpu + 2
    at::manual_seed(77);
    EXPECT_EQ(seedOf(fakeDefaultGenerator(0)), 77u);
    EXPECT_EQ(seedOf(fakeDefaultGenerator(1)), 77u);
    EXPECT_EQ(seedOf(at::detail::getDefaultCPUGenerator()), 77u);
    torch::manual_seed(78);
    EXPECT_EQ(seedOf(fakeDefaultGenerator(0)), 78u);
    EXPECT_EQ(seedOf(fakeDefaultGenerator(1)), 78u);
  }
  // Unregistered: manual_seed no longer reaches the backend.
  EXPECT_FALSE(at::detail::has_default_generator(c10::kPrivateUse1));
  at::manual_seed(5);
  EXPECT_EQ(seedOf(fakeDefaultGenerator(1)), 78u);
  EXPECT_EQ(seedOf(at::detail::getDefaultCPUGenerator()), 5u);
}

TEST_F(ManualSeedOnDevices, GetDefaultGeneratorPicksTheDevice) {
  auto handle = at::detail::register_default_generator(
      c10::kPrivateUse1, &fakeDefaultGenerator, "fake.cc:1");
  const c10::Device fake1(c10::kPrivateUse1, 1);
  EXPECT_EQ(at::detail::getDefaultGenerator(fake1), fakeDefaultGenerator(1));
  EXPECT_EQ(at::detail::getDefaultGenerator(fake1).device(), fake1);
  {
    // No index: the calling thread's current device.
    c10::DeviceGuard guard(fake1);
    EXPECT_EQ(at::detail::getDefaultGenerator(c10::Device(c10::kPrivateUse1)),
              fakeDefaultGenerator(1));
  }
  EXPECT_EQ(at::detail::getDefaultGenerator(c10::Device(c10::kPrivateUse1)),
            fakeDefaultGenerator(0));
  EXPECT_THAT(errorOf([] {
                at::detail::getDefaultGenerator(c10::Device(c10::kPrivateUse1, 5));
              }),
              HasSubstr("getDefaultGenerator: device fakedev:5 does not exist; "
                        "there are 2 fakedev devices. Pass an index in [0, 2)."));
}

TEST_F(ManualSeedOnDevices, ASecondRegistrationIsRefusedNamingBoth) {
  auto handle = at::detail::register_default_generator(
      c10::kPrivateUse1, &fakeDefaultGenerator, "first.cc:1");
  EXPECT_THAT(errorOf([] {
                auto h = at::detail::register_default_generator(
                    c10::kPrivateUse1, &fakeDefaultGenerator, "second.cc:2");
              }),
              HasSubstr("register_default_generator: default generators for "
                        "fakedev are already registered (at first.cc:1); "
                        "refusing a second registration (at second.cc:2)"));
  EXPECT_THAT(errorOf([] {
                auto h = at::detail::register_default_generator(
                    c10::kCUDA, nullptr, "null.cc:3");
              }),
              HasSubstr("the function registered for cuda at null.cc:3 is null"));
}

TEST(ManualSeedWithoutRuntime, GeneratorsWithoutADeviceCountAreAnError) {
  FakeDeviceRuntime naming;  // names PrivateUse1 "fakedev"; not registered
  auto handle = at::detail::register_default_generator(
      c10::kPrivateUse1, &fakeDefaultGenerator, "fake.cc:1");
  EXPECT_THAT(errorOf([] { at::manual_seed(3); }),
              HasSubstr("getAllDefaultGenerators: default generators are "
                        "registered for fakedev but no device runtime, so the "
                        "number of fakedev devices is unknown"));
}

}  // namespace
