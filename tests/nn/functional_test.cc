// torch::nn::functional and the loss modules: losses against hand-computed
// values for every reduction and option, the functional layers against the
// modules and aten ops, and their error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include <torch/torch.h>

#include "nn/nn.h"
#include "tests/nn/nn_test_util.h"
#include "tests/support/error_of.h"

namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;
using ember_test::errorOf;
using nn_test::make;
using nn_test::values;

torch::Tensor logits() { return make<float>({2, 3}, {1, 2, 3, 1, 1, 1}); }
torch::Tensor classes() { return make<int64_t>({2}, {2, 0}); }
// -log_softmax of the two rows at classes 2 and 0.
constexpr float kRow0 = 0.40760596f;
constexpr float kRow1 = 1.0986123f;

TEST(CrossEntropy, ReductionsMatchHandComputedValues) {
  EXPECT_NEAR(F::cross_entropy(logits(), classes()).item<float>(), (kRow0 + kRow1) / 2, 1e-6);
  EXPECT_NEAR(F::cross_entropy(logits(), classes(),
                               F::CrossEntropyFuncOptions().reduction(torch::kSum))
                  .item<float>(),
              kRow0 + kRow1, 1e-6);
  EXPECT_THAT(values(F::cross_entropy(logits(), classes(),
                                      F::CrossEntropyFuncOptions().reduction(torch::kNone))),
              Pointwise(FloatNear(1e-6), {kRow0, kRow1}));
}

TEST(CrossEntropy, WeightIgnoreIndexAndLabelSmoothing) {
  auto weighted = F::cross_entropy(logits(), classes(), F::CrossEntropyFuncOptions().weight(
                                                            make<float>({3}, {1, 1, 2})));
  EXPECT_NEAR(weighted.item<float>(), (2 * kRow0 + kRow1) / 3, 1e-6);
  auto ignored = F::cross_entropy(logits(), classes(), F::CrossEntropyFuncOptions().ignore_index(0));
  EXPECT_NEAR(ignored.item<float>(), kRow0, 1e-6);
  // (1 - ε) * nll + ε * mean over classes of -log p.
  auto smoothed = F::cross_entropy(logits(), classes(),
                                   F::CrossEntropyFuncOptions().label_smoothing(0.1));
  const float row0 = 0.9f * kRow0 + 0.1f * (kRow0 + 1 + kRow0 + 2 + kRow0) / 3;
  EXPECT_NEAR(smoothed.item<float>(), (row0 + kRow1) / 2, 1e-6);
  // Class probabilities as the target.
  auto probs = make<float>({2, 3}, {0, 0, 1, 1.f / 3, 1.f / 3, 1.f / 3});
  EXPECT_NEAR(F::cross_entropy(logits(), probs).item<float>(), (kRow0 + kRow1) / 2, 1e-6);
  EXPECT_THAT(errorOf([] {
                F::cross_entropy(logits(), classes(),
                                 F::CrossEntropyFuncOptions().label_smoothing(1.5));
              }),
              HasSubstr("cross_entropy: label_smoothing must be between 0.0 and 1.0, but got 1.5"));
  EXPECT_THAT(errorOf([] { F::cross_entropy(logits(), torch::Tensor()); }),
              HasSubstr("cross_entropy: the target tensor is undefined"));
}

TEST(CrossEntropy, ModuleFormMatchesFunctionalAndFlowsGradients) {
  nn::CrossEntropyLoss loss(nn::CrossEntropyLossOptions().weight(make<float>({3}, {1, 1, 2})));
  EXPECT_THAT(loss->named_buffers().keys(), ElementsAre("weight"));
  auto x = logits().requires_grad_();
  auto l = loss(x, classes());
  EXPECT_NEAR(l.item<float>(), (2 * kRow0 + kRow1) / 3, 1e-6);
  l.backward();
  // d/dlogits of the weighted mean: w_i (softmax - onehot) / Σw.
  auto expected = (torch::softmax(logits(), 1) - make<float>({2, 3}, {0, 0, 1, 1, 0, 0})) *
                  make<float>({2, 1}, {2.f / 3, 1.f / 3});
  EXPECT_TRUE(torch::allclose(x.grad(), expected, 1e-5, 1e-6));
}

TEST(NLLLoss, MeanSumWeightAndModule) {
  auto logp = make<float>({2, 2}, {-1, -2, -0.5, -3});
  auto target = make<int64_t>({2}, {1, 0});
  EXPECT_NEAR(F::nll_loss(logp, target).item<float>(), 1.25, 1e-6);
  EXPECT_NEAR(F::nll_loss(logp, target, F::NLLLossFuncOptions().reduction(torch::kSum))
                  .item<float>(),
              2.5, 1e-6);
  EXPECT_NEAR(F::nll_loss(logp, target, F::NLLLossFuncOptions().weight(make<float>({2}, {2, 1})))
                  .item<float>(),
              (1 * 2 + 2 * 0.5) / 3.0, 1e-6);
  nn::NLLLoss module(nn::NLLLossOptions().ignore_index(1));
  EXPECT_NEAR(module(logp, target).item<float>(), 0.5, 1e-6);
  // log_softmax + nll_loss is cross_entropy.
  EXPECT_TRUE(torch::allclose(F::nll_loss(F::log_softmax(logits(), 1), classes()),
                              F::cross_entropy(logits(), classes())));
}

TEST(MSELoss, Reductions) {
  auto x = make<float>({3}, {1, 2, 3});
  auto y = make<float>({3}, {1, 0, 0});
  EXPECT_NEAR(F::mse_loss(x, y).item<float>(), 13.0 / 3, 1e-6);
  EXPECT_NEAR(nn::MSELoss(torch::kSum)(x, y).item<float>(), 13.0, 1e-6);
  EXPECT_THAT(values(F::mse_loss(x, y, torch::kNone)), ElementsAre(0.f, 4.f, 9.f));
  EXPECT_THAT(errorOf([&] { F::mse_loss(x, torch::ones({2})); }),
              HasSubstr("mse_loss: the target's sizes [2] differ from the input's [3]"));
}

TEST(BCELoss, ValuesWeightAndErrors) {
  auto p = make<float>({2}, {0.9, 0.2});
  auto t = make<float>({2}, {1, 0});
  const double l0 = -std::log(0.9), l1 = -std::log(0.8);
  EXPECT_NEAR(F::binary_cross_entropy(p, t).item<float>(), (l0 + l1) / 2, 1e-6);
  EXPECT_NEAR(nn::BCELoss(nn::BCELossOptions().weight(make<float>({2}, {2, 1})))(p, t)
                  .item<float>(),
              (2 * l0 + l1) / 2, 1e-6);
  // A weight that broadcasts against the input.
  EXPECT_NEAR(F::binary_cross_entropy(p, t, F::BinaryCrossEntropyFuncOptions()
                                                .weight(make<float>({1}, {3}))
                                                .reduction(torch::kSum))
                  .item<float>(),
              3 * (l0 + l1), 1e-5);
  EXPECT_THAT(errorOf([&] { F::binary_cross_entropy(p, torch::ones({2, 1})); }),
              HasSubstr("binary_cross_entropy: the target's sizes [2, 1] differ from the "
                        "input's [2]"));
}

TEST(BCEWithLogitsLoss, ValuesPosWeightAndErrors) {
  auto x = make<float>({2}, {0, 2});
  auto t = make<float>({2}, {1, 0});
  const double l0 = std::log(2.0), l1 = std::log(1 + std::exp(2.0));
  EXPECT_NEAR(F::binary_cross_entropy_with_logits(x, t).item<float>(), (l0 + l1) / 2, 1e-6);
  nn::BCEWithLogitsLoss weighted(
      nn::BCEWithLogitsLossOptions().pos_weight(make<float>({2}, {3, 3})));
  EXPECT_THAT(weighted->named_buffers().keys(), ElementsAre("pos_weight"));
  EXPECT_NEAR(weighted(x, t).item<float>(), (3 * l0 + l1) / 2, 1e-5);
  // Same as sigmoid followed by BCE.
  EXPECT_TRUE(torch::allclose(F::binary_cross_entropy_with_logits(x, t),
                              F::binary_cross_entropy(torch::sigmoid(x), t)));
  EXPECT_THAT(errorOf([&] { F::binary_cross_entropy_with_logits(x, torch::ones({3})); }),
              HasSubstr("binary_cross_entropy_with_logits: the target's sizes [3] differ"));
}

TEST(Functional, LayersMatchAtenOps) {
  torch::manual_seed(21);
  auto x = torch::randn({2, 3, 6, 6});
  auto w = torch::randn({4, 3, 3, 3});
  auto b = torch::randn({4});
  EXPECT_TRUE(torch::allclose(F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1)),
                              at::conv2d(x, w, b, {2, 2}, {1, 1})));
  EXPECT_EQ(F::conv2d(x, w, F::Conv2dFuncOptions().padding(torch::kSame)).sizes(),
            (std::vector<int64_t>{2, 4, 6, 6}));
  EXPECT_TRUE(F::max_pool2d(x, F::MaxPool2dFuncOptions(2)).equal(at::max_pool2d(x, {2, 2})));
  EXPECT_TRUE(torch::allclose(F::avg_pool2d(x, F::AvgPool2dFuncOptions(3).stride(3)),
                              at::avg_pool2d(x, {3, 3}, {3, 3})));
  auto in = torch::randn({5, 3});
  auto lw = torch::randn({2, 3});
  EXPECT_TRUE(torch::allclose(F::linear(in, lw), in.matmul(lw.t())));
  EXPECT_TRUE(F::relu(in).equal(torch::relu(in)));
  EXPECT_TRUE(F::gelu(in).equal(at::gelu(in)));
  EXPECT_EQ(F::softmax(in, F::SoftmaxFuncOptions(1).dtype(torch::kDouble)).scalar_type(),
            torch::kDouble);
  EXPECT_TRUE(torch::allclose(F::log_softmax(in, 1), torch::log_softmax(in, 1)));
  EXPECT_EQ(F::flatten(x).sizes(), (std::vector<int64_t>{2, 108}));
  EXPECT_TRUE(F::dropout(in, F::DropoutFuncOptions().training(false)).equal(in));
  auto table = torch::randn({4, 2});
  auto idx = make<int64_t>({3}, {3, 0, 3});
  EXPECT_TRUE(F::embedding(idx, table).equal(table.index_select(0, idx)));
  auto ln = F::layer_norm(in, F::LayerNormFuncOptions({3}).eps(1e-5));
  EXPECT_TRUE(torch::allclose(ln, at::layer_norm(in, {3}), 1e-5, 1e-6));
  auto rm = torch::zeros({3});
  auto rv = torch::ones({3});
  auto bn = F::batch_norm(x, rm, rv, F::BatchNormFuncOptions().training(false).eps(0));
  EXPECT_TRUE(torch::allclose(bn, x));  // eval with mean 0, var 1 is the identity
  F::batch_norm(x, rm, rv, F::BatchNormFuncOptions().training(true).momentum(1.0));
  EXPECT_TRUE(torch::allclose(rm, x.mean({0, 2, 3}), 1e-5, 1e-6));
}

TEST(Functional, Errors) {
  auto x = torch::ones({2, 3, 4, 4});
  EXPECT_THAT(errorOf([&] { F::conv2d(x, torch::ones({4, 3, 3})); }),
              HasSubstr("conv2d: expected a 4-d weight"));
  EXPECT_THAT(errorOf([&] { F::conv2d(x, torch::ones({4, 3, 3, 3}), F::Conv2dFuncOptions().groups(0)); }),
              HasSubstr("conv2d: groups must be positive, but got 0"));
  EXPECT_THAT(errorOf([&] {
                F::conv2d(x, torch::ones({4, 3, 3, 3}),
                          F::Conv2dFuncOptions().stride(2).padding(torch::kSame));
              }),
              HasSubstr("conv2d: padding='same' needs stride 1"));
  EXPECT_THAT(errorOf([&] { F::batch_norm(x, torch::Tensor(), torch::Tensor()); }),
              HasSubstr("batch_norm: evaluation mode (training=false) needs running_mean and "
                        "running_var"));
  EXPECT_THAT(errorOf([&] {
                F::batch_norm(x, torch::zeros({3}), torch::ones({3}),
                              F::BatchNormFuncOptions().momentum(std::nullopt));
              }),
              HasSubstr("batch_norm: momentum is unset"));
  EXPECT_THAT(errorOf([&] { F::batch_norm(x, torch::zeros({3}), torch::Tensor()); }),
              HasSubstr("running_mean and running_var must both be defined or both undefined"));
  EXPECT_THAT(errorOf([&] {
                F::batch_norm(torch::ones({2, 0, 3}), torch::Tensor(), torch::Tensor(),
                              F::BatchNormFuncOptions().training(true));
              }),
              HasSubstr("batch_norm: the input has no channels (sizes [2, 0, 3])"));
  EXPECT_THAT(errorOf([&] { F::batch_norm(torch::ones({3}), torch::zeros({3}), torch::ones({3})); }),
              HasSubstr("batch_norm: expected an input [N, C, *] with at least 2 dimensions"));
  EXPECT_THAT(errorOf([&] { F::gelu(x, F::GELUFuncOptions().approximate("erf")); }),
              HasSubstr("gelu: approximate must be \"none\" or \"tanh\", but got \"erf\""));
  EXPECT_THAT(errorOf([&] { F::linear(x, torch::ones({3})); }),
              HasSubstr("linear: expected a 2-d weight [out_features, in_features]"));
  EXPECT_THAT(errorOf([&] {
                F::embedding(make<int64_t>({1}, {0}), torch::ones({3, 2}),
                             F::EmbeddingFuncOptions().padding_idx(-4));
              }),
              HasSubstr("embedding: padding_idx -4 is out of range for 3 embeddings"));
  EXPECT_THAT(errorOf([&] { F::layer_norm(x, F::LayerNormFuncOptions({})); }),
              HasSubstr("layer_norm: normalized_shape is empty"));
}

TEST(Enums, NamesAndReductionValues) {
  EXPECT_EQ(torch::enumtype::get_enum_name(torch::kMean), "kMean");
  nn::loss_reduction_t reduction = torch::kSum;
  EXPECT_EQ(torch::enumtype::get_enum_name(reduction), "kSum");
  EXPECT_EQ(nn::detail::reduction_value(torch::kNone), at::Reduction::None);
  EXPECT_EQ(nn::detail::reduction_value(torch::kMean), at::Reduction::Mean);
  EXPECT_EQ(nn::detail::reduction_value(torch::kSum), at::Reduction::Sum);
}

}  // namespace
