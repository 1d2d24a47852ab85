// View ops share storage and the version counter and compute the right
// geometry; bad arguments get clear errors. These run on CPU tensors built
// directly (no backend kernel is needed: views are composite).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "tests/registration/test_tensors.h"
#include "tests/support/error_of.h"

using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

using ember_test::errorOf;

at::Tensor arange_like(std::vector<int64_t> sizes) {
  at::Tensor t(ember_test::makeTensor(sizes));
  float* p = static_cast<float*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(i);
  return t;
}

float at2(const at::Tensor& t, int64_t i, int64_t j) {
  return static_cast<const float*>(t.storage().data())[t.storage_offset() +
                                                       i * t.stride(0) + j * t.stride(1)];
}

TEST(Views, TransposeSwapsSizesAndStridesAndSharesStorage) {
  at::Tensor a = arange_like({2, 3});
  at::Tensor b = a.t();
  EXPECT_THAT(b.sizes().vec(), ElementsAre(3, 2));
  EXPECT_THAT(b.strides().vec(), ElementsAre(1, 3));
  EXPECT_FALSE(b.is_contiguous());
  EXPECT_EQ(b.storage().data(), a.storage().data());
  EXPECT_EQ(at2(b, 2, 1), 5.0f);
  EXPECT_TRUE(at::transpose(a, 0, -1).sizes().equals(b.sizes()));
  EXPECT_THAT(errorOf([&] { at::transpose(a, 0, 2); }),
              HasSubstr("transpose: dimension 2 is out of range for a 2-d tensor"));
  EXPECT_THAT(errorOf([&] { arange_like({2, 2, 2}).t(); }),
              HasSubstr("t: expected a tensor with <= 2 dimensions, but got 3-d"));
}

TEST(Views, ViewsShareTheVersionCounter) {
  at::Tensor a = arange_like({4});
  at::Tensor v = a.view({2, 2});
  v.unsafeGetTensorImpl()->bump_version();
  EXPECT_EQ(a._version(), 1u);
  EXPECT_EQ(a.select(0, 1)._version(), 1u);
}

TEST(Views, ViewInfersMinusOneAndRejectsIncompatibleStrides) {
  at::Tensor a = arange_like({2, 3, 4});
  EXPECT_THAT(a.view({-1, 4}).sizes().vec(), ElementsAre(6, 4));
  EXPECT_THAT(a.view({4, -1}).strides().vec(), ElementsAre(6, 1));
  EXPECT_THAT(errorOf([&] { a.view({5, -1}); }),
              HasSubstr("view: shape [5, -1] is invalid for input of size 24"));
  EXPECT_THAT(errorOf([&] { a.view({-1, -1}); }),
              HasSubstr("only one dimension can be inferred"));
  at::Tensor tr = a.transpose(0, 2);  // [4, 3, 2], not contiguous
  EXPECT_THAT(errorOf([&] { tr.view({24}); }),
              HasSubstr("Use .reshape(...) instead"));
  // A view that keeps the non-contiguous dims together works.
  at::Tensor p = a.permute({1, 0, 2});  // [3, 2, 4]
  EXPECT_THAT(p.view({3, 2, 2, 2}).strides().vec(), ElementsAre(4, 12, 2, 1));
}

TEST(Views, SelectSliceNarrowAdjustOffsets) {
  at::Tensor a = arange_like({4, 5});
  at::Tensor row = a.select(0, 2);
  EXPECT_THAT(row.sizes().vec(), ElementsAre(5));
  EXPECT_EQ(row.storage_offset(), 10);
  EXPECT_EQ(a.select(1, -1).storage_offset(), 4);
  at::Tensor s = a.slice(1, 1, 5, 2);  // columns 1 and 3
  EXPECT_THAT(s.sizes().vec(), ElementsAre(4, 2));
  EXPECT_THAT(s.strides().vec(), ElementsAre(5, 2));
  EXPECT_EQ(at2(s, 3, 1), 18.0f);
  EXPECT_THAT(a.slice(0, -100, 100).sizes().vec(), ElementsAre(4, 5));  // clamped
  EXPECT_THAT(a.slice(0, 3, 1).sizes().vec(), ElementsAre(0, 5));      // empty
  EXPECT_THAT(a.narrow(0, 1, 2).sizes().vec(), ElementsAre(2, 5));
  EXPECT_THAT(errorOf([&] { a.select(0, 4); }),
              HasSubstr("select: index 4 is out of range for tensor of size [4, 5] "
                        "at dimension 0"));
  EXPECT_THROW(a.select(0, 4), c10::IndexError);
  EXPECT_THAT(errorOf([&] { a.slice(0, 0, 2, 0); }),
              HasSubstr("slice: step must be positive, but got 0"));
  EXPECT_THAT(errorOf([&] { a.narrow(1, 3, 3); }),
              HasSubstr("narrow: start (3) + length (3) exceeds dimension size (5)"));
}

TEST(Views, ExpandUnsqueezeSqueezePermute) {
  at::Tensor a = arange_like({3, 1});
  at::Tensor e = a.expand({2, 3, 4});
  EXPECT_THAT(e.sizes().vec(), ElementsAre(2, 3, 4));
  EXPECT_THAT(e.strides().vec(), ElementsAre(0, 1, 0));
  EXPECT_THAT(a.expand({-1, 5}).sizes().vec(), ElementsAre(3, 5));
  EXPECT_THAT(errorOf([&] { a.expand({4, 1}); }),
              HasSubstr("the expanded size of the tensor (4) must match the existing "
                        "size (3) at non-singleton dimension 0"));
  EXPECT_THAT(a.unsqueeze(0).sizes().vec(), ElementsAre(1, 3, 1));
  EXPECT_THAT(a.unsqueeze(-1).sizes().vec(), ElementsAre(3, 1, 1));
  EXPECT_THAT(a.squeeze().sizes().vec(), ElementsAre(3));
  EXPECT_THAT(a.squeeze(0).sizes().vec(), ElementsAre(3, 1));
  at::Tensor b = arange_like({2, 3, 4});
  EXPECT_THAT(b.permute({2, 0, 1}).sizes().vec(), ElementsAre(4, 2, 3));
  EXPECT_THAT(errorOf([&] { b.permute({0, 0, 1}); }),
              HasSubstr("permute: dim 0 is repeated in [0, 0, 1]"));
  EXPECT_THAT(errorOf([&] { b.permute({0, 1}); }),
              HasSubstr("permute: the number of dims 2 does not match"));
}

TEST(Views, AsStridedStaysInsideItsStorage) {
  at::Tensor a = arange_like({6});
  at::Tensor w = at::as_strided(a, {2, 2}, {1, 2}, 1);
  EXPECT_EQ(at2(w, 1, 1), 4.0f);
  EXPECT_THAT(errorOf([&] { at::as_strided(a, {2, 3}, {3, 1}, 1); }),
              HasSubstr("reach byte 28 of a storage of 24 bytes"));
  EXPECT_THAT(errorOf([&] { at::as_strided(a, {2}, {1, 1}); }),
              HasSubstr("got 1 sizes [2] but 2 strides [1, 1]"));
  // 0-dim and zero-size views.
  EXPECT_EQ(at::as_strided(a, {}, {}, 5).dim(), 0);
  EXPECT_EQ(at::as_strided(a, {0, 100}, {100, 1}).numel(), 0);
  // Geometries whose reach overflows 64 bits (Note [Strided extent]): the
  // unchecked sum wrapped to a small or negative byte count and passed.
  const int64_t big = int64_t{1} << 62;
  EXPECT_THAT(errorOf([&] { at::as_strided(a, {5, 2}, {big, big}); }),
              HasSubstr("reach further than a 64-bit size holds"));
  EXPECT_THAT(errorOf([&] { at::as_strided(a, {2}, {big}, 0); }),
              HasSubstr("reach further than a 64-bit size holds"));
  EXPECT_THAT(errorOf([&] { at::as_strided(a, {2}, {1}, INT64_MAX - 1); }),
              HasSubstr("reach further than a 64-bit size holds"));
}

TEST(Views, ReshapeViewsWhenPossible) {
  at::Tensor a = arange_like({2, 3});
  at::Tensor r = a.reshape({3, 2});
  EXPECT_EQ(r.storage().data(), a.storage().data());
  EXPECT_THAT(errorOf([&] { a.reshape({4, 2}); }),
              HasSubstr("reshape: shape [4, 2] is invalid for input of size 6"));
}

TEST(TensorOptions, DefaultsAndSetters) {
  at::TensorOptions o;
  EXPECT_EQ(o.dtype(), at::kFloat);
  EXPECT_EQ(o.device(), at::Device(at::kCPU));
  EXPECT_FALSE(o.has_dtype());
  auto p = at::dtype(at::kDouble).device(at::kCUDA).requires_grad(true);
  EXPECT_EQ(p.dtype(), at::kDouble);
  EXPECT_TRUE(p.device().is_cuda());
  EXPECT_TRUE(p.requires_grad());
  std::ostringstream os;
  os << p;
  EXPECT_EQ(os.str(),
            "TensorOptions(dtype=Double, device=cuda, layout=Strided, requires_grad=true)");
}

// item() itself reads through the backend: tests/aten/item_resize_test.cc.
TEST(Tensor, DataPtrChecksTheDtypeAndItemTheElementCount) {
  at::Tensor a = arange_like({2, 2});
  EXPECT_EQ(a.data_ptr<float>()[3], 3.0f);
  EXPECT_THAT(errorOf([&] { a.data_ptr<double>(); }),
              HasSubstr("data_ptr: expected a tensor of dtype Double for this element "
                        "type, but the tensor is Float"));
  EXPECT_THAT(errorOf([&] { a.item(); }),
              HasSubstr("item: a Tensor with 4 elements cannot be converted to Scalar"));
  auto acc = a.accessor<float, 2>();
  EXPECT_EQ(acc[1][0], 2.0f);
  EXPECT_THAT(errorOf([&] { a.accessor<float, 1>(); }),
              HasSubstr("accessor: expected a 1-d tensor but this one has 2 dimensions"));
}

TEST(Tensor, PrintsLikePyTorch) {
  at::Tensor a = arange_like({2, 2});
  EXPECT_EQ(a.toString(),
            " 0  1\n 2  3\n[ CPUFloatType{2,2} ]");
  EXPECT_EQ(at::Tensor().toString(), "[ Tensor (undefined) ]");
}

}  // namespace
