// The CUDA kernels' element functions (backends/cuda/kernels/element_ops.cuh)
// run on the host, against the CPU plugin's ops on the same values: every
// BinaryOp, UnaryOp, PredicateOp, CompareOp and TernaryOp on each dtype the
// CUDA kernels are built for, with the parameters the CUDA host code
// (backends/cuda/pointwise_ops.cc) passes, and the reductions' max/min rule
// combined in a block's order. CI has no GPU: this is where the kernels'
// arithmetic is checked there (the launches and memory traffic are the GPU
// suite's, cuda_gpu_test).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "backends/cuda/kernels/element_ops.cuh"

namespace {

namespace k = ember::cuda::kernels;
using c10::ScalarType;

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// The values each dtype is checked on (floating ones include the specials).
std::vector<double> values_of(ScalarType t) {
  switch (t) {
    case ScalarType::Float:
    case ScalarType::Double:
      return {-3.5, -2.5, -1, -0.75, -0.0, 0, 0.3, 0.5, 1, 1.5, 2.5, 7, 30, kInf, -kInf, kNan};
    case ScalarType::Bool:
      return {0, 1};
    default:
      return {-7, -3, -2, -1, 0, 1, 2, 3, 5, 100, 2147483647, -2147483647};
  }
}

at::Tensor tensor_of(const std::vector<double>& v, ScalarType t) {
  return at::tensor(v, at::TensorOptions().dtype(at::kDouble)).to(t);
}

// The element values a tensor holds, as doubles (after its dtype rounded them).
std::vector<double> doubles(const at::Tensor& t) {
  const at::Tensor d = t.to(at::kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

// f(T{}) for the C++ type of a kernel dtype.
template <typename F>
void with_type(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float: f(float{}); return;
    case ScalarType::Double: f(double{}); return;
    case ScalarType::Long: f(int64_t{}); return;
    case ScalarType::Int: f(int32_t{}); return;
    case ScalarType::Bool: f(bool{}); return;
    default: FAIL() << "no kernel dtype " << t;
  }
}

// Equal for integers and Bool; within a rounding or two for floating types
// (the CPU's vectorized exp/tanh are not libm's); NaN matches NaN.
bool same(double expected, double actual, ScalarType t) {
  if (std::isnan(expected)) return std::isnan(actual);
  if (std::isinf(expected)) return expected == actual;
  if (!c10::isFloatingType(t)) return expected == actual;
  const double tol = t == ScalarType::Float ? 4e-6 : 1e-13;
  return std::abs(expected - actual) <= tol * (1 + std::abs(expected));
}

std::string show(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

const std::vector<ScalarType> kFloating = {ScalarType::Float, ScalarType::Double};
const std::vector<ScalarType> kNumeric = {ScalarType::Float, ScalarType::Double,
                                          ScalarType::Long, ScalarType::Int};
const std::vector<ScalarType> kAll = {ScalarType::Float, ScalarType::Double, ScalarType::Long,
                                      ScalarType::Int, ScalarType::Bool};

// op on every pair (a, b) of t's values against cpu(a_column, b_row).
void check_binary(const char* name, k::BinaryOp op, const k::OpParams& p,
                  const std::vector<ScalarType>& dtypes,
                  const std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>& cpu) {
  for (ScalarType t : dtypes) {
    SCOPED_TRACE(std::string(name) + " " + c10::toString(t));
    const at::Tensor a = tensor_of(values_of(t), t);
    const std::vector<double> av = doubles(a);
    const int64_t n = a.numel();
    const std::vector<double> expected = doubles(cpu(a.reshape({n, 1}), a.reshape({1, n})));
    with_type(t, [&](auto tag) {
      using T = decltype(tag);
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          const double got = static_cast<double>(
              k::binary_value<T>(op, static_cast<T>(av[i]), static_cast<T>(av[j]), p));
          EXPECT_TRUE(same(expected[i * n + j], got, t))
              << "a=" << show(av[i]) << " b=" << show(av[j]) << ": cpu "
              << show(expected[i * n + j]) << ", kernel " << show(got);
        }
      }
    });
  }
}

void check_unary(const char* name, k::UnaryOp op, const k::OpParams& p,
                 const std::vector<ScalarType>& dtypes,
                 const std::function<at::Tensor(const at::Tensor&)>& cpu) {
  for (ScalarType t : dtypes) {
    SCOPED_TRACE(std::string(name) + " " + c10::toString(t));
    const at::Tensor x = tensor_of(values_of(t), t);
    const std::vector<double> xv = doubles(x);
    const std::vector<double> expected = doubles(cpu(x));
    with_type(t, [&](auto tag) {
      using T = decltype(tag);
      for (size_t i = 0; i < xv.size(); ++i) {
        const double got = static_cast<double>(k::unary_value<T>(op, static_cast<T>(xv[i]), p));
        EXPECT_TRUE(same(expected[i], got, t))
            << "x=" << show(xv[i]) << ": cpu " << show(expected[i]) << ", kernel " << show(got);
      }
    });
  }
}

k::OpParams alpha(double d, int64_t i) {
  k::OpParams p;
  p.d[0] = d;
  p.i[0] = i;
  return p;
}
k::OpParams pair(double a, double b) {
  k::OpParams p;
  p.d[0] = a;
  p.d[1] = b;
  p.i[0] = static_cast<int64_t>(a);
  p.i[1] = static_cast<int64_t>(b);
  return p;
}
// elu's parameters as pointwise_ops.cc passes them: scale, alpha * scale,
// input_scale.
k::OpParams elu(double a, double scale, double input_scale, int flag) {
  k::OpParams p;
  p.d[0] = scale;
  p.d[1] = a * scale;
  p.d[2] = input_scale;
  p.flag = flag;
  return p;
}
k::OpParams flag(int f) {
  k::OpParams p;
  p.flag = f;
  return p;
}

TEST(ElementOps, BinaryOpsMatchTheCpu) {
  using T = const at::Tensor&;
  check_binary("add", k::BinaryOp::kAdd, alpha(2, 2), kNumeric,
               [](T a, T b) { return at::add(a, b, 2); });
  check_binary("add bool", k::BinaryOp::kAdd, alpha(1, 1), {ScalarType::Bool},
               [](T a, T b) { return at::add(a, b); });
  check_binary("sub", k::BinaryOp::kSub, alpha(3, 3), kNumeric,
               [](T a, T b) { return at::sub(a, b, 3); });
  check_binary("mul", k::BinaryOp::kMul, {}, kAll, [](T a, T b) { return at::mul(a, b); });
  check_binary("div", k::BinaryOp::kDiv, {}, kFloating, [](T a, T b) { return at::div(a, b); });
  check_binary("maximum", k::BinaryOp::kMaximum, {}, kAll,
               [](T a, T b) { return at::maximum(a, b); });
  check_binary("minimum", k::BinaryOp::kMinimum, {}, kAll,
               [](T a, T b) { return at::minimum(a, b); });
  check_binary("pow", k::BinaryOp::kPow, {}, kNumeric, [](T a, T b) { return at::pow(a, b); });
  const std::vector<ScalarType> integral = {ScalarType::Long, ScalarType::Int, ScalarType::Bool};
  check_binary("bitwise_and", k::BinaryOp::kBitAnd, {}, integral,
               [](T a, T b) { return at::bitwise_and(a, b); });
  check_binary("bitwise_or", k::BinaryOp::kBitOr, {}, integral,
               [](T a, T b) { return at::bitwise_or(a, b); });
  check_binary("bitwise_xor", k::BinaryOp::kBitXor, {}, integral,
               [](T a, T b) { return at::bitwise_xor(a, b); });
  // Integer divisions: IntegerDivisionsMatchTheCpuAndRaiseZeroDivision.
  check_binary("div trunc", k::BinaryOp::kDivTrunc, {}, kFloating,
               [](T a, T b) { return at::div(a, b, "trunc"); });
  check_binary("div floor", k::BinaryOp::kDivFloor, {}, kFloating,
               [](T a, T b) { return at::div(a, b, "floor"); });
  check_binary("fmod", k::BinaryOp::kFmod, {}, kFloating,
               [](T a, T b) { return at::fmod(a, b); });
  check_binary("remainder", k::BinaryOp::kRemainder, {}, kFloating,
               [](T a, T b) { return at::remainder(a, b); });
  check_binary("clamp_min", k::BinaryOp::kClampMin, {}, kNumeric,
               [](T a, T b) { return at::clamp_min(a, b); });
  check_binary("clamp_max", k::BinaryOp::kClampMax, {}, kNumeric,
               [](T a, T b) { return at::clamp_max(a, b); });
}

TEST(ElementOps, BackwardOpsMatchTheCpu) {
  using T = const at::Tensor&;
  check_binary("sigmoid_backward", k::BinaryOp::kSigmoidBackward, {}, kFloating,
               [](T g, T y) { return at::sigmoid_backward(g, y); });
  check_binary("tanh_backward", k::BinaryOp::kTanhBackward, {}, kFloating,
               [](T g, T y) { return at::tanh_backward(g, y); });
  check_binary("silu_backward", k::BinaryOp::kSiluBackward, {}, kFloating,
               [](T g, T x) { return at::silu_backward(g, x); });
  check_binary("gelu_backward", k::BinaryOp::kGeluBackward, flag(0), kFloating,
               [](T g, T x) { return at::gelu_backward(g, x, "none"); });
  check_binary("gelu_backward tanh", k::BinaryOp::kGeluBackward, flag(1), kFloating,
               [](T g, T x) { return at::gelu_backward(g, x, "tanh"); });
  check_binary("elu_backward", k::BinaryOp::kEluBackward, elu(1.5, 1.1, 0.9, 0), kFloating,
               [](T g, T x) { return at::elu_backward(g, 1.5, 1.1, 0.9, false, x); });
  check_binary("elu_backward result", k::BinaryOp::kEluBackward, elu(1.5, 1.1, 0.9, 1),
               kFloating,
               [](T g, T y) { return at::elu_backward(g, 1.5, 1.1, 0.9, true, y); });
  check_binary("softplus_backward", k::BinaryOp::kSoftplusBackward, pair(2, 5), kFloating,
               [](T g, T x) { return at::softplus_backward(g, x, 2, 5); });
  check_binary("leaky_relu_backward", k::BinaryOp::kLeakyReluBackward, alpha(0.2, 0),
               kFloating, [](T g, T x) { return at::leaky_relu_backward(g, x, 0.2, false); });
  check_binary("hardtanh_backward", k::BinaryOp::kHardtanhBackward, pair(-1.5, 2), kNumeric,
               [](T g, T x) { return at::hardtanh_backward(g, x, -1.5, 2); });
}

TEST(ElementOps, UnaryOpsMatchTheCpu) {
  using T = const at::Tensor&;
  const std::vector<ScalarType> no_bool = kNumeric;
  check_unary("relu", k::UnaryOp::kRelu, {}, no_bool, [](T x) { return at::relu(x); });
  check_unary("neg", k::UnaryOp::kNeg, {}, no_bool, [](T x) { return at::neg(x); });
  check_unary("abs", k::UnaryOp::kAbs, {}, kAll, [](T x) { return at::abs(x); });
  check_unary("sign", k::UnaryOp::kSign, {}, kAll, [](T x) { return at::sign(x); });
  check_unary("floor", k::UnaryOp::kFloor, {}, no_bool, [](T x) { return at::floor(x); });
  check_unary("ceil", k::UnaryOp::kCeil, {}, no_bool, [](T x) { return at::ceil(x); });
  check_unary("round", k::UnaryOp::kRound, {}, no_bool, [](T x) { return at::round(x); });
  check_unary("trunc", k::UnaryOp::kTrunc, {}, no_bool, [](T x) { return at::trunc(x); });
  k::OpParams two = flag(0);
  two.d[0] = 100;
  check_unary("round(2)", k::UnaryOp::kRoundDecimals, two, kFloating,
              [](T x) { return at::round(x, 2); });
  k::OpParams minus_one = flag(1);
  minus_one.d[0] = 10;
  check_unary("round(-1)", k::UnaryOp::kRoundDecimals, minus_one, kFloating,
              [](T x) { return at::round(x, -1); });
  check_unary("bitwise_not", k::UnaryOp::kBitwiseNot, {},
              {ScalarType::Long, ScalarType::Int, ScalarType::Bool},
              [](T x) { return at::bitwise_not(x); });
  check_unary("hardtanh", k::UnaryOp::kHardtanh, pair(-1.5, 2), no_bool,
              [](T x) { return at::hardtanh(x, -1.5, 2); });
  // The floating functions (the host promotes integers before the kernel).
  const std::vector<std::pair<k::UnaryOp, at::Tensor (*)(const at::Tensor&)>> floating = {
      {k::UnaryOp::kExp, &at::exp},         {k::UnaryOp::kLog, &at::log},
      {k::UnaryOp::kSqrt, &at::sqrt},       {k::UnaryOp::kTanh, &at::tanh},
      {k::UnaryOp::kSigmoid, &at::sigmoid}, {k::UnaryOp::kLog1p, &at::log1p},
      {k::UnaryOp::kExpm1, &at::expm1},     {k::UnaryOp::kRsqrt, &at::rsqrt},
      {k::UnaryOp::kReciprocal, &at::reciprocal}, {k::UnaryOp::kSin, &at::sin},
      {k::UnaryOp::kCos, &at::cos},         {k::UnaryOp::kSilu, &at::silu},
  };
  for (const auto& [op, f] : floating) {
    check_unary("floating", op, {}, kFloating, f);
  }
  check_unary("leaky_relu", k::UnaryOp::kLeakyRelu, alpha(0.2, 0), kFloating,
              [](T x) { return at::leaky_relu(x, 0.2); });
  check_unary("gelu", k::UnaryOp::kGelu, flag(0), kFloating, [](T x) { return at::gelu(x); });
  check_unary("gelu tanh", k::UnaryOp::kGelu, flag(1), kFloating,
              [](T x) { return at::gelu(x, "tanh"); });
  check_unary("elu", k::UnaryOp::kElu, elu(1.5, 1.1, 0.9, 0), kFloating,
              [](T x) { return at::elu(x, 1.5, 1.1, 0.9); });
  check_unary("softplus", k::UnaryOp::kSoftplus, pair(2, 5), kFloating,
              [](T x) { return at::softplus(x, 2, 5); });
}

TEST(ElementOps, PredicatesAndComparisonsMatchTheCpu) {
  using T = const at::Tensor&;
  const std::vector<std::pair<k::PredicateOp, std::function<at::Tensor(T)>>> predicates = {
      {k::PredicateOp::kIsnan, [](T x) { return at::isnan(x); }},
      {k::PredicateOp::kIsinf, [](T x) { return at::isinf(x); }},
      {k::PredicateOp::kLogicalNot, [](T x) { return at::logical_not(x); }},
  };
  for (const auto& entry : predicates) {
    const k::PredicateOp op = entry.first;  // a plain name: lambdas below capture it
    const auto& cpu = entry.second;
    for (ScalarType t : kAll) {
      SCOPED_TRACE(c10::toString(t));
      const at::Tensor x = tensor_of(values_of(t), t);
      const std::vector<double> xv = doubles(x), expected = doubles(cpu(x));
      with_type(t, [&](auto tag) {
        using V = decltype(tag);
        for (size_t i = 0; i < xv.size(); ++i) {
          EXPECT_EQ(expected[i] != 0, k::predicate_value<V>(op, static_cast<V>(xv[i])))
              << "x=" << show(xv[i]);
        }
      });
    }
  }
  const std::vector<std::pair<k::CompareOp, std::function<at::Tensor(T, T)>>> comparisons = {
      {k::CompareOp::kEq, [](T a, T b) { return at::eq(a, b); }},
      {k::CompareOp::kNe, [](T a, T b) { return at::ne(a, b); }},
      {k::CompareOp::kLt, [](T a, T b) { return at::lt(a, b); }},
      {k::CompareOp::kLe, [](T a, T b) { return at::le(a, b); }},
      {k::CompareOp::kGt, [](T a, T b) { return at::gt(a, b); }},
      {k::CompareOp::kGe, [](T a, T b) { return at::ge(a, b); }},
      {k::CompareOp::kLogicalAnd, [](T a, T b) { return at::logical_and(a, b); }},
      {k::CompareOp::kLogicalOr, [](T a, T b) { return at::logical_or(a, b); }},
      {k::CompareOp::kLogicalXor, [](T a, T b) { return at::logical_xor(a, b); }},
  };
  for (const auto& entry : comparisons) {
    const k::CompareOp op = entry.first;
    const auto& cpu = entry.second;
    for (ScalarType t : kAll) {
      SCOPED_TRACE(c10::toString(t));
      const at::Tensor a = tensor_of(values_of(t), t);
      const std::vector<double> av = doubles(a);
      const int64_t n = a.numel();
      const std::vector<double> expected = doubles(cpu(a.reshape({n, 1}), a.reshape({1, n})));
      with_type(t, [&](auto tag) {
        using V = decltype(tag);
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            EXPECT_EQ(expected[i * n + j] != 0,
                      k::compare_value<V>(op, static_cast<V>(av[i]), static_cast<V>(av[j])))
                << "a=" << show(av[i]) << " b=" << show(av[j]);
          }
        }
      });
    }
  }
}

// Integer fmod/remainder/div with rounding modes against the CPU where the divisor is not 0, and the
// zero-division word raised where it is (the host then throws the CPU's
// ZeroDivisionError).
TEST(ElementOps, IntegerDivisionsMatchTheCpuAndRaiseZeroDivision) {
  for (k::BinaryOp op : {k::BinaryOp::kFmod, k::BinaryOp::kRemainder, k::BinaryOp::kDivTrunc,
                         k::BinaryOp::kDivFloor}) {
    for (ScalarType t : {ScalarType::Long, ScalarType::Int}) {
      SCOPED_TRACE(c10::toString(t));
      const std::vector<double> v = values_of(t);
      with_type(t, [&](auto tag) {
        using V = decltype(tag);
        for (double a : v) {
          for (double b : v) {
            unsigned raised = 0;
            k::OpParams p;
            p.zero_division = &raised;
            const double got = static_cast<double>(
                k::binary_value<V>(op, static_cast<V>(a), static_cast<V>(b), p));
            if (b == 0) {
              EXPECT_EQ(raised, 1u);
              continue;
            }
            EXPECT_EQ(raised, 0u);
            const at::Tensor ta = tensor_of({a}, t), tb = tensor_of({b}, t);
            const at::Tensor want =
                op == k::BinaryOp::kFmod        ? at::fmod(ta, tb)
                : op == k::BinaryOp::kRemainder ? at::remainder(ta, tb)
                : op == k::BinaryOp::kDivTrunc  ? at::div(ta, tb, "trunc")
                                                : at::div(ta, tb, "floor");
            EXPECT_EQ(doubles(want)[0], got) << show(a) << " % " << show(b);
          }
        }
      });
    }
  }
}

// Three inputs on every triple of a smaller value set.
TEST(ElementOps, TernaryOpsMatchTheCpu) {
  using T = const at::Tensor&;
  struct Case {
    const char* name;
    k::TernaryOp op;
    k::OpParams p;
    std::vector<ScalarType> dtypes;
    std::function<at::Tensor(T, T, T)> cpu;
  };
  const std::vector<Case> cases = {
      {"clamp", k::TernaryOp::kClamp, {}, kNumeric,
       [](T x, T lo, T hi) { return at::clamp(x, lo, hi); }},
      {"addcmul", k::TernaryOp::kAddcmul, alpha(0.5, 0), kFloating,
       [](T x, T y, T z) { return at::addcmul(x, y, z, 0.5); }},
      {"addcmul int", k::TernaryOp::kAddcmul, alpha(3, 3), {ScalarType::Long, ScalarType::Int},
       [](T x, T y, T z) { return at::addcmul(x, y, z, 3); }},
      {"addcdiv", k::TernaryOp::kAddcdiv, alpha(-2, 0), kFloating,
       [](T x, T y, T z) { return at::addcdiv(x, y, z, -2); }},
      {"lerp", k::TernaryOp::kLerp, {}, kFloating,
       [](T x, T y, T w) { return at::lerp(x, y, w); }},
  };
  for (const Case& c : cases) {
    for (ScalarType t : c.dtypes) {
      SCOPED_TRACE(std::string(c.name) + " " + c10::toString(t));
      std::vector<double> v = values_of(t);
      if (c10::isFloatingType(t)) v = {-2.5, -1, -0.0, 0.25, 0.5, 0.75, 1, 3, kInf, kNan};
      const at::Tensor x = tensor_of(v, t);
      const std::vector<double> xv = doubles(x);
      const int64_t n = x.numel();
      const std::vector<double> expected = doubles(
          c.cpu(x.reshape({n, 1, 1}), x.reshape({1, n, 1}), x.reshape({1, 1, n})));
      with_type(t, [&](auto tag) {
        using V = decltype(tag);
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            for (int64_t l = 0; l < n; ++l) {
              const double got = static_cast<double>(k::ternary_value<V>(
                  c.op, static_cast<V>(xv[i]), static_cast<V>(xv[j]), static_cast<V>(xv[l]),
                  c.p));
              const double want = expected[(i * n + j) * n + l];
              EXPECT_TRUE(same(want, got, t))
                  << show(xv[i]) << ", " << show(xv[j]) << ", " << show(xv[l]) << ": cpu "
                  << show(want) << ", kernel " << show(got);
            }
          }
        }
      });
    }
  }
}

// The reductions' rule, combined as extreme_rows combines it: each of
// `threads` threads scans a stride of the row, then a tree halves them.
template <bool kMax>
int64_t block_extreme(const std::vector<double>& v, int threads) {
  std::vector<double> best(threads, 0);
  std::vector<int64_t> at(threads, -1);
  for (int t = 0; t < threads; ++t) {
    for (size_t j = t; j < v.size(); j += threads) {
      if (at[t] < 0 || k::better<kMax>(best[t], at[t], v[j], static_cast<int64_t>(j))) {
        best[t] = v[j];
        at[t] = static_cast<int64_t>(j);
      }
    }
  }
  for (int half = threads / 2; half > 0; half /= 2) {
    for (int t = 0; t < half; ++t) {
      const int o = t + half;
      if (at[o] >= 0 && (at[t] < 0 || k::better<kMax>(best[t], at[t], best[o], at[o]))) {
        best[t] = best[o];
        at[t] = at[o];
      }
    }
  }
  return at[0];
}

TEST(ElementOps, ReductionExtremesTakeTheFirstPositionAndNaN) {
  const std::vector<std::vector<double>> rows = {
      {1, 3, 3, 2, 3, 0},
      {5, 5, 5, 5, 5, 5, 5, 5, 5},
      {1, kNan, 3, kNan, -1},
      {-kInf, 2, kInf, kInf, -kInf, 0, 0, 7},
      {0.5, -0.0, 0, -0.5, 0.5, -0.5, 2, -3, 2, -3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
  };
  for (const std::vector<double>& row : rows) {
    const at::Tensor t = tensor_of(row, ScalarType::Double);
    for (int threads : {1, 4, 8, 256}) {
      EXPECT_EQ(block_extreme<true>(row, threads), t.argmax().item<int64_t>()) << threads;
      EXPECT_EQ(block_extreme<false>(row, threads), t.argmin().item<int64_t>()) << threads;
    }
  }
}

}  // namespace
