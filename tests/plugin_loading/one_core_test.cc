// DESIGN.md, "One process, one core": a plugin registers into the host's
// dispatcher, and carries no copy of the core. The plugin is found by the
// dispatcher itself (autoload) the first time an op reaches its backend.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <torch/library.h>
#include <torch/torch.h>

#include "c10/core/DefaultGenerators.h"
#include "c10/core/DeviceGuard.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "tests/support/error_of.h"

#include "tests/registration/test_tensors.h"

using ::testing::HasSubstr;

namespace {

std::string pluginDir() {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  return std::string(srcdir ? srcdir : ".") + "/ember/tests/plugin_loading";
}

TORCH_LIBRARY(onecore_ops, m) { m.def("tag(Tensor self, int tag) -> Tensor"); }

TEST(OneCore, DispatchLoadsTheBackendPluginAndRunsItsKernel) {
  c10::register_privateuse1_backend("onecore");
  ASSERT_EQ(setenv("EMBER_PLUGIN_PATH", pluginDir().c_str(), 1), 0);
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow("onecore_ops::tag", "");
  EXPECT_FALSE(op.hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1));

  const at::TensorBase t = ember_test::makeTensor({1}, c10::DispatchKey::PrivateUse1);
  op.typed<at::TensorBase(const at::TensorBase&, int64_t)>().call(t, 42);
  EXPECT_EQ(static_cast<float*>(t.data_ptr())[0], 42.0f);

  // The plugin's kernel is in the host's table, registered from its file.
  EXPECT_TRUE(op.hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1));
  EXPECT_THAT(op.dumpComputedTable(),
              HasSubstr("PrivateUse1: kernel registered at tests/plugin_loading/"
                        "onecore_plugin.cc"));
  bool listed = false;
  for (const auto& p : c10::loaded_plugins()) listed = listed || p.name == "onecore";
  EXPECT_TRUE(listed);
}

// Runs after the test above, which loaded the plugin (loading it again is a
// no-op): its C10_REGISTER_GUARD_IMPL and C10_REGISTER_DEFAULT_GENERATOR
// made the device usable by device-agnostic code.
TEST(OneCore, ThePluginRegistersItsDeviceRuntimeAndDefaultGenerators) {
  c10::register_privateuse1_backend("onecore");
  torch::load_library(pluginDir() + "/libember_onecore.so");
  ASSERT_TRUE(c10::impl::hasDeviceGuardImpl(c10::kPrivateUse1));
  const auto* runtime = c10::impl::getDeviceGuardImpl(c10::kPrivateUse1);
  EXPECT_EQ(runtime->deviceCount(), 3);
  {
    c10::DeviceGuard guard(c10::Device("onecore:2"));
    EXPECT_EQ(runtime->getDevice(), c10::Device("onecore:2"));
  }
  EXPECT_EQ(runtime->getDevice(), c10::Device("onecore:0"));

  torch::manual_seed(31);
  for (const char* device : {"onecore:0", "onecore:1", "onecore:2", "cpu"}) {
    const at::Generator& g = at::detail::getDefaultGenerator(c10::Device(device));
    std::lock_guard<std::mutex> lock(g.mutex());
    EXPECT_EQ(g.current_seed(), 31u) << device;
  }
}

// A plugin whose static registrations fail is unloaded, which undoes the
// registrations that succeeded: c10's registrars report through the loader.
TEST(OneCore, ASecondRuntimeForADeviceIsRefusedAndItsPluginUnloaded) {
  c10::register_privateuse1_backend("onecore");
  torch::load_library(pluginDir() + "/libember_onecore.so");
  ASSERT_FALSE(c10::impl::hasDeviceGuardImpl(c10::kCUDA));
  const std::string error = ember_test::errorOf(
      [] { torch::load_library(pluginDir() + "/second_runtime_plugin.so"); });
  EXPECT_THAT(error, HasSubstr("second_runtime_plugin.so failed to register "
                              "its kernels: registerDeviceGuardImpl: a device "
                              "runtime for onecore is already registered "
                              "((anonymous namespace)::OnecoreRuntime, "
                              "registered at tests/plugin_loading/"
                              "onecore_plugin.cc:"));
  EXPECT_THAT(error, HasSubstr("refusing a second one ((anonymous namespace)::"
                              "OneDeviceRuntime<(c10::DeviceType)2>, "
                              "registered at tests/plugin_loading/"
                              "second_runtime_plugin.cc:"));
  // The CUDA runtime it registered first went away with it.
  EXPECT_FALSE(c10::impl::hasDeviceGuardImpl(c10::kCUDA));
  EXPECT_EQ(c10::impl::getDeviceGuardImpl(c10::kPrivateUse1)->deviceCount(), 3);
}

// A plugin must not define any of the core's functions or data: only weak
// copies of inline code and its own local symbols are allowed. Checked for
// the test plugin and for the real CPU backend.
std::string strongCoreSymbols(const std::string& path, int* lines) {
  const std::string cmd = "nm -D --defined-only -C '" + path + "' 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), &pclose);
  std::string found;
  char buf[4096];
  while (pipe && fgets(buf, sizeof(buf), pipe.get()) != nullptr) {
    ++*lines;
    const std::string line(buf);
    // "<address> <type> <name>"; T/D/B/R are strong definitions.
    if (line.size() < 19) continue;
    const char type = line[17];
    const std::string name = line.substr(19);
    const bool strong = type == 'T' || type == 'D' || type == 'B' || type == 'R';
    const bool core = name.rfind("c10::", 0) == 0 || name.rfind("at::", 0) == 0 ||
                      name.rfind("torch::", 0) == 0;
    if (strong && core) found += line;
  }
  return found;
}

TEST(OneCore, PluginsDefineNoCoreSymbols) {
  const std::string runfiles = pluginDir() + "/../..";
  for (const std::string& path : {pluginDir() + "/libember_onecore.so",
                                 runfiles + "/backends/cpu/libember_cpu.so"}) {
    int lines = 0;
    EXPECT_EQ(strongCoreSymbols(path, &lines), "") << path << " carries core code";
    EXPECT_GT(lines, 0) << "nm printed nothing for " << path;
  }
}

}  // namespace
