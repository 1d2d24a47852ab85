// npu_test.h — what the npu backend's test files share: loading the plugin,
// its leak counter, and the fixture that checks it after every test.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

namespace npu_test {

// A file of this workspace's runfiles, e.g. "libember_npu.so".
std::string runfile(const std::string& name);

// Loads libember_npu.so (once) and returns the bytes its allocator holds.
int64_t npu_bytes();

// The message of the exception `f` throws, or "(no error)".
std::string errorOf(const std::function<void()>& f);

// Puts the fallback in its default mode and checks, after the test, that the
// npu holds no more memory than before it.
class NpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  int64_t baseline_ = 0;
};

}  // namespace npu_test
