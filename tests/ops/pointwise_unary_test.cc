// Conformance: the unary pointwise ops (functional, in-place and out=)
// against references, their dtype rules and their errors.
#include <cmath>
#include <limits>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class PointwiseUnary : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(PointwiseUnary);

const Dtypes& numeric_dtypes() {
  static const Dtypes d = {kByte, kChar, kShort, kInt, kLong,
                           kHalf, kBFloat16, kFloat, kDouble};
  return d;
}
const Dtypes& signed_dtypes() {
  static const Dtypes d = {kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble};
  return d;
}

double sign_of(double x) { return (0 < x) - (x < 0); }

// One op in its three forms: functional (over `dtypes`), in place (over
// the dtypes whose result keeps the dtype) and out=.
struct UnaryForms {
  std::string name;
  UnaryOp fn;
  InplaceOp inplace;
  OutOp out;
  std::function<double(double)> ref;
  Dtypes dtypes;
  Domain domain;
  ResultDtype result = same_dtype;
};

void check_forms(const UnaryForms& f, c10::Device device) {
  check_unary(f.name, f.fn, f.ref, f.dtypes, f.domain, device, f.result);
  Dtypes keep;
  for (ScalarType t : f.dtypes) {
    if (f.result(t) == t) keep.push_back(t);
  }
  check_unary_inplace(f.name + "_", f.inplace, f.ref, keep, f.domain, device);
  check_unary_out(f.name, f.out, f.ref, f.dtypes, f.domain, device, f.result);
}

#define EMBER_FORMS_(op) \
  #op, [](const at::Tensor& x) { return at::op(x); }, \
      [](at::Tensor& x) { x.op##_(); },                \
      [](const at::Tensor& x, at::Tensor& out) { at::op##_out(out, x); }

TEST_P(PointwiseUnary, SameDtypeOps) {
  check_forms({EMBER_FORMS_(neg), [](double x) { return -x; }, signed_dtypes(), {}},
              device());
  check_forms({EMBER_FORMS_(abs), [](double x) { return std::fabs(x); }, all_dtypes(), {}},
              device());
  check_forms({EMBER_FORMS_(sign), sign_of, all_dtypes(), {}}, device());
}

TEST_P(PointwiseUnary, RoundingOps) {
  const Domain d{-4, 4};
  check_forms({EMBER_FORMS_(floor), [](double x) { return std::floor(x); },
               numeric_dtypes(), d}, device());
  check_forms({EMBER_FORMS_(ceil), [](double x) { return std::ceil(x); },
               numeric_dtypes(), d}, device());
  check_forms({EMBER_FORMS_(round), [](double x) { return std::nearbyint(x); },
               numeric_dtypes(), d}, device());
  check_forms({EMBER_FORMS_(trunc), [](double x) { return std::trunc(x); },
               numeric_dtypes(), d}, device());
}

TEST_P(PointwiseUnary, RoundHalfToEvenAndDecimals) {
  const at::Tensor x = make_tensor(Ref({6}, {0.5, 1.5, 2.5, -0.5, -2.5, 3.49}), kFloat,
                                   device());
  EXPECT_TRUE(close(at::round(x), Ref({6}, {0, 2, 2, -0, -2, 3}), kFloat));
  const at::Tensor y = make_tensor(Ref({4}, {1.2345, -2.5551, 1234.5, 15}), kDouble,
                                   device());
  EXPECT_TRUE(close(at::round(y, 2), Ref({4}, {1.23, -2.56, 1234.5, 15}), kDouble));
  EXPECT_TRUE(close(at::round(y, -1), Ref({4}, {0, -0, 1230, 20}), kDouble));
  at::Tensor z = y.clone();
  z.round_(1);
  EXPECT_TRUE(close(z, Ref({4}, {1.2, -2.6, 1234.5, 15}), kDouble));
  at::Tensor out = at::empty({0}, options(kDouble));
  at::round_out(out, y, 3);
  EXPECT_TRUE(close(out, Ref({4}, {1.234, -2.555, 1234.5, 15}), kDouble, {1e-12, 1e-12}));
  check_unary("round.decimals", [](const at::Tensor& t) { return at::round(t, 1); },
              [](double v) { return std::nearbyint(v * 10) / 10; }, floating_dtypes(),
              {-3, 3}, device());
  const at::Tensor ints = make_tensor(Ref({2}, {1, 2}), kInt, device());
  EXPECT_THAT(errorOf([&] { at::round(ints, 1); }),
              HasSubstr("round with decimals is only supported for floating dtypes"));
}

TEST_P(PointwiseUnary, FloatingFunctions) {
  const Dtypes& all = all_dtypes();
  check_forms({EMBER_FORMS_(exp), [](double x) { return std::exp(x); }, all, {-4, 4},
               to_float}, device());
  check_forms({EMBER_FORMS_(log), [](double x) { return std::log(x); }, all, {0.1, 5},
               to_float}, device());
  check_forms({EMBER_FORMS_(sqrt), [](double x) { return std::sqrt(x); }, all, {0, 5},
               to_float}, device());
  check_forms({EMBER_FORMS_(log1p), [](double x) { return std::log1p(x); }, all,
               {-0.9, 5}, to_float}, device());
  check_forms({EMBER_FORMS_(expm1), [](double x) { return std::expm1(x); }, all,
               {-3, 3}, to_float}, device());
  check_forms({EMBER_FORMS_(rsqrt), [](double x) { return 1 / std::sqrt(x); }, all,
               {0.1, 5}, to_float}, device());
  check_forms({EMBER_FORMS_(reciprocal), [](double x) { return 1 / x; }, all, {0.2, 5},
               to_float}, device());
  check_forms({EMBER_FORMS_(sin), [](double x) { return std::sin(x); }, all, {-4, 4},
               to_float}, device());
  check_forms({EMBER_FORMS_(cos), [](double x) { return std::cos(x); }, all, {-4, 4},
               to_float}, device());
  check_forms({EMBER_FORMS_(tanh), [](double x) { return std::tanh(x); }, all, {-4, 4},
               to_float}, device());
  check_forms({EMBER_FORMS_(sigmoid), [](double x) { return 1 / (1 + std::exp(-x)); },
               all, {-6, 6}, to_float}, device());
}

TEST_P(PointwiseUnary, ReciprocalOfIntegerZeroIsInf) {
  const at::Tensor x = make_tensor(Ref({3}, {0, 2, -4}), kLong, device());
  EXPECT_TRUE(close(at::reciprocal(x), Ref({3}, {INFINITY, 0.5, -0.25}), kFloat));
}

// The float32 exp, tanh and sigmoid have their own vectorizable forms
// (backends/cpu/pointwise_math.h): check them densely over the whole range,
// including overflow, underflow, subnormal results, NaN and infinities.
TEST_P(PointwiseUnary, Float32TranscendentalsAcrossTheirRange) {
  std::vector<double> xs;
  for (double x = -110; x <= 95; x += 0.0137) xs.push_back(static_cast<float>(x));
  for (double x = -1; x <= 1; x += 0.00071) xs.push_back(static_cast<float>(x));
  for (double x : {0.0, -0.0, 1e-30, -1e-30, 88.72, 88.73, -103.9, -104.0, 1e30, -1e30}) {
    xs.push_back(static_cast<float>(x));  // the reference sees the float input
  }
  const auto n = static_cast<int64_t>(xs.size());
  const Ref r({n}, xs);
  const at::Tensor x = make_tensor(r, kFloat, device());
  // Relative 4e-7 (about 3 ulp), absolute only below the normal range.
  const Tol tol{4e-7, 1.2e-38};
  EXPECT_TRUE(close(at::exp(x), map(r, [](double v) { return std::exp(v); }), kFloat, tol));
  EXPECT_TRUE(close(at::tanh(x), map(r, [](double v) { return std::tanh(v); }), kFloat,
                    Tol{4e-7, 1e-12}));
  EXPECT_TRUE(close(at::sigmoid(x), map(r, [](double v) { return 1 / (1 + std::exp(-v)); }),
                    kFloat, tol));
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const at::Tensor special = make_tensor(Ref({3}, {inf, -inf, nan}), kFloat, device());
  EXPECT_TRUE(close(at::exp(special), Ref({3}, {inf, 0, nan}), kFloat));
  EXPECT_TRUE(close(at::tanh(special), Ref({3}, {1, -1, nan}), kFloat));
  EXPECT_TRUE(close(at::sigmoid(special), Ref({3}, {1, 0, nan}), kFloat));
}

TEST_P(PointwiseUnary, ReluAndItsInPlaceForm) {
  check_unary("relu", [](const at::Tensor& x) { return at::relu(x); },
              [](double x) { return x < 0 ? 0 : x; }, numeric_dtypes(), {}, device());
  check_unary_inplace("relu_", [](at::Tensor& x) { at::relu_(x); },
                      [](double x) { return x < 0 ? 0 : x; }, numeric_dtypes(), {},
                      device());
  at::Tensor flags = make_tensor(Ref({2}, {1, 0}), kBool, device());
  EXPECT_THAT(errorOf([&] { flags.relu_(); }), HasSubstr("bool tensors are not supported"));
}

TEST_P(PointwiseUnary, BoolResults) {
  check_unary("logical_not", [](const at::Tensor& x) { return at::logical_not(x); },
              [](double x) { return x == 0; }, all_dtypes(), {-2, 2}, device(), to_bool);
  check_unary_out("logical_not", [](const at::Tensor& x, at::Tensor& out) {
    at::logical_not_out(out, x);
  }, [](double x) { return x == 0; }, all_dtypes(), {-2, 2}, device(), to_bool);
  // In place keeps self's dtype: 0 and 1 as Float.
  at::Tensor f = make_tensor(Ref({3}, {0, 2.5, -1}), kFloat, device());
  f.logical_not_();
  EXPECT_TRUE(close(f, Ref({3}, {1, 0, 0}), kFloat));
  // out= of another dtype.
  at::Tensor out = at::empty({0}, options(kLong));
  at::logical_not_out(out, make_tensor(Ref({2}, {0, 3}), kInt, device()));
  EXPECT_TRUE(close(out, Ref({2}, {1, 0}), kLong));

  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Ref special({5}, {1, nan, inf, -inf, 0});
  for (ScalarType t : floating_dtypes()) {
    const at::Tensor x = make_tensor(special, t, device());
    EXPECT_TRUE(close(at::isnan(x), Ref({5}, {0, 1, 0, 0, 0}), kBool)) << t;
    EXPECT_TRUE(close(at::isinf(x), Ref({5}, {0, 0, 1, 1, 0}), kBool)) << t;
    EXPECT_TRUE(close(x.isnan().t(), Ref({5}, {0, 1, 0, 0, 0}), kBool)) << t;
  }
  check_unary("isnan", [](const at::Tensor& x) { return at::isnan(x); },
              [](double) { return 0.0; }, all_dtypes(), {}, device(), to_bool);
  check_unary("isinf", [](const at::Tensor& x) { return at::isinf(x); },
              [](double) { return 0.0; }, all_dtypes(), {}, device(), to_bool);
}

TEST_P(PointwiseUnary, NanPassesThrough) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const at::Tensor x = make_tensor(Ref({2}, {nan, -1}), kFloat, device());
  EXPECT_TRUE(close(at::abs(x), Ref({2}, {nan, 1}), kFloat));
  EXPECT_TRUE(close(at::relu(x), Ref({2}, {nan, 0}), kFloat));
  EXPECT_TRUE(close(at::floor(x), Ref({2}, {nan, -1}), kFloat));
  EXPECT_TRUE(close(at::sign(x), Ref({2}, {0, -1}), kFloat));
}

TEST_P(PointwiseUnary, Errors) {
  at::Tensor flags = make_tensor(Ref({2}, {1, 0}), kBool, device());
  EXPECT_THAT(errorOf([&] { at::neg(flags); }),
              HasSubstr("Negation, the `-` operator, on a bool tensor is not supported"));
  EXPECT_THAT(errorOf([&] { flags.neg_(); }), HasSubstr("neg_: Negation"));
  EXPECT_THAT(errorOf([&] { at::floor(flags); }), HasSubstr("floor: bool tensors"));
  // A floating result cannot be written into an integer tensor.
  at::Tensor ints = make_tensor(Ref({2}, {1, 4}), kLong, device());
  EXPECT_THAT(errorOf([&] { ints.sqrt_(); }),
              HasSubstr("sqrt_: result type Float can't be cast to the desired output "
                        "type Long"));
  at::Tensor out = at::empty({2}, options(kInt));
  EXPECT_THAT(errorOf([&] { at::exp_out(out, ints); }),
              HasSubstr("exp: result type Float can't be cast"));
  // In place on an expanded tensor (several elements, one address).
  at::Tensor expanded = make_tensor(Ref({1}, {2}), kFloat, device()).expand({3});
  EXPECT_THAT(errorOf([&] { expanded.exp_(); }),
              HasSubstr("more than one element of the written-to tensor"));
  at::Tensor undefined;
  EXPECT_THAT(errorOf([&] { at::sin_out(undefined, ints); }),
              HasSubstr("sin: the out tensor is undefined"));
}

TEST_P(PointwiseUnary, OutIsResizedAndReturned) {
  const at::Tensor x = make_tensor(Ref({2, 2}, {1, 2, 3, 4}), kFloat, device());
  at::Tensor out = at::empty({7}, options(kFloat));
  at::Tensor& r = at::neg_out(out, x);
  EXPECT_TRUE(r.is_same(out));
  EXPECT_TRUE(close(out, Ref({2, 2}, {-1, -2, -3, -4}), kFloat));
  // An out of a wider dtype receives the converted result.
  at::Tensor wide = at::empty({2, 2}, options(kDouble));
  at::abs_out(wide, make_tensor(Ref({2, 2}, {-1, 2, -3, 4}), kInt, device()));
  EXPECT_TRUE(close(wide, Ref({2, 2}, {1, 2, 3, 4}), kDouble));
}

}  // namespace
}  // namespace ember_conformance
