// at::from_blob / torch::from_blob: tensors over caller-owned memory, with
// and without strides and deleters, and their errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <torch/autograd.h>
#include <torch/types.h>

#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_test::errorOf;

TEST(FromBlob, WrapsTheMemoryWithoutCopying) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  at::Tensor t = at::from_blob(data, {2, 3});
  EXPECT_EQ(t.data_ptr(), static_cast<void*>(data));
  EXPECT_EQ(t.scalar_type(), at::kFloat);
  EXPECT_TRUE(t.device().is_cpu());
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{3, 1}));
  EXPECT_FLOAT_EQ(t[1][2].item<float>(), 6.0f);
  EXPECT_FLOAT_EQ(t.sum().item<float>(), 21.0f);
  t.mul_(2);  // writes go to the caller's memory
  EXPECT_FLOAT_EQ(data[4], 10.0f);
  data[0] = -1;  // and the caller's writes are seen
  EXPECT_FLOAT_EQ(t[0][0].item<float>(), -1.0f);
}

TEST(FromBlob, StridesAndDtype) {
  double data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  // Every other element, as a 2x2 matrix read column-major.
  at::Tensor t = torch::from_blob(data, {2, 2}, {2, 4}, torch::kFloat64);
  EXPECT_EQ(t.scalar_type(), at::kDouble);
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_DOUBLE_EQ(t[0][1].item<double>(), 4.0);
  EXPECT_DOUBLE_EQ(t[1][0].item<double>(), 2.0);
  EXPECT_TRUE(at::equal(t.contiguous(), t.clone()));
  int64_t ints[3] = {7, 8, 9};
  at::Tensor i = at::from_blob(ints, {3}, at::kLong);
  EXPECT_EQ(i.sum().item<int64_t>(), 24);
}

TEST(FromBlob, DeleterRunsOnceWhenTheLastTensorGoes) {
  int calls = 0;
  void* seen = nullptr;
  auto* data = new float[4]{1, 2, 3, 4};
  {
    at::Tensor view;
    {
      at::Tensor t = at::from_blob(data, {4}, [&](void* p) {
        ++calls;
        seen = p;
        delete[] static_cast<float*>(p);
      });
      view = t.slice(0, 1, 3);
    }
    EXPECT_EQ(calls, 0);  // the view still shares the memory
    EXPECT_FLOAT_EQ(view.sum().item<float>(), 5.0f);
  }
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, static_cast<void*>(data));
}

TEST(FromBlob, WithoutDeleterTheMemoryIsLeftAlone) {
  std::vector<float> data(3, 2.0f);
  { at::Tensor t = at::from_blob(data.data(), {3}); }
  EXPECT_EQ(data, (std::vector<float>{2, 2, 2}));
}

TEST(FromBlob, RequiresGradMakesALeaf) {
  float data[3] = {1, 2, 3};
  at::Tensor x = torch::from_blob(data, {3}, torch::TensorOptions().requires_grad(true));
  EXPECT_TRUE(x.requires_grad());
  EXPECT_TRUE(x.is_leaf());
  (x * x).sum().backward();
  EXPECT_TRUE(at::allclose(x.grad(), at::tensor({2.0f, 4.0f, 6.0f})));
  EXPECT_FLOAT_EQ(data[2], 3.0f);
}

TEST(FromBlob, ZeroSizeMayBeNull) {
  at::Tensor t = at::from_blob(nullptr, {0, 3});
  EXPECT_EQ(t.numel(), 0);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{0, 3}));
}

TEST(FromBlob, BadArgumentsAreRefused) {
  float data[4] = {};
  EXPECT_THAT(errorOf([&] { at::from_blob(data, {2, -1}); }),
              HasSubstr("from_blob: sizes must be non-negative, but got [2, -1]"));
  EXPECT_THAT(errorOf([&] { at::from_blob(data, {2, 2}, {1}); }),
              HasSubstr("from_blob: got 2 sizes [2, 2] but 1 strides [1]"));
  EXPECT_THAT(errorOf([&] { at::from_blob(data, {2}, {-1}); }),
              HasSubstr("from_blob: strides must be non-negative"));
  const int64_t huge = int64_t{1} << 62;
  EXPECT_THAT(errorOf([&] { at::from_blob(data, {huge, 4}, {1, huge}); }),
              HasSubstr("reach beyond any address"));
  EXPECT_THAT(errorOf([&] { at::from_blob(data, {huge}); }),  // 2^62 floats = 2^64 bytes
              HasSubstr("reach beyond any address"));
  EXPECT_THAT(errorOf([&] { at::from_blob(nullptr, {2, 2}); }),
              HasSubstr("from_blob: data is nullptr, but sizes [2, 2] of Float need 16 bytes"));
}

}  // namespace
