// The torch::nn modules and functional forms added for libtorch programs
// (issue 15): values against hand-computed references, gradients against
// finite differences (gradcheck in float64), the error paths' messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

torch::Tensor d(std::vector<double> v) { return torch::tensor(v, torch::kDouble); }

double at_(const torch::Tensor& t, int64_t i) { return t.reshape({-1})[i].item<double>(); }

void expect_gradcheck(const torch::autograd::GradcheckFn& fn, const variable_list& inputs) {
  EXPECT_TRUE(torch::autograd::gradcheck(fn, inputs));
}

TEST(ActivationsCompat, ValuesMatchTheirDefinitions) {
  const torch::Tensor x = d({-2.0, -0.5, 0.25, 3.0});
  for (int64_t i = 0; i < 4; ++i) {
    const double v = at_(x, i);
    EXPECT_NEAR(at_(F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)), i),
                v > 0 ? v : 0.2 * v, 1e-12);
    EXPECT_NEAR(at_(F::elu(x, F::ELUFuncOptions().alpha(0.7)), i),
                v > 0 ? v : 0.7 * (std::exp(v) - 1), 1e-12);
    EXPECT_NEAR(at_(F::selu(x), i),
                1.0507009873554805 * (v > 0 ? v : 1.6732632423543772 * (std::exp(v) - 1)), 1e-9);
    EXPECT_NEAR(at_(F::softplus(x, F::SoftplusFuncOptions().beta(2)), i),
                std::log1p(std::exp(2 * v)) / 2, 1e-9);
    EXPECT_NEAR(at_(F::hardtanh(x, F::HardtanhFuncOptions().min_val(-1).max_val(2)), i),
                std::min(2.0, std::max(-1.0, v)), 1e-12);
  }
  torch::nn::PReLU prelu(torch::nn::PReLUOptions().num_parameters(2).init(0.1));
  torch::Tensor in = torch::tensor({{-1.0f, -2.0f}, {3.0f, -4.0f}});  // [N=2, C=2]
  {
    torch::NoGradGuard no_grad;
    prelu->weight[1].fill_(0.5);
  }
  torch::Tensor out = prelu(in);
  EXPECT_FLOAT_EQ(out[0][0].item<float>(), -0.1f);
  EXPECT_FLOAT_EQ(out[0][1].item<float>(), -1.0f);
  EXPECT_FLOAT_EQ(out[1][0].item<float>(), 3.0f);
  EXPECT_FLOAT_EQ(out[1][1].item<float>(), -2.0f);
  EXPECT_THAT(errorOf([&] { prelu(torch::ones({2, 3})); }),
              HasSubstr("prelu: mismatch of parameter numbers and input channel size: found 2 "
                        "weights and 3 channels"));
  EXPECT_THAT(errorOf([] { torch::nn::Hardtanh(torch::nn::HardtanhOptions().min_val(1).max_val(0)); }),
              HasSubstr("Hardtanh: max_val (0) must be greater than min_val (1)."));
  // Modules print as libtorch's.
  std::ostringstream s;
  s << *torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2));
  EXPECT_EQ(s.str(), "torch::nn::LeakyReLU(negative_slope=0.2)");
}

TEST(ActivationsCompat, GradientsMatchFiniteDifferences) {
  torch::manual_seed(0);
  // Keep clear of the kinks at 0, where finite differences are meaningless.
  auto x = (torch::rand({6}, torch::kDouble) + 0.1) *
           d({1, -1, 1, -1, 1, -1});
  x.requires_grad_();
  expect_gradcheck([](const variable_list& in) { return variable_list{torch::selu(in[0])}; }, {x});
  expect_gradcheck([](const variable_list& in) {
    return variable_list{F::leaky_relu(in[0], F::LeakyReLUFuncOptions().negative_slope(0.3))};
  }, {x});
  auto w = d({0.25, -0.5}).requires_grad_();
  auto x2 = x.detach().reshape({3, 2}).requires_grad_();
  expect_gradcheck([](const variable_list& in) { return variable_list{torch::prelu(in[0], in[1])}; },
                   {x2, w});
}

TEST(LossesCompat, ValuesMatchHandComputedOnes) {
  const torch::Tensor x = d({0.0, 1.0, 4.0});
  const torch::Tensor y = d({0.5, 1.0, 1.0});  // |diff| = 0.5, 0, 3
  EXPECT_NEAR(F::l1_loss(x, y).item<double>(), 3.5 / 3, 1e-12);
  EXPECT_NEAR(F::l1_loss(x, y, torch::kSum).item<double>(), 3.5, 1e-12);
  // smooth_l1 (beta 1): 0.5 * 0.25, 0, 3 - 0.5.
  EXPECT_NEAR(torch::smooth_l1_loss(x, y).item<double>(), (0.125 + 2.5) / 3, 1e-12);
  EXPECT_NEAR(F::smooth_l1_loss(x, y, F::SmoothL1LossFuncOptions().beta(4)).item<double>(),
              (0.25 / 8 + 9.0 / 8) / 3, 1e-12);
  // huber (delta 2): 0.5 * 0.25, 0, 2 * (3 - 1).
  EXPECT_NEAR(F::huber_loss(x, y, F::HuberLossFuncOptions().delta(2).reduction(torch::kSum))
                  .item<double>(),
              0.125 + 4.0, 1e-12);
  // kl_div: sum target * (log target - input); a zero target contributes 0.
  const torch::Tensor logp = d({-1.0, -0.5, -2.0});
  const torch::Tensor q = d({0.5, 0.0, 0.5});
  const double expected = 0.5 * (std::log(0.5) + 1.0) + 0.5 * (std::log(0.5) + 2.0);
  EXPECT_NEAR(F::kl_div(logp, q, F::KLDivFuncOptions(torch::kSum)).item<double>(), expected,
              1e-12);
  EXPECT_NEAR(F::kl_div(logp, q).item<double>(), expected / 3, 1e-12);
  EXPECT_NEAR(F::kl_div(logp.reshape({3, 1}), q.reshape({3, 1}),
                        F::KLDivFuncOptions(torch::kBatchMean)).item<double>(),
              expected / 3, 1e-12);
  EXPECT_NEAR(F::kl_div(logp, q.clamp_min(1e-300).log(),
                        F::KLDivFuncOptions(torch::kSum).log_target(true)).item<double>(),
              expected, 1e-9);
  EXPECT_NEAR(torch::nn::SmoothL1Loss()(x, y).item<double>(), (0.125 + 2.5) / 3, 1e-12);
  EXPECT_THAT(errorOf([&] { F::l1_loss(x, d({1.0})); }),
              HasSubstr("l1_loss: the target's sizes [1] differ from the input's [3]"));
  EXPECT_THAT(errorOf([&] { torch::smooth_l1_loss(x, y, at::Reduction::Mean, -1.0); }),
              HasSubstr("smooth_l1_loss: beta must be non-negative, but got -1."));
}

TEST(LossesCompat, GradientsMatchFiniteDifferences) {
  torch::manual_seed(1);
  auto x = torch::randn({5}, torch::kDouble).requires_grad_();
  auto y = (x.detach() + d({0.3, -2.0, 0.7, 1.9, -0.2})).requires_grad_();
  expect_gradcheck([](const variable_list& in) {
    return variable_list{torch::smooth_l1_loss(in[0], in[1], at::Reduction::Mean, 0.5)};
  }, {x, y});
  expect_gradcheck([](const variable_list& in) {
    return variable_list{torch::huber_loss(in[0], in[1], at::Reduction::Sum, 1.0)};
  }, {x, y});
  expect_gradcheck([](const variable_list& in) {
    return variable_list{torch::l1_loss(in[0], in[1], at::Reduction::None)};
  }, {x, y});
  auto p = torch::softmax(torch::randn({5}, torch::kDouble), 0).requires_grad_();
  expect_gradcheck([](const variable_list& in) {
    return variable_list{torch::kl_div(in[0], in[1], at::Reduction::Sum, false)};
  }, {x, p});
}

TEST(ConvCompat, TransposedConvolutionIsTheAdjointOfConvolution) {
  torch::manual_seed(2);
  // <conv(x, w), y> == <x, conv_transpose(y, w)> for the same weight.
  auto x = torch::randn({2, 3, 7, 6}, torch::kDouble);
  auto w = torch::randn({4, 3, 3, 3}, torch::kDouble);
  auto opts = F::Conv2dFuncOptions().stride(2).padding(1);
  auto cx = F::conv2d(x, w, opts);
  auto y = torch::randn(cx.sizes(), torch::kDouble);
  auto ty = F::conv_transpose2d(
      y, w, F::ConvTranspose2dFuncOptions().stride(2).padding(1).output_padding({0, 1}));
  ASSERT_EQ(ty.sizes(), x.sizes());
  EXPECT_NEAR((cx * y).sum().item<double>(), (x * ty).sum().item<double>(), 1e-9);

  auto x1 = torch::randn({2, 3, 9}, torch::kDouble);
  auto w1 = torch::randn({5, 3, 3}, torch::kDouble);
  auto c1 = F::conv1d(x1, w1, F::Conv1dFuncOptions().padding(1));
  ASSERT_EQ(c1.sizes(), (std::vector<int64_t>{2, 5, 9}));
  auto y1 = torch::randn(c1.sizes(), torch::kDouble);
  auto t1 = F::conv_transpose1d(y1, w1, F::ConvTranspose1dFuncOptions().padding(1));
  EXPECT_NEAR((c1 * y1).sum().item<double>(), (x1 * t1).sum().item<double>(), 1e-9);
  // conv1d equals conv2d on a height-1 image.
  auto c2 = F::conv2d(x1.unsqueeze(2), w1.unsqueeze(2), F::Conv2dFuncOptions().padding({0, 1}));
  EXPECT_TRUE(torch::allclose(c1, c2.squeeze(2)));

  auto xs = torch::randn({1, 2, 3, 3}, torch::kDouble).requires_grad_();
  auto ws = torch::randn({2, 1, 2, 2}, torch::kDouble).requires_grad_();
  expect_gradcheck([](const variable_list& in) {
    return variable_list{F::conv_transpose2d(in[0], in[1],
                                             F::ConvTranspose2dFuncOptions().stride(2))};
  }, {xs, ws});
}

TEST(ConvCompat, ModulesHaveLibtorchShapes) {
  torch::nn::ConvTranspose2d up(torch::nn::ConvTranspose2dOptions(8, 4, 4).stride(2).padding(1).bias(false));
  EXPECT_EQ(up->weight.sizes(), (std::vector<int64_t>{8, 4, 4, 4}));
  EXPECT_FALSE(up->bias.defined());
  EXPECT_EQ(up(torch::randn({3, 8, 5, 5})).sizes(), (std::vector<int64_t>{3, 4, 10, 10}));
  EXPECT_EQ(up(torch::randn({8, 5, 5})).sizes(), (std::vector<int64_t>{4, 10, 10}));
  torch::nn::ConvTranspose1d up1(2, 3, 3);
  EXPECT_EQ(up1(torch::randn({1, 2, 4})).sizes(), (std::vector<int64_t>{1, 3, 6}));
  torch::nn::Conv1d conv(torch::nn::Conv1dOptions(2, 6, 3).stride(2).groups(2));
  EXPECT_EQ(conv->weight.sizes(), (std::vector<int64_t>{6, 1, 3}));
  EXPECT_EQ(conv(torch::randn({4, 2, 9})).sizes(), (std::vector<int64_t>{4, 6, 4}));
  EXPECT_THAT(errorOf([&] { up(torch::randn({2, 8})); }),
              HasSubstr("ConvTranspose2d: expected a 3-d (unbatched) or 4-d (batched) input, "
                        "but got a 2-d input"));
  EXPECT_THAT(errorOf([] {
                torch::nn::ConvTranspose2d(torch::nn::ConvTranspose2dOptions(2, 2, 3)
                                               .stride(2).output_padding(2));
              }),
              HasSubstr("output_padding must be smaller than either stride or dilation"));
}

TEST(DropoutCompat, Dropout2dZeroesWholeChannels) {
  torch::manual_seed(3);
  torch::nn::Dropout2d drop(0.5);
  auto x = torch::ones({8, 16, 3, 3});
  auto y = drop(x);
  int64_t dropped = 0;
  for (int64_t n = 0; n < 8; ++n) {
    for (int64_t c = 0; c < 16; ++c) {
      auto channel = y[n][c];
      const double lo = channel.min().item<double>(), hi = channel.max().item<double>();
      EXPECT_EQ(lo, hi) << "channel (" << n << ", " << c << ") is not uniform";
      EXPECT_TRUE(lo == 0.0 || lo == 2.0) << lo;
      dropped += lo == 0.0;
    }
  }
  EXPECT_GT(dropped, 30);   // about 64 of 128
  EXPECT_LT(dropped, 100);
  drop->eval();
  EXPECT_TRUE(drop(x).equal(x));
  torch::nn::Dropout3d drop3(torch::nn::Dropout3dOptions(1.0));
  EXPECT_EQ(drop3(torch::ones({2, 2, 2, 2, 2})).abs().sum().item<double>(), 0.0);
  EXPECT_THAT(errorOf([&] { drop(torch::ones({4})); }),
              HasSubstr("dropout2d: expected a 3-d (unbatched) or 4-d (batched) input, but got "
                        "a 1-d input"));
  EXPECT_THAT(errorOf([] { torch::nn::Dropout2d(1.5); }),
              HasSubstr("Dropout2d: the probability p must be between 0 and 1, but got 1.5."));
  // Gradients flow through the kept channels only, scaled as the values.
  auto g = torch::ones({2, 4, 2, 2}, torch::requires_grad());
  drop->train();
  auto out = drop(g);
  out.sum().backward();
  EXPECT_TRUE(g.grad().equal(out.detach()));
}

TEST(BatchNormCompat, OneAndThreeDimensionalForms) {
  torch::nn::BatchNorm1d bn1(3);
  auto x = torch::randn({16, 3}) * 4 + 2;
  auto y = bn1(x);
  // Training: each feature normalized with the batch statistics.
  EXPECT_TRUE(torch::allclose(y.mean(0), torch::zeros({3}), 0, 1e-5));
  EXPECT_TRUE(torch::allclose(y.var(0, /*unbiased=*/false), torch::ones({3}), 0, 1e-3));
  EXPECT_EQ(bn1(torch::randn({4, 3, 5})).sizes(), (std::vector<int64_t>{4, 3, 5}));
  EXPECT_EQ(bn1->num_batches_tracked.item<int64_t>(), 2);
  torch::nn::BatchNorm3d bn3(torch::nn::BatchNorm3dOptions(2).affine(false));
  EXPECT_FALSE(bn3->weight.defined());
  auto z = bn3(torch::randn({2, 2, 3, 3, 3}));
  EXPECT_TRUE(torch::allclose(z.mean({0, 2, 3, 4}), torch::zeros({2}), 0, 1e-5));
  EXPECT_THAT(errorOf([&] { bn1(torch::randn({2, 3, 4, 5})); }),
              HasSubstr("BatchNorm1d: expected a 2-d [N, C] or 3-d [N, C, L], but got 4-d input"));
  EXPECT_THAT(errorOf([&] { bn3(torch::randn({2, 2, 3, 3})); }),
              HasSubstr("BatchNorm3d: expected a 5-d input [N, C, D, H, W], but got 4-d input"));
  std::ostringstream s;
  s << *bn3;
  EXPECT_EQ(s.str(), "torch::nn::BatchNorm3d(2, eps=1e-05, momentum=0.1, affine=false, "
                     "track_running_stats=true)");
}

}  // namespace
