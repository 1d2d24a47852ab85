// Every public header (include/ATen/*.h, ATen/core/*.h, torch/*.h) is compiled in a
// translation unit of its own by this target (self_contained/*.cc, made by
// the BUILD file); this test checks that the BUILD file's list covers every
// header there, so a new header cannot skip the check.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <set>
#include <string>

namespace {

const char* const kCheckedHeaders[] = {
#include "tests/compat/checked_headers.inc"
};

TEST(PublicHeaders, EveryHeaderUnderIncludeIsCompiledOnItsOwn) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  ASSERT_NE(srcdir, nullptr) << "run under bazel test";
  const std::filesystem::path root = std::filesystem::path(srcdir) / "ember" / "include";
  ASSERT_TRUE(std::filesystem::is_directory(root)) << root;
  std::set<std::string> checked(std::begin(kCheckedHeaders), std::end(kCheckedHeaders));
  size_t found = 0;
  for (const char* dir : {"ATen", "ATen/core", "torch"}) {
    for (const auto& entry : std::filesystem::directory_iterator(root / dir)) {
      if (entry.path().extension() != ".h") continue;
      ++found;
      const std::string name = std::string(dir) + "/" + entry.path().filename().string();
      EXPECT_EQ(checked.count(name), 1u)
          << name << " is not in PUBLIC_HEADERS of tests/compat/BUILD.bazel; add it there.";
    }
  }
  EXPECT_EQ(found, checked.size());
}

}  // namespace
