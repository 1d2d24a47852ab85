// Conformance: the binary pointwise ops — Scalar overloads and in-place
// forms of add/sub/mul/div, rsub, div's rounding modes, pow, maximum,
// minimum, fmod, remainder, the comparisons and logical ops — against
// references, with PyTorch's promotion and errors.
#include <cmath>
#include <cstdint>
#include <limits>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class PointwiseBinary : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(PointwiseBinary);

const Dtypes& numeric_dtypes() {
  static const Dtypes d = {kByte, kChar, kShort, kInt, kLong,
                           kHalf, kBFloat16, kFloat, kDouble};
  return d;
}

std::vector<std::pair<ScalarType, ScalarType>> numeric_pairs() {
  auto pairs = same_pairs(numeric_dtypes());
  for (const auto& p : mixed_pairs()) {
    if (p.first != kBool && p.second != kBool) pairs.push_back(p);
  }
  return pairs;
}

// numeric_pairs without Byte, for negative divisors (which a Byte result
// would wrap to large positive ones before dividing).
std::vector<std::pair<ScalarType, ScalarType>> signed_divisor_pairs() {
  std::vector<std::pair<ScalarType, ScalarType>> pairs;
  for (const auto& p : numeric_pairs()) {
    if (p.first != kByte && p.second != kByte) pairs.push_back(p);
  }
  return pairs;
}

std::vector<std::pair<ScalarType, ScalarType>> all_pairs() {
  auto pairs = same_pairs(all_dtypes());
  for (const auto& p : mixed_pairs()) pairs.push_back(p);
  return pairs;
}

// Whether promoting the pair may convert one side to a narrower dtype of
// the same category (a 0-dim Float with a Half tensor computes in Half, a
// 0-dim Char with a Byte tensor in Byte, where -2 is 254); references in
// doubles then see other values than the op, which matters for exact
// results (comparisons, remainders).
bool narrows(const std::pair<ScalarType, ScalarType>& p) {
  auto category = [](ScalarType t) {
    return t == kBool ? 0 : c10::isFloatingType(t) ? 2 : 1;
  };
  return p.first != p.second && category(p.first) == category(p.second);
}
std::vector<std::pair<ScalarType, ScalarType>> without_narrowing(
    const std::vector<std::pair<ScalarType, ScalarType>>& pairs) {
  std::vector<std::pair<ScalarType, ScalarType>> out;
  for (const auto& p : pairs) {
    if (!narrows(p)) out.push_back(p);
  }
  return out;
}

// The dtype of `tensor op integer` and `tensor op float`: a wrapped number
// only lifts the category (bool -> Long, integral -> Float).
ScalarType with_int_scalar(ScalarType t) { return t == kBool ? kLong : t; }
ScalarType with_float_scalar(ScalarType t) {
  return c10::isFloatingType(t) ? t : kFloat;
}

double floor_div(double a, double b) { return std::floor(a / b); }
double py_mod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// ---- Scalar overloads, in-place Scalar forms, rsub ---------------------------------

TEST_P(PointwiseBinary, ScalarOverloadsPromoteAsPythonNumbers) {
  const Dtypes numeric_and_bool = all_dtypes();
  check_unary("add.Scalar", [](const at::Tensor& x) { return at::add(x, 2, 3); },
              [](double x) { return x + 6; }, numeric_and_bool, {}, device(),
              with_int_scalar);
  check_unary("add.Scalar float", [](const at::Tensor& x) { return x.add(2.5); },
              [](double x) { return x + 2.5; }, numeric_and_bool, {}, device(),
              with_float_scalar);
  check_unary("sub.Scalar", [](const at::Tensor& x) { return at::sub(x, 2); },
              [](double x) { return x - 2; }, numeric_dtypes(), {}, device(),
              with_int_scalar);
  check_unary("mul.Scalar", [](const at::Tensor& x) { return at::mul(x, 3); },
              [](double x) { return x * 3; }, numeric_and_bool, {}, device(),
              with_int_scalar);
  check_unary("mul.Scalar float", [](const at::Tensor& x) { return x.mul(0.5); },
              [](double x) { return x * 0.5; }, numeric_and_bool, {}, device(),
              with_float_scalar);
  check_unary("div.Scalar", [](const at::Tensor& x) { return at::div(x, 4); },
              [](double x) { return x / 4; }, numeric_and_bool, {}, device(), to_float);
  check_unary("rsub.Scalar", [](const at::Tensor& x) { return at::rsub(x, 5, 2); },
              [](double x) { return 5 - 2 * x; }, numeric_dtypes(), {}, device(),
              with_int_scalar);
  check_binary("rsub.Tensor",
               [](const at::Tensor& a, const at::Tensor& b) { return at::rsub(a, b, 2); },
               [](double a, double b) { return b - 2 * a; }, numeric_pairs(), {}, {},
               device());
}

TEST_P(PointwiseBinary, InPlaceScalarForms) {
  check_unary_inplace("add_.Scalar", [](at::Tensor& x) { x.add_(2, 2); },
                      [](double x) { return x + 4; }, numeric_dtypes(), {}, device());
  check_unary_inplace("sub_.Scalar", [](at::Tensor& x) { x.sub_(1); },
                      [](double x) { return x - 1; }, numeric_dtypes(), {1, 4}, device());
  check_unary_inplace("mul_.Scalar", [](at::Tensor& x) { x.mul_(3); },
                      [](double x) { return x * 3; }, numeric_dtypes(), {}, device());
  check_unary_inplace("div_.Scalar", [](at::Tensor& x) { x.div_(4); },
                      [](double x) { return x / 4; }, floating_dtypes(), {}, device());
  check_unary_inplace("div_.Scalar_mode", [](at::Tensor& x) { x.div_(2, "floor"); },
                      [](double x) { return std::floor(x / 2); }, numeric_dtypes(), {},
                      device());
  // A Float result cannot be stored in place into an integer tensor.
  at::Tensor ints = make_tensor(Ref({2}, {1, 2}), kInt, device());
  EXPECT_THAT(errorOf([&] { ints.add_(0.5); }),
              HasSubstr("add_: result type Float can't be cast to the desired output "
                        "type Int"));
  EXPECT_THAT(errorOf([&] { ints.div_(2); }),
              HasSubstr("div_: result type Float can't be cast"));
}

// ---- div with rounding_mode ---------------------------------------------------------

TEST_P(PointwiseBinary, DivRoundingModes) {
  auto trunc_div = [](const at::Tensor& a, const at::Tensor& b) {
    return at::div(a, b, "trunc");
  };
  auto floor_div_op = [](const at::Tensor& a, const at::Tensor& b) {
    return a.div(b, "floor");
  };
  for (Domain divisors : {Domain{1, 4}, Domain{-4, -1}}) {
    const auto pairs = divisors.lo < 0 ? signed_divisor_pairs() : numeric_pairs();
    check_binary("div trunc", trunc_div, [](double a, double b) { return std::trunc(a / b); },
                 pairs, {-9, 9}, divisors, device());
    check_binary("div floor", floor_div_op, floor_div, pairs, {-9, 9}, divisors, device());
  }
  // None is true division (integers give Float).
  check_binary("div None",
               [](const at::Tensor& a, const at::Tensor& b) {
                 return at::div(a, b, std::nullopt);
               },
               [](double a, double b) { return a / b; }, numeric_pairs(), {}, {1, 4},
               device(), to_float);
  // Python's floor division of floats, and division by zero.
  const at::Tensor a = make_tensor(Ref({6}, {-7.5, 7.5, 1, -1, 0, 5}), kDouble, device());
  const at::Tensor b = make_tensor(Ref({6}, {2, -2, 0, 0, 0, 0.1}), kDouble, device());
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(close(at::div(a, b, "floor"), Ref({6}, {-4, -4, inf, -inf, nan, 49}), kDouble));
  EXPECT_TRUE(close(at::div(a, b, "trunc"), Ref({6}, {-3, -3, inf, -inf, nan, 50}), kDouble));
  // INT64_MIN / -1 wraps instead of trapping.
  const auto min64 = static_cast<double>(std::numeric_limits<int64_t>::min());
  const at::Tensor m = make_tensor(Ref({1}, {min64}), kLong, device());
  EXPECT_EQ(at::div(m, -1, "floor").item<int64_t>(), std::numeric_limits<int64_t>::min());
  // Scalar overloads, out= and in place.
  const at::Tensor ints = make_tensor(Ref({4}, {-7, 7, -7, 7}), kLong, device());
  EXPECT_TRUE(close(at::div(ints, 2, "floor"), Ref({4}, {-4, 3, -4, 3}), kLong));
  EXPECT_TRUE(close(ints.div(-2, "trunc"), Ref({4}, {3, -3, 3, -3}), kLong));
  at::Tensor out = at::empty({0}, options(kLong));
  at::div_out(out, ints, make_tensor(Ref({4}, {2, -2, -2, 2}), kLong, device()), "floor");
  EXPECT_TRUE(close(out, Ref({4}, {-4, -4, 3, 3}), kLong));
  at::Tensor y = ints.clone();
  y.div_(make_tensor(Ref({}, {3}), kLong, device()), "trunc");
  EXPECT_TRUE(close(y, Ref({4}, {-2, 2, -2, 2}), kLong));
}

TEST_P(PointwiseBinary, DivErrors) {
  const at::Tensor ints = make_tensor(Ref({3}, {1, 2, 3}), kInt, device());
  const at::Tensor zeros = make_tensor(Ref({3}, {1, 0, 1}), kInt, device());
  EXPECT_THAT(errorOf([&] { at::div(ints, zeros, "floor"); }),
              HasSubstr("ZeroDivisionError"));
  EXPECT_THAT(errorOf([&] { at::div(ints, 0, "trunc"); }), HasSubstr("ZeroDivisionError"));
  EXPECT_THAT(errorOf([&] { at::div(ints, ints, "round"); }),
              HasSubstr("div: expected rounding_mode to be one of None, 'trunc', or "
                        "'floor' but found 'round'"));
  const at::Tensor flags = make_tensor(Ref({2}, {1, 1}), kBool, device());
  EXPECT_THAT(errorOf([&] { at::div(flags, flags, "floor"); }),
              HasSubstr("not implemented for dtype Bool"));
  // Floating division by zero with a rounding mode is inf or nan, not an error.
  EXPECT_NO_THROW(at::div(make_tensor(Ref({3}, {1, 2, 3}), kFloat, device()), zeros, "floor"));
}

// ---- pow --------------------------------------------------------------------------

TEST_P(PointwiseBinary, PowTensorTensor) {
  check_binary("pow", [](const at::Tensor& a, const at::Tensor& b) { return at::pow(a, b); },
               [](double a, double b) { return std::pow(a, b); },
               same_pairs(floating_dtypes()), {0.5, 3}, {-2, 2}, device());
  check_binary("pow int", [](const at::Tensor& a, const at::Tensor& b) { return a.pow(b); },
               [](double a, double b) { return std::pow(a, b); },
               same_pairs({kChar, kShort, kInt, kLong}), {-3, 3}, {0, 4}, device());
  check_binary("pow mixed",
               [](const at::Tensor& a, const at::Tensor& b) { return at::pow(a, b); },
               [](double a, double b) { return std::pow(a, b); },
               {{kInt, kFloat}, {kFloat, kDouble}, {kByte, kChar}}, {1, 3}, {0, 3},
               device());
  // Negative integer exponents: the integer part of base^exponent.
  const at::Tensor base = make_tensor(Ref({4}, {1, -1, -1, 2}), kLong, device());
  const at::Tensor exponent = make_tensor(Ref({4}, {-3, -3, -2, -1}), kLong, device());
  EXPECT_TRUE(close(at::pow(base, exponent), Ref({4}, {1, -1, 1, 0}), kLong));
  // Integer overflow wraps.
  const at::Tensor big = make_tensor(Ref({1}, {3}), kChar, device());
  EXPECT_TRUE(close(at::pow(big, make_tensor(Ref({1}, {5}), kChar, device())),
                    Ref({1}, {-13}), kChar));  // 243 as int8
  at::Tensor out = at::empty({0}, options(kDouble));
  const at::Tensor dbase = make_tensor(Ref({4}, {1, -1, -1, 2}), kDouble, device());
  at::pow_out(out, dbase, exponent);
  EXPECT_TRUE(close(out, Ref({4}, {1, -1, 1, 0.5}), kDouble));
  at::Tensor x = dbase.clone();
  x.pow_(exponent);
  EXPECT_TRUE(close(x, Ref({4}, {1, -1, 1, 0.5}), kDouble));
}

TEST_P(PointwiseBinary, PowScalarExponentAndBase) {
  for (double e : {2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 1.7, 0.0}) {
    check_unary("pow.Tensor_Scalar " + std::to_string(e),
                [e](const at::Tensor& x) { return at::pow(x, e); },
                [e](double x) { return std::pow(x, e); }, floating_dtypes(), {0.5, 3},
                device());
  }
  check_unary("pow int", [](const at::Tensor& x) { return x.pow(3); },
              [](double x) { return std::pow(x, 3); }, {kChar, kShort, kInt, kLong}, {-4, 4},
              device());
  check_unary("pow int ** float", [](const at::Tensor& x) { return at::pow(x, 0.5); },
              [](double x) { return std::sqrt(x); }, {kByte, kInt, kLong}, {0, 9}, device(),
              to_float);
  check_unary("pow.Scalar", [](const at::Tensor& x) { return at::pow(2, x); },
              [](double x) { return std::pow(2, x); }, {kByte, kInt, kLong, kFloat, kDouble},
              {0, 6}, device());
  check_unary("pow.Scalar float base", [](const at::Tensor& x) { return at::pow(1.5, x); },
              [](double x) { return std::pow(1.5, x); }, {kInt, kLong, kFloat, kDouble},
              {-2, 4}, device(), to_float);
  check_unary_inplace("pow_.Scalar", [](at::Tensor& x) { x.pow_(2); },
                      [](double x) { return x * x; }, numeric_dtypes(), {0, 5}, device());
  check_unary_out("pow.Tensor_Scalar_out",
                  [](const at::Tensor& x, at::Tensor& out) { at::pow_out(out, x, 2); },
                  [](double x) { return x * x; }, numeric_dtypes(), {0, 5}, device());
  check_unary_out("pow.Scalar_out",
                  [](const at::Tensor& x, at::Tensor& out) { at::pow_out(out, 3, x); },
                  [](double x) { return std::pow(3, x); }, {kInt, kFloat}, {0, 4}, device());
  const at::Tensor ints = make_tensor(Ref({2}, {2, 3}), kInt, device());
  EXPECT_THAT(errorOf([&] { at::pow(ints, -1); }),
              HasSubstr("Integers to negative integer powers are not allowed"));
  const at::Tensor flags = make_tensor(Ref({2}, {1, 0}), kBool, device());
  EXPECT_THAT(errorOf([&] { at::pow(flags, flags); }), HasSubstr("pow: bool tensors"));
  EXPECT_THAT(errorOf([&] { at::pow(flags, true); }), HasSubstr("pow: bool tensors"));
}

// ---- maximum / minimum ---------------------------------------------------------------

TEST_P(PointwiseBinary, MaximumMinimum) {
  check_binary("maximum",
               [](const at::Tensor& a, const at::Tensor& b) { return at::maximum(a, b); },
               [](double a, double b) { return std::max(a, b); }, all_pairs(), {}, {},
               device());
  check_binary("minimum",
               [](const at::Tensor& a, const at::Tensor& b) { return a.minimum(b); },
               [](double a, double b) { return std::min(a, b); }, all_pairs(), {}, {},
               device());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const at::Tensor a = make_tensor(Ref({3}, {nan, 1, 2}), kFloat, device());
  const at::Tensor b = make_tensor(Ref({3}, {1, nan, 3}), kFloat, device());
  EXPECT_TRUE(close(at::maximum(a, b), Ref({3}, {nan, nan, 3}), kFloat));
  EXPECT_TRUE(close(at::minimum(a, b), Ref({3}, {nan, nan, 2}), kFloat));
  at::Tensor out = at::empty({0}, options(kDouble));
  at::maximum_out(out, a, b);
  EXPECT_TRUE(close(out, Ref({3}, {nan, nan, 3}), kDouble));
  at::minimum_out(out, b, b);
  EXPECT_TRUE(close(out, Ref({3}, {1, nan, 3}), kDouble));
}

// ---- fmod / remainder ------------------------------------------------------------------

TEST_P(PointwiseBinary, FmodAndRemainderSignConventions) {
  for (Domain divisors : {Domain{1, 4}, Domain{-4, -1}}) {
    const auto pairs = without_narrowing(divisors.lo < 0 ? signed_divisor_pairs()
                                                         : numeric_pairs());
    check_binary("fmod", [](const at::Tensor& a, const at::Tensor& b) { return at::fmod(a, b); },
                 [](double a, double b) { return std::fmod(a, b); }, pairs, {-9, 9},
                 divisors, device());
    check_binary("remainder",
                 [](const at::Tensor& a, const at::Tensor& b) { return a.remainder(b); },
                 py_mod, pairs, {-9, 9}, divisors, device());
  }
  check_unary("fmod.Scalar", [](const at::Tensor& x) { return at::fmod(x, 3); },
              [](double x) { return std::fmod(x, 3); }, numeric_dtypes(), {-9, 9}, device());
  check_unary("remainder.Scalar", [](const at::Tensor& x) { return at::remainder(x, -3); },
              [](double x) { return py_mod(x, -3); }, {kChar, kInt, kLong, kFloat, kDouble},
              {-9, 9}, device());
  check_unary("remainder.Scalar float", [](const at::Tensor& x) { return x.remainder(1.5); },
              [](double x) { return py_mod(x, 1.5); }, {kInt, kLong, kFloat, kDouble},
              {-9, 9}, device(), to_float);
  check_unary("remainder.Scalar_Tensor",
              [](const at::Tensor& x) { return at::remainder(7, x); },
              [](double x) { return py_mod(7, x); }, {kInt, kLong, kFloat, kDouble}, {1, 5},
              device());
  check_unary_inplace("fmod_.Scalar", [](at::Tensor& x) { x.fmod_(2); },
                      [](double x) { return std::fmod(x, 2); }, numeric_dtypes(), {-9, 9},
                      device());
  check_unary_inplace("remainder_.Tensor", [&](at::Tensor& x) {
    x.remainder_(make_tensor(Ref({}, {4}), x.scalar_type(), x.device()));
  }, [](double x) { return py_mod(x, 4); }, numeric_dtypes(), {-9, 9}, device());
  check_unary_out("fmod.Scalar_out",
                  [](const at::Tensor& x, at::Tensor& out) { at::fmod_out(out, x, -2); },
                  [](double x) { return std::fmod(x, -2); }, {kInt, kFloat}, {-9, 9},
                  device());
  check_unary_out("remainder.Tensor_out", [](const at::Tensor& x, at::Tensor& out) {
    at::remainder_out(out, x, make_tensor(Ref({}, {-4}), kInt, x.device()));
  }, [](double x) { return py_mod(x, -4); }, {kInt, kDouble}, {-9, 9}, device());
  // Floating division by zero is NaN; integer division by zero an error.
  const at::Tensor f = make_tensor(Ref({2}, {1, -1}), kFloat, device());
  EXPECT_TRUE(std::isnan(at::fmod(f, 0).select(0, 0).item<float>()));
  EXPECT_TRUE(std::isnan(at::remainder(f, 0.0).select(0, 1).item<float>()));
  const at::Tensor ints = make_tensor(Ref({2}, {1, -1}), kLong, device());
  EXPECT_THAT(errorOf([&] { at::fmod(ints, 0); }), HasSubstr("fmod: ZeroDivisionError"));
  EXPECT_THAT(errorOf([&] { at::remainder(ints, ints - ints); }),
              HasSubstr("remainder: ZeroDivisionError"));
  const auto min64 = static_cast<double>(std::numeric_limits<int64_t>::min());
  const at::Tensor m = make_tensor(Ref({1}, {min64}), kLong, device());
  EXPECT_EQ(at::remainder(m, -1).item<int64_t>(), 0);
  EXPECT_EQ(at::fmod(m, -1).item<int64_t>(), 0);
  const at::Tensor flags = make_tensor(Ref({2}, {1, 1}), kBool, device());
  EXPECT_THAT(errorOf([&] { at::fmod(flags, flags); }), HasSubstr("fmod: bool tensors"));
}

// ---- comparisons and logical ops ---------------------------------------------------------

TEST_P(PointwiseBinary, ComparisonsAllForms) {
  struct Cmp {
    const char* name;
    std::function<at::Tensor(const at::Tensor&, const at::Tensor&)> tensor_op;
    std::function<at::Tensor(const at::Tensor&, const at::Scalar&)> scalar_op;
    std::function<void(at::Tensor&, const at::Tensor&)> inplace;
    std::function<void(const at::Tensor&, const at::Tensor&, at::Tensor&)> out;
    std::function<double(double, double)> ref;
  };
  const std::vector<Cmp> cmps = {
      {"eq", [](auto& a, auto& b) { return at::eq(a, b); },
       [](auto& a, auto& s) { return at::eq(a, s); }, [](auto& a, auto& b) { a.eq_(b); },
       [](auto& a, auto& b, auto& o) { at::eq_out(o, a, b); },
       [](double a, double b) { return a == b; }},
      {"ne", [](auto& a, auto& b) { return at::ne(a, b); },
       [](auto& a, auto& s) { return a.ne(s); }, [](auto& a, auto& b) { a.ne_(b); },
       [](auto& a, auto& b, auto& o) { at::ne_out(o, a, b); },
       [](double a, double b) { return a != b; }},
      {"lt", [](auto& a, auto& b) { return at::lt(a, b); },
       [](auto& a, auto& s) { return at::lt(a, s); }, [](auto& a, auto& b) { a.lt_(b); },
       [](auto& a, auto& b, auto& o) { at::lt_out(o, a, b); },
       [](double a, double b) { return a < b; }},
      {"le", [](auto& a, auto& b) { return a.le(b); },
       [](auto& a, auto& s) { return at::le(a, s); }, [](auto& a, auto& b) { a.le_(b); },
       [](auto& a, auto& b, auto& o) { at::le_out(o, a, b); },
       [](double a, double b) { return a <= b; }},
      {"gt", [](auto& a, auto& b) { return at::gt(a, b); },
       [](auto& a, auto& s) { return at::gt(a, s); }, [](auto& a, auto& b) { a.gt_(b); },
       [](auto& a, auto& b, auto& o) { at::gt_out(o, a, b); },
       [](double a, double b) { return a > b; }},
      {"ge", [](auto& a, auto& b) { return at::ge(a, b); },
       [](auto& a, auto& s) { return a.ge(s); }, [](auto& a, auto& b) { a.ge_(b); },
       [](auto& a, auto& b, auto& o) { at::ge_out(o, a, b); },
       [](double a, double b) { return a >= b; }},
  };
  for (const Cmp& c : cmps) {
    check_binary(c.name, c.tensor_op, c.ref, without_narrowing(all_pairs()), {-2, 2},
                 {-2, 2}, device(),
                 to_bool);
    // Scalar: an integral tensor compared with 1.5 compares as Float.
    const auto ref = c.ref;
    check_unary(std::string(c.name) + ".Scalar",
                [&c](const at::Tensor& x) { return c.scalar_op(x, 1.5); },
                [ref](double x) { return ref(x, 1.5); }, all_dtypes(), {-3, 3}, device(),
                to_bool);
    check_unary(std::string(c.name) + ".Scalar int",
                [&c](const at::Tensor& x) { return c.scalar_op(x, 1); },
                [ref](double x) { return ref(x, 1); }, all_dtypes(), {-3, 3}, device(),
                to_bool);
    // In place: self keeps its dtype and holds 0 or 1.
    check_unary_inplace(std::string(c.name) + "_", [&c](at::Tensor& x) {
      c.inplace(x, make_tensor(Ref({}, {1}), x.scalar_type(), x.device()));
    }, [ref](double x) { return ref(x, 1); }, all_dtypes(), {-3, 3}, device());
    // out= of another dtype than Bool.
    check_unary_out(std::string(c.name) + ".Tensor_out",
                    [&c](const at::Tensor& x, at::Tensor& out) {
                      c.out(x, make_tensor(Ref({}, {0}), kInt, x.device()), out);
                    },
                    [ref](double x) { return ref(x, 0); }, {kInt, kFloat, kDouble}, {-3, 3},
                    device(), [](ScalarType) { return kFloat; });
  }
  // The Scalar out= and in-place forms.
  const at::Tensor x = make_tensor(Ref({3}, {1, 2, 3}), kInt, device());
  at::Tensor out = at::empty({0}, options(kBool));
  at::ge_out(out, x, 2);
  EXPECT_TRUE(close(out, Ref({3}, {0, 1, 1}), kBool));
  at::Tensor y = x.clone();
  y.ne_(2);
  EXPECT_TRUE(close(y, Ref({3}, {1, 0, 1}), kInt));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const at::Tensor n = make_tensor(Ref({2}, {nan, 1}), kFloat, device());
  EXPECT_TRUE(close(at::eq(n, n), Ref({2}, {0, 1}), kBool));
  EXPECT_TRUE(close(at::ne(n, n), Ref({2}, {1, 0}), kBool));
  EXPECT_TRUE(close(at::le(n, 5), Ref({2}, {0, 1}), kBool));
}

TEST_P(PointwiseBinary, LogicalOps) {
  auto truth = [](double v) { return v != 0; };
  check_binary("logical_and",
               [](const at::Tensor& a, const at::Tensor& b) { return at::logical_and(a, b); },
               [&](double a, double b) { return truth(a) && truth(b); }, all_pairs(),
               {-1, 1}, {-1, 1}, device(), to_bool);
  check_binary("logical_or",
               [](const at::Tensor& a, const at::Tensor& b) { return a.logical_or(b); },
               [&](double a, double b) { return truth(a) || truth(b); }, all_pairs(),
               {-1, 1}, {-1, 1}, device(), to_bool);
  check_binary("logical_xor",
               [](const at::Tensor& a, const at::Tensor& b) { return at::logical_xor(a, b); },
               [&](double a, double b) { return truth(a) != truth(b); }, all_pairs(),
               {-1, 1}, {-1, 1}, device(), to_bool);
  const at::Tensor a = make_tensor(Ref({4}, {0, 0, 2, -3}), kFloat, device());
  const at::Tensor b = make_tensor(Ref({4}, {0, 1, 0, 5}), kLong, device());
  at::Tensor x = a.clone();
  x.logical_and_(b);
  EXPECT_TRUE(close(x, Ref({4}, {0, 0, 0, 1}), kFloat));
  x = a.clone();
  x.logical_or_(b);
  EXPECT_TRUE(close(x, Ref({4}, {0, 1, 1, 1}), kFloat));
  x = a.clone();
  x.logical_xor_(b);
  EXPECT_TRUE(close(x, Ref({4}, {0, 1, 1, 0}), kFloat));
  at::Tensor out = at::empty({0}, options(kDouble));
  at::logical_or_out(out, a, b);
  EXPECT_TRUE(close(out, Ref({4}, {0, 1, 1, 1}), kDouble));
  at::logical_xor_out(out, a, b);
  EXPECT_TRUE(close(out, Ref({4}, {0, 1, 1, 0}), kDouble));
  at::logical_and_out(out, a, b);
  EXPECT_TRUE(close(out, Ref({4}, {0, 0, 0, 1}), kDouble));
}

TEST_P(PointwiseBinary, BroadcastInPlaceErrors) {
  at::Tensor small = make_tensor(Ref({3}, {1, 2, 3}), kFloat, device());
  const at::Tensor big = make_tensor(Ref({2, 3}, {1, 2, 3, 4, 5, 6}), kFloat, device());
  EXPECT_THAT(errorOf([&] { small.lt_(big); }),
              HasSubstr("an output that is also an input cannot be resized"));
  EXPECT_THAT(errorOf([&] { small.fmod_(big); }), HasSubstr("fmod_: the output has shape"));
  EXPECT_THAT(errorOf([&] { at::maximum(small, make_tensor(Ref({2}, {1, 2}), kFloat,
                                                           device())); }),
              HasSubstr("maximum: shapes [3] and [2] cannot be broadcast together"));
}

}  // namespace
}  // namespace ember_conformance
