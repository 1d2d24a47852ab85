// Conformance: the arithmetic and comparison ops against references.
#include <cmath>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class Arithmetic : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(Arithmetic);

// Same-dtype and promoting pairs; with_bool adds Bool (and Bool with Int).
std::vector<std::pair<ScalarType, ScalarType>> numeric_pairs(bool with_bool = true) {
  auto pairs = same_pairs({kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16,
                           kFloat, kDouble});
  for (const auto& p : mixed_pairs()) {
    if (with_bool || (p.first != kBool && p.second != kBool)) pairs.push_back(p);
  }
  return pairs;
}

TEST_P(Arithmetic, Add) {
  check_binary("add", [](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b, 2); },
               [](double a, double b) { return a + 2 * b; }, numeric_pairs(), {}, {},
               device());
}

TEST_P(Arithmetic, Sub) {
  check_binary("sub", [](const at::Tensor& a, const at::Tensor& b) { return at::sub(a, b); },
               [](double a, double b) { return a - b; }, numeric_pairs(false), {}, {},
               device());
  const at::Tensor flags = make_tensor(Ref({2}, {1, 0}), kBool, device());
  const at::Tensor ints = make_tensor(Ref({2}, {1, 2}), kInt, device());
  EXPECT_THAT(errorOf([&] { at::sub(flags, ints); }),
              HasSubstr("with a bool tensor is not supported"));
}

TEST_P(Arithmetic, Mul) {
  check_binary("mul", [](const at::Tensor& a, const at::Tensor& b) { return at::mul(a, b); },
               [](double a, double b) { return a * b; }, numeric_pairs(), {}, {},
               device());
}

TEST_P(Arithmetic, DivIsTrueDivision) {
  check_binary("div", [](const at::Tensor& a, const at::Tensor& b) { return at::div(a, b); },
               [](double a, double b) { return a / b; }, numeric_pairs(), {}, {1, 4},
               device(), to_float);
}

TEST_P(Arithmetic, UnaryOps) {
  const Dtypes numeric = {kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble};
  check_unary("neg", [](const at::Tensor& x) { return at::neg(x); },
              [](double x) { return -x; }, numeric, {}, device());
  check_unary("abs", [](const at::Tensor& x) { return at::abs(x); },
              [](double x) { return std::fabs(x); }, numeric, {}, device());
  check_unary("relu", [](const at::Tensor& x) { return at::relu(x); },
              [](double x) { return x < 0 ? 0 : x; }, numeric, {}, device());
  check_unary("exp", [](const at::Tensor& x) { return at::exp(x); },
              [](double x) { return std::exp(x); }, all_dtypes(), {}, device(), to_float);
  check_unary("log", [](const at::Tensor& x) { return at::log(x); },
              [](double x) { return std::log(x); }, all_dtypes(), {0.1, 5}, device(),
              to_float);
  check_unary("sqrt", [](const at::Tensor& x) { return at::sqrt(x); },
              [](double x) { return std::sqrt(x); }, all_dtypes(), {0, 5}, device(),
              to_float);
}

TEST_P(Arithmetic, Comparisons) {
  const auto pairs = same_pairs(all_dtypes());
  check_binary("eq", [](const at::Tensor& a, const at::Tensor& b) { return at::eq(a, b); },
               [](double a, double b) { return a == b; }, pairs, {-2, 2}, {-2, 2},
               device(), to_bool);
  check_binary("lt", [](const at::Tensor& a, const at::Tensor& b) { return at::lt(a, b); },
               [](double a, double b) { return a < b; }, pairs, {}, {}, device(), to_bool);
  check_binary("gt", [](const at::Tensor& a, const at::Tensor& b) { return at::gt(a, b); },
               [](double a, double b) { return a > b; }, pairs, {}, {}, device(), to_bool);
}

// Note [Small binary fast path] (backends/cpu/pointwise_arith.cc): small
// contiguous float/double add and mul skip the TensorIterator. Their results
// must be bit-identical to the general path's, which a tensor above the
// fast path's size limit takes.
template <typename T>
void expect_fast_path_matches_general(ScalarType dtype) {
  const int64_t big = 5000, small = 10;
  at::Tensor x_big = at::randn({big}, at::TensorOptions().dtype(dtype));
  at::Tensor y_big = at::randn({big}, at::TensorOptions().dtype(dtype));
  at::Tensor x = x_big.narrow(0, 0, small).clone();
  at::Tensor y = y_big.narrow(0, 0, small).clone();
  const std::vector<std::pair<at::Tensor, at::Tensor>> pairs = {
      {at::mul(x, 1.0001), at::mul(x_big, 1.0001)},
      {at::mul(x, 3), at::mul(x_big, 3)},
      {at::mul(x, true), at::mul(x_big, true)},
      {at::mul(x, y), at::mul(x_big, y_big)},
      {at::add(x, y, 0.3), at::add(x_big, y_big, 0.3)},
      {at::add(x, 1e-7), at::add(x_big, 1e-7)},
      {at::add(x, 2, 5), at::add(x_big, 2, 5)},
  };
  for (size_t k = 0; k < pairs.size(); ++k) {
    const at::Tensor& fast = pairs[k].first;
    const at::Tensor general = pairs[k].second.narrow(0, 0, small);
    ASSERT_EQ(fast.scalar_type(), dtype) << k;
    ASSERT_EQ(fast.sizes(), x.sizes()) << k;
    for (int64_t i = 0; i < small; ++i) {
      EXPECT_EQ(fast[i].item<T>(), general[i].item<T>()) << "pair " << k << " element " << i;
    }
  }
}

TEST(SmallBinaryFastPath, FloatResultsAreBitIdenticalToTheGeneralPath) {
  expect_fast_path_matches_general<float>(kFloat);
}

TEST(SmallBinaryFastPath, DoubleResultsAreBitIdenticalToTheGeneralPath) {
  expect_fast_path_matches_general<double>(kDouble);
}

TEST(SmallBinaryFastPath, OutAndInPlaceFormsKeepTheirRules) {
  at::Tensor x = at::arange(6, at::TensorOptions().dtype(kFloat));
  at::Tensor y = at::full({6}, 2.0f);
  // An out= tensor of another shape is resized; one of another dtype gets
  // the converted result.
  at::Tensor out = at::empty({3});
  at::add_out(out, x, y);
  EXPECT_EQ(out.sizes(), x.sizes());
  EXPECT_TRUE(at::equal(out, x + 2));
  at::Tensor out64 = at::empty({6}, at::TensorOptions().dtype(kDouble));
  at::mul_out(out64, x, y);
  EXPECT_TRUE(at::equal(out64, at::arange(6, at::TensorOptions().dtype(kDouble)) * 2));
  // In place on itself, and out= aliasing an input exactly.
  at::Tensor z = x.clone();
  z.add_(z);
  EXPECT_TRUE(at::equal(z, x * 2));
  z.mul_(z);
  EXPECT_TRUE(at::equal(z, x * x * 4));
  at::Tensor w = x.clone();
  at::mul_out(w, w, y);
  EXPECT_TRUE(at::equal(w, x * 2));
  // A Boolean alpha is still rejected, as on the general path.
  EXPECT_THAT(errorOf([&] { at::add(x, y, true); }),
              HasSubstr("Boolean alpha only supported for Boolean results"));
  // Integer tensors with a float number promote (general path).
  at::Tensor ints = at::arange(3, at::TensorOptions().dtype(c10::kLong));
  EXPECT_EQ(at::mul(ints, 0.5).scalar_type(), kFloat);
}

TEST(ConformanceSelf, ResultTypeFollowsPyTorchsCategories) {
  EXPECT_EQ(result_type(kInt, 1, kFloat, 1), kFloat);
  EXPECT_EQ(result_type(kInt, 1, kDouble, 0), kDouble);   // higher category counts
  EXPECT_EQ(result_type(kFloat, 1, kDouble, 0), kFloat);  // same category does not
  EXPECT_EQ(result_type(kByte, 1, kLong, 0), kByte);
  EXPECT_EQ(result_type(kBool, 1, kLong, 0), kLong);
  EXPECT_EQ(result_type(kInt, 0, kDouble, 0), kDouble);
}

TEST(ConformanceSelf, LayoutsHoldTheirReferenceValues) {
  for (const auto& shape : test_shapes()) {
    for (const Case& c : layouts(shape, kFloat, c10::Device("cpu"), {}, 7)) {
      EXPECT_TRUE(close(c.tensor, c.ref, kFloat, Tol{0, 0})) << c.name;
    }
  }
  const auto cases = layouts({3, 4}, kFloat, c10::Device("cpu"), {}, 7);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_FALSE(cases[1].tensor.is_contiguous());
  EXPECT_EQ(cases[2].tensor.storage_offset(), 1);
  EXPECT_EQ(cases[3].tensor.stride(0), 0);
  EXPECT_FALSE(close(cases[0].tensor, map(cases[0].ref, [](double x) { return x + 1; }),
                     kFloat));
}

}  // namespace
}  // namespace ember_conformance
