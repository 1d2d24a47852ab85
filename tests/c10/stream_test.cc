// c10::Stream as a value: identity, hashing, printing, packing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <unordered_set>

#include "c10/core/Stream.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;

TEST(Stream, IsADeviceAndAnId) {
  const c10::Stream s(c10::Stream::UNSAFE, c10::Device("cuda:1"), 3);
  EXPECT_EQ(s.device(), c10::Device("cuda:1"));
  EXPECT_EQ(s.device_type(), c10::kCUDA);
  EXPECT_EQ(s.device_index(), 1);
  EXPECT_EQ(s.id(), 3);
  const c10::Stream d(c10::Stream::DEFAULT, c10::Device("cuda:1"));
  EXPECT_EQ(d.id(), c10::kDefaultStreamId);
  EXPECT_EQ(d.id(), 0);
}

TEST(Stream, EqualityComparesDeviceAndId) {
  const c10::Device d0("cuda:0");
  const c10::Device d1("cuda:1");
  EXPECT_EQ(c10::Stream(c10::Stream::UNSAFE, d0, 2),
            c10::Stream(c10::Stream::UNSAFE, d0, 2));
  EXPECT_NE(c10::Stream(c10::Stream::UNSAFE, d0, 2),
            c10::Stream(c10::Stream::UNSAFE, d1, 2));
  EXPECT_NE(c10::Stream(c10::Stream::UNSAFE, d0, 2),
            c10::Stream(c10::Stream::UNSAFE, d0, 3));
  EXPECT_EQ(c10::Stream(c10::Stream::DEFAULT, d0),
            c10::Stream(c10::Stream::UNSAFE, d0, 0));
}

TEST(Stream, HashSeparatesDevicesAndIds) {
  std::unordered_set<c10::Stream> set;
  std::unordered_set<size_t> hashes;
  for (int device = 0; device < 4; ++device) {
    for (c10::StreamId id = 0; id < 16; ++id) {
      const c10::Stream s(c10::Stream::UNSAFE, c10::Device(c10::kCUDA, device), id);
      set.insert(s);
      hashes.insert(std::hash<c10::Stream>()(s));
    }
  }
  set.insert(c10::Stream(c10::Stream::DEFAULT, c10::Device(c10::kCPU)));
  hashes.insert(
      c10::Stream(c10::Stream::DEFAULT, c10::Device(c10::kCPU)).hash());
  EXPECT_EQ(set.size(), 65u);
  EXPECT_EQ(hashes.size(), 65u);  // no collisions on these small values
}

TEST(Stream, PrintsItsIdAndDevice) {
  std::ostringstream out;
  out << c10::Stream(c10::Stream::UNSAFE, c10::Device("cuda:1"), 5);
  EXPECT_EQ(out.str(), "stream 5 on device cuda:1");
}

TEST(Stream, Pack3RoundTrips) {
  const c10::Stream s(c10::Stream::UNSAFE, c10::Device("cuda:2"), 1LL << 40);
  const c10::StreamData3 data = s.pack3();
  EXPECT_EQ(data.stream_id, 1LL << 40);
  EXPECT_EQ(data.device_index, 2);
  EXPECT_EQ(data.device_type, c10::kCUDA);
  EXPECT_EQ(c10::Stream::unpack3(data.stream_id, data.device_index,
                                 data.device_type),
            s);
  EXPECT_THAT(ember_test::errorOf([] {
                c10::Stream::unpack3(0, 3, c10::kCPU);
              }),
              HasSubstr("a CPU device index must be -1 or 0, but got 3"));
}

}  // namespace
