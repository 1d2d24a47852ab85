// at:: ops end to end: through the dispatcher into the CPU plugin, which the
// first CPU call loads from the runfiles. Results are checked against plain
// reference loops written here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <torch/autograd.h>
#include <torch/types.h>

#include "registration/plugin_loader.h"
#include "tests/support/error_of.h"

using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

using ember_test::errorOf;

std::vector<float> values(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

at::Tensor iota(std::vector<int64_t> sizes, float start = 0.0f) {
  at::Tensor t = at::empty(sizes);
  float* p = t.data_ptr<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = start + static_cast<float>(i);
  return t;
}

TEST(CpuOps, FirstCpuCallLoadsThePlugin) {
  at::Tensor t = at::zeros({2, 3});
  bool loaded = false;
  for (const auto& p : c10::loaded_plugins()) loaded = loaded || p.name == "cpu";
  EXPECT_TRUE(loaded);
  EXPECT_THAT(values(t), ElementsAre(0, 0, 0, 0, 0, 0));
  EXPECT_EQ(t.scalar_type(), at::kFloat);
}

TEST(CpuOps, FactoriesTakeOptions) {
  at::Tensor d = at::ones({2}, at::kDouble);
  EXPECT_EQ(d.scalar_type(), at::kDouble);
  EXPECT_EQ(d.select(0, 1).item<double>(), 1.0);
  EXPECT_EQ(at::zeros_like(d).select(0, 0).item<double>(), 0.0);
  EXPECT_EQ(at::full_like(d, 4).scalar_type(), at::kDouble);
  EXPECT_EQ(at::empty({3}, at::TensorOptions().dtype(at::kInt)).scalar_type(), at::kInt);
}

TEST(CpuOps, FullInfersItsDtypeFromTheValue) {
  EXPECT_EQ(at::full({1}, 3).scalar_type(), at::kLong);
  EXPECT_EQ(at::full({1}, 2.5).scalar_type(), at::kFloat);
  EXPECT_EQ(at::full({1}, true).scalar_type(), at::kBool);
  EXPECT_EQ(at::full({1}, 7).item<int64_t>(), 7);
}

TEST(CpuOps, FactoriesRefuseNegativeSizes) {
  EXPECT_EQ(errorOf([] { at::empty({2, -1}); }),
            "empty: sizes must be non-negative, but got [2, -1] (size -1 at dimension 1). "
            "Pass sizes >= 0.");
}

TEST(CpuOps, ArithmeticBroadcastsAndPromotes) {
  at::Tensor a = iota({2, 3});
  at::Tensor b = iota({3}, 10.0f);
  EXPECT_THAT(values(a + b), ElementsAre(10, 12, 14, 13, 15, 17));
  EXPECT_THAT(values(at::add(a, b, 2)), ElementsAre(20, 23, 26, 23, 26, 29));
  EXPECT_THAT(values(a.t() * 2), ElementsAre(0, 6, 2, 8, 4, 10));
  EXPECT_THAT(values(a - 1), ElementsAre(-1, 0, 1, 2, 3, 4));
  EXPECT_THAT(values(a / 2), ElementsAre(0, 0.5, 1, 1.5, 2, 2.5));
  at::Tensor ints = at::full({2}, 3);
  EXPECT_EQ((ints + 1).scalar_type(), at::kLong);
  EXPECT_EQ((ints + 1.5).scalar_type(), at::kFloat);
  EXPECT_EQ((ints / 2).scalar_type(), at::kFloat);  // true division
  EXPECT_THAT(errorOf([&] { a + iota({2}); }),
              HasSubstr("[2, 3] and [2] cannot be broadcast together"));
}

TEST(CpuOps, InPlaceOpsWriteThroughViewsAndBumpTheVersion) {
  at::Tensor a = iota({2, 2});
  const uint32_t v = a._version();
  a.select(0, 1).add_(at::ones({2}));
  EXPECT_THAT(values(a), ElementsAre(0, 1, 3, 4));
  EXPECT_GT(a._version(), v);
  at::Tensor out = at::empty({2, 2});
  at::add_out(out, a, a);
  EXPECT_THAT(values(out), ElementsAre(0, 2, 6, 8));
}

TEST(CpuOps, CloneAndContiguousCopyNonContiguousData) {
  at::Tensor a = iota({2, 3});
  at::Tensor t = a.t();
  at::Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_NE(c.data_ptr(), a.data_ptr());
  EXPECT_THAT(values(c), ElementsAre(0, 3, 1, 4, 2, 5));
  EXPECT_EQ(a.contiguous().data_ptr(), a.data_ptr());  // already contiguous
  EXPECT_THAT(values(t.reshape({6})), ElementsAre(0, 3, 1, 4, 2, 5));
}

// Reference matmul on contiguous float data.
std::vector<float> ref_mm(const at::Tensor& a, const at::Tensor& b) {
  std::vector<float> va = values(a), vb = values(b);
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  std::vector<float> out(static_cast<size_t>(m * n), 0.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t x = 0; x < k; ++x) out[i * n + j] += va[i * k + x] * vb[x * n + j];
  return out;
}

TEST(CpuOps, MmMatchesTheReferenceOnContiguousAndTransposedInputs) {
  at::Tensor a = iota({3, 4});
  at::Tensor b = iota({4, 5}, 1.0f);
  EXPECT_EQ(values(at::mm(a, b)), ref_mm(a, b));
  at::Tensor bt = iota({5, 4}, 1.0f).t();  // column-major
  EXPECT_EQ(values(a.mm(bt)), ref_mm(a, bt));
}

// Which implementation runs is tests/backends/cpu/matmul_paths_test.cc's to
// check; here, that float64 products are not rounded through float32.
TEST(CpuOps, MmInFloat64KeepsDoublePrecision) {
  const double tiny = std::ldexp(1.0, -40);  // lost when 1 + tiny is rounded to float
  at::Tensor a = at::full({2, 3}, 1.0 + tiny, at::kDouble);
  at::Tensor b = at::full({3, 2}, 2.0, at::kDouble);
  at::Tensor c = at::mm(a, b);
  EXPECT_EQ(c.scalar_type(), at::kDouble);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      const double got = c.select(0, i).select(0, j).item<double>();
      EXPECT_EQ(got - 6.0, 6.0 * tiny) << "at " << i << ", " << j;
    }
  }
}

TEST(CpuOps, MatmulLinearAndAddmmFollowPyTorchShapes) {
  at::Tensor x = iota({2, 3});
  at::Tensor w = iota({4, 3}, 1.0f);
  at::Tensor bias = iota({4}, 100.0f);
  at::Tensor y = at::linear(x, w, bias);
  std::vector<float> expected = ref_mm(x, w.t());
  for (size_t i = 0; i < expected.size(); ++i) expected[i] += 100.0f + static_cast<float>(i % 4);
  EXPECT_EQ(values(y), expected);
  EXPECT_EQ(values(at::addmm(bias, x, w.t(), 1, 2)), [&] {
    std::vector<float> e = ref_mm(x, w.t());
    for (size_t i = 0; i < e.size(); ++i) e[i] = 2 * e[i] + 100.0f + static_cast<float>(i % 4);
    return e;
  }());
  // Batched matmul broadcasts batch dimensions: out[i][j] = batch[i][0] @ m[j].
  at::Tensor batch = iota({2, 1, 2, 3});
  at::Tensor m = iota({3, 3, 2});
  at::Tensor bm = at::matmul(batch, m);
  ASSERT_THAT(bm.sizes().vec(), ElementsAre(2, 3, 2, 2));
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      EXPECT_EQ(values(bm.select(0, i).select(0, j)),
                ref_mm(batch.select(0, i).select(0, 0), m.select(0, j)))
          << i << ", " << j;
    }
  }
  // A 1-d operand is a row (first) or a column (second), then dropped.
  EXPECT_THAT(values(at::matmul(iota({3}), iota({3, 2}))), ElementsAre(10, 13));
  EXPECT_THAT(values(at::matmul(iota({2, 3}), iota({3}))), ElementsAre(5, 14));
  EXPECT_THAT(values(at::matmul(iota({2, 2, 3}), iota({3}))), ElementsAre(5, 14, 23, 32));
  EXPECT_EQ(at::matmul(iota({3}), iota({3})).item<float>(), 0 + 1 + 4.0f);
  // linear over a 3-d input applies to each row of the last dimension.
  at::Tensor x3 = iota({2, 2, 3});
  at::Tensor three_d = at::linear(x3, w);
  ASSERT_THAT(three_d.sizes().vec(), ElementsAre(2, 2, 4));
  for (int64_t i = 0; i < 2; ++i) {
    EXPECT_EQ(values(three_d.select(0, i)), ref_mm(x3.select(0, i), w.t())) << i;
  }
}

TEST(CpuOps, MatmulErrorsNameTheShapes) {
  EXPECT_THAT(errorOf([] { at::mm(iota({2, 3}), iota({4, 5})); }),
              HasSubstr("mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"));
  EXPECT_THAT(errorOf([] { at::mm(iota({2, 3}), iota({3})); }),
              HasSubstr("mm: expected 2-d tensors, but got 2-d and 1-d"));
  EXPECT_THAT(errorOf([] { at::linear(iota({2, 3}), iota({4, 2})); }),
              HasSubstr("linear: input's last dimension (3) must equal weight's "
                        "in_features (2)"));
  EXPECT_THAT(errorOf([] { at::mm(at::ones({2, 2}, at::kBool), at::ones({2, 2}, at::kBool)); }),
              HasSubstr("mm: Bool matrices cannot be multiplied"));
}

TEST(CpuOps, MmHandlesZeroSizes) {
  EXPECT_THAT(at::mm(at::empty({0, 3}), iota({3, 2})).sizes().vec(), ElementsAre(0, 2));
  EXPECT_THAT(values(at::mm(at::empty({2, 0}), at::empty({0, 2}))), ElementsAre(0, 0, 0, 0));
}

TEST(CpuOps, PrintsValues) {
  EXPECT_EQ(iota({2}).toString(), " 0\n 1\n[ CPUFloatType{2} ]");
  EXPECT_EQ(at::full({}, 3).toString(), "3\n[ CPULongType{} ]");
}

}  // namespace
