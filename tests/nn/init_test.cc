// torch::nn::init: gains, fans, the distributions' bounds and moments,
// reproducibility under torch::manual_seed, use on parameters that require
// grad, and errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <torch/torch.h>

#include "nn/nn.h"
#include "tests/nn/nn_test_util.h"
#include "tests/support/error_of.h"

namespace {

namespace init = torch::nn::init;
using ::testing::HasSubstr;
using ember_test::errorOf;

TEST(Init, CalculateGain) {
  EXPECT_EQ(init::calculate_gain(torch::kLinear), 1.0);
  EXPECT_EQ(init::calculate_gain(torch::kConv2D), 1.0);
  EXPECT_EQ(init::calculate_gain(torch::kSigmoid), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain(torch::kTanh), 5.0 / 3);
  EXPECT_DOUBLE_EQ(init::calculate_gain(torch::kReLU), std::sqrt(2.0));
  EXPECT_NEAR(init::calculate_gain(torch::kLeakyReLU, 0.2), 1.38675, 1e-5);  // libtorch's value
  EXPECT_DOUBLE_EQ(init::calculate_gain(torch::kLeakyReLU), std::sqrt(2.0 / (1 + 1e-4)));
  EXPECT_DOUBLE_EQ(init::calculate_gain(torch::kSELU), 0.75);
}

TEST(Init, FanInAndFanOut) {
  auto [in2, out2] = init::_calculate_fan_in_and_fan_out(torch::empty({5, 3}));
  EXPECT_EQ(in2, 3);
  EXPECT_EQ(out2, 5);
  auto [in4, out4] = init::_calculate_fan_in_and_fan_out(torch::empty({8, 4, 3, 2}));
  EXPECT_EQ(in4, 4 * 6);
  EXPECT_EQ(out4, 8 * 6);
  EXPECT_THAT(errorOf([] { init::_calculate_fan_in_and_fan_out(torch::empty({3})); }),
              HasSubstr("fan in and fan out cannot be computed for a tensor with fewer than 2 "
                        "dimensions (sizes [3])"));
}

TEST(Init, ConstantsAndEye) {
  auto w = torch::empty({2, 3}, torch::requires_grad());
  init::constant_(w, 0.5);
  EXPECT_TRUE(w.equal(torch::full({2, 3}, 0.5)));
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());  // filled without recording history
  init::ones_(w);
  EXPECT_EQ(w.sum().item<float>(), 6.0f);
  init::zeros_(w);
  EXPECT_EQ(w.abs().sum().item<float>(), 0.0f);
  init::eye_(w);
  EXPECT_THAT(nn_test::values(w), ::testing::ElementsAre(1.f, 0.f, 0.f, 0.f, 1.f, 0.f));
  EXPECT_THAT(errorOf([] { init::eye_(torch::empty({2, 2, 2})); }),
              HasSubstr("nn::init::eye_: only 2-d tensors are supported"));
  EXPECT_THAT(errorOf([] { init::ones_(torch::Tensor()); }),
              HasSubstr("nn::init::ones_: the tensor is undefined"));
}

TEST(Init, UniformAndNormalMoments) {
  torch::manual_seed(3);
  auto u = init::uniform_(torch::empty({100000}), -2, 4);
  EXPECT_GE(u.min().item<float>(), -2.f);
  EXPECT_LT(u.max().item<float>(), 4.f);
  EXPECT_NEAR(u.mean().item<float>(), 1.0, 0.02);
  EXPECT_NEAR(u.var().item<float>(), 3.0, 0.05);  // 6^2 / 12
  auto n = init::normal_(torch::empty({100000}), 1, 0.5);
  EXPECT_NEAR(n.mean().item<float>(), 1.0, 0.01);
  EXPECT_NEAR(n.std().item<float>(), 0.5, 0.01);
  EXPECT_THAT(errorOf([] { init::uniform_(torch::empty({2}), 1, 0); }),
              HasSubstr("nn::init::uniform_: low must not exceed high, but got low=1, high=0"));
  EXPECT_THAT(errorOf([] { init::normal_(torch::empty({2}), 0, -1); }),
              HasSubstr("nn::init::normal_: std must be non-negative, but got -1"));
  EXPECT_THAT(errorOf([] { init::normal_(torch::empty({2}, torch::kLong)); }),
              HasSubstr("nn::init::normal_: expected a floating-point tensor, but got Long"));
}

TEST(Init, XavierAndKaimingScales) {
  torch::manual_seed(4);
  auto w = torch::empty({300, 200});
  init::xavier_uniform_(w, 2.0);
  const double xa = 2.0 * std::sqrt(6.0 / 500);
  EXPECT_LE(w.abs().max().item<float>(), xa);
  EXPECT_GT(w.abs().max().item<float>(), xa * 0.99);
  init::xavier_normal_(w);
  EXPECT_NEAR(w.std().item<float>(), std::sqrt(2.0 / 500), 0.002);
  init::kaiming_uniform_(w, 0, torch::kFanIn, torch::kReLU);
  const double ka = std::sqrt(2.0) * std::sqrt(3.0 / 200);
  EXPECT_LE(w.abs().max().item<float>(), ka);
  EXPECT_GT(w.abs().max().item<float>(), ka * 0.99);
  init::kaiming_normal_(w, 0, torch::kFanOut, torch::kReLU);
  EXPECT_NEAR(w.std().item<float>(), std::sqrt(2.0 / 300), 0.001);
  init::kaiming_normal_(w);  // leaky_relu with a = 0, fan_in
  EXPECT_NEAR(w.std().item<float>(), std::sqrt(2.0 / 200), 0.001);
  EXPECT_THAT(errorOf([] { init::kaiming_uniform_(torch::empty({3, 0})); }),
              HasSubstr("nn::init::kaiming_uniform_: the fan is 0"));
  EXPECT_THAT(errorOf([] { init::xavier_uniform_(torch::empty({4})); }),
              HasSubstr("fewer than 2 dimensions"));
}

TEST(Init, SeededDrawsAreReproducible) {
  torch::manual_seed(77);
  auto a = init::kaiming_uniform_(torch::empty({4, 5}));
  auto b = init::normal_(torch::empty({6}));
  torch::manual_seed(77);
  auto a2 = init::kaiming_uniform_(torch::empty({4, 5}));
  auto b2 = init::normal_(torch::empty({6}));
  EXPECT_TRUE(a.equal(a2));
  EXPECT_TRUE(b.equal(b2));
  EXPECT_FALSE(a.equal(init::kaiming_uniform_(torch::empty({4, 5}))));
}

}  // namespace
