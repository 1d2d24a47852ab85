// Conformance: conversions and comparisons — Tensor::to (every overload),
// _to_copy, result_type, isclose, allclose, equal — and Tensor::operator[].
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class Conversion : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(Conversion);

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- to ------------------------------------------------------------------------------------

TEST_P(Conversion, ToDtypeConvertsEveryLayoutAndDtypePair) {
  uint64_t seed = 1;
  for (ScalarType from : all_dtypes()) {
    for (ScalarType to : all_dtypes()) {
      for (const auto& shape : test_shapes()) {
        for (const Case& c : layouts(shape, from, device(), {-3, 3}, seed++)) {
          SCOPED_TRACE(std::string(c10::toString(from)) + " -> " + c10::toString(to) + " " + c.name);
          const at::Tensor out = c.tensor.to(to);
          EXPECT_EQ(out.scalar_type(), to);
          // Negative values to uint8 are not portable in C++; PyTorch wraps.
          if (to == kByte && from != kBool && from != kByte) continue;
          EXPECT_TRUE(close(out, as_dtype(c.ref, to), to, Tol{0, 0}));
        }
      }
    }
  }
}

TEST_P(Conversion, ToAliasesWhenNothingChanges) {
  const at::Tensor x = at::ones({2, 3}, options(kFloat));
  EXPECT_TRUE(x.to(at::kFloat).is_same(x));
  EXPECT_TRUE(x.to(device()).is_same(x));
  EXPECT_TRUE(x.to(x).is_same(x));
  EXPECT_TRUE(x.to(at::TensorOptions().dtype(at::kFloat)).is_same(x));
  EXPECT_TRUE(x.to(device(), at::kFloat).is_same(x));
  // copy=true always copies.
  const at::Tensor c = x.to(at::kFloat, /*non_blocking=*/false, /*copy=*/true);
  EXPECT_FALSE(c.is_same(x));
  EXPECT_NE(c.data_ptr(), x.data_ptr());
  EXPECT_TRUE(close(c, Ref({2, 3}, std::vector<double>(6, 1)), kFloat));
  // contiguous memory format: a transposed tensor is copied, a contiguous one
  // is not.
  EXPECT_TRUE(x.to(at::kFloat, false, false, at::MemoryFormat::Contiguous).is_same(x));
  const at::Tensor t = x.t().to(at::kFloat, false, false, at::MemoryFormat::Contiguous);
  EXPECT_TRUE(t.is_contiguous());
}

TEST_P(Conversion, ToOverloadsTakeOptionsDeviceAndOtherTensors) {
  const at::Tensor x = make_tensor(Ref({2}, {1.5, -2.5}), kFloat, device());
  EXPECT_TRUE(close(x.to(at::kDouble), Ref({2}, {1.5, -2.5}), kDouble));
  EXPECT_TRUE(close(x.to(at::kInt), Ref({2}, {1, -2}), kInt));
  EXPECT_TRUE(close(x.to(at::TensorOptions().dtype(at::kHalf)), Ref({2}, {1.5, -2.5}), kHalf));
  EXPECT_TRUE(close(x.to(device(), at::kLong), Ref({2}, {1, -2}), kLong));
  const at::Tensor other = at::zeros({}, options(kBool));
  EXPECT_TRUE(close(x.to(other), Ref({2}, {1, 1}), kBool));
  EXPECT_TRUE(close(x.to(std::nullopt, std::nullopt, std::nullopt, std::nullopt, false, false,
                         std::nullopt),
                    Ref({2}, {1.5, -2.5}), kFloat));
  // Pinned memory is CPU memory, from the CUDA plugin's allocator (not in
  // this suite's runfiles; tests/aten:pin_memory_test has a fake one).
  EXPECT_THAT(errorOf([&] { x.to(at::TensorOptions().pinned_memory(true), false, /*copy=*/true); }),
              HasSubstr(device().is_cpu()
                            ? "empty_strided: no pinned-memory allocator for CUDA"
                            : "_to_copy: pin_memory=true makes a pinned CPU tensor"));
}

TEST_P(Conversion, ToCopyPreservesDenseStrides) {
  const at::Tensor x = make_tensor(Ref({2, 3}, {1, 2, 3, 4, 5, 6}), kFloat, device());
  const at::Tensor t = at::_to_copy(x.t(), at::kDouble);
  EXPECT_EQ(t.scalar_type(), kDouble);
  EXPECT_EQ(t.strides(), x.t().strides());  // Preserve keeps a transposed layout
  EXPECT_TRUE(close(t, Ref({3, 2}, {1, 4, 2, 5, 3, 6}), kDouble));
  // Not dense (every other column): a contiguous result.
  const at::Tensor s = at::_to_copy(x.slice(1, 0, 3, 2));
  EXPECT_TRUE(s.is_contiguous());
  EXPECT_TRUE(close(s, Ref({2, 2}, {1, 3, 4, 6}), kFloat));
  const at::Tensor c = at::_to_copy(x.t(), at::TensorOptions(), false,
                                    at::MemoryFormat::Contiguous);
  EXPECT_TRUE(c.is_contiguous());
  // A copy, not an alias.
  const at::Tensor same = at::_to_copy(x);
  EXPECT_NE(same.data_ptr(), x.data_ptr());
}

// ---- result_type ------------------------------------------------------------------------

TEST_P(Conversion, ResultTypeFollowsPyTorchsRules) {
  const at::Tensor i = at::ones({2}, options(kInt));
  const at::Tensor f = at::ones({2}, options(kFloat));
  const at::Tensor b = at::ones({2}, options(kBool));
  const at::Tensor u = at::ones({2}, options(kByte));
  const at::Tensor d0 = at::ones({}, options(kDouble));
  const at::Tensor l0 = at::ones({}, options(kLong));
  const at::Tensor c0 = at::ones({}, options(kChar));
  EXPECT_EQ(at::result_type(i, f), kFloat);
  EXPECT_EQ(at::result_type(f, d0), kFloat);   // 0-dim of the same category
  EXPECT_EQ(at::result_type(i, d0), kDouble);  // 0-dim of a higher category
  EXPECT_EQ(at::result_type(u, l0), kByte);
  EXPECT_EQ(at::result_type(u, c0), kByte);
  EXPECT_EQ(at::result_type(b, l0), kLong);
  EXPECT_EQ(at::result_type(d0, l0), kDouble);
  EXPECT_EQ(at::result_type(l0, c0), kLong);
  // Scalars are wrapped numbers: lowest priority, floats count as Float.
  EXPECT_EQ(at::result_type(i, 2.5), kFloat);
  EXPECT_EQ(at::result_type(i, 2), kInt);
  EXPECT_EQ(at::result_type(b, 2), kLong);
  EXPECT_EQ(at::result_type(b, true), kBool);
  EXPECT_EQ(at::result_type(d0, 2.5), kDouble);
  EXPECT_EQ(at::result_type(at::ones({2}, options(kHalf)), 2.5), kHalf);
  EXPECT_EQ(at::result_type(3.0, u), kFloat);
  EXPECT_EQ(at::result_type(7, c0), kChar);
  EXPECT_EQ(at::result_type(1, 2), kLong);
  EXPECT_EQ(at::result_type(1, 2.0), kFloat);
  EXPECT_EQ(at::result_type(true, false), kBool);
  EXPECT_EQ(at::result_type(true, 1), kLong);
  // The helper suite's independent rule agrees on tensors.
  for (ScalarType a : all_dtypes()) {
    for (ScalarType c : all_dtypes()) {
      EXPECT_EQ(at::result_type(at::ones({1}, options(a)), at::ones({}, options(c))),
                result_type(a, 1, c, 0)) << a << " " << c;
    }
  }
}

// ---- isclose / allclose / equal -----------------------------------------------------------

TEST_P(Conversion, IsCloseOverLayoutsAndDtypes) {
  auto ref = [](double rtol, double atol, bool equal_nan) {
    return [=](double a, double b) {
      if (a == b) return 1.0;
      if (std::isnan(a) || std::isnan(b)) return equal_nan && std::isnan(a) && std::isnan(b) ? 1.0 : 0.0;
      const double diff = std::fabs(a - b);
      return std::isfinite(diff) && diff <= atol + rtol * std::fabs(b) ? 1.0 : 0.0;
    };
  };
  // Inputs from a coarse grid so that equal and nearly equal values occur.
  check_binary("isclose", [](const at::Tensor& a, const at::Tensor& b) {
    return at::isclose(a, b, 0.1, 0.5);
  }, ref(0.1, 0.5, false), same_pairs(all_dtypes()), {-2, 2}, {-2, 2}, device(), to_bool);
  check_binary("isclose default", [](const at::Tensor& a, const at::Tensor& b) {
    return a.isclose(b);
  }, ref(1e-5, 1e-8, false), same_pairs({kFloat, kDouble, kInt}), {-2, 2}, {-2, 2}, device(),
               to_bool);
}

TEST_P(Conversion, IsCloseSpecialValues) {
  const at::Tensor a = make_tensor(Ref({5}, {kNaN, kInf, kInf, 1, 1e10}), kDouble, device());
  const at::Tensor b = make_tensor(Ref({5}, {kNaN, kInf, -kInf, 1 + 1e-9, 1.00001e10}),
                                   kDouble, device());
  EXPECT_TRUE(close(at::isclose(a, b), Ref({5}, {0, 1, 0, 1, 1}), kBool));
  EXPECT_TRUE(close(at::isclose(a, b, 1e-5, 1e-8, true), Ref({5}, {1, 1, 0, 1, 1}), kBool));
  EXPECT_TRUE(close(at::isclose(a, b, 0, 0), Ref({5}, {0, 1, 0, 0, 0}), kBool));
  EXPECT_THAT(errorOf([&] { at::isclose(a, a.to(at::kFloat)); }),
              HasSubstr("isclose: Double did not match Float"));
  EXPECT_THAT(errorOf([&] { at::isclose(a, b, -1); }),
              HasSubstr("isclose: rtol must be greater than or equal to zero, but got -1"));
  EXPECT_THAT(errorOf([&] { at::isclose(a, b, 0, -0.5); }),
              HasSubstr("atol must be greater than or equal to zero, but got -0.5"));
  EXPECT_THAT(errorOf([&] { at::isclose(a, at::ones({3}, options(kDouble))); }),
              HasSubstr("cannot be broadcast"));
}

TEST_P(Conversion, AllCloseAndEqual) {
  const at::Tensor a = make_tensor(Ref({2, 2}, {1, 2, 3, 4}), kFloat, device());
  const at::Tensor b = make_tensor(Ref({2, 2}, {1, 2, 3, 4.00001}), kFloat, device());
  EXPECT_TRUE(at::allclose(a, b));
  EXPECT_FALSE(a.allclose(b, 0, 0));
  EXPECT_TRUE(at::allclose(a, a.t().t()));
  EXPECT_TRUE(at::allclose(a, make_tensor(Ref({2}, {3, 4}), kFloat, device()).expand({2, 2}),
                           0, 2.5));  // broadcast
  EXPECT_TRUE(at::allclose(at::empty({0}, options(kFloat)), at::empty({0}, options(kFloat))));
  const at::Tensor n = make_tensor(Ref({1}, {kNaN}), kFloat, device());
  EXPECT_FALSE(at::allclose(n, n));
  EXPECT_TRUE(at::allclose(n, n, 1e-5, 1e-8, true));

  EXPECT_TRUE(at::equal(a, a.clone()));
  EXPECT_FALSE(at::equal(a, b));
  EXPECT_FALSE(a.equal(a.t()));                          // different values
  EXPECT_FALSE(a.equal(at::ones({4}, options(kFloat))));  // different sizes
  EXPECT_TRUE(a.t().equal(make_tensor(Ref({2, 2}, {1, 3, 2, 4}), kFloat, device())));
  EXPECT_TRUE(at::equal(a, a.to(at::kInt)));  // promoted to a common dtype
  EXPECT_FALSE(at::equal(n, n));              // NaN != NaN
  EXPECT_TRUE(at::equal(at::empty({0, 3}, options(kFloat)), at::empty({0, 3}, options(kInt))));
  const at::Tensor ones = at::ones({3}, options(kDouble));
  EXPECT_TRUE(at::equal(ones, at::ones({1}, options(kDouble)).expand({3})));
}

// ---- operator[] -----------------------------------------------------------------------------

TEST_P(Conversion, SubscriptSelectsAlongDimZero) {
  const at::Tensor x = make_tensor(Ref({3, 2}, {1, 2, 3, 4, 5, 6}), kFloat, device());
  EXPECT_TRUE(close(x[1], Ref({2}, {3, 4}), kFloat));
  EXPECT_TRUE(close(x[-1], Ref({2}, {5, 6}), kFloat));
  EXPECT_TRUE(close(x[2][0], Ref({}, {5}), kFloat));
  x[0][1].fill_(9);  // a view: writes reach x
  EXPECT_TRUE(close(x, Ref({3, 2}, {1, 9, 3, 4, 5, 6}), kFloat));
  EXPECT_THAT(errorOf([&] { (void)x[3]; }), HasSubstr("out of range"));
}

}  // namespace
}  // namespace ember_conformance
