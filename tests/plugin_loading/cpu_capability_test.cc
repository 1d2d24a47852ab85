// The CPU plugin's build is chosen at run time (Note [CPU capability] in
// registration/cpu_capability.cc): the best this CPU runs, or the one
// EMBER_CPU_CAPABILITY names. BUILD.bazel runs this binary with the variable
// unset, set to each capability and set to a bad value; each run checks what
// its setting must give.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <torch/autograd.h>
#include <torch/types.h>

#include "registration/cpu_capability.h"
#include "registration/plugin_loader.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;

std::string loaded_cpu_plugin() {
  for (const c10::PluginInfo& p : c10::loaded_plugins()) {
    if (p.name == "cpu") return p.path;
  }
  return "";
}

int rank(const std::string& c) { return c == "avx512" ? 2 : c == "avx2" ? 1 : 0; }

TEST(CpuCapability, TheLoadedBuildIsTheOneAskedFor) {
  const char* env = std::getenv("EMBER_CPU_CAPABILITY");
  const std::string asked = env != nullptr ? env : "";
  const std::string supported = c10::cpu_capability_name(c10::cpu_capability_supported());
  EXPECT_EQ(loaded_cpu_plugin(), "") << "nothing has used the CPU yet";
  if (asked == "sse9") {
    EXPECT_THAT(ember_test::errorOf([] { at::ones({2}); }),
                HasSubstr("EMBER_CPU_CAPABILITY='sse9' is not a CPU capability; use default, "
                          "avx2 or avx512"));
    return;
  }
  if (!asked.empty() && rank(asked) > rank(supported)) {
    EXPECT_THAT(ember_test::errorOf([] { at::ones({2}); }),
                HasSubstr("but this CPU supports only up to " + supported));
    return;
  }
  // The first CPU op loads the plugin; its results are right on every build.
  const at::Tensor x = at::arange(1000, at::TensorOptions().dtype(at::kFloat));
  EXPECT_EQ(x.mul(2).add(1).sum().item<double>(), 999.0 * 1000.0 + 1000.0);
  // Unset: the best build this CPU supports among the files there are (the
  // sanitizer configs build only libember_cpu.so, so it falls back to it).
  std::string expected = asked;
  if (expected.empty()) {
    const std::string path = loaded_cpu_plugin();
    const std::string dir = path.substr(0, path.rfind('/') + 1);
    expected = "default";
    for (const std::string c : {"avx512", "avx2"}) {
      if (rank(c) <= rank(supported) &&
          std::ifstream(dir + "libember_cpu." + c + ".so").good()) {
        expected = c;
        break;
      }
    }
  }
  EXPECT_EQ(c10::cpu_capability(), expected);
  EXPECT_THAT(loaded_cpu_plugin(), EndsWith(expected == "default"
                                                ? "/libember_cpu.so"
                                                : "/libember_cpu." + expected + ".so"));
}

}  // namespace
