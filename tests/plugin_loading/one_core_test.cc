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
