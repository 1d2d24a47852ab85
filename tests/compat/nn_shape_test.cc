// GroupNorm, InstanceNorm*, 1-d and adaptive pooling, Upsample/interpolate,
// PixelShuffle/Unshuffle, EmbeddingBag, Dropout1d, AlphaDropout and
// Unflatten (issue 15): values against loops over the elements or hand
// computation, gradients against finite differences, error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include <torch/torch.h>

#include "tests/support/error_of.h"

namespace {

namespace F = torch::nn::functional;
using ::testing::HasSubstr;
using ember_test::errorOf;
using torch::autograd::variable_list;

std::vector<double> values(const torch::Tensor& t) {
  const auto c = t.detach().to(torch::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

void expect_values(const torch::Tensor& t, const std::vector<double>& expected, double tol = 1e-6) {
  const auto v = values(t);
  ASSERT_EQ(v.size(), expected.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], expected[i], tol) << "element " << i;
}

void expect_gradcheck(const torch::autograd::GradcheckFn& fn, const variable_list& inputs) {
  EXPECT_TRUE(torch::autograd::gradcheck(fn, inputs));
}

TEST(NormCompat, GroupNormMatchesAPerGroupLoop) {
  torch::manual_seed(10);
  const auto x = torch::randn({2, 4, 3}, torch::kDouble) * 3 + 1;
  const auto w = torch::randn({4}, torch::kDouble), b = torch::randn({4}, torch::kDouble);
  const auto y = F::group_norm(x, F::GroupNormFuncOptions(2).weight(w).bias(b).eps(1e-5));
  const auto xv = values(x), yv = values(y), wv = values(w), bv = values(b);
  for (int n = 0; n < 2; ++n) {
    for (int g = 0; g < 2; ++g) {
      const int begin = n * 12 + g * 6;  // 2 channels of 3 per group
      double mean = 0, var = 0;
      for (int i = 0; i < 6; ++i) mean += xv[begin + i] / 6;
      for (int i = 0; i < 6; ++i) var += (xv[begin + i] - mean) * (xv[begin + i] - mean) / 6;
      for (int i = 0; i < 6; ++i) {
        const int c = g * 2 + i / 3;
        EXPECT_NEAR(yv[begin + i], (xv[begin + i] - mean) / std::sqrt(var + 1e-5) * wv[c] + bv[c],
                    1e-9);
      }
    }
  }
  torch::nn::GroupNorm gn(torch::nn::GroupNormOptions(2, 4));
  EXPECT_TRUE(torch::allclose(gn(x.to(torch::kFloat)), F::group_norm(x, 2).to(torch::kFloat),
                              1e-4, 1e-5));
  auto xs = x.detach().requires_grad_(), ws = w.detach().requires_grad_(),
       bs = b.detach().requires_grad_();
  expect_gradcheck([](const variable_list& in) {
    return variable_list{F::group_norm(in[0], F::GroupNormFuncOptions(2).weight(in[1]).bias(in[2]))};
  }, {xs, ws, bs});
  EXPECT_THAT(errorOf([&] { F::group_norm(x, 3); }),
              HasSubstr("group_norm: the input's channels (4, dimension 1 of sizes [2, 4, 3]) must "
                        "be divisible by num_groups (3)."));
  EXPECT_THAT(errorOf([&] { gn(torch::randn({2, 6, 3})); }),
              HasSubstr("GroupNorm: expected an input [N, 4, *] (num_channels in dimension 1), "
                        "but got sizes [2, 6, 3]."));
  EXPECT_THAT(errorOf([] { torch::nn::GroupNorm(4, 6); }),
              HasSubstr("GroupNorm: num_channels (6) must be divisible by num_groups (4)"));
}

TEST(NormCompat, InstanceNormNormalizesEachPlaneAndTracksStatistics) {
  torch::manual_seed(11);
  torch::nn::InstanceNorm2d norm(torch::nn::InstanceNorm2dOptions(3).track_running_stats(true));
  const auto x = torch::randn({2, 3, 4, 5}) * 2 + 3;
  const auto y = norm(x);
  EXPECT_TRUE(torch::allclose(y.mean({2, 3}), torch::zeros({2, 3}), 0, 1e-5));
  EXPECT_TRUE(torch::allclose(y.var({2, 3}, /*unbiased=*/false), torch::ones({2, 3}), 0, 1e-3));
  // running = 0.9 * initial + 0.1 * the mean over the batch of each instance's statistic
  // (the variance unbiased, as batch_norm's).
  const auto mean = x.mean({2, 3}).mean({0});
  const auto var = x.var({2, 3}, /*unbiased=*/true).mean({0});
  EXPECT_TRUE(torch::allclose(norm->running_mean, 0.1 * mean, 1e-4, 1e-5));
  EXPECT_TRUE(torch::allclose(norm->running_var, 0.9 + 0.1 * var, 1e-4, 1e-5));
  EXPECT_EQ(norm->num_batches_tracked.item<int64_t>(), 1);
  norm->eval();
  const auto z = norm(x[0]);  // unbatched, running statistics
  const auto expected = (x[0] - norm->running_mean.reshape({3, 1, 1})) /
                        torch::sqrt(norm->running_var.reshape({3, 1, 1}) + 1e-5);
  EXPECT_TRUE(torch::allclose(z, expected, 1e-4, 1e-5));

  auto xd = torch::randn({2, 2, 5}, torch::kDouble).requires_grad_();
  auto w = torch::randn({2}, torch::kDouble).requires_grad_();
  expect_gradcheck([](const variable_list& in) {
    return variable_list{F::instance_norm(in[0], F::InstanceNormFuncOptions().weight(in[1]))};
  }, {xd, w});
  torch::nn::InstanceNorm1d n1(torch::nn::InstanceNorm1dOptions(2).affine(true));
  EXPECT_EQ(n1->parameters().size(), 2u);
  EXPECT_THAT(errorOf([&] { norm(torch::randn({4, 5})); }),
              HasSubstr("InstanceNorm2d: expected a 3-d (unbatched) or 4-d (batched) input, but "
                        "got 2-d input."));
  EXPECT_THAT(errorOf([&] { n1(torch::randn({2, 3, 5})); }),
              HasSubstr("InstanceNorm1d: expected input with 2 channels (num_features), but got 3 "
                        "channels in input of sizes [2, 3, 5]."));
  EXPECT_THAT(errorOf([&] { n1(torch::randn({2, 2, 1})); }),
              HasSubstr("instance_norm: expected more than 1 spatial element when training"));
  std::ostringstream s;
  s << *n1;
  EXPECT_EQ(s.str(), "torch::nn::InstanceNorm1d(2, eps=1e-05, momentum=0.1, affine=true, "
                     "track_running_stats=false)");
}

TEST(PoolCompat, OneDimensionalAndAdaptivePooling) {
  const auto x = torch::tensor({1.0, 5.0, 2.0, 4.0, 3.0, 0.0}, torch::kDouble).reshape({1, 1, 6});
  expect_values(torch::nn::MaxPool1d(2)(x), {5, 4, 3});
  expect_values(torch::nn::AvgPool1d(2)(x), {3, 3, 1.5});
  expect_values(F::max_pool1d(x, F::MaxPool1dFuncOptions(3).stride(1).padding(1)),
                {5, 5, 5, 4, 4, 3});
  expect_values(F::avg_pool1d(x[0], F::AvgPool1dFuncOptions(3).stride(2)), {8.0 / 3, 3});
  // Adaptive cells over 6 -> 4: [0, 2), [1, 3), [3, 5), [4, 6).
  expect_values(torch::nn::AdaptiveAvgPool1d(4)(x), {3, 3.5, 3.5, 1.5});
  const auto img = torch::randn({2, 3, 5, 7}, torch::kDouble);
  const auto pooled = torch::nn::AdaptiveMaxPool2d(torch::nn::AdaptiveMaxPool2dOptions({3, 2}))(img);
  ASSERT_EQ(pooled.sizes(), (std::vector<int64_t>{2, 3, 3, 2}));
  const int64_t h0[] = {0, 1, 3}, h1[] = {2, 4, 5}, w0[] = {0, 3}, w1[] = {4, 7};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) {
      const auto cell = img.narrow(2, h0[i], h1[i] - h0[i]).narrow(3, w0[j], w1[j] - w0[j]);
      EXPECT_TRUE(torch::equal(pooled.select(2, i).select(2, j), cell.amax({2, 3})));
    }
  }
  EXPECT_TRUE(torch::allclose(
      F::adaptive_avg_pool2d(img, F::AdaptiveAvgPool2dFuncOptions({1, 1})).squeeze(),
      img.mean({2, 3})));
  EXPECT_TRUE(torch::equal(F::adaptive_max_pool2d(img.narrow(3, 0, 4), F::AdaptiveMaxPool2dFuncOptions({5, 2})),
                           F::max_pool2d(img.narrow(3, 0, 4), F::MaxPool2dFuncOptions({1, 2}))));
  auto xg = torch::randn({1, 2, 5, 4}, torch::kDouble).requires_grad_();
  expect_gradcheck([](const variable_list& in) {
    return variable_list{F::adaptive_max_pool2d(in[0], F::AdaptiveMaxPool2dFuncOptions({2, 3})),
                         F::avg_pool1d(in[0].flatten(2), F::AvgPool1dFuncOptions(3).stride(2)),
                         F::adaptive_avg_pool1d(in[0].flatten(2), F::AdaptiveAvgPool1dFuncOptions(3))};
  }, {xg});
  EXPECT_THAT(errorOf([&] { torch::nn::MaxPool1d(2)(img); }),
              HasSubstr("max_pool1d: expected a 2-d (unbatched) or 3-d (batched) input [C, L] / "
                        "[N, C, L], but got a 4-d input of sizes [2, 3, 5, 7]."));
  EXPECT_THAT(errorOf([&] { F::avg_pool1d(x, F::AvgPool1dFuncOptions(2).padding(2)); }),
              HasSubstr("avg_pool1d: padding must be between 0 and half of kernel_size (2), but "
                        "got 2."));
  EXPECT_THAT(errorOf([&] { F::adaptive_max_pool2d(img, F::AdaptiveMaxPool2dFuncOptions({0, 2})); }),
              HasSubstr("adaptive_max_pool2d: output_size must be positive, but got [0, 2]."));
}

TEST(ResampleCompat, InterpolateNearestAndLinear) {
  const auto x = torch::tensor({0.0, 1.0, 2.0, 3.0}, torch::kDouble).reshape({1, 1, 2, 2});
  torch::nn::Upsample up(torch::nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}));
  expect_values(up(x), {0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3});
  // Linear, half-pixel centres: [0, 4] -> [0, 1, 3, 4].
  const auto line = torch::tensor({0.0, 4.0}, torch::kDouble).reshape({1, 1, 2});
  expect_values(F::interpolate(line, F::InterpolateFuncOptions()
                                         .size(std::vector<int64_t>{4})
                                         .mode(torch::kLinear)
                                         .align_corners(false)),
                {0, 1, 3, 4});
  expect_values(F::interpolate(line, F::InterpolateFuncOptions()
                                         .size(std::vector<int64_t>{5})
                                         .mode(torch::kLinear)
                                         .align_corners(true)),
                {0, 1, 2, 3, 4});
  // Bilinear with corners aligned: the centre of 3x3 is the mean of the four corners.
  expect_values(F::interpolate(x, F::InterpolateFuncOptions()
                                      .size(std::vector<int64_t>{3, 3})
                                      .mode(torch::kBilinear)
                                      .align_corners(true)),
                {0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3});
  // Nearest of 3 -> 2 picks floor(i * 1.5): 0, 1; nearest-exact floor((i + 0.5) * 1.5): 0, 2.
  const auto three = torch::tensor({7.0, 8.0, 9.0}, torch::kDouble).reshape({1, 1, 3});
  expect_values(F::interpolate(three, F::InterpolateFuncOptions().size(std::vector<int64_t>{2})),
                {7, 8});
  expect_values(F::interpolate(three, F::InterpolateFuncOptions()
                                          .size(std::vector<int64_t>{2})
                                          .mode(torch::kNearestExact)),
                {7, 9});
  auto xg = torch::randn({1, 2, 3, 4}, torch::kDouble).requires_grad_();
  expect_gradcheck([](const variable_list& in) {
    return variable_list{F::interpolate(in[0], F::InterpolateFuncOptions()
                                                   .scale_factor(std::vector<double>{1.5, 2})
                                                   .mode(torch::kBilinear)
                                                   .align_corners(false))};
  }, {xg});
  EXPECT_THAT(errorOf([&] {
                F::interpolate(line, F::InterpolateFuncOptions()
                                         .size(std::vector<int64_t>{4})
                                         .mode(torch::kBilinear));
              }),
              HasSubstr("interpolate: mode kBilinear expects a 4-d input, but got a 3-d input"));
  EXPECT_THAT(errorOf([&] { F::interpolate(x, F::InterpolateFuncOptions()); }),
              HasSubstr("interpolate: give exactly one of size and scale_factor, but neither "
                        "were given."));
  EXPECT_THAT(errorOf([&] {
                F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{4}));
              }),
              HasSubstr("interpolate: expected size with 2 values (one per spatial dimension of "
                        "the 4-d input), but got 1."));
  EXPECT_THAT(errorOf([&] {
                F::interpolate(x, F::InterpolateFuncOptions()
                                      .size(std::vector<int64_t>{4, 4})
                                      .mode(torch::kTrilinear));
              }),
              HasSubstr("interpolate: mode kTrilinear expects a 5-d input, but got a 4-d input"));
}

TEST(ResampleCompat, PixelShuffleRoundTrips) {
  const auto x = torch::arange(4, torch::kDouble).reshape({1, 4, 1, 1});
  expect_values(torch::nn::PixelShuffle(2)(x), {0, 1, 2, 3});
  EXPECT_EQ(torch::nn::PixelShuffle(2)(x).sizes(), (std::vector<int64_t>{1, 1, 2, 2}));
  // Channel c * r^2 + i * r + j lands at (c, h * r + i, w * r + j).
  const auto big = torch::randn({2, 8, 3, 5});
  const auto shuffled = F::pixel_shuffle(big, 2);
  ASSERT_EQ(shuffled.sizes(), (std::vector<int64_t>{2, 2, 6, 10}));
  EXPECT_EQ(shuffled[1][1][2 * 2 + 1][4 * 2 + 0].item<float>(),
            big[1][1 * 4 + 1 * 2 + 0][2][4].item<float>());
  EXPECT_TRUE(torch::equal(torch::nn::PixelUnshuffle(2)(shuffled), big));
  EXPECT_THAT(errorOf([&] { F::pixel_shuffle(torch::randn({1, 6, 2, 2}), 2); }),
              HasSubstr("pixel_shuffle: the input's channels (6, dimension -3 of sizes [1, 6, 2, "
                        "2]) must be divisible by upscale_factor squared (4)."));
  EXPECT_THAT(errorOf([&] { F::pixel_unshuffle(torch::randn({1, 1, 3, 4}), 2); }),
              HasSubstr("pixel_unshuffle: the input's height and width (3, 4) must be divisible "
                        "by downscale_factor (2)."));
}

TEST(EmbeddingBagCompat, SumMeanMaxPaddingAndGradients) {
  // Row r of the table is [r, -r].
  const auto table = torch::arange(5, torch::kDouble).unsqueeze(1) * torch::tensor({1.0, -1.0}, torch::kDouble);
  torch::nn::EmbeddingBag bag(torch::nn::EmbeddingBagOptions(5, 2)._weight(table));
  const auto rows = torch::tensor({{1, 2}, {4, 4}}, torch::kLong);
  expect_values(bag(rows), {1.5, -1.5, 4, -4});  // kMean by default
  const auto flat = torch::tensor({1, 3, 2, 4}, torch::kLong);
  const auto offsets = torch::tensor({0, 2, 2}, torch::kLong);  // bags {1, 3}, {}, {2, 4}
  expect_values(F::embedding_bag(flat, table, F::EmbeddingBagFuncOptions().offsets(offsets)
                                                  .mode(torch::kSum)),
                {4, -4, 0, 0, 6, -6});
  expect_values(F::embedding_bag(flat, table, F::EmbeddingBagFuncOptions().offsets(offsets)
                                                  .mode(torch::kMax)),
                {3, -1, 0, 0, 4, -2});
  expect_values(F::embedding_bag(flat, table, F::EmbeddingBagFuncOptions()
                                                  .offsets(torch::tensor({0, 1, 4}, torch::kLong))
                                                  .include_last_offset(true)
                                                  .padding_idx(3)),
                {1, -1, 3, -3});  // padding index 3 leaves the mean of {2, 4}
  expect_values(F::embedding_bag(rows, table, F::EmbeddingBagFuncOptions()
                                                  .mode(torch::kSum)
                                                  .per_sample_weights(torch::tensor(
                                                      {{2.0, 0.5}, {1.0, -1.0}}, torch::kDouble))),
                {3, -3, 0, 0});
  auto w = torch::randn({5, 3}, torch::kDouble).requires_grad_();
  auto psw = torch::rand({4}, torch::kDouble).requires_grad_();
  expect_gradcheck([&](const variable_list& in) {
    return variable_list{
        F::embedding_bag(flat, in[0], F::EmbeddingBagFuncOptions().offsets(offsets)),
        F::embedding_bag(flat, in[0], F::EmbeddingBagFuncOptions().offsets(offsets)
                                          .mode(torch::kMax)),
        F::embedding_bag(flat, in[0], F::EmbeddingBagFuncOptions().offsets(offsets)
                                          .mode(torch::kSum).per_sample_weights(in[1]))};
  }, {w, psw});
  EXPECT_THAT(errorOf([&] {
                F::embedding_bag(rows, table, F::EmbeddingBagFuncOptions().per_sample_weights(
                                                  torch::ones({2, 2}, torch::kDouble)));
              }),
              HasSubstr("embedding_bag: per_sample_weights is only supported with mode kSum, but "
                        "mode is kMean."));
  EXPECT_THAT(errorOf([&] {
                F::embedding_bag(flat, table, F::EmbeddingBagFuncOptions().offsets(
                                                  torch::tensor({1, 2}, torch::kLong)));
              }),
              HasSubstr("embedding_bag: offsets[0] must be 0, but got 1."));
  EXPECT_THAT(errorOf([&] { F::embedding_bag(flat, table); }),
              HasSubstr("embedding_bag: a 1-d input needs 1-d offsets (the start of each bag), "
                        "but got none."));
  std::ostringstream s;
  s << *bag;
  EXPECT_EQ(s.str(), "torch::nn::EmbeddingBag(num_embeddings=5, embedding_dim=2, mode=kMean)");
}

TEST(DropoutCompat, Dropout1dAlphaDropoutAndUnflatten) {
  torch::manual_seed(12);
  torch::nn::Dropout1d drop(0.5);
  const auto y = drop(torch::ones({16, 8, 5}));
  const auto per_channel_min = y.amin({2}), per_channel_max = y.amax({2});
  EXPECT_TRUE(torch::equal(per_channel_min, per_channel_max));  // whole channels
  const double dropped = (per_channel_max == 0).sum().item<double>();
  EXPECT_GT(dropped, 30);
  EXPECT_LT(dropped, 98);

  torch::nn::AlphaDropout alpha(0.2);
  const auto x = torch::randn({200000});
  const auto a = alpha(x);
  EXPECT_NEAR(a.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(a.std().item<double>(), 1.0, 0.02);
  // Dropped elements all take one value: a * alpha' + b.
  const double q = 0.8, alpha_p = -1.7580993408473766;
  const double scale = 1 / std::sqrt((alpha_p * alpha_p * 0.2 + 1) * q);
  const double dropped_value = scale * alpha_p - scale * alpha_p * 0.2;
  const double share = (torch::abs(a - dropped_value) < 1e-5).to(torch::kDouble).mean().item<double>();
  EXPECT_NEAR(share, 0.2, 0.01);
  alpha->eval();
  EXPECT_TRUE(torch::equal(alpha(x), x));
  torch::nn::FeatureAlphaDropout feature(0.5);
  const auto f = feature(torch::zeros({4, 6, 3}));
  EXPECT_TRUE(torch::equal(f.amin({2}), f.amax({2})));

  torch::nn::Unflatten unflatten(1, std::vector<int64_t>{2, -1});
  EXPECT_EQ(unflatten(torch::zeros({3, 6, 4})).sizes(), (std::vector<int64_t>{3, 2, 3, 4}));
  EXPECT_THAT(errorOf([&] { drop(torch::ones({2, 3, 4, 5})); }),
              HasSubstr("dropout1d: expected a 2-d (unbatched) or 3-d (batched) input, but got a "
                        "4-d input"));
  EXPECT_THAT(errorOf([] { torch::nn::AlphaDropout(-0.5); }),
              HasSubstr("AlphaDropout: the probability p must be between 0 and 1, but got -0.5."));
}

}  // namespace
