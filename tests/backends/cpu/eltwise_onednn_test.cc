// Large contiguous float32 tanh, gelu (both forms) and silu run
// on oneDNN's eltwise primitive (Note [oneDNN eltwise] in
// backends/cpu/eltwise_onednn.cc); small or strided ones on the plugin's loops.
// exp and sigmoid stay on the loops (oneDNN 2.6 maps NaN to inf in exp and
// flushes tiny sigmoid results to zero) and are checked here too.
// Both paths, and the functional, in-place and out= forms, are checked against
// double-precision references, with special values; which path ran is read
// from ember::cpu::onednn_eltwise_runs(). The kernels are linked into this
// binary (not loaded as the plugin) so that the test can read that counter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include <torch/autograd.h>
#include <torch/types.h>

#include "backends/cpu/eltwise_onednn.h"

namespace {

struct UnaryCase {
  std::string name;
  std::function<at::Tensor(const at::Tensor&)> op;
  std::function<at::Tensor&(at::Tensor&)> op_;
  std::function<at::Tensor&(at::Tensor&, const at::Tensor&)> op_out;
  std::function<double(double)> ref;
  bool infinities;  // whether +-inf inputs are part of the check
  bool onednn;      // whether large contiguous float32 inputs take oneDNN
};

double sigmoid_ref(double x) { return 1 / (1 + std::exp(-x)); }

std::vector<UnaryCase> cases() {
  return {
      {"exp", [](const at::Tensor& x) { return at::exp(x); },
       [](at::Tensor& x) -> at::Tensor& { return x.exp_(); },
       [](at::Tensor& o, const at::Tensor& x) -> at::Tensor& { return at::exp_out(o, x); },
       [](double x) { return std::exp(x); }, true, false},
      {"tanh", [](const at::Tensor& x) { return at::tanh(x); },
       [](at::Tensor& x) -> at::Tensor& { return x.tanh_(); },
       [](at::Tensor& o, const at::Tensor& x) -> at::Tensor& { return at::tanh_out(o, x); },
       [](double x) { return std::tanh(x); }, true, true},
      {"sigmoid", [](const at::Tensor& x) { return at::sigmoid(x); },
       [](at::Tensor& x) -> at::Tensor& { return x.sigmoid_(); },
       [](at::Tensor& o, const at::Tensor& x) -> at::Tensor& { return at::sigmoid_out(o, x); },
       sigmoid_ref, true, false},
      {"gelu", [](const at::Tensor& x) { return at::gelu(x); },
       [](at::Tensor& x) -> at::Tensor& { return at::gelu_(x); },
       [](at::Tensor& o, const at::Tensor& x) -> at::Tensor& { return at::gelu_out(o, x); },
       [](double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }, false, true},
      {"gelu_tanh", [](const at::Tensor& x) { return at::gelu(x, "tanh"); },
       [](at::Tensor& x) -> at::Tensor& { return at::gelu_(x, "tanh"); },
       [](at::Tensor& o, const at::Tensor& x) -> at::Tensor& {
         return at::gelu_out(o, x, "tanh");
       },
       [](double x) {
         return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
       },
       false, true},
      {"silu", [](const at::Tensor& x) { return at::silu(x); },
       [](at::Tensor& x) -> at::Tensor& { return at::silu_(x); },
       [](at::Tensor& o, const at::Tensor& x) -> at::Tensor& { return at::silu_out(o, x); },
       [](double x) { return x * sigmoid_ref(x); }, false, true},
  };
}

// randn * 4 over n elements, with zeros, NaN and (if asked) infinities.
at::Tensor inputs(int64_t n, bool infinities) {
  at::manual_seed(11);
  at::Tensor x = at::randn({n}) * 4;
  auto p = x.accessor<float, 1>();
  p[0] = 0.0f;
  p[1] = -0.0f;
  p[2] = std::numeric_limits<float>::quiet_NaN();
  p[3] = 30.0f;
  p[4] = -30.0f;
  if (infinities) {
    p[5] = std::numeric_limits<float>::infinity();
    p[6] = -std::numeric_limits<float>::infinity();
  }
  return x;
}

// How many oneDNN eltwise primitives f() ran.
template <class F>
int64_t onednn_runs(F&& f) {
  const int64_t before = ember::cpu::onednn_eltwise_runs();
  f();
  return ember::cpu::onednn_eltwise_runs() - before;
}

void expect_matches(const std::string& what, const at::Tensor& y, const at::Tensor& x,
                    const std::function<double(double)>& ref) {
  ASSERT_EQ(y.scalar_type(), at::kFloat) << what;
  ASSERT_EQ(y.sizes(), x.sizes()) << what;
  const at::Tensor yc = y.contiguous().view({-1}), xc = x.contiguous().view({-1});
  auto py = yc.accessor<float, 1>();
  auto px = xc.accessor<float, 1>();
  int failures = 0;
  for (int64_t i = 0; i < xc.numel() && failures < 5; ++i) {
    const double expected = ref(px[i]);
    const double got = py[i];
    const bool ok = std::isnan(expected) ? std::isnan(got)
                    : std::isinf(expected)
                        ? got == expected
                        : std::fabs(got - expected) <= 1e-6 + 1e-5 * std::fabs(expected);
    if (!ok) {
      ++failures;
      ADD_FAILURE() << what << ": f(" << px[i] << ") = " << got << ", expected " << expected;
    }
  }
}

TEST(OneDnnEltwise, LargeContiguousFloatMatchesTheReference) {
  for (const UnaryCase& c : cases()) {
    const at::Tensor x = inputs(3 * 16384 + 5, c.infinities);
    const int64_t expected_runs = c.onednn ? 1 : 0;
    at::Tensor y;
    EXPECT_EQ(onednn_runs([&] { y = c.op(x); }), expected_runs) << c.name << " functional";
    expect_matches(c.name + " functional", y, x, c.ref);
    at::Tensor inplace = x.clone();
    bool same = false;
    EXPECT_EQ(onednn_runs([&] { same = c.op_(inplace).is_same(inplace); }), expected_runs)
        << c.name << " in place";
    EXPECT_TRUE(same) << c.name;
    expect_matches(c.name + " in place", inplace, x, c.ref);
    at::Tensor out = at::full({x.numel()}, 7.0f);
    EXPECT_EQ(onednn_runs([&] { c.op_out(out, x); }), expected_runs) << c.name << " out=";
    expect_matches(c.name + " out=", out, x, c.ref);
    // out= of the wrong size is resized by the loop path, as before.
    at::Tensor small_out = at::empty({0});
    EXPECT_EQ(onednn_runs([&] { c.op_out(small_out, x); }), 0) << c.name << " resized out=";
    expect_matches(c.name + " resized out=", small_out, x, c.ref);
  }
}

// Dense over [-12, 12]: error at most 4e-7 + 2e-6 |f(x)| (~17 ulp, or
// absolute 4e-7 where the result is tiny: the far negative tail of gelu,
// which oneDNN, like PyTorch's 0.5 x (1 + erf(x / sqrt 2)), resolves only to
// absolute precision; the loops' erfc form is exact there to relative 1.5e-5,
// see tests/ops/pointwise_activation_test.cc).
TEST(OneDnnEltwise, DenseRangeAccuracy) {
  std::vector<float> xs;
  for (double x = -12; x <= 12; x += 0.00113) xs.push_back(static_cast<float>(x));
  const at::Tensor x = at::empty({static_cast<int64_t>(xs.size())});
  std::copy(xs.begin(), xs.end(), x.data_ptr<float>());
  ASSERT_GE(x.numel(), ember::cpu::kEltwiseMinNumel);
  for (const UnaryCase& c : cases()) {
    at::Tensor y;
    EXPECT_EQ(onednn_runs([&] { y = c.op(x); }), c.onednn ? 1 : 0) << c.name;
    auto py = y.accessor<float, 1>();
    double worst = 0;  // error / (4e-7 + 2e-6 |expected|)
    for (int64_t i = 0; i < x.numel(); ++i) {
      const double e = c.ref(xs[static_cast<size_t>(i)]);
      worst = std::max(worst, std::fabs(py[i] - e) / (4e-7 + 2e-6 * std::fabs(e)));
    }
    EXPECT_LE(worst, 1.0) << c.name;
  }
}

TEST(OneDnnEltwise, StridedSmallAndOtherDtypesTakeTheLoops) {
  for (const UnaryCase& c : cases()) {
    const at::Tensor x = inputs(300 * 200, c.infinities).view({300, 200});
    // Each input differs from what oneDNN takes in the one property named.
    at::Tensor y;
    EXPECT_EQ(onednn_runs([&] { y = c.op(x.t()); }), 0) << c.name << " transposed";
    expect_matches(c.name + " transposed", y, x.t(), c.ref);
    const at::Tensor every_other = x.slice(1, 0, 200, 2);
    EXPECT_EQ(onednn_runs([&] { y = c.op(every_other); }), 0) << c.name << " every other";
    expect_matches(c.name + " every other", y, every_other, c.ref);
    const at::Tensor small = inputs(ember::cpu::kEltwiseMinNumel - 1, c.infinities);
    EXPECT_EQ(onednn_runs([&] { y = c.op(small); }), 0) << c.name << " small";
    expect_matches(c.name + " small", y, small, c.ref);
    const at::Tensor d = x.to(at::kDouble);
    at::Tensor yd;
    EXPECT_EQ(onednn_runs([&] { yd = c.op(d); }), 0) << c.name << " double";
    EXPECT_EQ(yd.scalar_type(), at::kDouble) << c.name;
    expect_matches(c.name + " double", yd.to(at::kFloat), x, c.ref);
  }
}

TEST(OneDnnEltwise, OverlappingOutIsLeftToTheIterator) {
  // out shares memory with the input but is not the input: oneDNN declines,
  // and the iterator copies the input before writing, so out is f(x).
  const at::Tensor base = inputs(2 * 16384 + 2, true);
  const at::Tensor x = base.slice(0, 0, 2 * 16384);
  at::Tensor out = base.slice(0, 2, 2 * 16384 + 2);
  const at::Tensor expected = at::tanh(x.clone());
  EXPECT_EQ(onednn_runs([&] { at::tanh_out(out, x); }), 0);
  EXPECT_TRUE(at::allclose(out, expected, 1e-5, 1e-6, /*equal_nan=*/true));
}

}  // namespace
