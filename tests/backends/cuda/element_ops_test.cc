// The CUDA kernels' element functions (backends/cuda/kernels/element_ops.cuh)
// run on the host, against the CPU plugin's ops on the same values: every
// BinaryOp, UnaryOp, PredicateOp, CompareOp and TernaryOp on each of the ten
// dtypes the pointwise kernels are built for (through the *_element
// functions the kernels call: Half and BFloat16 computed in float), with the
// parameters the CUDA host code (backends/cuda/pointwise_ops.cc) passes; the
// element conversions of copy_ (kernels/dtypes.cuh) for every dtype pair,
// and the Half/BFloat16 roundings bit for bit against c10's; and the
// reductions' max/min rule combined in a block's order (the sort's keys and
// scatter's step: sort_scatter_ops_test.cc). CI has no GPU: this is where the kernels'
// arithmetic is checked there (the launches and memory traffic are the GPU
// suite's, cuda_gpu_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <tuple>
#include <vector>

#include <ATen/ATen.h>

#include "backends/cuda/kernels/element_ops.cuh"
#include "c10/util/BFloat16.h"
#include "c10/util/Half.h"
#include "tests/backends/cuda/element_test_util.h"

namespace {

namespace k = ember::cuda::kernels;
using c10::ScalarType;

using ember_element_test::doubles;
using ember_element_test::elem;
using ember_element_test::kAll;
using ember_element_test::kFloating;
using ember_element_test::kInf;
using ember_element_test::kIntegral;
using ember_element_test::kNan;
using ember_element_test::kNumeric;
using ember_element_test::num;
using ember_element_test::same;
using ember_element_test::show;
using ember_element_test::tensor_of;
using ember_element_test::values_of;
using ember_element_test::with_type;

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
          const double got =
              num(k::binary_element<T>(op, elem<T>(av[i]), elem<T>(av[j]), p));
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
        const double got = num(k::unary_element<T>(op, elem<T>(xv[i]), p));
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
  std::vector<ScalarType> integral = kIntegral;
  integral.push_back(ScalarType::Bool);
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
              {ScalarType::Long, ScalarType::Int, ScalarType::Short, ScalarType::Char,
               ScalarType::Byte, ScalarType::Bool},
              [](T x) { return at::bitwise_not(x); });
  // Bounds each dtype holds (hardtanh refuses others: check_hardtanh_bounds).
  std::vector<ScalarType> signed_or_floating = no_bool;
  signed_or_floating.erase(
      std::find(signed_or_floating.begin(), signed_or_floating.end(), ScalarType::Byte));
  check_unary("hardtanh", k::UnaryOp::kHardtanh, pair(-1.5, 2), signed_or_floating,
              [](T x) { return at::hardtanh(x, -1.5, 2); });
  check_unary("hardtanh byte", k::UnaryOp::kHardtanh, pair(1.5, 100.7), {ScalarType::Byte},
              [](T x) { return at::hardtanh(x, 1.5, 100.7); });
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
          EXPECT_EQ(expected[i] != 0, k::predicate_element<V>(op, elem<V>(xv[i])))
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
                      k::compare_element<V>(op, elem<V>(av[i]), elem<V>(av[j])))
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
    for (ScalarType t : kIntegral) {
      SCOPED_TRACE(c10::toString(t));
      const std::vector<double> v = values_of(t);
      with_type(t, [&](auto tag) {
        using V = decltype(tag);
        for (double a : v) {
          for (double b : v) {
            unsigned raised = 0;
            k::OpParams p;
            p.zero_division = &raised;
            const double got = num(k::binary_element<V>(op, elem<V>(a), elem<V>(b), p));
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
      {"addcmul int", k::TernaryOp::kAddcmul, alpha(3, 3), kIntegral,
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
              const double got = num(k::ternary_element<V>(
                  c.op, elem<V>(xv[i]), elem<V>(xv[j]), elem<V>(xv[l]), c.p));
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

// copy_'s element conversion (kernels/dtypes.cuh convert<>) for every pair of
// the ten dtypes against the CPU's .to(): out-of-range floats to integers
// (wrapping through int64), NaN and infinities, narrowing integers, anything
// nonzero to true, Half and BFloat16 through float.
TEST(ElementOps, ConversionsMatchTheCpu) {
  std::vector<double> extra = {-2.5, 254.9, 300.7, -129.5, 70000.25, 1e20, -1e20, 65519, 65520};
  for (ScalarType from : kAll) {
    std::vector<double> v = values_of(from);
    if (c10::isFloatingType(from)) v.insert(v.end(), extra.begin(), extra.end());
    const at::Tensor src = tensor_of(v, from);
    const std::vector<double> sv = doubles(src);
    for (ScalarType to : kAll) {
      SCOPED_TRACE(std::string(c10::toString(from)) + " -> " + c10::toString(to));
      const std::vector<double> expected = doubles(src.to(to));
      with_type(from, [&](auto from_tag) {
        using F = decltype(from_tag);
        with_type(to, [&](auto to_tag) {
          using T = decltype(to_tag);
          for (size_t i = 0; i < sv.size(); ++i) {
            const double got = num(k::convert<T>(elem<F>(sv[i])));
            EXPECT_TRUE(std::isnan(expected[i]) ? std::isnan(got) : expected[i] == got)
                << "from " << show(sv[i]) << ": cpu " << show(expected[i]) << ", kernel "
                << show(got);
          }
        });
      });
    }
  }
}

// The roundings to Half and BFloat16 bit for bit against c10's: every Half
// pattern to float and back; the floats at, just below and just above each
// midpoint between neighbouring Halves (where ties go to even); a stride
// through all float patterns for both types.
TEST(ElementOps, HalfAndBFloat16RoundLikeC10) {
  auto same_bits = [](uint16_t want, uint16_t got) {
    const bool want_nan = (want & 0x7fffu) > 0x7c00u, got_nan = (got & 0x7fffu) > 0x7c00u;
    return want_nan ? got_nan : want == got;
  };
  auto same_bf16 = [](uint16_t want, uint16_t got) {
    const bool want_nan = (want & 0x7fffu) > 0x7f80u, got_nan = (got & 0x7fffu) > 0x7f80u;
    return want_nan ? got_nan : want == got;
  };
  int failures = 0;
  for (uint32_t h = 0; h < 0x10000u && failures < 10; ++h) {
    const float want = static_cast<float>(c10::Half(static_cast<uint16_t>(h), c10::Half::from_bits()));
    const float got = k::half_bits_to_float(static_cast<uint16_t>(h));
    if (std::isnan(want) ? !std::isnan(got) : k::float_bits(want) != k::float_bits(got)) {
      ADD_FAILURE() << "half 0x" << std::hex << h << " to float";
      ++failures;
    }
    if (!std::isnan(want) && k::half_bits_from_float(want) != h) {
      ADD_FAILURE() << "half 0x" << std::hex << h << " does not round-trip";
      ++failures;
    }
    // The midpoint to the next Half of the same sign, and its neighbours.
    if ((h & 0x7fffu) < 0x7c00u) {
      const float next = k::half_bits_to_float(static_cast<uint16_t>(h + 1));
      if (std::isnan(next)) continue;
      const float mid = static_cast<float>((static_cast<double>(want) + next) / 2);
      for (float f : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 2 * mid)}) {
        const uint16_t expect = c10::Half(f).x, actual = k::half_bits_from_float(f);
        if (!same_bits(expect, actual)) {
          ADD_FAILURE() << "float " << show(f) << ": c10 0x" << std::hex << expect
                        << ", kernel 0x" << actual;
          ++failures;
        }
      }
    }
  }
  for (uint64_t u = 0; u < 0x100000000ull && failures < 20; u += 65521) {
    const float f = k::bits_float(static_cast<uint32_t>(u));
    if (!same_bits(c10::Half(f).x, k::half_bits_from_float(f))) {
      ADD_FAILURE() << "half from float bits 0x" << std::hex << u;
      ++failures;
    }
    if (!same_bf16(c10::BFloat16(f).x, k::bfloat16_bits_from_float(f))) {
      ADD_FAILURE() << "bfloat16 from float bits 0x" << std::hex << u;
      ++failures;
    }
  }
  for (uint32_t b = 0; b < 0x10000u && failures < 30; ++b) {
    const float want =
        static_cast<float>(c10::BFloat16(static_cast<uint16_t>(b), c10::BFloat16::from_bits()));
    const float got = k::bfloat16_bits_to_float(static_cast<uint16_t>(b));
    if (std::isnan(want) ? !std::isnan(got) : k::float_bits(want) != k::float_bits(got)) {
      ADD_FAILURE() << "bfloat16 0x" << std::hex << b << " to float";
      ++failures;
    }
  }
  EXPECT_EQ(failures, 0);
}

}  // namespace
