#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <unordered_set>

#include "c10/core/Device.h"
#include "c10/util/Exception.h"

#include "tests/support/error_of.h"

using ::testing::HasSubstr;

namespace {

using ember_test::errorOf;

TEST(Device, ParsesTypeAndIndex) {
  c10::Device d("cuda:1");
  EXPECT_EQ(d.type(), c10::kCUDA);
  EXPECT_EQ(d.index(), 1);
  EXPECT_TRUE(d.is_cuda());
  EXPECT_TRUE(d.has_index());

  c10::Device cpu("cpu");
  EXPECT_TRUE(cpu.is_cpu());
  EXPECT_EQ(cpu.index(), -1);
  EXPECT_FALSE(cpu.has_index());
  EXPECT_EQ(c10::Device("cpu:0").index(), 0);
  EXPECT_EQ(c10::Device("cuda:127").index(), 127);
}

TEST(Device, PrintsAndRoundTrips) {
  for (const char* s : {"cpu", "cpu:0", "cuda", "cuda:0", "cuda:12"}) {
    std::ostringstream os;
    os << c10::Device(s);
    EXPECT_EQ(os.str(), s);
    EXPECT_EQ(c10::Device(c10::Device(s).str()), c10::Device(s));
  }
  std::ostringstream os;
  os << c10::kCUDA;
  EXPECT_EQ(os.str(), "cuda");
  EXPECT_EQ(c10::DeviceTypeName(c10::kCUDA), "CUDA");
}

TEST(Device, EqualityAndHash) {
  EXPECT_EQ(c10::Device(c10::kCUDA, 1), c10::Device("cuda:1"));
  EXPECT_NE(c10::Device(c10::kCUDA, 1), c10::Device("cuda:2"));
  EXPECT_NE(c10::Device(c10::kCUDA), c10::Device("cuda:0"));
  std::unordered_set<c10::Device> set{c10::Device("cuda:0"), c10::Device("cuda:1"),
                                      c10::Device("cpu")};
  EXPECT_EQ(set.size(), 3u);
  EXPECT_EQ(set.count(c10::Device(c10::kCUDA, 1)), 1u);
}

TEST(Device, BadStringsGiveClearErrors) {
  EXPECT_THAT(errorOf([] { c10::Device(""); }), HasSubstr("device string is empty"));
  EXPECT_THAT(errorOf([] { c10::Device("gpu:0"); }),
              HasSubstr("invalid device string \"gpu:0\": unknown device type \"gpu\""));
  EXPECT_THAT(errorOf([] { c10::Device("cuda:"); }),
              HasSubstr("the index \"\" is not a non-negative integer"));
  EXPECT_THAT(errorOf([] { c10::Device("cuda:-1"); }),
              HasSubstr("the index \"-1\" is not a non-negative integer"));
  EXPECT_THAT(errorOf([] { c10::Device("cuda:1x"); }), HasSubstr("\"1x\""));
  EXPECT_THAT(errorOf([] { c10::Device("cuda:01"); }), HasSubstr("\"01\""));
  EXPECT_THAT(errorOf([] { c10::Device("cuda:128"); }),
              HasSubstr("index 128 is too large"));
  EXPECT_THAT(errorOf([] { c10::Device("cuda:99999"); }),
              HasSubstr("not a non-negative integer below 128"));
  EXPECT_THAT(errorOf([] { c10::Device("cpu:1"); }),
              HasSubstr("a CPU device index must be -1 or 0, but got 1"));
  EXPECT_THAT(errorOf([] { c10::Device(c10::kCUDA, -2); }),
              HasSubstr("must be -1 (current device) or non-negative, but got -2"));
  EXPECT_THAT(errorOf([] { c10::Device(static_cast<c10::DeviceType>(9)); }),
              HasSubstr("unknown device type 9"));
}

// One test owns the process-wide rename so the order of tests cannot matter.
TEST(Device, PrivateUse1CanBeRenamedOnce) {
  EXPECT_EQ(c10::get_privateuse1_backend(), "privateuseone");
  EXPECT_EQ(c10::Device("privateuseone:0").type(), c10::kPrivateUse1);

  EXPECT_THAT(errorOf([] { c10::register_privateuse1_backend("Npu"); }),
              HasSubstr("invalid name \"Npu\""));
  EXPECT_THAT(errorOf([] { c10::register_privateuse1_backend("cuda"); }),
              HasSubstr("\"cuda\" is a built-in device type"));
  EXPECT_THAT(errorOf([] { c10::register_privateuse1_backend(""); }),
              HasSubstr("the name is empty"));

  c10::register_privateuse1_backend("npu");
  c10::register_privateuse1_backend("npu");  // same name again: no-op
  EXPECT_THAT(errorOf([] { c10::register_privateuse1_backend("xpu2"); }),
              HasSubstr("already named \"npu\"; cannot rename it to \"xpu2\""));

  c10::Device d("npu:3");
  EXPECT_EQ(d.type(), c10::kPrivateUse1);
  EXPECT_EQ(d.index(), 3);
  EXPECT_EQ(d.str(), "npu:3");
  EXPECT_EQ(c10::DeviceTypeName(c10::kPrivateUse1), "NPU");
  EXPECT_THAT(errorOf([] { c10::Device("privateuseone:0"); }),
              HasSubstr("expected cpu, cuda or npu"));
}

}  // namespace
