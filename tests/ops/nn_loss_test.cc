// Conformance: the losses (nll_loss, nll_loss_nd, nll_loss2d and their
// forward/backward ops, cross_entropy_loss, mse_loss(+backward),
// binary_cross_entropy(+backward), binary_cross_entropy_with_logits)
// against double-precision references and finite differences.
#include <algorithm>
#include <cmath>
#include <limits>

#include "tests/ops/nn_test_util.h"

namespace ember_conformance {
namespace {

using nn_test::check_finite_differences;
using nn_test::long_tensor;
using nn_test::random_tensor;

class NnLoss : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(NnLoss);

constexpr int64_t kNone = at::Reduction::None;
constexpr int64_t kMean = at::Reduction::Mean;
constexpr int64_t kSum = at::Reduction::Sum;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- references ----------------------------------------------------------------------

// The input [C], [N, C] or [N, C, d...] seen as [N, C, S].
struct NCS {
  int64_t n, c, s;
};
NCS ncs(const std::vector<int64_t>& shape) {
  if (shape.size() == 1) return {1, shape[0], 1};
  int64_t s = 1;
  for (size_t d = 2; d < shape.size(); ++d) s *= shape[d];
  return {shape[0], shape[1], s};
}

// Per-position losses -w[t] x[t] (0 where ignored), their total weight, and
// the reduced result.
struct NllRef {
  std::vector<double> losses;
  double total_weight = 0;
  double reduced(int64_t reduction) const {
    double s = 0;
    for (double l : losses) s += l;
    return reduction == kMean ? s / total_weight : s;
  }
};

NllRef nll_ref(const Ref& x, const std::vector<double>& target, const std::vector<double>& w,
               int64_t ignore_index) {
  const NCS g = ncs(x.shape);
  NllRef r;
  for (int64_t i = 0; i < g.n; ++i) {
    for (int64_t k = 0; k < g.s; ++k) {
      const int64_t t = static_cast<int64_t>(target[static_cast<size_t>(i * g.s + k)]);
      if (t == ignore_index) {
        r.losses.push_back(0);
        continue;
      }
      const double wt = w.empty() ? 1.0 : w[static_cast<size_t>(t)];
      r.losses.push_back(-wt * x.v[static_cast<size_t>((i * g.c + t) * g.s + k)]);
      r.total_weight += wt;
    }
  }
  return r;
}

// The result of nll_loss for `reduction`, as a Ref of `out_shape` (None) or
// a 0-dim Ref.
Ref nll_result(const NllRef& r, int64_t reduction, const std::vector<int64_t>& out_shape) {
  if (reduction == kNone) return Ref(out_shape, r.losses);
  return Ref({}, {r.reduced(reduction)});
}

// Class indices in [0, c), with every third one replaced by `ignore`.
std::vector<double> targets(int64_t count, int64_t c, int64_t ignore, uint64_t seed) {
  std::vector<double> t;
  uint64_t state = seed * 2654435761u + 1;
  for (int64_t i = 0; i < count; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    t.push_back(i % 3 == 2 ? static_cast<double>(ignore)
                           : static_cast<double>((state >> 33) % static_cast<uint64_t>(c)));
  }
  return t;
}

std::vector<double> weights(int64_t c) {
  std::vector<double> w;
  for (int64_t i = 0; i < c; ++i) w.push_back(0.5 + 0.25 * static_cast<double>(i));
  return w;
}

// log_softmax over dim 1 (dim 0 for a 1-d input), in double.
Ref log_softmax_ref(const Ref& x) {
  const NCS g = ncs(x.shape);
  Ref y = x;
  for (int64_t i = 0; i < g.n; ++i) {
    for (int64_t k = 0; k < g.s; ++k) {
      auto at = [&](int64_t c) { return static_cast<size_t>((i * g.c + c) * g.s + k); };
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t c = 0; c < g.c; ++c) m = std::max(m, x.v[at(c)]);
      double s = 0;
      for (int64_t c = 0; c < g.c; ++c) s += std::exp(x.v[at(c)] - m);
      for (int64_t c = 0; c < g.c; ++c) y.v[at(c)] = x.v[at(c)] - m - std::log(s);
    }
  }
  return y;
}

struct NllCase {
  std::vector<int64_t> input;
  std::vector<int64_t> target;
};

const std::vector<NllCase>& nll_cases() {
  static const std::vector<NllCase> c = {
      {{5}, {}}, {{4, 5}, {4}}, {{2, 3, 4, 5}, {2, 4, 5}}, {{2, 3, 4}, {2, 4}},
      {{2, 3, 2, 2, 2}, {2, 2, 2, 2}}, {{0, 4}, {0}}};
  return c;
}

// ---- nll_loss ------------------------------------------------------------------------------

TEST_P(NnLoss, NllLossMatchesReferenceForEveryShapeWeightAndReduction) {
  for (const ScalarType dtype : {kFloat, kDouble, kBFloat16}) {
    for (const NllCase& nc : nll_cases()) {
      const NCS g = ncs(nc.input);
      for (const int64_t ignore : {int64_t{-100}, int64_t{1}}) {
        const std::vector<double> t = targets(g.n * g.s, g.c, ignore == 1 ? 1 : 0, 3);
        const at::Tensor target = long_tensor(nc.target, t);
        for (const bool weighted : {false, true}) {
          const std::vector<double> w = weighted ? weights(g.c) : std::vector<double>();
          const std::optional<at::Tensor> wt =
              weighted ? std::optional<at::Tensor>(make_tensor(Ref({g.c}, w), dtype, device()))
                       : std::nullopt;
          for (const bool strided : {false, true}) {
            Ref xr;
            const at::Tensor x = random_tensor(nc.input, dtype, {-3, 0}, 7, strided, &xr);
            const NllRef expected = nll_ref(xr, t, w, ignore);
            for (const int64_t red : {kNone, kMean, kSum}) {
              const Tol tol = dtype == kBFloat16 ? Tol{2e-2, 2e-2} : default_tol(dtype);
              const Ref want = nll_result(expected, red, nc.target);
              const std::string what = "input " + ::testing::PrintToString(nc.input) +
                                       " reduction " + std::to_string(red) + " weighted " +
                                       std::to_string(weighted) + " ignore " +
                                       std::to_string(ignore);
              EXPECT_TRUE(close(at::nll_loss_nd(x, target, wt, red, ignore), want, dtype, tol))
                  << what;
              if (nc.input.size() <= 2) {
                const auto [out, total] = at::nll_loss_forward(x, target, wt, red, ignore);
                EXPECT_TRUE(close(out, want, dtype, tol)) << what;
                if (red != kNone || nc.input.size() == 1) {
                  EXPECT_TRUE(close(total, Ref({}, {expected.total_weight}), dtype, tol)) << what;
                }
                EXPECT_TRUE(close(at::nll_loss(x, target, wt, red, ignore), want, dtype, tol));
              }
              if (nc.input.size() == 4) {
                EXPECT_TRUE(close(at::nll_loss2d(x, target, wt, red, ignore), want, dtype, tol))
                    << what;
              }
            }
          }
        }
      }
    }
  }
}

TEST_P(NnLoss, NllLossEdgeCases) {
  const at::Tensor x = make_tensor(Ref({2, 3}, {-1, -2, -3, -4, -5, -6}), kFloat, device());
  // Every target ignored: the mean is 0 / 0.
  const at::Tensor all_ignored = long_tensor({2}, {-100, -100});
  EXPECT_TRUE(close(at::nll_loss(x, all_ignored), Ref({}, {kNaN}), kFloat));
  EXPECT_TRUE(close(at::nll_loss(x, all_ignored, {}, kSum), Ref({}, {0}), kFloat));
  // Byte targets are class indices too.
  const at::Tensor bytes = make_tensor(Ref({2}, {2, 0}), kByte, device());
  EXPECT_TRUE(close(at::nll_loss(x, bytes, {}, kSum), Ref({}, {3 + 4}), kFloat));
  // An ignored target may be any value, in range or not.
  const at::Tensor odd = long_tensor({2}, {-7, 1});
  EXPECT_TRUE(close(at::nll_loss(x, odd, {}, kMean, -7), Ref({}, {5}), kFloat));
  // Zero-size: None gives an empty result, Sum 0, Mean NaN.
  const at::Tensor empty = at::empty({0, 3}, options(kFloat));
  const at::Tensor no_targets = at::empty({0}, options(kLong));
  EXPECT_TRUE(close(at::nll_loss(empty, no_targets, {}, kNone), Ref({0}, {}), kFloat));
  EXPECT_TRUE(close(at::nll_loss(empty, no_targets, {}, kSum), Ref({}, {0}), kFloat));
  EXPECT_TRUE(close(at::nll_loss(empty, no_targets), Ref({}, {kNaN}), kFloat));
}

TEST_P(NnLoss, NllLossBackwardMatchesReferenceAndFiniteDifferences) {
  for (const NllCase& nc : nll_cases()) {
    if (nc.input.size() != 1 && nc.input.size() != 2 && nc.input.size() != 4) continue;
    const NCS g = ncs(nc.input);
    const std::vector<double> t = targets(g.n * g.s, g.c, 1, 5);
    const at::Tensor target = long_tensor(nc.target, t);
    for (const bool weighted : {false, true}) {
      const std::vector<double> w = weighted ? weights(g.c) : std::vector<double>();
      const std::optional<at::Tensor> wt =
          weighted ? std::optional<at::Tensor>(make_tensor(Ref({g.c}, w), kDouble, device()))
                   : std::nullopt;
      for (const int64_t red : {kNone, kMean, kSum}) {
        Ref xr;
        const at::Tensor x = random_tensor(nc.input, kDouble, {-3, 0}, 7, true, &xr);
        const bool four = nc.input.size() == 4;
        const auto fwd = [&](const at::Tensor& in) {
          return four ? at::nll_loss2d_forward(in, target, wt, red, 1)
                      : at::nll_loss_forward(in, target, wt, red, 1);
        };
        const auto [out, total] = fwd(x);
        const at::Tensor go =
            make_tensor(random_ref(out.sizes().vec(), kDouble, {-1, 1}, 13), kDouble, device());
        const at::Tensor gi =
            four ? at::nll_loss2d_backward(go, x, target, wt, red, 1, total)
                 : at::nll_loss_backward(go, x, target, wt, red, 1, total);
        // Reference: d/dx[t] of -w[t] x[t] times the incoming gradient.
        Ref want(nc.input, std::vector<double>(xr.v.size(), 0.0));
        const Ref gr = to_ref(go);
        const double total_w = nll_ref(xr, t, w, 1).total_weight;
        for (int64_t i = 0; i < g.n; ++i) {
          for (int64_t k = 0; k < g.s; ++k) {
            const int64_t c = static_cast<int64_t>(t[static_cast<size_t>(i * g.s + k)]);
            if (c == 1) continue;
            const double wv = weighted ? w[static_cast<size_t>(c)] : 1.0;
            double gv = out.dim() == 0 ? gr.v[0] : gr.v[static_cast<size_t>(i * g.s + k)];
            if (red == kMean) gv /= total_w;
            want.v[static_cast<size_t>((i * g.c + c) * g.s + k)] = -wv * gv;
          }
        }
        EXPECT_TRUE(close(gi, want, kDouble)) << ::testing::PrintToString(nc.input) << red;
        EXPECT_TRUE(check_finite_differences(
            [&](const at::Tensor& in) { return std::get<0>(fwd(in)); }, x.contiguous(), go, gi));
      }
    }
  }
}

TEST_P(NnLoss, NllLossRefusesBadInput) {
  const at::Tensor x = make_tensor(random_ref({3, 5}, kFloat, {}, 1), kFloat, device());
  EXPECT_THAT(errorOf([&] { at::nll_loss(x, long_tensor({3}, {0, 7, 1})); }),
              HasSubstr("Target 7 is out of bounds."));
  EXPECT_THAT(errorOf([&] { at::nll_loss(x, long_tensor({3}, {0, -1, 1})); }),
              HasSubstr("Target -1 is out of bounds."));
  const at::Tensor float_target = make_tensor(Ref({3}, {0, 1, 2}), kFloat, device());
  EXPECT_THAT(errorOf([&] { at::nll_loss(x, float_target); }),
              HasSubstr("expected scalar type Long but found Float"));
  EXPECT_THAT(errorOf([&] { at::nll_loss_nd(x, long_tensor({4}, {0, 1, 2, 3})); }),
              HasSubstr("Expected input batch_size (3) to match target batch_size (4)."));
  EXPECT_THAT(errorOf([&] { at::nll_loss(x, long_tensor({4}, {0, 1, 2, 3})); }),
              HasSubstr("size mismatch (got input: [3, 5], target: [4])"));
  const at::Tensor w3 = make_tensor(Ref({3}, {1, 1, 1}), kFloat, device());
  EXPECT_THAT(errorOf([&] { at::nll_loss(x, long_tensor({3}, {0, 1, 2}), w3); }),
              HasSubstr("weight tensor should be defined either for all 5 classes or no "
                        "classes but got weight tensor of shape: [3]"));
  const at::Tensor x3 = at::zeros({2, 3, 4}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::nll_loss(x3, long_tensor({2}, {0, 1})); }),
              HasSubstr("input tensor should be 1D or 2D"));
  EXPECT_THAT(errorOf([&] { at::nll_loss(x, at::zeros({3, 2}, options(kLong))); }),
              HasSubstr("0D or 1D target tensor expected, multi-target not supported"));
  EXPECT_THAT(errorOf([&] { at::nll_loss_nd(x3, at::zeros({2, 5}, options(kLong))); }),
              HasSubstr("Expected target size [2, 4], got [2, 5]"));
  const at::Tensor x4 = at::zeros({2, 3, 4, 5}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::nll_loss2d(x4, at::zeros({2, 4}, options(kLong))); }),
              HasSubstr("only batches of spatial targets supported (3D tensors)"));
  EXPECT_THAT(errorOf([&] { at::nll_loss2d(x3, at::zeros({2, 4, 4}, options(kLong))); }),
              HasSubstr("only batches of spatial inputs supported (4D tensors)"));
  EXPECT_THAT(errorOf([&] { at::nll_loss2d(x4, at::zeros({2, 4, 6}, options(kLong))); }),
              HasSubstr("input and target batch or spatial sizes don't match"));
  EXPECT_THAT(errorOf([&] { at::nll_loss(x, long_tensor({3}, {0, 1, 2}), {}, 3); }),
              HasSubstr("reduction must be 0 (None), 1 (Mean) or 2 (Sum)"));
  const at::Tensor t = long_tensor({3}, {0, 1, 2});
  const at::Tensor total = at::ones({}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::nll_loss_backward(at::ones({2}, options(kFloat)), x, t, {}, kMean, -100, total); }),
              HasSubstr("Expected a single element grad_output tensor, but got: [2]"));
  EXPECT_THAT(errorOf([&] { at::nll_loss_backward(at::ones({2}, options(kFloat)), x, t, {}, kNone, -100, total); }),
              HasSubstr("Expected a tensor of dimension 1 and tensor.size[0] == 3"));
  EXPECT_THAT(errorOf([&] { at::nll_loss_backward(at::ones({}, options(kFloat)), x, t, {}, kMean, -100, at::ones({2}, options(kFloat))); }),
              HasSubstr("expected total_weight to be a single element tensor, got: [2]"));
}

// ---- cross_entropy_loss ---------------------------------------------------------------------

TEST_P(NnLoss, CrossEntropyWithClassIndices) {
  for (const ScalarType dtype : {kFloat, kDouble}) {
    for (const NllCase& nc : nll_cases()) {
      const NCS g = ncs(nc.input);
      const std::vector<double> t = targets(g.n * g.s, g.c, 2, 9);
      const at::Tensor target = long_tensor(nc.target, t);
      for (const bool weighted : {false, true}) {
        const std::vector<double> w = weighted ? weights(g.c) : std::vector<double>();
        const std::optional<at::Tensor> wt =
            weighted ? std::optional<at::Tensor>(make_tensor(Ref({g.c}, w), dtype, device()))
                     : std::nullopt;
        Ref xr;
        const at::Tensor x = random_tensor(nc.input, dtype, {-3, 3}, 17, true, &xr);
        const Ref logp = log_softmax_ref(xr);
        const NllRef nll = nll_ref(logp, t, w, 2);
        for (const double ls : {0.0, 0.2}) {
          // smooth[i] = -sum_c w_c logp[i, c] where the target is not ignored.
          std::vector<double> smooth;
          for (int64_t i = 0; i < g.n; ++i) {
            for (int64_t k = 0; k < g.s; ++k) {
              double s = 0;
              if (static_cast<int64_t>(t[static_cast<size_t>(i * g.s + k)]) != 2) {
                for (int64_t c = 0; c < g.c; ++c) {
                  s -= (weighted ? w[static_cast<size_t>(c)] : 1.0) *
                       logp.v[static_cast<size_t>((i * g.c + c) * g.s + k)];
                }
              }
              smooth.push_back(s);
            }
          }
          for (const int64_t red : {kNone, kMean, kSum}) {
            Ref want;
            if (red == kNone) {
              want = Ref(nc.target, nll.losses);
              for (size_t i = 0; i < smooth.size(); ++i) {
                want.v[i] = (1 - ls) * nll.losses[i] + ls / static_cast<double>(g.c) * smooth[i];
              }
            } else {
              double ssum = 0;
              for (double s : smooth) ssum += s;
              const double sm = red == kMean ? ssum / nll.total_weight : ssum;
              want = Ref({}, {(1 - ls) * nll.reduced(red) + ls / static_cast<double>(g.c) * sm});
            }
            EXPECT_TRUE(close(at::cross_entropy_loss(x, target, wt, red, 2, ls), want, dtype,
                              Tol{1e-5, 1e-5}))
                << ::testing::PrintToString(nc.input) << " ls " << ls << " red " << red
                << " weighted " << weighted;
          }
        }
      }
    }
  }
}

TEST_P(NnLoss, CrossEntropyWithProbabilities) {
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{5}, {4, 5}, {2, 3, 4}}) {
    const NCS g = ncs(shape);
    Ref xr, tr;
    const at::Tensor x = random_tensor(shape, kDouble, {-3, 3}, 4, true, &xr);
    const at::Tensor t = random_tensor(shape, kDouble, {0, 1}, 6, false, &tr);
    const Ref logp = log_softmax_ref(xr);
    for (const bool weighted : {false, true}) {
      const std::vector<double> w = weighted ? weights(g.c) : std::vector<double>();
      const std::optional<at::Tensor> wt =
          weighted ? std::optional<at::Tensor>(make_tensor(Ref({g.c}, w), kDouble, device()))
                   : std::nullopt;
      for (const double ls : {0.0, 0.3}) {
        std::vector<double> per;
        for (int64_t i = 0; i < g.n; ++i) {
          for (int64_t k = 0; k < g.s; ++k) {
            double s = 0;
            for (int64_t c = 0; c < g.c; ++c) {
              const size_t at = static_cast<size_t>((i * g.c + c) * g.s + k);
              const double tv = tr.v[at] * (1 - ls) + ls / static_cast<double>(g.c);
              s -= (weighted ? w[static_cast<size_t>(c)] : 1.0) * tv * logp.v[at];
            }
            per.push_back(s);
          }
        }
        std::vector<int64_t> none_shape = shape;
        none_shape.erase(none_shape.begin() + (shape.size() == 1 ? 0 : 1));
        double sum = 0;
        for (double v : per) sum += v;
        EXPECT_TRUE(close(at::cross_entropy_loss(x, t, wt, kNone, -100, ls), Ref(none_shape, per), kDouble));
        EXPECT_TRUE(close(at::cross_entropy_loss(x, t, wt, kSum, -100, ls), Ref({}, {sum}), kDouble));
        EXPECT_TRUE(close(at::cross_entropy_loss(x, t, wt, kMean, -100, ls),
                          Ref({}, {sum / static_cast<double>(per.size())}), kDouble));
      }
    }
  }
}

TEST_P(NnLoss, CrossEntropyRefusesBadInput) {
  const at::Tensor x = make_tensor(random_ref({3, 5}, kFloat, {}, 1), kFloat, device());
  const at::Tensor t = long_tensor({3}, {0, 1, 2});
  EXPECT_THAT(errorOf([&] { at::cross_entropy_loss(x, t, {}, kMean, -100, 1.5); }),
              HasSubstr("label_smoothing must be between 0.0 and 1.0. Got: 1.5"));
  EXPECT_THAT(errorOf([&] { at::cross_entropy_loss(x, at::zeros({3, 5}, options(kLong))); }),
              HasSubstr("Expected floating point type for target with class probabilities, got Long"));
  EXPECT_THAT(errorOf([&] { at::cross_entropy_loss(x, long_tensor({3}, {0, 9, 1})); }),
              HasSubstr("Target 9 is out of bounds."));
  EXPECT_THAT(errorOf([&] { at::cross_entropy_loss(x, long_tensor({3}, {0, 9, 1}), {}, kMean, -100, 0.1); }),
              HasSubstr("Target 9 is out of bounds."));
}

// ---- mse_loss ---------------------------------------------------------------------------

TEST_P(NnLoss, MseLossMatchesReference) {
  for (const ScalarType dtype : {kFloat, kDouble, kHalf}) {
    for (const auto& [sa, sb] : binary_shape_pairs()) {
      for (const Case& a : layouts(sa, dtype, device(), {}, 3)) {
        for (const Case& b : layouts(sb, dtype, device(), {}, 4)) {
          const Ref sq = zip(a.ref, b.ref, [](double x, double y) { return (x - y) * (x - y); });
          const Tol tol = dtype == kHalf ? Tol{5e-3, 5e-3} : default_tol(dtype);
          EXPECT_TRUE(close(at::mse_loss(a.tensor, b.tensor, kNone), sq, dtype, tol))
              << a.name << " vs " << b.name;
          const double sum = nn_test::sum_of(sq);
          EXPECT_TRUE(close(at::mse_loss(a.tensor, b.tensor, kSum), Ref({}, {sum}), dtype, tol));
          EXPECT_TRUE(close(at::mse_loss(a.tensor, b.tensor),
                            Ref({}, {sq.numel() ? sum / static_cast<double>(sq.numel()) : kNaN}),
                            dtype, tol));
        }
      }
    }
  }
}

TEST_P(NnLoss, MseLossBackwardMatchesReferenceAndFiniteDifferences) {
  for (const int64_t red : {kNone, kMean, kSum}) {
    Ref xr, yr;
    const at::Tensor x = random_tensor({3, 4}, kDouble, {}, 1, true, &xr);
    const at::Tensor y = random_tensor({4}, kDouble, {}, 2, false, &yr);
    const at::Tensor out = at::mse_loss(x, y, red);
    const at::Tensor go = make_tensor(random_ref(out.sizes().vec(), kDouble, {}, 3), kDouble, device());
    const at::Tensor gi = at::mse_loss_backward(go, x, y, red);
    const Ref gr = to_ref(go);
    const Ref diff = zip(xr, yr, [](double a, double b) { return a - b; });
    Ref want = diff;
    for (size_t i = 0; i < want.v.size(); ++i) {
      const double gv = red == kNone ? gr.v[i] : gr.v[0];
      want.v[i] = 2 * diff.v[i] * gv / (red == kMean ? 12.0 : 1.0);
    }
    EXPECT_TRUE(close(gi, want, kDouble)) << red;
    EXPECT_TRUE(check_finite_differences(
        [&](const at::Tensor& in) { return at::mse_loss(in, y, red); }, x.contiguous(), go, gi));
  }
  EXPECT_THAT(errorOf([&] { at::mse_loss(at::zeros({2, 3}), at::zeros({4})); }),
              HasSubstr("cannot be broadcast"));
  EXPECT_THAT(errorOf([&] { at::mse_loss(at::zeros({2}, options(kLong)), at::zeros({2}, options(kLong))); }),
              HasSubstr("not implemented for dtype Long"));
}

// ---- binary_cross_entropy -------------------------------------------------------------------

double bce_ref(double x, double t, double w) {
  return -w * (t * std::max(std::log(x), -100.0) + (1 - t) * std::max(std::log1p(-x), -100.0));
}

TEST_P(NnLoss, BinaryCrossEntropyMatchesReference) {
  for (const ScalarType dtype : {kFloat, kDouble}) {
    for (const bool weighted : {false, true}) {
      Ref xr, tr;
      const at::Tensor x = random_tensor({4, 3}, dtype, {0.02, 0.98}, 3, true, &xr);
      const at::Tensor t = random_tensor({4, 3}, dtype, {0, 1}, 4, false, &tr);
      const Ref wr({3}, {0.5, 1.0, 2.0});  // broadcast over rows
      const std::optional<at::Tensor> wt =
          weighted ? std::optional<at::Tensor>(make_tensor(wr, dtype, device())) : std::nullopt;
      Ref want = xr;
      for (size_t i = 0; i < want.v.size(); ++i) {
        want.v[i] = bce_ref(xr.v[i], tr.v[i], weighted ? wr.v[i % 3] : 1.0);
      }
      const double sum = nn_test::sum_of(want);
      EXPECT_TRUE(close(at::binary_cross_entropy(x, t, wt, kNone), want, dtype));
      EXPECT_TRUE(close(at::binary_cross_entropy(x, t, wt, kSum), Ref({}, {sum}), dtype));
      EXPECT_TRUE(close(at::binary_cross_entropy(x, t, wt), Ref({}, {sum / 12}), dtype));
    }
  }
  // log is clamped at -100: a certain wrong answer costs 100, not inf.
  const at::Tensor edge = make_tensor(Ref({2}, {0, 1}), kFloat, device());
  const at::Tensor flip = make_tensor(Ref({2}, {1, 0}), kFloat, device());
  EXPECT_TRUE(close(at::binary_cross_entropy(edge, flip, {}, kNone), Ref({2}, {100, 100}), kFloat));
  EXPECT_TRUE(close(at::binary_cross_entropy(edge, edge, {}, kNone), Ref({2}, {0, 0}), kFloat));
}

TEST_P(NnLoss, BinaryCrossEntropyBackwardMatchesReferenceAndFiniteDifferences) {
  for (const int64_t red : {kNone, kMean, kSum}) {
    for (const bool weighted : {false, true}) {
      Ref xr, tr;
      const at::Tensor x = random_tensor({3, 4}, kDouble, {0.05, 0.95}, 5, true, &xr);
      const at::Tensor t = random_tensor({3, 4}, kDouble, {0, 1}, 6, false, &tr);
      const Ref wr({4}, {0.5, 1, 1.5, 2});
      const std::optional<at::Tensor> wt =
          weighted ? std::optional<at::Tensor>(make_tensor(wr, kDouble, device())) : std::nullopt;
      const at::Tensor out = at::binary_cross_entropy(x, t, wt, red);
      const at::Tensor go = make_tensor(random_ref(out.sizes().vec(), kDouble, {}, 7), kDouble, device());
      const at::Tensor gi = at::binary_cross_entropy_backward(go, x, t, wt, red);
      const Ref gr = to_ref(go);
      Ref want = xr;
      for (size_t i = 0; i < want.v.size(); ++i) {
        const double gv = red == kNone ? gr.v[i] : gr.v[0];
        want.v[i] = gv * (xr.v[i] - tr.v[i]) / ((1 - xr.v[i]) * xr.v[i]) *
                    (weighted ? wr.v[i % 4] : 1.0) / (red == kMean ? 12.0 : 1.0);
      }
      EXPECT_TRUE(close(gi, want, kDouble, Tol{1e-10, 1e-10}));
      EXPECT_TRUE(check_finite_differences(
          [&](const at::Tensor& in) { return at::binary_cross_entropy(in, t, wt, red); },
          x.contiguous(), go, gi));
    }
  }
}

TEST_P(NnLoss, BinaryCrossEntropyRefusesBadInput) {
  const at::Tensor x = make_tensor(Ref({3}, {0.2, 1.5, 0.1}), kFloat, device());
  const at::Tensor t = make_tensor(Ref({3}, {0, 1, 0}), kFloat, device());
  EXPECT_THAT(errorOf([&] { at::binary_cross_entropy(x, t); }),
              HasSubstr("all elements of input should be between 0 and 1"));
  const at::Tensor ok = make_tensor(Ref({3}, {0.2, 0.5, 0.1}), kFloat, device());
  EXPECT_THAT(errorOf([&] { at::binary_cross_entropy(ok, at::zeros({2})); }),
              HasSubstr("Using a target size ([2]) that is different to the input size ([3])"));
  EXPECT_THAT(errorOf([&] { at::binary_cross_entropy(ok, at::zeros({3}, options(kDouble))); }),
              HasSubstr("expected a target of the input's dtype Float, but got Double"));
  EXPECT_THAT(errorOf([&] { at::binary_cross_entropy(ok, t, at::ones({2})); }),
              HasSubstr("cannot be broadcast"));
  EXPECT_THAT(errorOf([&] { at::binary_cross_entropy_with_logits(ok, at::zeros({4})); }),
              HasSubstr("Target size ([4]) must be the same as input size ([3])"));
}

TEST_P(NnLoss, BinaryCrossEntropyWithLogitsIsStable) {
  for (const ScalarType dtype : {kFloat, kDouble}) {
    for (const int mode : {0, 1, 2}) {  // plain, weight, weight and pos_weight
      Ref xr, tr;
      const at::Tensor x = random_tensor({4, 3}, dtype, {-30, 30}, 8, true, &xr);
      const at::Tensor t = random_tensor({4, 3}, dtype, {0, 1}, 9, false, &tr);
      const Ref wr({3}, {0.5, 1.0, 2.0}), pr({3}, {3.0, 0.5, 1.0});
      const std::optional<at::Tensor> wt =
          mode >= 1 ? std::optional<at::Tensor>(make_tensor(wr, dtype, device())) : std::nullopt;
      const std::optional<at::Tensor> pw =
          mode == 2 ? std::optional<at::Tensor>(make_tensor(pr, dtype, device())) : std::nullopt;
      Ref want = xr;
      for (size_t i = 0; i < want.v.size(); ++i) {
        const double xv = xr.v[i], tv = tr.v[i];
        // -log(sigmoid(x)) and -log(1 - sigmoid(x)) without overflow.
        const double nls = std::max(-xv, 0.0) + std::log1p(std::exp(-std::fabs(xv)));
        const double nl1s = std::max(xv, 0.0) + std::log1p(std::exp(-std::fabs(xv)));
        const double p = mode == 2 ? pr.v[i % 3] : 1.0;
        want.v[i] = (mode >= 1 ? wr.v[i % 3] : 1.0) * (p * tv * nls + (1 - tv) * nl1s);
      }
      const double sum = nn_test::sum_of(want);
      const Tol tol{1e-5, 1e-5};
      EXPECT_TRUE(close(at::binary_cross_entropy_with_logits(x, t, wt, pw, kNone), want, dtype, tol));
      EXPECT_TRUE(close(at::binary_cross_entropy_with_logits(x, t, wt, pw, kSum), Ref({}, {sum}), dtype, tol));
      EXPECT_TRUE(close(at::binary_cross_entropy_with_logits(x, t, wt, pw), Ref({}, {sum / 12}), dtype, tol));
    }
  }
  const at::Tensor big = make_tensor(Ref({2}, {100, -100}), kFloat, device());
  const at::Tensor t = make_tensor(Ref({2}, {0, 1}), kFloat, device());
  EXPECT_TRUE(close(at::binary_cross_entropy_with_logits(big, t, {}, {}, kNone), Ref({2}, {100, 100}), kFloat));
}

// The example at the top of docs/ops/nn.md.
TEST(NnDocs, ExampleRuns) {
  at::Tensor logits = at::full({4, 10}, 0.5);            // [N, C]
  at::Tensor target = at::zeros({4}, at::kLong);          // class indices
  at::Tensor p = at::softmax(logits, /*dim=*/1);
  at::Tensor loss = at::cross_entropy_loss(logits, target);          // mean over the batch
  at::Tensor sum = at::nll_loss(at::log_softmax(logits, 1), target, {}, at::Reduction::Sum);
  at::Tensor y = at::layer_norm(logits, {10});
  at::Tensor running_mean = at::zeros({10}), running_var = at::ones({10});
  auto [out, save_mean, save_invstd] = at::native_batch_norm(
      logits, {}, {}, running_mean, running_var, /*training=*/true, 0.1, 1e-5);
  EXPECT_NEAR(p.select(0, 0).select(0, 0).item<float>(), 0.1, 1e-6);
  EXPECT_NEAR(loss.item<float>(), std::log(10.0), 1e-5);
  EXPECT_NEAR(sum.item<float>(), 4 * std::log(10.0), 1e-4);
  EXPECT_NEAR(y.select(0, 0).select(0, 0).item<float>(), 0, 1e-6);
  EXPECT_NEAR(out.select(0, 0).select(0, 0).item<float>(), 0, 1e-6);
  EXPECT_NEAR(running_mean.select(0, 0).item<float>(), 0.05, 1e-6);
}

}  // namespace
}  // namespace ember_conformance
