// Conformance: where, clamp (Scalar and Tensor bounds), clamp_min,
// clamp_max, addcmul, addcdiv and lerp, in all their forms, against
// references; promotion across three inputs and the errors.
#include <cmath>
#include <limits>
#include <optional>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class PointwiseTernary : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(PointwiseTernary);

const Dtypes& numeric_dtypes() {
  static const Dtypes d = {kByte, kChar, kShort, kInt, kLong,
                           kHalf, kBFloat16, kFloat, kDouble};
  return d;
}

double clamp_ref(double x, double lo, double hi) { return std::min(std::max(x, lo), hi); }

// ---- where ----------------------------------------------------------------------------

TEST_P(PointwiseTernary, Where) {
  std::vector<std::vector<ScalarType>> triples;
  for (ScalarType t : all_dtypes()) triples.push_back({kBool, t, t});
  triples.push_back({kBool, kInt, kFloat});
  triples.push_back({kBool, kHalf, kDouble});
  triples.push_back({kBool, kBool, kLong});
  check_ternary("where",
                [](const at::Tensor& c, const at::Tensor& a, const at::Tensor& b) {
                  return at::where(c, a, b);
                },
                [](double c, double a, double b) { return c != 0 ? a : b; }, triples,
                {{}, {}, {}}, device(), same_dtype, {false, true, true});
  // The method: self.where(condition, other).
  const at::Tensor cond = make_tensor(Ref({3}, {1, 0, 1}), kBool, device());
  const at::Tensor a = make_tensor(Ref({3}, {1, 2, 3}), kFloat, device());
  const at::Tensor b = make_tensor(Ref({3}, {-1, -2, -3}), kFloat, device());
  EXPECT_TRUE(close(a.where(cond, b), Ref({3}, {1, -2, 3}), kFloat));
  at::Tensor out = at::empty({0}, options(kDouble));
  at::where_out(out, cond, a, b);
  EXPECT_TRUE(close(out, Ref({3}, {1, -2, 3}), kDouble));
}

TEST_P(PointwiseTernary, WhereScalarOverloadsPromoteAsPythonNumbers) {
  const at::Tensor cond = make_tensor(Ref({2, 2}, {1, 0, 0, 1}), kBool, device());
  const at::Tensor ints = make_tensor(Ref({2}, {5, 6}), kInt, device());
  const at::Tensor halves = make_tensor(Ref({2}, {5, 6}), kHalf, device());
  EXPECT_TRUE(close(at::where(cond, ints, 0), Ref({2, 2}, {5, 0, 0, 6}), kInt));
  EXPECT_TRUE(close(at::where(cond, ints, 0.5), Ref({2, 2}, {5, 0.5, 0.5, 6}), kFloat));
  EXPECT_TRUE(close(at::where(cond, 7, halves), Ref({2, 2}, {7, 6, 5, 7}), kHalf));
  EXPECT_TRUE(close(at::where(cond, 1.0, 0), Ref({2, 2}, {1, 0, 0, 1}), kFloat));
  EXPECT_TRUE(close(at::where(cond, 1, 0), Ref({2, 2}, {1, 0, 0, 1}), kLong));
  EXPECT_TRUE(close(at::where(cond, true, false), Ref({2, 2}, {1, 0, 0, 1}), kBool));
}

TEST_P(PointwiseTernary, WhereErrors) {
  const at::Tensor floats = make_tensor(Ref({2}, {1, 0}), kFloat, device());
  EXPECT_THAT(errorOf([&] { at::where(floats, floats, floats); }),
              HasSubstr("where: expected condition to be a boolean tensor, but got a "
                        "tensor with dtype Float"));
  const at::Tensor cond = make_tensor(Ref({3}, {1, 0, 1}), kBool, device());
  EXPECT_THAT(errorOf([&] { at::where(cond, floats, floats); }),
              HasSubstr("where: shapes [3] and [2] cannot be broadcast together"));
}

// ---- clamp ------------------------------------------------------------------------------

TEST_P(PointwiseTernary, ClampScalarBounds) {
  check_unary("clamp", [](const at::Tensor& x) { return at::clamp(x, -1, 2); },
              [](double x) { return clamp_ref(x, -1, 2); },
              {kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble}, {-4, 4},
              device());
  check_unary("clamp min only", [](const at::Tensor& x) { return x.clamp(1); },
              [](double x) { return std::max(x, 1.0); }, numeric_dtypes(), {-4, 4}, device());
  check_unary("clamp max only",
              [](const at::Tensor& x) { return at::clamp(x, std::nullopt, 2); },
              [](double x) { return std::min(x, 2.0); }, numeric_dtypes(), {-4, 4}, device());
  // A floating bound makes an integral tensor's result Float.
  check_unary("clamp float bounds", [](const at::Tensor& x) { return at::clamp(x, 0.5, 2.5); },
              [](double x) { return clamp_ref(x, 0.5, 2.5); }, numeric_dtypes(), {-4, 4},
              device(), [](ScalarType t) { return c10::isFloatingType(t) ? t : kFloat; });
  check_unary("clamp_min", [](const at::Tensor& x) { return at::clamp_min(x, 1); },
              [](double x) { return std::max(x, 1.0); }, numeric_dtypes(), {-4, 4}, device());
  check_unary("clamp_max", [](const at::Tensor& x) { return x.clamp_max(-1); },
              [](double x) { return std::min(x, -1.0); },
              {kChar, kInt, kLong, kFloat, kDouble}, {-4, 4}, device());
  check_unary_inplace("clamp_", [](at::Tensor& x) { x.clamp_(-1, 2); },
                      [](double x) { return clamp_ref(x, -1, 2); },
                      {kChar, kInt, kLong, kHalf, kFloat, kDouble}, {-4, 4}, device());
  check_unary_inplace("clamp_min_", [](at::Tensor& x) { at::clamp_min_(x, 0); },
                      [](double x) { return std::max(x, 0.0); }, numeric_dtypes(), {-4, 4},
                      device());
  check_unary_inplace("clamp_max_", [](at::Tensor& x) { x.clamp_max_(1); },
                      [](double x) { return std::min(x, 1.0); }, numeric_dtypes(), {-4, 4},
                      device());
  check_unary_out("clamp.out",
                  [](const at::Tensor& x, at::Tensor& out) { at::clamp_out(out, x, 0, 3); },
                  [](double x) { return clamp_ref(x, 0, 3); }, numeric_dtypes(), {-4, 4},
                  device());
  check_unary_out("clamp_min.out",
                  [](const at::Tensor& x, at::Tensor& out) { at::clamp_min_out(out, x, 2); },
                  [](double x) { return std::max(x, 2.0); }, {kInt, kFloat}, {-4, 4}, device());
  check_unary_out("clamp_max.out",
                  [](const at::Tensor& x, at::Tensor& out) { at::clamp_max_out(out, x, 2); },
                  [](double x) { return std::min(x, 2.0); }, {kInt, kFloat}, {-4, 4}, device());
}

TEST_P(PointwiseTernary, ClampTensorBounds) {
  std::vector<std::vector<ScalarType>> triples;
  for (ScalarType t : numeric_dtypes()) triples.push_back({t, t, t});
  triples.push_back({kInt, kFloat, kLong});
  triples.push_back({kHalf, kFloat, kHalf});
  check_ternary("clamp.Tensor",
                [](const at::Tensor& x, const at::Tensor& lo, const at::Tensor& hi) {
                  return at::clamp(x, lo, hi);
                },
                clamp_ref, triples, {{-4, 4}, {-3, 0}, {0, 3}}, device());
  auto pairs = same_pairs(numeric_dtypes());
  pairs.push_back({kInt, kDouble});
  check_binary("clamp_min.Tensor",
               [](const at::Tensor& x, const at::Tensor& lo) { return at::clamp_min(x, lo); },
               [](double x, double lo) { return std::max(x, lo); }, pairs, {-4, 4}, {-4, 4},
               device());
  check_binary("clamp_max.Tensor",
               [](const at::Tensor& x, const at::Tensor& hi) { return x.clamp_max(hi); },
               [](double x, double hi) { return std::min(x, hi); }, pairs, {-4, 4}, {-4, 4},
               device());
  check_binary("clamp.Tensor max only",
               [](const at::Tensor& x, const at::Tensor& hi) {
                 return at::clamp(x, std::optional<at::Tensor>(), hi);
               },
               [](double x, double hi) { return std::min(x, hi); }, pairs, {-4, 4}, {-4, 4},
               device());
  const at::Tensor x = make_tensor(Ref({4}, {-3, -1, 1, 3}), kFloat, device());
  const at::Tensor lo = make_tensor(Ref({4}, {-2, 0, 0, 0}), kFloat, device());
  const at::Tensor hi = make_tensor(Ref({}, {2}), kFloat, device());
  at::Tensor y = x.clone();
  y.clamp_(lo, hi);
  EXPECT_TRUE(close(y, Ref({4}, {-2, 0, 1, 2}), kFloat));
  y = x.clone();
  at::clamp_min_(y, lo);
  EXPECT_TRUE(close(y, Ref({4}, {-2, 0, 1, 3}), kFloat));
  y = x.clone();
  y.clamp_max_(hi);
  EXPECT_TRUE(close(y, Ref({4}, {-3, -1, 1, 2}), kFloat));
  at::Tensor out = at::empty({0}, options(kDouble));
  at::clamp_out(out, x, lo, hi);
  EXPECT_TRUE(close(out, Ref({4}, {-2, 0, 1, 2}), kDouble));
  at::clamp_min_out(out, x, lo);
  EXPECT_TRUE(close(out, Ref({4}, {-2, 0, 1, 3}), kDouble));
  at::clamp_max_out(out, x, hi);
  EXPECT_TRUE(close(out, Ref({4}, {-3, -1, 1, 2}), kDouble));
}

TEST_P(PointwiseTernary, ClampNanAndCrossedBounds) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const at::Tensor x = make_tensor(Ref({3}, {nan, -5, 5}), kFloat, device());
  EXPECT_TRUE(close(at::clamp(x, -1, 1), Ref({3}, {nan, -1, 1}), kFloat));
  EXPECT_TRUE(close(at::clamp(x, nan, 1), Ref({3}, {nan, nan, nan}), kFloat));
  // min > max: every element becomes max.
  EXPECT_TRUE(close(at::clamp(x.clamp(0, 0), 2, 1), Ref({3}, {nan, 1, 1}), kFloat));
}

TEST_P(PointwiseTernary, ClampErrors) {
  const at::Tensor x = make_tensor(Ref({2}, {1, 2}), kFloat, device());
  EXPECT_THAT(errorOf([&] { at::clamp(x, std::optional<at::Scalar>(), std::nullopt); }),
              HasSubstr("clamp: At least one of 'min' or 'max' must not be None"));
  EXPECT_THAT(errorOf([&] {
                at::clamp(x, std::optional<at::Tensor>(), std::optional<at::Tensor>());
              }),
              HasSubstr("At least one of 'min' or 'max' must not be None"));
  const at::Tensor flags = make_tensor(Ref({2}, {1, 0}), kBool, device());
  EXPECT_THAT(errorOf([&] { at::clamp(flags, 0, 1); }),
              HasSubstr("clamp: bool tensors are not supported"));
  at::Tensor ints = make_tensor(Ref({2}, {1, 2}), kInt, device());
  EXPECT_THAT(errorOf([&] { ints.clamp_(0.5, 1.5); }),
              HasSubstr("clamp_: result type Float can't be cast to the desired output "
                        "type Int"));
}

// ---- addcmul / addcdiv -------------------------------------------------------------------

TEST_P(PointwiseTernary, AddcmulAddcdiv) {
  std::vector<std::vector<ScalarType>> triples;
  for (ScalarType t : numeric_dtypes()) triples.push_back({t, t, t});
  triples.push_back({kFloat, kInt, kDouble});
  triples.push_back({kLong, kInt, kShort});
  check_ternary("addcmul",
                [](const at::Tensor& s, const at::Tensor& a, const at::Tensor& b) {
                  return at::addcmul(s, a, b, 2);
                },
                [](double s, double a, double b) { return s + 2 * a * b; }, triples,
                {{}, {}, {}}, device());
  std::vector<std::vector<ScalarType>> floating;
  for (ScalarType t : floating_dtypes()) floating.push_back({t, t, t});
  floating.push_back({kInt, kFloat, kLong});
  floating.push_back({kHalf, kHalf, kFloat});
  check_ternary("addcdiv",
                [](const at::Tensor& s, const at::Tensor& a, const at::Tensor& b) {
                  return s.addcdiv(a, b, 0.5);
                },
                [](double s, double a, double b) { return s + 0.5 * a / b; }, floating,
                {{}, {}, {1, 3}}, device(), same_dtype, {true, true, true},
                Tol{2e-2, 2e-2});
  const at::Tensor s = make_tensor(Ref({3}, {1, 2, 3}), kFloat, device());
  const at::Tensor a = make_tensor(Ref({3}, {2, 2, 2}), kFloat, device());
  const at::Tensor b = make_tensor(Ref({1}, {4}), kFloat, device());
  at::Tensor y = s.clone();
  y.addcmul_(a, b, 0.5);
  EXPECT_TRUE(close(y, Ref({3}, {5, 6, 7}), kFloat));
  y = s.clone();
  y.addcdiv_(a, b);
  EXPECT_TRUE(close(y, Ref({3}, {1.5, 2.5, 3.5}), kFloat));
  at::Tensor out = at::empty({0}, options(kDouble));
  at::addcmul_out(out, s, a, b);
  EXPECT_TRUE(close(out, Ref({3}, {9, 10, 11}), kDouble));
  at::addcdiv_out(out, s, a, b, -2);
  EXPECT_TRUE(close(out, Ref({3}, {0, 1, 2}), kDouble));
}

TEST_P(PointwiseTernary, AddcmulAddcdivErrors) {
  const at::Tensor ints = make_tensor(Ref({2}, {1, 2}), kInt, device());
  EXPECT_THAT(errorOf([&] { at::addcdiv(ints, ints, ints); }),
              HasSubstr("Integer division with addcdiv is no longer supported"));
  EXPECT_THAT(errorOf([&] { at::addcmul(ints, ints, ints, 0.5); }),
              HasSubstr("addcmul: For integral input tensors, argument value must not be "
                        "a floating point number"));
  const at::Tensor flags = make_tensor(Ref({2}, {1, 0}), kBool, device());
  EXPECT_THAT(errorOf([&] { at::addcmul(flags, flags, flags); }),
              HasSubstr("not implemented for dtype Bool"));
}

// ---- lerp ----------------------------------------------------------------------------------

double lerp_ref(double a, double b, double w) { return a + w * (b - a); }

TEST_P(PointwiseTernary, Lerp) {
  for (double w : {0.0, 0.25, 0.5, 1.0, 1.5, -0.5}) {
    check_binary("lerp.Scalar " + std::to_string(w),
                 [w](const at::Tensor& a, const at::Tensor& b) { return at::lerp(a, b, w); },
                 [w](double a, double b) { return lerp_ref(a, b, w); },
                 same_pairs(floating_dtypes()), {}, {}, device());
  }
  std::vector<std::vector<ScalarType>> triples;
  for (ScalarType t : floating_dtypes()) triples.push_back({t, t, t});
  check_ternary("lerp.Tensor",
                [](const at::Tensor& a, const at::Tensor& b, const at::Tensor& w) {
                  return a.lerp(b, w);
                },
                lerp_ref, triples, {{}, {}, {-0.5, 1.5}}, device(), same_dtype,
                {true, true, true}, Tol{2e-2, 3e-2});
  // Weight 1 gives exactly `end`.
  const at::Tensor a = make_tensor(Ref({2}, {0.1, 1e8}), kFloat, device());
  const at::Tensor b = make_tensor(Ref({2}, {0.3, -7}), kFloat, device());
  EXPECT_TRUE(close(at::lerp(a, b, 1), Ref({2}, {0.3, -7}), kFloat, Tol{0, 0}));
  at::Tensor y = a.clone();
  y.lerp_(b, 0.5);
  EXPECT_TRUE(close(y, Ref({2}, {0.2, 5e7 - 3.5}), kFloat));
  y = a.clone();
  y.lerp_(b, make_tensor(Ref({}, {0}), kFloat, device()));
  EXPECT_TRUE(close(y, Ref({2}, {0.1, 1e8}), kFloat));
  at::Tensor out = at::empty({0}, options(kFloat));
  at::lerp_out(out, a, b, 0.25);
  EXPECT_TRUE(close(out, Ref({2}, {0.15, 1e8 - 0.25 * (1e8 + 7)}), kFloat));
  at::lerp_out(out, a, b, make_tensor(Ref({2}, {1, 0}), kFloat, device()));
  EXPECT_TRUE(close(out, Ref({2}, {0.3, 1e8}), kFloat));
}

TEST_P(PointwiseTernary, LerpErrors) {
  const at::Tensor f = make_tensor(Ref({2}, {1, 2}), kFloat, device());
  const at::Tensor d = make_tensor(Ref({2}, {1, 2}), kDouble, device());
  EXPECT_THAT(errorOf([&] { at::lerp(f, d, 0.5); }),
              HasSubstr("lerp: expected dtype Float for `end` but got dtype Double"));
  EXPECT_THAT(errorOf([&] { at::lerp(f, f, d); }),
              HasSubstr("lerp: expected dtype Float for `weight` but got dtype Double"));
  const at::Tensor ints = make_tensor(Ref({2}, {1, 2}), kInt, device());
  EXPECT_THAT(errorOf([&] { at::lerp(ints, ints, 0.5); }),
              HasSubstr("not implemented for dtype Int"));
}

}  // namespace
}  // namespace ember_conformance
