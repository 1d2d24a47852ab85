// Conformance: reductions of long contiguous runs, the CPU plugin's fast
// paths (Notes [Float sums at memory speed], [Float products in float
// steps], [Float max at memory speed], [Half sums in vectors], [Half max in
// integer keys] in backends/cpu): accuracy against double references, and
// NaN, infinities and signed zeros anywhere in the vector body or the tail.
// The other reductions' conformance is reductions_test.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class ReductionsOfLongRuns : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(ReductionsOfLongRuns);

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Contiguous float runs longer than the float-step groups and blocks of the
// CPU plugin's fast paths (Note [Float sums at memory speed], Note [Float
// products in float steps], logsumexp's vectorized exp), against double
// references; then groups whose float partial products leave float's range
// (which must be redone in double), zeros, infinities and NaN.
TEST_P(ReductionsOfLongRuns, LongFloatRunsAreAccurate) {
  const int64_t n = 5003;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    v[i] = static_cast<float>(0.9 + 0.2 * static_cast<double>((i * 7919) % 1000) / 1000.0);
  }
  const auto sum_of = [](const std::vector<double>& x) {
    double s = 0;
    for (double e : x) s += e;
    return s;
  };
  const auto prod_of = [](const std::vector<double>& x) {
    long double p = 1;
    for (double e : x) p *= e;
    return static_cast<double>(p);
  };
  const auto lse_of = [](const std::vector<double>& x) {
    const double m = *std::max_element(x.begin(), x.end());
    double s = 0;
    for (double e : x) s += std::exp(e - m);
    return m + std::log(s);
  };
  const at::Tensor x = make_tensor(Ref({n}, v), kFloat, device());
  EXPECT_TRUE(close(at::sum(x), Ref({}, {sum_of(v)}), kFloat));
  EXPECT_TRUE(close(at::prod(x), Ref({}, {prod_of(v)}), kFloat));
  EXPECT_TRUE(close(at::logsumexp(x, {0}), Ref({}, {lse_of(v)}), kFloat));
  // Spread out: logsumexp's terms span many orders of magnitude.
  std::vector<double> wide(v);
  for (int64_t i = 0; i < n; ++i) wide[i] = static_cast<float>((v[i] - 1.0) * 400.0);
  EXPECT_TRUE(close(at::logsumexp(make_tensor(Ref({n}, wide), kFloat, device()), {0}),
                    Ref({}, {lse_of(wide)}), kFloat));

  // Elements 100 and 132 share a lane of the first group (32 lanes): their
  // float product 1e60 overflows, 164 and 196 bring it back; in double the
  // whole product stays near the plain one.
  std::vector<double> range(v);
  range[100] = range[132] = static_cast<float>(1e30);
  range[164] = range[196] = static_cast<float>(1e-30);
  EXPECT_TRUE(close(at::prod(make_tensor(Ref({n}, range), kFloat, device())),
                    Ref({}, {prod_of(range)}), kFloat));
  // Tiny factors whose float product would underflow to zero.
  std::vector<double> tiny(v);
  tiny[600] = tiny[632] = static_cast<float>(1e-25);
  tiny[664] = tiny[696] = static_cast<float>(1e25);
  EXPECT_TRUE(close(at::prod(make_tensor(Ref({n}, tiny), kFloat, device())),
                    Ref({}, {prod_of(tiny)}), kFloat));
  for (const std::pair<double, double>& special :
       {std::pair<double, double>{0.0, 0.0}, {kInf, kInf}, {-kInf, -kInf}, {kNaN, kNaN}}) {
    std::vector<double> w(v);
    w[2000] = special.first;
    const double want = special.second == 0 || std::isnan(special.second)
                            ? special.second
                            : (special.second > 0 ? kInf : -kInf);
    EXPECT_TRUE(close(at::prod(make_tensor(Ref({n}, w), kFloat, device())), Ref({}, {want}),
                      kFloat))
        << special.first;
  }
  std::vector<double> inf_and_zero(v);
  inf_and_zero[10] = kInf;
  inf_and_zero[4000] = 0;
  EXPECT_TRUE(close(at::prod(make_tensor(Ref({n}, inf_and_zero), kFloat, device())),
                    Ref({}, {kNaN}), kFloat));
}

// Long contiguous Half and BFloat16 runs (Note [Half sums in vectors]): the
// vector body, its tail and the blocks. Every element and every partial sum
// (of the numbers, their magnitudes and their squares) is exact in float, so
// sum, mean and the 0-, 1- and 2-norms must be the exact value rounded once
// to the dtype; an infinity or a NaN anywhere carries through.
TEST_P(ReductionsOfLongRuns, HalfAndBFloat16SumsOfLongRuns) {
  for (ScalarType t : {kHalf, kBFloat16}) {
    for (int64_t n : {1, 31, 32, 33, 255, 4099, 10007}) {
      std::vector<double> v(static_cast<size_t>(n));
      double exact = 0, magnitudes = 0, squares = 0, nonzeros = 0;
      for (int64_t i = 0; i < n; ++i) {
        const double x = static_cast<double>((i * 37) % 101 - 50) / 8;
        v[static_cast<size_t>(i)] = x;
        exact += x;
        magnitudes += std::fabs(x);
        squares += x * x;
        nonzeros += x != 0 ? 1 : 0;
      }
      SCOPED_TRACE(testing::Message() << t << " n=" << n);
      const at::Tensor x = make_tensor(Ref({n}, v), t, device());
      const auto rounded = [&](double r) {
        return make_tensor(Ref({}, {r}), t, device()).item<double>();
      };
      EXPECT_EQ(at::sum(x).item<double>(), rounded(exact));
      EXPECT_EQ(at::mean(x).item<double>(), rounded(exact / static_cast<double>(n)));
      EXPECT_EQ(at::norm(x).item<double>(), rounded(std::sqrt(squares)));
      EXPECT_EQ(at::norm(x, 1).item<double>(), rounded(magnitudes));
      EXPECT_EQ(at::norm(x, 0).item<double>(), rounded(nonzeros));
      for (double special : {kInf, -kInf, kNaN}) {
        std::vector<double> w = v;
        w[static_cast<size_t>(n / 2)] = special;
        const at::Tensor y = make_tensor(Ref({n}, w), t, device());
        const double s = at::sum(y).item<double>();
        const double norm = at::norm(y).item<double>();
        if (std::isnan(special)) {
          EXPECT_TRUE(std::isnan(s)) << s;
          EXPECT_TRUE(std::isnan(norm)) << norm;
        } else {
          EXPECT_EQ(s, special);
          EXPECT_EQ(norm, kInf);
        }
      }
    }
  }
}

// Long contiguous runs (Note [Float max at memory speed]): the vector body
// and the tail, the best element anywhere, a NaN anywhere (it wins), and
// infinities (they are numbers).
TEST_P(ReductionsOfLongRuns, MaxAndMinOfLongRunsNaNAnywhere) {
  // Every value here is exact in Half and BFloat16.
  for (c10::ScalarType dtype : {kFloat, kDouble, kHalf, kBFloat16}) {
    for (int64_t n : {1, 15, 16, 63, 64, 65, 257, 1000, 4099}) {
      std::vector<double> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        v[static_cast<size_t>(i)] = static_cast<double>((i * 37) % 101) - 50;
      }
      for (int64_t at : {int64_t{0}, n / 2, n - 1}) {
        std::vector<double> w = v;
        w[static_cast<size_t>(at)] = 1000;  // the largest, here
        const at::Tensor x = make_tensor(Ref({n}, w), dtype, device());
        SCOPED_TRACE(testing::Message() << dtype << " n=" << n << " best at " << at);
        EXPECT_EQ(at::amax(x).item<double>(), 1000);
        EXPECT_EQ(at::max(x).item<double>(), 1000);
        w[static_cast<size_t>(at)] = -1000;  // the smallest
        const at::Tensor y = make_tensor(Ref({n}, w), dtype, device());
        EXPECT_EQ(at::amin(y).item<double>(), -1000);
        EXPECT_EQ(at::min(y).item<double>(), -1000);
        w[static_cast<size_t>(at)] = kNaN;
        const at::Tensor z = make_tensor(Ref({n}, w), dtype, device());
        EXPECT_TRUE(std::isnan(at::amax(z).item<double>()));
        EXPECT_TRUE(std::isnan(at::amin(z).item<double>()));
        EXPECT_TRUE(std::isnan(at::max(z).item<double>()));
        EXPECT_TRUE(std::isnan(at::min(z).item<double>()));
        w[static_cast<size_t>(at)] = kInf;
        if (n > 1) w[static_cast<size_t>((at + 1) % n)] = -kInf;
        const at::Tensor u = make_tensor(Ref({n}, w), dtype, device());
        EXPECT_EQ(at::amax(u).item<double>(), kInf);
        EXPECT_EQ(at::amin(u).item<double>(), n > 1 ? -kInf : kInf);
      }
    }
  }
}

// Half and BFloat16 runs compare integer keys on the CPU (Note [Half max in
// integer keys]), which order -0 below +0: the largest of a run of zeros of
// both signs is +0 and the smallest -0, wherever they are (300 elements: one
// thread's run; the second sign in the vector body, or in the tail only).
TEST_P(ReductionsOfLongRuns, HalfMaxOfSignedZerosOnTheCpu) {
  if (!device().is_cpu()) GTEST_SKIP() << "the key order is the CPU kernel's";
  for (c10::ScalarType dtype : {kHalf, kBFloat16}) {
    for (bool negative_first : {true, false}) {
      for (size_t split : {10, 150, 290}) {
        std::vector<double> v(300);
        for (size_t i = 0; i < v.size(); ++i) v[i] = ((i < split) == negative_first) ? -0.0 : 0.0;
        const at::Tensor x = make_tensor(Ref({300}, v), dtype, device());
        SCOPED_TRACE(testing::Message() << dtype << " -0 first: " << negative_first
                                        << ", split at " << split);
        EXPECT_FALSE(std::signbit(at::amax(x).item<double>()));
        EXPECT_TRUE(std::signbit(at::amin(x).item<double>()));
      }
    }
  }
}

TEST_P(ReductionsOfLongRuns, SumOfAMillionFloatsIsAccurate) {
  // 0.1f a million times: naive float accumulation drifts by ~1%.
  const int64_t n = 1 << 20;
  const at::Tensor x = at::full({n}, 0.1, options(kFloat));
  const double expected = static_cast<double>(0.1f) * static_cast<double>(n);
  EXPECT_NEAR(at::sum(x).item<double>(), expected, expected * 1e-6);
  EXPECT_NEAR(at::mean(x).item<double>(), 0.1f, 1e-7);
  // Over either dim of a non-contiguous view.
  const at::Tensor m = x.view({1024, 1024}).t();
  const at::Tensor s0 = at::sum(m, {0});
  const at::Tensor s1 = at::sum(m, {1});
  for (int64_t i = 0; i < 1024; i += 97) {
    EXPECT_NEAR(s0[i].item<double>(), 102.4, 1e-4);
    EXPECT_NEAR(s1[i].item<double>(), 102.4, 1e-4);
  }
  EXPECT_NEAR(at::cumsum(x, 0)[n - 1].item<double>(), expected, expected * 1e-6);
}

}  // namespace
}  // namespace ember_conformance
