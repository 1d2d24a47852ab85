// The CompositeExplicitAutograd decompositions of the losses, norms,
// reductions and comparisons (aten/LossDecompositions.h, NormDecompositions.h,
// ReduceDecompositions.h, CompareDecompositions.h; the index, pooling and
// convolution ones are in decompositions_conv_index_test.cc), which backends
// without their own kernels run (CUDA, third parties), against the CPU
// plugin's fused kernels on the same inputs: values for every reduction, with and without weights, the
// backward ops, and the errors (the same words: the checks are shared).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include <ATen/ATen.h>

#include "aten/CompareDecompositions.h"
#include "aten/LossDecompositions.h"
#include "aten/NormDecompositions.h"
#include "aten/ReduceDecompositions.h"
#include "tests/aten/decomposition_test_util.h"
#include "tests/support/error_of.h"

namespace {

using ember_test::errorOf;

using ember_test::expect_close;

TEST(LossDecompositions, MseLossMatchesTheCpuKernel) {
  at::manual_seed(1);
  const at::Tensor x = at::randn({4, 5}), y = at::randn({4, 5}), row = at::randn({5});
  for (int64_t r : {0, 1, 2}) {
    SCOPED_TRACE(r);
    expect_close(at::native::mse_loss_decomposed(x, y, r), at::mse_loss(x, y, r));
    expect_close(at::native::mse_loss_decomposed(x, row, r), at::mse_loss(x, row, r));
    const at::Tensor g = r == 0 ? at::randn({4, 5}) : at::randn({});
    expect_close(at::native::mse_loss_backward_decomposed(g, x, y, r),
                 at::mse_loss_backward(g, x, y, r));
  }
  const at::Tensor d = x.to(at::kDouble);
  expect_close(at::native::mse_loss_decomposed(d, y.to(at::kDouble), 1),
               at::mse_loss(d, y.to(at::kDouble), 1), 1e-12);
  EXPECT_EQ(errorOf([&] { at::native::mse_loss_decomposed(x, y, 7); }),
            errorOf([&] { at::mse_loss(x, y, 7); }));
}

TEST(LossDecompositions, BinaryCrossEntropyMatchesTheCpuKernel) {
  at::manual_seed(2);
  at::Tensor x = at::rand({3, 4});
  x.select(0, 0).select(0, 0).fill_(0.0);  // log(0) is clamped at -100
  x.select(0, 1).select(0, 1).fill_(1.0);
  at::Tensor t = at::rand({3, 4}).round();
  t.select(0, 0).select(0, 0).fill_(1.0);  // -t log(0): the clamp counts
  t.select(0, 1).select(0, 1).fill_(0.0);  // (t - 1) log(1 - 1): the clamp counts
  const at::Tensor w = at::rand({4});
  for (int64_t r : {0, 1, 2}) {
    SCOPED_TRACE(r);
    expect_close(at::native::binary_cross_entropy_decomposed(x, t, std::nullopt, r),
                 at::binary_cross_entropy(x, t, std::nullopt, r), 1e-5);
    expect_close(at::native::binary_cross_entropy_decomposed(x, t, w, r),
                 at::binary_cross_entropy(x, t, w, r), 1e-5);
    const at::Tensor g = r == 0 ? at::randn({3, 4}) : at::randn({});
    const at::Tensor xi = x.clamp(0.05, 0.95);  // away from the 1e-12 bound
    expect_close(at::native::binary_cross_entropy_backward_decomposed(g, xi, t, w, r),
                 at::binary_cross_entropy_backward(g, xi, t, w, r), 1e-5);
  }
  // The same errors: range (the first bad element), sizes, dtypes.
  const at::Tensor bad = x.clone();
  bad.select(0, 2).select(0, 1).fill_(1.5);
  EXPECT_THAT(errorOf([&] { at::binary_cross_entropy(bad, t); }),
              ::testing::HasSubstr("element 9 is 1.5"));
  EXPECT_EQ(errorOf([&] { at::native::binary_cross_entropy_decomposed(bad, t, std::nullopt, 1); }),
            errorOf([&] { at::binary_cross_entropy(bad, t); }));
  EXPECT_EQ(errorOf([&] {
              at::native::binary_cross_entropy_decomposed(x, t.reshape({4, 3}), std::nullopt, 1);
            }),
            errorOf([&] { at::binary_cross_entropy(x, t.reshape({4, 3})); }));
  EXPECT_EQ(errorOf([&] {
              at::native::binary_cross_entropy_decomposed(x, t.to(at::kDouble), std::nullopt, 1);
            }),
            errorOf([&] { at::binary_cross_entropy(x, t.to(at::kDouble)); }));
  EXPECT_EQ(errorOf([&] { at::native::binary_cross_entropy_decomposed(x, t, at::rand({3}), 1); }),
            errorOf([&] { at::binary_cross_entropy(x, t, at::rand({3})); }));
}

TEST(LossDecompositions, BinaryCrossEntropyWithLogitsMatchesTheCpuKernel) {
  at::manual_seed(4);
  const at::Tensor x = at::randn({3, 4}).mul(20);  // large |x|: the stable form counts
  const at::Tensor t = at::rand({3, 4});
  const at::Tensor w = at::rand({4}), pw = at::rand({4}).mul(3);
  for (int64_t r : {0, 1, 2}) {
    SCOPED_TRACE(r);
    expect_close(at::native::binary_cross_entropy_with_logits_decomposed(x, t, std::nullopt,
                                                                         std::nullopt, r),
                 at::binary_cross_entropy_with_logits(x, t, std::nullopt, std::nullopt, r), 1e-5);
    expect_close(at::native::binary_cross_entropy_with_logits_decomposed(x, t, w, pw, r),
                 at::binary_cross_entropy_with_logits(x, t, w, pw, r), 1e-5);
  }
  EXPECT_EQ(errorOf([&] {
              at::native::binary_cross_entropy_with_logits_decomposed(x, t.t(), std::nullopt,
                                                                      std::nullopt, 1);
            }),
            errorOf([&] { at::binary_cross_entropy_with_logits(x, t.t()); }));
}

TEST(NormDecompositions, LayerNormMatchesTheCpuKernel) {
  at::manual_seed(3);
  for (c10::ScalarType dt : {at::kFloat, at::kDouble}) {
    const double tol = dt == at::kFloat ? 2e-5 : 1e-10;
    const at::Tensor x = at::randn({3, 4, 6}).mul(3).add(1).to(dt);
    const at::Tensor w = at::randn({4, 6}).to(dt), b = at::randn({4, 6}).to(dt);
    for (int with : {0, 1, 2}) {  // no affine, weight only, weight and bias
      SCOPED_TRACE(with);
      const std::optional<at::Tensor> ow = with >= 1 ? std::optional<at::Tensor>(w) : std::nullopt;
      const std::optional<at::Tensor> ob = with >= 2 ? std::optional<at::Tensor>(b) : std::nullopt;
      auto [y, mean, rstd] = at::native_layer_norm(x, {4, 6}, ow, ob, 1e-5);
      auto [dy, dmean, drstd] = at::native::native_layer_norm_decomposed(x, {4, 6}, ow, ob, 1e-5);
      expect_close(dy, y, tol);
      expect_close(dmean, mean, tol);
      expect_close(drstd, rstd, tol);
      const at::Tensor g = at::randn({3, 4, 6}).to(dt);
      auto [gi, gw, gb] =
          at::native_layer_norm_backward(g, x, {4, 6}, mean, rstd, ow, ob, {true, true, true});
      auto [dgi, dgw, dgb] = at::native::native_layer_norm_backward_decomposed(
          g, x, {4, 6}, mean, rstd, ow, ob, {true, true, true});
      expect_close(dgi, gi, tol * 10);
      expect_close(dgw, gw, tol * 10);
      expect_close(dgb, gb, tol * 10);
    }
  }
  // One normalized dim; a mask that skips the input's gradient.
  const at::Tensor x = at::randn({5, 7});
  // Plain names, not structured bindings: the lambdas below capture them.
  const auto forward = at::native_layer_norm(x, {7}, std::nullopt, std::nullopt, 1e-3);
  const at::Tensor& y = std::get<0>(forward);
  const at::Tensor& mean = std::get<1>(forward);
  const at::Tensor& rstd = std::get<2>(forward);
  expect_close(std::get<0>(at::native::native_layer_norm_decomposed(x, {7}, std::nullopt,
                                                                    std::nullopt, 1e-3)),
               y, 2e-5);
  auto [gi, gw, gb] = at::native::native_layer_norm_backward_decomposed(
      at::ones({5, 7}), x, {7}, mean, rstd, std::nullopt, std::nullopt, {false, true, true});
  EXPECT_FALSE(gi.defined());
  expect_close(gb, at::full({7}, 5.0), 1e-6);
  // The same errors.
  EXPECT_EQ(errorOf([&] { at::native::native_layer_norm_decomposed(x, {6}, std::nullopt, std::nullopt, 1e-5); }),
            errorOf([&] { at::native_layer_norm(x, {6}, std::nullopt, std::nullopt, 1e-5); }));
  EXPECT_EQ(errorOf([&] { at::native::native_layer_norm_decomposed(x, {7}, at::ones({6}), std::nullopt, 1e-5); }),
            errorOf([&] { at::native_layer_norm(x, {7}, at::ones({6}), std::nullopt, 1e-5); }));
  EXPECT_EQ(errorOf([&] {
              at::native::native_layer_norm_backward_decomposed(
                  at::ones({5, 6}), x, {7}, mean, rstd, std::nullopt, std::nullopt, {true, true, true});
            }),
            errorOf([&] {
              at::native_layer_norm_backward(at::ones({5, 6}), x, {7}, mean, rstd, std::nullopt,
                                             std::nullopt, {true, true, true});
            }));
}

TEST(NormDecompositions, BatchNormMatchesTheCpuKernel) {
  at::manual_seed(4);
  using Shape = std::vector<int64_t>;
  for (c10::ScalarType dt : {at::kFloat, at::kDouble}) {
    const double tol = dt == at::kFloat ? 2e-5 : 1e-10;
    // BatchNorm1d on [N, C] (s = 1), 1d on [N, C, L], 2d on [N, C, H, W]; a
    // mean far from zero next to the spread.
    for (const Shape& shape : {Shape{6, 3}, Shape{4, 3, 5}, Shape{2, 3, 4, 5}}) {
      const at::Tensor x = at::randn(shape).mul(2).add(5).to(dt);
      const at::Tensor w = at::randn({3}).to(dt), b = at::randn({3}).to(dt);
      for (int with : {0, 1, 2}) {  // no affine, weight only, weight and bias
        for (bool training : {true, false}) {
          SCOPED_TRACE(::testing::Message() << shape.size() << "-d, affine " << with
                                            << ", training " << training);
          const std::optional<at::Tensor> ow = with >= 1 ? std::optional<at::Tensor>(w) : std::nullopt;
          const std::optional<at::Tensor> ob = with >= 2 ? std::optional<at::Tensor>(b) : std::nullopt;
          at::Tensor rm = at::randn({3}).to(dt), rv = at::rand({3}).add(0.5).to(dt);
          at::Tensor drm = rm.clone(), drv = rv.clone();
          auto [y, mean, invstd] =
              at::native_batch_norm(x, ow, ob, rm, rv, training, 0.3, 1e-5);
          auto [dy, dmean, dinvstd] = at::native::native_batch_norm_decomposed(
              x, ow, ob, drm, drv, training, 0.3, 1e-5);
          expect_close(dy, y, tol);
          expect_close(dmean, mean, tol);
          expect_close(dinvstd, invstd, tol);
          expect_close(drm, rm, tol);  // the running statistics, updated in place
          expect_close(drv, rv, tol);
          const at::Tensor g = at::randn(shape).to(dt);
          const std::optional<at::Tensor> sm = training ? std::optional<at::Tensor>(mean) : std::nullopt;
          const std::optional<at::Tensor> si = training ? std::optional<at::Tensor>(invstd) : std::nullopt;
          auto [gi, gw, gb] = at::native_batch_norm_backward(g, x, ow, rm, rv, sm, si, training,
                                                             1e-5, {true, true, true});
          auto [dgi, dgw, dgb] = at::native::native_batch_norm_backward_decomposed(
              g, x, ow, rm, rv, sm, si, training, 1e-5, {true, true, true});
          expect_close(dgi, gi, tol * 10);
          expect_close(dgw, gw, tol * 10);
          expect_close(dgb, gb, tol * 10);
        }
      }
    }
  }
  // Training without running statistics; a mask that skips the input's
  // gradient; a single value per channel gives a NaN running variance.
  const at::Tensor x = at::randn({4, 2, 3});
  const auto forward =
      at::native::native_batch_norm_decomposed(x, std::nullopt, std::nullopt, std::nullopt,
                                               std::nullopt, true, 0.1, 1e-5);
  const at::Tensor& mean = std::get<1>(forward);
  const at::Tensor& invstd = std::get<2>(forward);
  expect_close(std::get<0>(forward),
               std::get<0>(at::native_batch_norm(x, std::nullopt, std::nullopt, std::nullopt,
                                                 std::nullopt, true, 0.1, 1e-5)),
               2e-5);
  auto [gi, gw, gb] = at::native::native_batch_norm_backward_decomposed(
      at::ones({4, 2, 3}), x, std::nullopt, std::nullopt, std::nullopt, mean, invstd, true,
      1e-5, {false, true, true});
  EXPECT_FALSE(gi.defined());
  expect_close(gb, at::full({2}, 12.0), 1e-6);
  at::Tensor rv = at::ones({2});
  at::native::native_batch_norm_decomposed(at::randn({1, 2}), std::nullopt, std::nullopt,
                                           at::zeros({2}), rv, true, 0.1, 1e-5);
  EXPECT_TRUE(at::isnan(rv).all().item<bool>()) << rv;
  // The same errors (the checks are shared; the CPU adds its device check).
  const at::Tensor x1 = at::randn({5});
  EXPECT_THAT(errorOf([&] {
                at::native::native_batch_norm_decomposed(x1, std::nullopt, std::nullopt,
                                                         std::nullopt, std::nullopt, true, 0.1,
                                                         1e-5);
              }),
              ::testing::HasSubstr("expected an input of at least 2 dimensions"));
  EXPECT_EQ(errorOf([&] {
              at::native::native_batch_norm_decomposed(x1, std::nullopt, std::nullopt,
                                                       std::nullopt, std::nullopt, true, 0.1,
                                                       1e-5);
            }),
            errorOf([&] {
              at::native_batch_norm(x1, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                    true, 0.1, 1e-5);
            }));
  EXPECT_EQ(errorOf([&] {
              at::native::native_batch_norm_decomposed(x, at::ones({3}), std::nullopt,
                                                       std::nullopt, std::nullopt, true, 0.1,
                                                       1e-5);
            }),
            errorOf([&] {
              at::native_batch_norm(x, at::ones({3}), std::nullopt, std::nullopt, std::nullopt,
                                    true, 0.1, 1e-5);
            }));
  EXPECT_THAT(errorOf([&] {
                at::native::native_batch_norm_decomposed(x, std::nullopt, std::nullopt,
                                                         std::nullopt, std::nullopt, false, 0.1,
                                                         1e-5);
              }),
              ::testing::HasSubstr("running_mean and running_var must be defined in evaluation"));
  EXPECT_EQ(errorOf([&] {
              at::native::native_batch_norm_backward_decomposed(
                  at::ones({4, 2, 3}), x, std::nullopt, std::nullopt, std::nullopt,
                  std::nullopt, std::nullopt, true, 1e-5, {true, true, true});
            }),
            errorOf([&] {
              at::native_batch_norm_backward(at::ones({4, 2, 3}), x, std::nullopt,
                                             std::nullopt, std::nullopt, std::nullopt,
                                             std::nullopt, true, 1e-5, {true, true, true});
            }));
  EXPECT_EQ(errorOf([&] {
              at::native::native_batch_norm_backward_decomposed(
                  at::ones({4, 2, 2}), x, std::nullopt, std::nullopt, std::nullopt, mean,
                  invstd, true, 1e-5, {true, true, true});
            }),
            errorOf([&] {
              at::native_batch_norm_backward(at::ones({4, 2, 2}), x, std::nullopt,
                                             std::nullopt, std::nullopt, mean, invstd, true,
                                             1e-5, {true, true, true});
            }));
}

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ReduceDecompositions, VectorNormsMatchTheCpuKernel) {
  at::manual_seed(5);
  at::Tensor x = at::randn({3, 4, 5});
  x.select(0, 1).select(0, 2).fill_(0.0);  // zeros count for p = 0
  using Dims = std::vector<int64_t>;
  for (double p : {0.0, 1.0, 2.0, 3.0, 0.5, -1.0, kInf, -kInf}) {
    for (const Dims& dims : {Dims{}, Dims{1}, Dims{0, 2}, Dims{-1}}) {
      for (bool keepdim : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "p " << p << " dims " << dims.size() << " keepdim "
                                          << keepdim);
        expect_close(at::native::vector_norm_decomposed(x, p, dims, keepdim, std::nullopt,
                                                        "linalg.vector_norm"),
                     at::linalg_vector_norm(x, p, dims, keepdim), 2e-5);
      }
    }
  }
  // dtype=: the input converted first; norm's p defaults to 2.
  expect_close(at::native::vector_norm_decomposed(x, 2, Dims{1}, false, at::kDouble, "norm"),
               at::norm(x, 2, {1}, false, at::kDouble), 1e-12);
  // NaN propagates through every order.
  at::Tensor n = x.clone();
  n.select(0, 0).select(0, 0).fill_(NAN);
  for (double p : {0.0, 1.0, 2.0, kInf, -kInf}) {
    const at::Tensor d = at::native::vector_norm_decomposed(n, p, Dims{1, 2}, false, std::nullopt,
                                                            "norm");
    const at::Tensor c = at::linalg_vector_norm(n, p, Dims{1, 2});
    EXPECT_TRUE(at::equal(at::isnan(d), at::isnan(c))) << p << d << c;
  }
  // The same errors.
  const at::Tensor l = at::ones({2, 3}, at::kLong), e = at::ones({0, 3});
  EXPECT_EQ(errorOf([&] { at::native::vector_norm_decomposed(l, 2, Dims{}, false, std::nullopt, "norm"); }),
            errorOf([&] { at::norm(l, 2, {0}); }));
  EXPECT_EQ(errorOf([&] { at::native::vector_norm_decomposed(e, INFINITY, Dims{0}, false, std::nullopt, "linalg.vector_norm"); }),
            errorOf([&] { at::linalg_vector_norm(e, INFINITY, Dims{0}); }));
  EXPECT_EQ(errorOf([&] { at::native::vector_norm_decomposed(x, true, Dims{0}, false, std::nullopt, "linalg.vector_norm"); }),
            errorOf([&] { at::linalg_vector_norm(x, true, Dims{0}); }));
}

TEST(ReduceDecompositions, LogsumexpMatchesTheCpuKernel) {
  at::manual_seed(6);
  const at::Tensor x = at::randn({3, 4, 5}).mul(30);
  using Dims = std::vector<int64_t>;
  for (const Dims& dims : {Dims{1}, Dims{0, 2}, Dims{-1}, Dims{0, 1, 2}}) {
    for (bool keepdim : {false, true}) {
      expect_close(at::native::logsumexp_decomposed(x, dims, keepdim),
                   at::logsumexp(x, dims, keepdim), 2e-5);
    }
  }
  // -inf rows, a +inf element, NaN, an empty reduction, integers.
  at::Tensor s = at::zeros({4, 3});
  s.select(0, 0).fill_(-INFINITY);
  s.select(0, 1).select(0, 1).fill_(INFINITY);
  s.select(0, 2).select(0, 2).fill_(NAN);
  const at::Tensor d = at::native::logsumexp_decomposed(s, Dims{1}, false);
  const at::Tensor c = at::logsumexp(s, {1}, false);
  EXPECT_TRUE(at::equal(at::isnan(d), at::isnan(c))) << d << c;
  EXPECT_TRUE(at::equal(at::where(at::isnan(d), at::zeros_like(d), d),
                        at::where(at::isnan(c), at::zeros_like(c), c)))
      << d << c;
  expect_close(at::native::logsumexp_decomposed(at::ones({0, 3}), Dims{0}, true),
               at::logsumexp(at::ones({0, 3}), {0}, true));
  expect_close(at::native::logsumexp_decomposed(at::arange(6).reshape({2, 3}), Dims{1}, false),
               at::logsumexp(at::arange(6).reshape({2, 3}), {1}, false));
  EXPECT_EQ(errorOf([&] { at::native::logsumexp_decomposed(x, Dims{1, 1}, false); }),
            errorOf([&] { at::logsumexp(x, {1, 1}, false); }));
}

TEST(CompareDecompositions, IscloseAndEqualMatchTheCpuKernels) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const at::Tensor a = at::tensor({1.0, 1.0, nan, kInf, -kInf, kInf, 1e-9, 100.0, 1.00001, 0.0});
  const at::Tensor b = at::tensor({1.0, 1.00001, nan, kInf, kInf, 1e30, 0.0, 100.001, 1.0, -0.0});
  for (c10::ScalarType dt : {at::kFloat, at::kDouble}) {
    for (bool equal_nan : {false, true}) {
      for (const auto& [rtol, atol] : std::vector<std::pair<double, double>>{{1e-5, 1e-8}, {0, 0}, {1e-2, 1e-3}}) {
        const at::Tensor x = a.to(dt), y = b.to(dt);
        EXPECT_TRUE(at::equal(at::native::isclose_decomposed(x, y, rtol, atol, equal_nan),
                              at::isclose(x, y, rtol, atol, equal_nan)))
            << dt << " " << rtol << " " << atol << " " << equal_nan;
      }
    }
  }
  const at::Tensor i = at::tensor({5, -3, 100, 7}, at::kLong), j = at::tensor({5, -4, 101, 9}, at::kLong);
  EXPECT_TRUE(at::equal(at::native::isclose_decomposed(i, j, 0.01, 1, false), at::isclose(i, j, 0.01, 1, false)));
  const at::Tensor p = at::tensor({true, false}), q = at::tensor({true, true});
  EXPECT_TRUE(at::equal(at::native::isclose_decomposed(p, q, 1, 1, false), at::isclose(p, q, 1, 1, false)));
  // Broadcast.
  EXPECT_TRUE(at::equal(at::native::isclose_decomposed(at::ones({3, 2}), at::ones({2}), 1e-5, 1e-8, false),
                        at::isclose(at::ones({3, 2}), at::ones({2}), 1e-5, 1e-8, false)));
  EXPECT_EQ(errorOf([&] { at::native::isclose_decomposed(a, i.to(at::kDouble), -1, 0, false); }),
            errorOf([&] { at::isclose(a, i.to(at::kDouble), -1, 0, false); }));
  EXPECT_EQ(errorOf([&] { at::native::isclose_decomposed(a, a.to(at::kDouble), 0, 0, false); }),
            errorOf([&] { at::isclose(a, a.to(at::kDouble), 0, 0, false); }));
  for (const auto& [x, y] : std::vector<std::pair<at::Tensor, at::Tensor>>{
           {a, a}, {a, b}, {i, j}, {i, i}, {at::ones({2}), at::ones({3})}, {at::ones({0}), at::ones({0})}}) {
    EXPECT_EQ(at::native::equal_decomposed(x, y), at::equal(x, y));
  }
}

TEST(LossDecompositions, NllLoss2dMatchesTheCpuKernel) {
  at::manual_seed(14);
  const at::Tensor x = at::log_softmax(at::randn({2, 4, 3, 5}), 1);
  at::Tensor t = at::randint(0, 4, {2, 3, 5});
  t.select(0, 1).select(0, 2).fill_(-100);  // ignored
  const at::Tensor w = at::rand({4});
  for (int64_t r : {0, 1, 2}) {
    for (bool weighted : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "reduction " << r << " weighted " << weighted);
      const std::optional<at::Tensor> ow = weighted ? std::optional<at::Tensor>(w) : std::nullopt;
      const auto want = at::nll_loss2d_forward(x, t, ow, r, -100);
      const auto got = at::native::nll_loss2d_forward_decomposed(x, t, ow, r, -100);
      expect_close(std::get<0>(got), std::get<0>(want), 1e-6);
      expect_close(std::get<1>(got), std::get<1>(want), 1e-6);
      const at::Tensor g = r == 0 ? at::randn({2, 3, 5}) : at::randn({});
      expect_close(at::native::nll_loss2d_backward_decomposed(g, x, t, ow, r, -100, std::get<1>(want)),
                   at::nll_loss2d_backward(g, x, t, ow, r, -100, std::get<1>(want)), 1e-6);
    }
  }
  EXPECT_EQ(errorOf([&] { at::native::nll_loss2d_forward_decomposed(x, t.select(0, 0), std::nullopt, 1, -100); }),
            errorOf([&] { at::nll_loss2d_forward(x, t.select(0, 0), std::nullopt, 1, -100); }));
  EXPECT_EQ(errorOf([&] { at::native::nll_loss2d_forward_decomposed(x, t.to(at::kInt), std::nullopt, 1, -100); }),
            errorOf([&] { at::nll_loss2d_forward(x, t.to(at::kInt), std::nullopt, 1, -100); }));
  EXPECT_EQ(errorOf([&] { at::native::nll_loss2d_forward_decomposed(x, t, at::ones({3}), 1, -100); }),
            errorOf([&] { at::nll_loss2d_forward(x, t, at::ones({3}), 1, -100); }));
  EXPECT_EQ(errorOf([&] {
              at::native::nll_loss2d_backward_decomposed(at::ones({2, 3}), x, t, std::nullopt, 0, -100,
                                                         at::ones({}));
            }),
            errorOf([&] { at::nll_loss2d_backward(at::ones({2, 3}), x, t, std::nullopt, 0, -100, at::ones({})); }));
}

}  // namespace
