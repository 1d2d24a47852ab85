// Conformance: batch_norm / native_batch_norm(_backward) and layer_norm /
// native_layer_norm(_backward) against double-precision references and
// finite differences.
#include <cmath>
#include <tuple>

#include "tests/ops/nn_test_util.h"

namespace ember_conformance {
namespace {

using nn_test::check_finite_differences;
using nn_test::random_tensor;

class NnNorm : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(NnNorm);

constexpr double kEps = 1e-5;

std::optional<at::Tensor> opt(const at::Tensor& t) { return t; }

// ---- batch norm -----------------------------------------------------------------------

struct BnRef {
  Ref out;
  std::vector<double> mean, var;  // var biased
};

// x is [N, C, ...]; the statistics are per channel, over N and the rest.
BnRef batch_norm_ref(const Ref& x, const std::vector<double>& w, const std::vector<double>& b,
                     const std::vector<double>* run_mean, const std::vector<double>* run_var) {
  const int64_t n = x.shape[0], c = x.shape[1];
  const int64_t s = x.numel() / std::max<int64_t>(n * c, 1);
  BnRef r{x, std::vector<double>(c, 0.0), std::vector<double>(c, 0.0)};
  auto at = [&](int64_t i, int64_t ch, int64_t k) { return static_cast<size_t>((i * c + ch) * s + k); };
  for (int64_t ch = 0; ch < c; ++ch) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) for (int64_t k = 0; k < s; ++k) sum += x.v[at(i, ch, k)];
    const double m = sum / static_cast<double>(n * s);
    double sq = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = 0; k < s; ++k) sq += (x.v[at(i, ch, k)] - m) * (x.v[at(i, ch, k)] - m);
    }
    r.mean[ch] = m;
    r.var[ch] = sq / static_cast<double>(n * s);
    const double um = run_mean ? (*run_mean)[ch] : m;
    const double uv = run_var ? (*run_var)[ch] : r.var[ch];
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t k = 0; k < s; ++k) {
        r.out.v[at(i, ch, k)] = (x.v[at(i, ch, k)] - um) / std::sqrt(uv + kEps) *
                                    (w.empty() ? 1.0 : w[ch]) + (b.empty() ? 0.0 : b[ch]);
      }
    }
  }
  return r;
}

std::vector<double> channel_values(int64_t c, double base, double step) {
  std::vector<double> v;
  for (int64_t i = 0; i < c; ++i) v.push_back(base + step * static_cast<double>(i));
  return v;
}

TEST_P(NnNorm, BatchNormTrainingUsesBatchStatisticsAndUpdatesRunningOnes) {
  for (const ScalarType dtype : {kFloat, kDouble, kBFloat16}) {
    for (const auto& shape : std::vector<std::vector<int64_t>>{{4, 3}, {2, 3, 5}, {2, 3, 2, 2}}) {
      for (const bool affine : {false, true}) {
        for (const bool strided : {false, true}) {
          const int64_t c = shape[1];
          Ref xr;
          const at::Tensor x = random_tensor(shape, dtype, {-2, 3}, 31, strided, &xr);
          const std::vector<double> w = affine ? channel_values(c, 0.5, 0.5) : std::vector<double>();
          const std::vector<double> b = affine ? channel_values(c, -1, 1) : std::vector<double>();
          const std::vector<double> rm0 = channel_values(c, 0.1, 0.1), rv0 = channel_values(c, 1, 0.5);
          at::Tensor rm = make_tensor(Ref({c}, rm0), kFloat, device());
          at::Tensor rv = make_tensor(Ref({c}, rv0), kFloat, device());
          const std::optional<at::Tensor> wt =
              affine ? opt(make_tensor(Ref({c}, w), dtype, device())) : std::nullopt;
          const std::optional<at::Tensor> bt =
              affine ? opt(make_tensor(Ref({c}, b), dtype, device())) : std::nullopt;
          const auto [out, save_mean, save_invstd] =
              at::native_batch_norm(x, wt, bt, rm, rv, true, 0.1, kEps);
          const BnRef want = batch_norm_ref(xr, w, b, nullptr, nullptr);
          const Tol tol = dtype == kBFloat16 ? Tol{2e-2, 2e-2} : Tol{1e-5, 1e-5};
          EXPECT_TRUE(close(out, want.out, dtype, tol)) << ::testing::PrintToString(shape);
          const ScalarType sdt = dtype == kBFloat16 ? kFloat : dtype;
          EXPECT_TRUE(close(save_mean, Ref({c}, want.mean), sdt, Tol{1e-5, 1e-6}));
          std::vector<double> invstd, new_rm, new_rv;
          const double count = static_cast<double>(xr.numel() / c);
          for (int64_t i = 0; i < c; ++i) {
            invstd.push_back(1 / std::sqrt(want.var[i] + kEps));
            new_rm.push_back(0.9 * rm0[i] + 0.1 * want.mean[i]);
            new_rv.push_back(0.9 * rv0[i] + 0.1 * want.var[i] * count / (count - 1));
          }
          EXPECT_TRUE(close(save_invstd, Ref({c}, invstd), sdt, Tol{1e-5, 1e-6}));
          EXPECT_TRUE(close(rm, Ref({c}, new_rm), kFloat, Tol{1e-5, 1e-6}));
          EXPECT_TRUE(close(rv, Ref({c}, new_rv), kFloat, Tol{1e-5, 1e-6}));
          // The composite gives the same output.
          at::Tensor rm2 = make_tensor(Ref({c}, rm0), kFloat, device());
          at::Tensor rv2 = make_tensor(Ref({c}, rv0), kFloat, device());
          EXPECT_TRUE(close(at::batch_norm(x, wt, bt, rm2, rv2, true, 0.1, kEps, false),
                            want.out, dtype, tol));
        }
      }
    }
  }
}

// Layer norm over the last dim, without weight and bias (defined below).
Ref layer_norm_ref_for_large(const Ref& x);

// Above 32768 elements the channels (rows) are split between threads.
TEST_P(NnNorm, LargeInputsMatchReferences) {
  Ref xr;
  const at::Tensor x = random_tensor({64, 4, 160}, kFloat, {-2, 3}, 91, true, &xr);
  const std::vector<double> w = channel_values(4, 0.5, 0.5), b = channel_values(4, -1, 1);
  const auto [out, mean, invstd] = at::native_batch_norm(
      x, make_tensor(Ref({4}, w), kFloat, device()), make_tensor(Ref({4}, b), kFloat, device()),
      {}, {}, true, 0.1, kEps);
  const BnRef want = batch_norm_ref(xr, w, b, nullptr, nullptr);
  EXPECT_TRUE(close(out, want.out, kFloat, Tol{1e-5, 1e-5}));
  EXPECT_TRUE(close(mean, Ref({4}, want.mean), kFloat, Tol{1e-5, 1e-6}));
  const at::Tensor go = make_tensor(random_ref({64, 4, 160}, kFloat, {-1, 1}, 93), kFloat, device());
  const auto [gi, gw, gb] = at::native_batch_norm_backward(go, x, {}, {}, {}, mean, invstd, true,
                                                           kEps, {true, true, true});
  // Reference: (g - mean(g) - xhat * mean(g * xhat)) * invstd per channel.
  const Ref gr = to_ref(go);
  Ref gi_want = xr;
  for (int64_t c = 0; c < 4; ++c) {
    const double is = 1 / std::sqrt(want.var[c] + kEps);
    double sg = 0, sgx = 0;
    for (int64_t i = 0; i < 64; ++i) {
      for (int64_t k = 0; k < 160; ++k) {
        const size_t at = static_cast<size_t>((i * 4 + c) * 160 + k);
        sg += gr.v[at];
        sgx += gr.v[at] * (xr.v[at] - want.mean[c]) * is;
      }
    }
    for (int64_t i = 0; i < 64; ++i) {
      for (int64_t k = 0; k < 160; ++k) {
        const size_t at = static_cast<size_t>((i * 4 + c) * 160 + k);
        const double xhat = (xr.v[at] - want.mean[c]) * is;
        gi_want.v[at] = (gr.v[at] - sg / 10240 - xhat * sgx / 10240) * is;
      }
    }
  }
  EXPECT_TRUE(close(gi, gi_want, kFloat, Tol{1e-4, 1e-5}));
  const at::Tensor y = random_tensor({100, 400}, kDouble, {-2, 2}, 95, true, &xr);
  EXPECT_TRUE(close(at::layer_norm(y, {400}), layer_norm_ref_for_large(xr), kDouble,
                    Tol{1e-10, 1e-10}));
}

TEST_P(NnNorm, BatchNormEvalUsesRunningStatistics) {
  for (const ScalarType dtype : {kFloat, kDouble}) {
    Ref xr;
    const at::Tensor x = random_tensor({3, 4, 5}, dtype, {}, 2, true, &xr);
    const std::vector<double> rm = channel_values(4, -0.5, 0.3), rv = channel_values(4, 0.5, 0.7);
    const at::Tensor rmt = make_tensor(Ref({4}, rm), dtype, device());
    const at::Tensor rvt = make_tensor(Ref({4}, rv), dtype, device());
    const std::vector<double> w = channel_values(4, 1, -0.2), b = channel_values(4, 0, 0.1);
    const auto [out, save_mean, save_invstd] = at::native_batch_norm(
        x, make_tensor(Ref({4}, w), dtype, device()), make_tensor(Ref({4}, b), dtype, device()),
        rmt, rvt, false, 0.1, kEps);
    EXPECT_TRUE(close(out, batch_norm_ref(xr, w, b, &rm, &rv).out, dtype, Tol{1e-5, 1e-5}));
    EXPECT_EQ(save_mean.numel(), 0);
    EXPECT_EQ(save_invstd.numel(), 0);
    EXPECT_TRUE(close(rmt, Ref({4}, rm), dtype, Tol{0, 0}));  // untouched
  }
  // An empty input is returned as it is.
  const at::Tensor empty = at::empty({0, 3}, options(kFloat));
  EXPECT_EQ(at::batch_norm(empty, {}, {}, {}, {}, true, 0.1, kEps, false).sizes(),
            empty.sizes());
}

TEST_P(NnNorm, BatchNormBackwardMatchesFiniteDifferences) {
  for (const bool train : {true, false}) {
    for (const bool affine : {false, true}) {
      const std::vector<int64_t> shape = {3, 2, 4};
      Ref xr;
      const at::Tensor x = random_tensor(shape, kDouble, {-2, 2}, 41, false, &xr);
      const at::Tensor w = make_tensor(Ref({2}, {0.7, 1.6}), kDouble, device());
      const at::Tensor b = make_tensor(Ref({2}, {0.1, -0.4}), kDouble, device());
      const at::Tensor rm = make_tensor(Ref({2}, {0.2, -0.3}), kDouble, device());
      const at::Tensor rv = make_tensor(Ref({2}, {1.5, 0.6}), kDouble, device());
      const std::optional<at::Tensor> wt = affine ? opt(w) : std::nullopt;
      const auto fwd = [&](const at::Tensor& in, const std::optional<at::Tensor>& ww,
                           const std::optional<at::Tensor>& bb) {
        // Copies of the running stats, so that the forward may update them.
        return at::native_batch_norm(in, ww, bb, rm.clone(), rv.clone(), train, 0.1, kEps);
      };
      const auto [out, save_mean, save_invstd] = fwd(x, wt, b);
      const at::Tensor go = make_tensor(random_ref(shape, kDouble, {-1, 1}, 43), kDouble, device());
      const auto [gi, gw, gb] = at::native_batch_norm_backward(
          go, x, wt, rm, rv, save_mean, save_invstd, train, kEps, {true, true, true});
      EXPECT_TRUE(check_finite_differences(
          [&](const at::Tensor& in) { return std::get<0>(fwd(in, wt, b)); }, x, go, gi))
          << "train " << train << " affine " << affine;
      EXPECT_TRUE(check_finite_differences(
          [&](const at::Tensor& ww) { return std::get<0>(fwd(x, ww, b)); }, w, go, gw));
      EXPECT_TRUE(check_finite_differences(
          [&](const at::Tensor& bb) { return std::get<0>(fwd(x, wt, bb)); }, b, go, gb));
      const auto [gi2, gw2, gb2] = at::native_batch_norm_backward(
          go, x, wt, rm, rv, save_mean, save_invstd, train, kEps, {false, true, false});
      EXPECT_FALSE(gi2.defined());
      EXPECT_TRUE(gw2.defined());
      EXPECT_FALSE(gb2.defined());
    }
  }
}

TEST_P(NnNorm, BatchNormRefusesBadInput) {
  const at::Tensor x = at::zeros({4, 3}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::batch_norm(at::zeros({3}), {}, {}, {}, {}, true, 0.1, kEps, false); }),
              HasSubstr("expected an input of at least 2 dimensions"));
  EXPECT_THAT(errorOf([&] { at::batch_norm(x, {}, {}, at::zeros({4}), at::ones({3}), true, 0.1, kEps, false); }),
              HasSubstr("running_mean should contain 3 elements not 4"));
  EXPECT_THAT(errorOf([&] { at::native_batch_norm(x, at::ones({2}), {}, {}, {}, true, 0.1, kEps); }),
              HasSubstr("weight should contain 3 elements not 2"));
  EXPECT_THAT(errorOf([&] { at::native_batch_norm(x, {}, {}, {}, {}, false, 0.1, kEps); }),
              HasSubstr("running_mean and running_var must be defined in evaluation mode"));
  EXPECT_THAT(errorOf([&] { at::native_batch_norm(at::zeros({4, 3}, options(kLong)), {}, {}, {}, {}, true, 0.1, kEps); }),
              HasSubstr("expected a floating point input"));
  EXPECT_THAT(errorOf([&] { at::native_batch_norm_backward(x, x, {}, {}, {}, {}, {}, true, kEps, {true, true, true}); }),
              HasSubstr("save_mean and save_invstd must be defined in training mode"));
  EXPECT_THAT(errorOf([&] { at::native_batch_norm_backward(at::zeros({4, 2}), x, {}, {}, {}, {}, {}, true, kEps, {true, true, true}); }),
              HasSubstr("grad_out and input must have the same shape"));
}

// ---- layer norm -------------------------------------------------------------------------

// Rows of the last `k` dims of x normalized; mean and rstd per row.
struct LnRef {
  Ref out;
  std::vector<double> mean, rstd;
};

LnRef layer_norm_ref(const Ref& x, size_t k, const std::vector<double>& w,
                     const std::vector<double>& b) {
  int64_t n = 1;
  for (size_t d = x.shape.size() - k; d < x.shape.size(); ++d) n *= x.shape[d];
  const int64_t m = n == 0 ? 0 : x.numel() / n;
  LnRef r{x, {}, {}};
  for (int64_t i = 0; i < m; ++i) {
    double s = 0;
    for (int64_t j = 0; j < n; ++j) s += x.v[static_cast<size_t>(i * n + j)];
    const double mu = s / static_cast<double>(n);
    double sq = 0;
    for (int64_t j = 0; j < n; ++j) {
      const double d = x.v[static_cast<size_t>(i * n + j)] - mu;
      sq += d * d;
    }
    const double rs = 1 / std::sqrt(sq / static_cast<double>(n) + kEps);
    r.mean.push_back(mu);
    r.rstd.push_back(rs);
    for (int64_t j = 0; j < n; ++j) {
      const size_t at = static_cast<size_t>(i * n + j);
      r.out.v[at] = (x.v[at] - mu) * rs * (w.empty() ? 1.0 : w[static_cast<size_t>(j)]) +
                    (b.empty() ? 0.0 : b[static_cast<size_t>(j)]);
    }
  }
  return r;
}

Ref layer_norm_ref_for_large(const Ref& x) { return layer_norm_ref(x, 1, {}, {}).out; }

struct LnCase {
  std::vector<int64_t> input, normalized, stat;
};

const std::vector<LnCase>& ln_cases() {
  static const std::vector<LnCase> c = {{{4, 5}, {5}, {4, 1}},
                                        {{2, 3, 4}, {3, 4}, {2, 1, 1}},
                                        {{2, 3, 4}, {4}, {2, 3, 1}},
                                        {{6}, {6}, {1}},
                                        {{0, 3}, {3}, {0, 1}}};
  return c;
}

TEST_P(NnNorm, LayerNormMatchesReference) {
  for (const ScalarType dtype : {kFloat, kDouble, kBFloat16}) {
    for (const LnCase& lc : ln_cases()) {
      int64_t n = 1;
      for (int64_t s : lc.normalized) n *= s;
      for (const bool affine : {false, true}) {
        for (const bool strided : {false, true}) {
          Ref xr;
          const at::Tensor x = random_tensor(lc.input, dtype, {-3, 3}, 51, strided, &xr);
          const std::vector<double> w = affine ? channel_values(n, 0.5, 0.1) : std::vector<double>();
          const std::vector<double> b = affine ? channel_values(n, -0.3, 0.05) : std::vector<double>();
          const std::optional<at::Tensor> wt =
              affine ? opt(make_tensor(Ref(lc.normalized, w), dtype, device())) : std::nullopt;
          const std::optional<at::Tensor> bt =
              affine ? opt(make_tensor(Ref(lc.normalized, b), dtype, device())) : std::nullopt;
          const LnRef want = layer_norm_ref(xr, lc.normalized.size(), w, b);
          const auto [out, mean, rstd] = at::native_layer_norm(x, lc.normalized, wt, bt, kEps);
          const Tol tol = dtype == kBFloat16 ? Tol{2e-2, 2e-2} : Tol{1e-5, 1e-5};
          const ScalarType sdt = dtype == kBFloat16 ? kFloat : dtype;
          EXPECT_TRUE(close(out, want.out, dtype, tol)) << ::testing::PrintToString(lc.input);
          EXPECT_TRUE(close(mean, Ref(lc.stat, want.mean), sdt, Tol{1e-5, 1e-6}));
          EXPECT_TRUE(close(rstd, Ref(lc.stat, want.rstd), sdt, Tol{1e-5, 1e-6}));
          EXPECT_TRUE(close(at::layer_norm(x, lc.normalized, wt, bt), want.out, dtype, tol));
        }
      }
    }
  }
}

TEST_P(NnNorm, LayerNormBackwardMatchesFiniteDifferences) {
  for (const LnCase& lc : ln_cases()) {
    int64_t n = 1;
    for (int64_t s : lc.normalized) n *= s;
    for (const bool affine : {false, true}) {
      Ref xr;
      const at::Tensor x = random_tensor(lc.input, kDouble, {-2, 2}, 61, false, &xr);
      const at::Tensor w = make_tensor(Ref(lc.normalized, channel_values(n, 0.5, 0.1)), kDouble, device());
      const at::Tensor b = make_tensor(Ref(lc.normalized, channel_values(n, 0.2, -0.1)), kDouble, device());
      const std::optional<at::Tensor> wt = affine ? opt(w) : std::nullopt;
      const auto [out, mean, rstd] = at::native_layer_norm(x, lc.normalized, wt, b, kEps);
      const at::Tensor go = make_tensor(random_ref(lc.input, kDouble, {-1, 1}, 63), kDouble, device());
      const auto [gi, gw, gb] = at::native_layer_norm_backward(go, x, lc.normalized, mean, rstd,
                                                               wt, b, {true, true, true});
      const auto f = [&](const at::Tensor& in, const std::optional<at::Tensor>& ww,
                         const at::Tensor& bb) {
        return std::get<0>(at::native_layer_norm(in, lc.normalized, ww, bb, kEps));
      };
      EXPECT_TRUE(check_finite_differences([&](const at::Tensor& in) { return f(in, wt, b); },
                                           x, go, gi))
          << ::testing::PrintToString(lc.input) << " affine " << affine;
      if (affine) {
        EXPECT_TRUE(check_finite_differences([&](const at::Tensor& ww) { return f(x, ww, b); },
                                             w, go, gw));
      }
      EXPECT_TRUE(check_finite_differences([&](const at::Tensor& bb) { return f(x, wt, bb); },
                                           b, go, gb));
      const auto [gi2, gw2, gb2] = at::native_layer_norm_backward(
          go, x, lc.normalized, mean, rstd, wt, b, {true, false, false});
      EXPECT_TRUE(close(gi2, to_ref(gi), kDouble));
      EXPECT_FALSE(gw2.defined());
      EXPECT_FALSE(gb2.defined());
    }
  }
}

// Float data is summed in float vector lanes (Note [Norm sums in blocks],
// backends/cpu/nn_norm.cc): rows longer than a block (1024) with tails,
// BatchNorm1d's one-element rows, and a mean far from zero next to the
// spread (1e4 +- 1, where deviations from the float-rounded mean need the
// correction the Note describes) must agree with the double kernel run on
// the same values.
TEST_P(NnNorm, FloatKernelsAgreeWithDoubleOnLongRowsAndLargeMeans) {
  const auto pair = [&](const std::vector<int64_t>& shape, double offset, uint64_t seed) {
    const at::Tensor f = at::add(
        make_tensor(random_ref(shape, kDouble, {-1, 1}, seed), kDouble, device()), offset)
                             .to(kFloat);
    return std::make_pair(f, f.to(kDouble));
  };
  const Tol out_tol{1e-5, 2e-5}, stat_tol{1e-5, 1e-7}, grad_tol{1e-4, 1e-5};
  for (const double offset : {0.0, 1e4}) {
    for (const auto& shape :
         std::vector<std::vector<int64_t>>{{300, 3}, {4, 3, 1100}, {3, 2, 37, 29}, {2, 5, 7}}) {
      SCOPED_TRACE(::testing::PrintToString(shape) + " offset " + std::to_string(offset));
      const int64_t c = shape[1];
      const auto [xf, xd] = pair(shape, offset, 71);
      const auto [wf, wd] = pair({c}, 1, 72);
      const auto [bf, bd] = pair({c}, 0, 73);
      const auto [of, mf, isf] = at::native_batch_norm(xf, wf, bf, {}, {}, true, 0.1, kEps);
      const auto [od, md, isd] = at::native_batch_norm(xd, wd, bd, {}, {}, true, 0.1, kEps);
      EXPECT_TRUE(close(of, to_ref(od), kFloat, out_tol));
      EXPECT_TRUE(close(mf, to_ref(md), kFloat, stat_tol));
      EXPECT_TRUE(close(isf, to_ref(isd), kFloat, Tol{1e-5, 0}));
      const auto [gof, god] = pair(shape, 0, 74);
      const auto [gif, gwf, gbf] = at::native_batch_norm_backward(
          gof, xf, wf, {}, {}, mf, isf, true, kEps, {true, true, true});
      // Both from the saved float statistics (float data saves float ones,
      // as in PyTorch), so that only the kernels' arithmetic differs.
      const auto [gid, gwd, gbd] = at::native_batch_norm_backward(
          god, xd, wd, {}, {}, mf.to(kDouble), isf.to(kDouble), true, kEps,
          {true, true, true});
      EXPECT_TRUE(close(gif, to_ref(gid), kFloat, grad_tol));
      EXPECT_TRUE(close(gwf, to_ref(gwd), kFloat, grad_tol));
      EXPECT_TRUE(close(gbf, to_ref(gbd), kFloat, grad_tol));
      // Double statistics for float data: the float kernel keeps their
      // precision (the mean's float rounding is corrected as in the Note).
      const auto [gie, gwe, gbe] = at::native_batch_norm_backward(
          gof, xf, wf, {}, {}, md, isd, true, kEps, {true, true, true});
      const auto [gix, gwx, gbx] = at::native_batch_norm_backward(
          god, xd, wd, {}, {}, md, isd, true, kEps, {true, true, true});
      EXPECT_TRUE(close(gie, to_ref(gix), kFloat, grad_tol));
      EXPECT_TRUE(close(gwe, to_ref(gwx), kFloat, grad_tol));
    }
    for (const auto& lc : std::vector<LnCase>{{{3, 1100}, {1100}, {3, 1}},
                                              {{5, 37}, {37}, {5, 1}},
                                              {{4, 2, 3, 7}, {3, 7}, {4, 2, 1, 1}}}) {
      SCOPED_TRACE(::testing::PrintToString(lc.input) + " offset " + std::to_string(offset));
      const auto [xf, xd] = pair(lc.input, offset, 81);
      const auto [wf, wd] = pair(lc.normalized, 1, 82);
      const auto [bf, bd] = pair(lc.normalized, 0, 83);
      const auto [gof, god] = pair(lc.input, 0, 84);
      for (const bool affine : {false, true}) {
        const std::optional<at::Tensor> wfo = affine ? opt(wf) : std::nullopt;
        const std::optional<at::Tensor> wdo = affine ? opt(wd) : std::nullopt;
        const std::optional<at::Tensor> bfo = affine ? opt(bf) : std::nullopt;
        const std::optional<at::Tensor> bdo = affine ? opt(bd) : std::nullopt;
        const auto [of, mf, rf] = at::native_layer_norm(xf, lc.normalized, wfo, bfo, kEps);
        const auto [od, md, rd] = at::native_layer_norm(xd, lc.normalized, wdo, bdo, kEps);
        EXPECT_TRUE(close(of, to_ref(od), kFloat, out_tol));
        EXPECT_TRUE(close(mf, to_ref(md), kFloat, stat_tol));
        EXPECT_TRUE(close(rf, to_ref(rd), kFloat, Tol{1e-5, 0}));
        const auto [gif, gwf, gbf] = at::native_layer_norm_backward(
            gof, xf, lc.normalized, mf, rf, wfo, bfo, {true, true, true});
        const auto [gid, gwd, gbd] = at::native_layer_norm_backward(
            god, xd, lc.normalized, mf.to(kDouble), rf.to(kDouble), wdo, bdo,
            {true, true, true});
        EXPECT_TRUE(close(gif, to_ref(gid), kFloat, grad_tol));
        EXPECT_TRUE(close(gwf, to_ref(gwd), kFloat, grad_tol));
        EXPECT_TRUE(close(gbf, to_ref(gbd), kFloat, grad_tol));
        const auto [gie, gwe, gbe] = at::native_layer_norm_backward(
            gof, xf, lc.normalized, md, rd, wfo, bfo, {true, false, false});
        const auto [gix, gwx, gbx] = at::native_layer_norm_backward(
            god, xd, lc.normalized, md, rd, wdo, bdo, {true, false, false});
        EXPECT_TRUE(close(gie, to_ref(gix), kFloat, grad_tol));
      }
    }
  }
}

// Layer norm takes mean and variance of float rows in one pass, as sums of
// x - x0 and its square for x0 the mean of the row's first 16 values, and
// falls back to a second pass when x0 is far from the mean (the one-pass
// variance would cancel). Rows whose first 16 values are outliers take
// that path.
TEST_P(NnNorm, LayerNormFloatRowsStartingWithOutliers) {
  Ref r = random_ref({2, 4000}, kDouble, {-1, 1}, 87);
  for (int64_t row = 0; row < 2; ++row) {
    for (int64_t j = 0; j < 16; ++j) r.v[static_cast<size_t>(row * 4000 + j)] += 100;
  }
  const at::Tensor xf = make_tensor(r, kDouble, device()).to(kFloat);
  const auto [of, mf, rf] = at::native_layer_norm(xf, {4000}, {}, {}, kEps);
  const auto [od, md, rd] = at::native_layer_norm(xf.to(kDouble), {4000}, {}, {}, kEps);
  EXPECT_TRUE(close(rf, to_ref(rd), kFloat, Tol{1e-6, 0}));
  // The mean: float sums of values near 100.
  EXPECT_TRUE(close(mf, to_ref(md), kFloat, Tol{0, 1e-5}));
  EXPECT_TRUE(close(of, to_ref(od), kFloat, Tol{1e-5, 2e-5}));
}

TEST_P(NnNorm, LayerNormRefusesBadInput) {
  const at::Tensor x = at::zeros({4, 6}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::layer_norm(x, {5}); }),
              HasSubstr("Given normalized_shape=[5], expected input with shape [*, 5], but got "
                        "input of size[4, 6]"));
  EXPECT_THAT(errorOf([&] { at::layer_norm(x, std::vector<int64_t>{}); }),
              HasSubstr("Expected normalized_shape to be at least 1-dimensional"));
  EXPECT_THAT(errorOf([&] { at::layer_norm(x, {6}, at::ones({5})); }),
              HasSubstr("Expected weight to be of same shape as normalized_shape, but got "
                        "weight of shape [5] and normalized_shape = [6]"));
  EXPECT_THAT(errorOf([&] { at::layer_norm(x, {6}, {}, at::ones({2, 3})); }),
              HasSubstr("Expected bias to be of same shape as normalized_shape"));
  EXPECT_THAT(errorOf([&] { at::layer_norm(at::zeros({4, 6}, options(kInt)), {6}); }),
              HasSubstr("expected a floating point input"));
  EXPECT_THAT(errorOf([&] {
                at::native_layer_norm_backward(x, x, {6}, at::zeros({3}), at::zeros({4}), {}, {},
                                               {true, true, true});
              }),
              HasSubstr("mean and rstd must have one element per normalized row (4)"));
}

}  // namespace
}  // namespace ember_conformance
