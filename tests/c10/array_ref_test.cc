#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "c10/util/ArrayRef.h"

using ::testing::HasSubstr;

namespace {

int64_t sum(c10::IntArrayRef xs) {
  int64_t s = 0;
  for (int64_t x : xs) s += x;
  return s;
}

TEST(ArrayRef, ViewsVectorsListsAndArrays) {
  std::vector<int64_t> v{1, 2, 3};
  EXPECT_EQ(sum(v), 6);
  EXPECT_EQ(sum({4, 5}), 9);
  const int64_t arr[] = {7, 8};
  EXPECT_EQ(sum(arr), 15);
  const int64_t one = 5;
  EXPECT_EQ(sum(one), 5);
  EXPECT_EQ(sum({}), 0);
  c10::IntArrayRef r(v);
  EXPECT_EQ(r.data(), v.data());
  EXPECT_EQ(r.vec(), v);
  EXPECT_EQ(r.slice(1), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r.slice(1, 1), (std::vector<int64_t>{2}));
  EXPECT_EQ(r.front(), 1);
  EXPECT_EQ(r.back(), 3);
  EXPECT_TRUE(r == c10::IntArrayRef(std::vector<int64_t>{1, 2, 3}));
  EXPECT_TRUE(r != c10::IntArrayRef(std::vector<int64_t>{1, 2}));
}

TEST(ArrayRef, PrintsLikePyTorchSizes) {
  std::ostringstream os;
  std::vector<int64_t> v{2, 3};
  os << c10::IntArrayRef(v) << c10::IntArrayRef();
  EXPECT_EQ(os.str(), "[2, 3][]");
}

TEST(ArrayRef, OutOfRangeAccessThrowsIndexError) {
  std::vector<int64_t> v{1, 2};
  c10::IntArrayRef r(v);
  try {
    r.at(2);
    FAIL() << "expected IndexError";
  } catch (const c10::IndexError& e) {
    EXPECT_THAT(e.what(), HasSubstr("index 2 is out of range for an array of 2"));
  }
  EXPECT_THROW(r.slice(1, 2), c10::IndexError);
  EXPECT_THROW(c10::IntArrayRef().back(), c10::IndexError);
}

}  // namespace
