// The layers: each forward against hand-computed values or the equivalent
// aten op, default initialization (bounds, statistics, seeded
// reproducibility), BatchNorm's running statistics, Dropout in train and
// eval, Embedding's padding row, pretty printing, and bad options.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

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

template <typename M>
std::string printed(const M& module) {
  std::ostringstream out;
  out << *module;
  return out.str();
}

// ---- Linear ----

TEST(Linear, ForwardIsXWtPlusB) {
  nn::Linear fc(2, 3);
  {
    torch::NoGradGuard no_grad;
    fc->weight.copy_(make<float>({3, 2}, {1, 2, 3, 4, 5, 6}));
    fc->bias.copy_(make<float>({3}, {0.5, -1, 2}));
  }
  auto y = fc(make<float>({2, 2}, {1, 1, 2, -1}));
  // [1,1]: 3.5, 6, 13; [2,-1]: 0.5, 1, 6.
  EXPECT_THAT(values(y), ElementsAre(3.5f, 6.f, 13.f, 0.5f, 1.f, 6.f));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 3}));
  // Leading dimensions are batch dimensions.
  EXPECT_EQ(fc(torch::ones({4, 5, 2})).sizes(), (std::vector<int64_t>{4, 5, 3}));
}

TEST(Linear, NoBiasRegistersNoBiasParameter) {
  nn::Linear fc(nn::LinearOptions(4, 2).bias(false));
  EXPECT_FALSE(fc->bias.defined());
  EXPECT_EQ(fc->parameters().size(), 1u);
  EXPECT_TRUE(torch::allclose(fc(torch::ones({1, 4})), fc->weight.sum(1).unsqueeze(0)));
}

TEST(Linear, DefaultInitIsUniformWithinOneOverSqrtFanIn) {
  torch::manual_seed(1);
  nn::Linear fc(400, 300);
  const double bound = 1.0 / std::sqrt(400.0);
  EXPECT_LE(fc->weight.abs().max().item<float>(), bound);
  EXPECT_LE(fc->bias.abs().max().item<float>(), bound);
  // U(-b, b): mean 0, variance b^2 / 3 (120,000 draws).
  EXPECT_NEAR(fc->weight.mean().item<float>(), 0.0, 0.001);
  EXPECT_NEAR(fc->weight.var().item<float>(), bound * bound / 3, bound * bound / 3 * 0.02);
  // Close to the bound: the whole interval is used.
  EXPECT_GT(fc->weight.abs().max().item<float>(), bound * 0.999);
}

TEST(Linear, SeededInitIsReproducible) {
  torch::manual_seed(42);
  nn::Linear a(5, 7);
  torch::manual_seed(42);
  nn::Linear b(5, 7);
  EXPECT_TRUE(a->weight.equal(b->weight));
  EXPECT_TRUE(a->bias.equal(b->bias));
  nn::Linear c(5, 7);
  EXPECT_FALSE(a->weight.equal(c->weight));
}

TEST(Linear, BadOptionsAndInputs) {
  EXPECT_THAT(errorOf([] { nn::Linear(0, 3); }),
              HasSubstr("Linear: in_features and out_features must be positive, but got "
                        "in_features=0, out_features=3"));
  EXPECT_THAT(errorOf([] { nn::Linear(2, -1); }), HasSubstr("out_features=-1"));
  nn::Linear fc(3, 2);
  EXPECT_THAT(errorOf([&] { fc(torch::ones({2, 4})); }),
              HasSubstr("linear: the input's last dimension must be in_features = 3, but the "
                        "input has sizes [2, 4]"));
  EXPECT_THAT(errorOf([&] { fc(torch::Tensor()); }),
              HasSubstr("linear: the input tensor is undefined"));
}

// ---- Conv2d ----

TEST(Conv2d, ForwardMatchesHandComputedSums) {
  nn::Conv2d conv(nn::Conv2dOptions(1, 1, 2).bias(false));
  {
    torch::NoGradGuard no_grad;
    conv->weight.fill_(1);
  }
  auto x = torch::arange(9, torch::kFloat).reshape({1, 1, 3, 3});
  // 2x2 window sums of [[0,1,2],[3,4,5],[6,7,8]].
  EXPECT_THAT(values(conv(x)), ElementsAre(8.f, 12.f, 20.f, 24.f));
  // An unbatched [C, H, W] input gives an unbatched output.
  EXPECT_EQ(conv(x[0]).sizes(), (std::vector<int64_t>{1, 2, 2}));
}

TEST(Conv2d, ForwardMatchesAtenWithAllOptions) {
  torch::manual_seed(3);
  nn::Conv2d conv(nn::Conv2dOptions(4, 6, {3, 2}).stride({2, 1}).padding({1, 0}).dilation(
      {1, 2}).groups(2));
  EXPECT_EQ(conv->weight.sizes(), (std::vector<int64_t>{6, 2, 3, 2}));
  auto x = torch::randn({2, 4, 7, 6});
  auto expected = at::conv2d(x, conv->weight, conv->bias, {2, 1}, {1, 0}, {1, 2}, 2);
  EXPECT_TRUE(torch::allclose(conv(x), expected));
}

TEST(Conv2d, SameAndValidPadding) {
  nn::Conv2d same(nn::Conv2dOptions(2, 3, 3).padding(torch::kSame));
  nn::Conv2d valid(nn::Conv2dOptions(2, 3, 3).padding(torch::kValid));
  auto x = torch::randn({1, 2, 5, 6});
  EXPECT_EQ(same(x).sizes(), (std::vector<int64_t>{1, 3, 5, 6}));
  EXPECT_EQ(valid(x).sizes(), (std::vector<int64_t>{1, 3, 3, 4}));
  nn::Conv2d explicit_pad(nn::Conv2dOptions(2, 3, 3).padding(1));
  {
    torch::NoGradGuard no_grad;
    explicit_pad->weight.copy_(same->weight);
    explicit_pad->bias.copy_(same->bias);
  }
  EXPECT_TRUE(torch::allclose(same(x), explicit_pad(x)));
}

TEST(Conv2d, DefaultInitBounds) {
  torch::manual_seed(5);
  nn::Conv2d conv(nn::Conv2dOptions(8, 16, 3));
  const double bound = 1.0 / std::sqrt(8.0 * 9.0);  // fan_in = in_channels * kH * kW
  EXPECT_LE(conv->weight.abs().max().item<float>(), bound);
  EXPECT_GT(conv->weight.abs().max().item<float>(), bound * 0.98);
  EXPECT_LE(conv->bias.abs().max().item<float>(), bound);
  EXPECT_NEAR(conv->weight.var().item<float>(), bound * bound / 3, bound * bound / 3 * 0.1);
}

TEST(Conv2d, BadOptionsAndInputs) {
  EXPECT_THAT(errorOf([] { nn::Conv2d(nn::Conv2dOptions(0, 4, 3)); }),
              HasSubstr("Conv2d: in_channels and out_channels must be positive"));
  EXPECT_THAT(errorOf([] { nn::Conv2d(nn::Conv2dOptions(3, 4, 3).groups(2)); }),
              HasSubstr("in_channels (3) and out_channels (4) must both be divisible by groups (2)"));
  EXPECT_THAT(errorOf([] { nn::Conv2d(nn::Conv2dOptions(1, 1, 3).stride(0)); }),
              HasSubstr("kernel_size, stride and dilation must be positive"));
  EXPECT_THAT(errorOf([] { nn::Conv2d(nn::Conv2dOptions(1, 1, 3).padding(-1)); }),
              HasSubstr("Conv2d: padding must be non-negative, but got [-1, -1]"));
  EXPECT_THAT(errorOf([] { nn::Conv2d(nn::Conv2dOptions(1, 1, 3).stride(2).padding(torch::kSame)); }),
              HasSubstr("padding='same' is not supported for strided convolutions"));
  EXPECT_THAT(errorOf([] { nn::Conv2d(nn::Conv2dOptions(1, 1, 3).padding_mode(torch::kReflect)); }),
              HasSubstr("Conv2d: padding_mode kReflect is not supported by Ember; only "
                        "torch::kZeros is"));
  EXPECT_THAT(errorOf([] { nn::Conv2dOptions(1, 1, {3, 3, 3}); }),
              HasSubstr("ExpandingArray: expected 2 values, but got 3"));
  nn::Conv2d conv(nn::Conv2dOptions(2, 4, 3));
  EXPECT_THAT(errorOf([&] { conv(torch::ones({8, 8})); }),
              HasSubstr("Conv2d: expected a 3-d [C, H, W] or 4-d [N, C, H, W] input, but got a "
                        "2-d input of sizes [8, 8]"));
  EXPECT_THAT(errorOf([&] { conv(torch::ones({1, 3, 8, 8})); }),
              HasSubstr("conv2d: the input has 3 channels (sizes [1, 3, 8, 8]) but the weight "
                        "[4, 2, 3, 3] with groups=1 expects 2"));
}

// ---- pooling ----

TEST(Pooling, MaxAndAvgPoolOf2x2Blocks) {
  auto x = torch::arange(16, torch::kFloat).reshape({1, 1, 4, 4});
  nn::MaxPool2d max_pool(2);
  nn::AvgPool2d avg_pool(2);
  EXPECT_THAT(values(max_pool(x)), ElementsAre(5.f, 7.f, 13.f, 15.f));
  EXPECT_THAT(values(avg_pool(x)), ElementsAre(2.5f, 4.5f, 10.5f, 12.5f));
  // Options pass through to the aten ops.
  nn::MaxPool2d strided(nn::MaxPool2dOptions(3).stride(1).padding(1));
  EXPECT_TRUE(strided(x).equal(at::max_pool2d(x, {3, 3}, {1, 1}, {1, 1})));
  nn::AvgPool2d no_pad_count(nn::AvgPool2dOptions(3).stride(2).padding(1).count_include_pad(false));
  EXPECT_TRUE(torch::allclose(no_pad_count(x), at::avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, false,
                                                              false)));
}

TEST(Pooling, BadOptionsAndInputs) {
  nn::MaxPool2d pool(2);
  EXPECT_THAT(errorOf([&] { pool(torch::ones({4, 4})); }),
              HasSubstr("max_pool2d: expected a 3-d [C, H, W] or 4-d [N, C, H, W] input, but "
                        "got a 2-d input"));
  nn::MaxPool2d bad_pad(nn::MaxPool2dOptions(2).padding(2));
  EXPECT_THAT(errorOf([&] { bad_pad(torch::ones({1, 1, 4, 4})); }),
              HasSubstr("max_pool2d: padding [2, 2] must be at most half of kernel_size [2, 2]"));
  nn::AvgPool2d zero_kernel(nn::AvgPool2dOptions(0));
  EXPECT_THAT(errorOf([&] { zero_kernel(torch::ones({1, 1, 4, 4})); }),
              HasSubstr("avg_pool2d: kernel_size must be positive, but got [0, 0]"));
  nn::AvgPool2d zero_divisor(nn::AvgPool2dOptions(2).divisor_override(0));
  EXPECT_THAT(errorOf([&] { zero_divisor(torch::ones({1, 1, 4, 4})); }),
              HasSubstr("divisor_override must be non-zero"));
}

// ---- BatchNorm2d ----

TEST(BatchNorm2d, ParametersBuffersAndInit) {
  nn::BatchNorm2d bn(3);
  EXPECT_THAT(bn->named_parameters().keys(), ElementsAre("weight", "bias"));
  EXPECT_THAT(bn->named_buffers().keys(),
              ElementsAre("running_mean", "running_var", "num_batches_tracked"));
  EXPECT_TRUE(bn->weight.equal(torch::ones({3})));
  EXPECT_TRUE(bn->bias.equal(torch::zeros({3})));
  EXPECT_TRUE(bn->running_var.equal(torch::ones({3})));
  EXPECT_EQ(bn->num_batches_tracked.scalar_type(), torch::kLong);
  nn::BatchNorm2d plain(nn::BatchNorm2dOptions(3).affine(false).track_running_stats(false));
  EXPECT_EQ(plain->parameters().size(), 0u);
  EXPECT_EQ(plain->buffers().size(), 0u);
}

TEST(BatchNorm2d, TrainingNormalizesAndUpdatesRunningStatsWithMomentum) {
  torch::manual_seed(9);
  nn::BatchNorm2d bn(nn::BatchNorm2dOptions(2).momentum(0.25));
  auto x = torch::randn({4, 2, 3, 3}) * 3 + 1;
  auto y = bn(x);
  // Per channel: mean 0, biased variance 1.
  auto mean = y.mean({0, 2, 3});
  auto var = (y * y).mean({0, 2, 3});
  EXPECT_THAT(values(mean), Pointwise(FloatNear(1e-5), {0.f, 0.f}));
  EXPECT_THAT(values(var), Pointwise(FloatNear(1e-3), {1.f, 1.f}));
  // running = 0.75 * running + 0.25 * batch statistic (unbiased variance).
  auto batch_mean = x.mean({0, 2, 3});
  auto batch_var = x.var({0, 2, 3}, /*unbiased=*/true);
  EXPECT_TRUE(torch::allclose(bn->running_mean, batch_mean * 0.25, 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(bn->running_var, batch_var * 0.25 + 0.75, 1e-5, 1e-6));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  bn(x);
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 2);
  EXPECT_TRUE(torch::allclose(bn->running_mean, batch_mean * (0.25 + 0.75 * 0.25), 1e-5, 1e-6));
}

TEST(BatchNorm2d, EvalUsesRunningStatsAndLeavesThemAlone) {
  nn::BatchNorm2d bn(2);
  {
    torch::NoGradGuard no_grad;
    bn->running_mean.copy_(make<float>({2}, {1, -2}));
    bn->running_var.copy_(make<float>({2}, {4, 0.25}));
    bn->weight.copy_(make<float>({2}, {2, 1}));
    bn->bias.copy_(make<float>({2}, {0, 3}));
  }
  bn->eval();
  auto x = make<float>({1, 2, 1, 2}, {3, 5, -2, -1});
  auto y = bn(x);
  const double s0 = std::sqrt(4 + 1e-5), s1 = std::sqrt(0.25 + 1e-5);
  EXPECT_THAT(values(y), Pointwise(FloatNear(1e-5), {static_cast<float>(2 * (3 - 1) / s0),
                                                     static_cast<float>(2 * (5 - 1) / s0),
                                                     static_cast<float>(0 / s1 + 3),
                                                     static_cast<float>(1 / s1 + 3)}));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 0);
  EXPECT_THAT(values(bn->running_mean), ElementsAre(1.f, -2.f));
}

TEST(BatchNorm2d, UnsetMomentumIsACumulativeAverage) {
  nn::BatchNorm2d bn(nn::BatchNorm2dOptions(1).momentum(std::nullopt));
  bn(torch::full({2, 1, 1, 1}, 2.0));
  bn(torch::full({2, 1, 1, 1}, 4.0));
  bn(torch::full({2, 1, 1, 1}, 9.0));
  EXPECT_NEAR(bn->running_mean.item<float>(), 5.0, 1e-5);  // (2 + 4 + 9) / 3
  EXPECT_EQ(printed(bn), "torch::nn::BatchNorm2d(1, eps=1e-05, momentum=None, affine=true, "
                         "track_running_stats=true)");
}

TEST(BatchNorm2d, WithoutRunningStatsAlwaysUsesBatchStats) {
  nn::BatchNorm2d bn(nn::BatchNorm2dOptions(1).track_running_stats(false).affine(false));
  bn->eval();
  auto y = bn(make<float>({2, 1, 1, 1}, {1, 3}));
  EXPECT_THAT(values(y), Pointwise(FloatNear(1e-4), {-1.f, 1.f}));
}

TEST(BatchNorm2d, BadOptionsAndInputs) {
  EXPECT_THAT(errorOf([] { nn::BatchNorm2d(0); }),
              HasSubstr("BatchNorm2d: num_features must be positive, but got 0"));
  EXPECT_THAT(errorOf([] { nn::BatchNorm2d(nn::BatchNorm2dOptions(2).momentum(1.5)); }),
              HasSubstr("momentum must be between 0 and 1"));
  nn::BatchNorm2d bn(3);
  EXPECT_THAT(errorOf([&] { bn(torch::ones({2, 3, 4})); }),
              HasSubstr("BatchNorm2d: expected a 4-d input [N, C, H, W], but got 3-d input of "
                        "sizes [2, 3, 4]"));
  EXPECT_THAT(errorOf([&] { bn(torch::ones({2, 4, 1, 1})); }),
              HasSubstr("the input has 4 channels (sizes [2, 4, 1, 1]) but the module was built "
                        "for num_features=3"));
  EXPECT_THAT(errorOf([&] { bn(torch::ones({1, 3, 1, 1})); }),
              HasSubstr("expected more than 1 value per channel when training"));
}

// ---- LayerNorm ----

TEST(LayerNorm, NormalizesTrailingDimensions) {
  nn::LayerNorm ln(nn::LayerNormOptions({2, 2}));
  {
    torch::NoGradGuard no_grad;
    ln->weight.fill_(2);
    ln->bias.fill_(1);
  }
  auto x = make<float>({1, 2, 2}, {1, 2, 3, 4});
  // mean 2.5, biased variance 1.25.
  const float s = std::sqrt(1.25f + 1e-5f);
  EXPECT_THAT(values(ln(x)), Pointwise(FloatNear(1e-5), {2 * -1.5f / s + 1, 2 * -0.5f / s + 1,
                                                         2 * 0.5f / s + 1, 2 * 1.5f / s + 1}));
  nn::LayerNorm plain(nn::LayerNormOptions({4}).elementwise_affine(false));
  EXPECT_EQ(plain->parameters().size(), 0u);
  EXPECT_THAT(errorOf([&] { ln(torch::ones({2, 3})); }),
              HasSubstr("layer_norm: the input's trailing sizes must be normalized_shape [2, 2], "
                        "but the input has sizes [2, 3]"));
  EXPECT_THAT(errorOf([] { nn::LayerNorm(nn::LayerNormOptions({})); }),
              HasSubstr("LayerNorm: normalized_shape is empty"));
}

// ---- Dropout ----

TEST(Dropout, TrainZeroesAndScalesEvalIsIdentity) {
  torch::manual_seed(11);
  nn::Dropout dropout(0.25);
  auto x = torch::ones({100000});
  auto y = dropout(x);
  auto zeros = y.eq(0).sum().item<int64_t>();
  auto kept = y.eq(1 / 0.75).sum().item<int64_t>();
  EXPECT_EQ(zeros + kept, 100000);
  EXPECT_NEAR(zeros / 100000.0, 0.25, 0.01);
  dropout->eval();
  EXPECT_TRUE(dropout(x).equal(x));
  nn::Dropout none(0.0);
  EXPECT_TRUE(none(x).equal(x));
  EXPECT_THAT(errorOf([] { nn::Dropout(1.5); }),
              HasSubstr("Dropout: the probability p must be between 0 and 1, but got 1.5"));
  EXPECT_THAT(errorOf([&] { F::dropout(x, F::DropoutFuncOptions().p(-0.1)); }),
              HasSubstr("dropout: the probability p must be between 0 and 1"));
}

// ---- Embedding ----

TEST(Embedding, LooksUpRowsAndKeepsPaddingRowAtZero) {
  torch::manual_seed(13);
  nn::Embedding emb(nn::EmbeddingOptions(5, 3).padding_idx(-1));
  EXPECT_EQ(emb->options.padding_idx().value(), 4);  // normalized
  EXPECT_TRUE(emb->weight[4].equal(torch::zeros({3})));
  auto idx = make<int64_t>({2, 2}, {0, 4, 2, 0});
  auto out = emb(idx);
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_TRUE(out[1][0].equal(emb->weight[2]));
  out.sum().backward();
  // Row 0 used twice, row 2 once, padding row 4 gets no gradient.
  EXPECT_THAT(values(emb->weight.grad().sum(1)), ElementsAre(6.f, 0.f, 3.f, 0.f, 0.f));
}

TEST(Embedding, FromPretrainedSharesAndFreezes) {
  auto table = make<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  auto emb = nn::Embedding::from_pretrained(table);
  EXPECT_TRUE(emb->weight.is_same(table));
  EXPECT_FALSE(emb->weight.requires_grad());
  EXPECT_THAT(values(emb(make<int64_t>({1}, {2}))), ElementsAre(5.f, 6.f));
  auto trainable = nn::Embedding::from_pretrained(table.clone(),
                                                  nn::EmbeddingFromPretrainedOptions().freeze(false));
  EXPECT_TRUE(trainable->weight.requires_grad());
  EXPECT_THAT(errorOf([] { nn::Embedding::from_pretrained(torch::ones({3})); }),
              HasSubstr("from_pretrained: expected a 2-d tensor [num_embeddings, embedding_dim], "
                        "but got sizes [3]"));
}

TEST(Embedding, BadOptionsAndInputs) {
  EXPECT_THAT(errorOf([] { nn::Embedding(nn::EmbeddingOptions(3, 2).padding_idx(3)); }),
              HasSubstr("Embedding: padding_idx 3 is out of range for 3 embeddings"));
  EXPECT_THAT(errorOf([] { nn::Embedding(nn::EmbeddingOptions(3, 2).max_norm(-1.0))(torch::tensor({0})); }),
              HasSubstr("embedding: max_norm must be non-negative, but got -1."));
  EXPECT_THAT(errorOf([] { nn::Embedding(nn::EmbeddingOptions(3, 2).sparse(true)); }),
              HasSubstr("sparse=true is not supported"));
  EXPECT_THAT(errorOf([] { nn::Embedding(nn::EmbeddingOptions(3, 2)._weight(torch::ones({2, 2}))); }),
              HasSubstr("_weight must have sizes [num_embeddings, embedding_dim] = [3, 2], but "
                        "got [2, 2]"));
  nn::Embedding emb(3, 2);
  EXPECT_THAT(errorOf([&] { emb(torch::zeros({2})); }),
              HasSubstr("embedding: the indices must be int64 or int32, but got Float"));
}

// ---- activations, Flatten, Identity ----

TEST(Activations, ForwardValues) {
  auto x = make<float>({4}, {-2, -0.5, 0, 1});
  EXPECT_THAT(values(nn::ReLU()(x)), ElementsAre(0.f, 0.f, 0.f, 1.f));
  EXPECT_THAT(values(nn::Tanh()(x)), Pointwise(FloatNear(1e-6), {std::tanh(-2.f),
                                                                 std::tanh(-0.5f), 0.f,
                                                                 std::tanh(1.f)}));
  EXPECT_THAT(values(nn::Sigmoid()(x)),
              Pointwise(FloatNear(1e-6), {1 / (1 + std::exp(2.f)), 1 / (1 + std::exp(0.5f)),
                                          0.5f, 1 / (1 + std::exp(-1.f))}));
  auto one = make<float>({1}, {1});
  EXPECT_NEAR(nn::GELU()(one).item<float>(), 0.8413447, 1e-6);  // 1 * Φ(1)
  EXPECT_NEAR(nn::GELU(nn::GELUOptions().approximate("tanh"))(one).item<float>(), 0.8411920,
              1e-6);
  EXPECT_THAT(errorOf([] { nn::GELU(nn::GELUOptions().approximate("fast")); }),
              HasSubstr("GELU: approximate must be \"none\" or \"tanh\", but got \"fast\""));
  // In place ReLU writes into its input.
  auto y = x.clone();
  nn::ReLU(nn::ReLUOptions(true))(y);
  EXPECT_THAT(values(y), ElementsAre(0.f, 0.f, 0.f, 1.f));
}

TEST(Activations, SoftmaxAndLogSoftmaxAlongDim) {
  auto x = make<float>({2, 2}, {0, 0, 1, 3});
  auto s = nn::Softmax(1)(x);
  const float e = 1 / (1 + std::exp(2.f));
  EXPECT_THAT(values(s), Pointwise(FloatNear(1e-6), {0.5f, 0.5f, e, 1 - e}));
  EXPECT_TRUE(torch::allclose(nn::LogSoftmax(1)(x), s.log()));
  EXPECT_TRUE(torch::allclose(nn::Softmax(0)(x).sum(0), torch::ones({2})));
}

TEST(Flatten, FlattensTheGivenDims) {
  auto x = torch::ones({2, 3, 4, 5});
  EXPECT_EQ(nn::Flatten()(x).sizes(), (std::vector<int64_t>{2, 60}));
  EXPECT_EQ(nn::Flatten(nn::FlattenOptions().start_dim(0).end_dim(2))(x).sizes(),
            (std::vector<int64_t>{24, 5}));
  EXPECT_TRUE(nn::Identity()(x).is_same(x));
}

// ---- printing ----

TEST(PrettyPrint, MatchesLibtorchText) {
  // The expected strings are libtorch 1.13's output for the same modules.
  EXPECT_EQ(printed(nn::Conv2d(nn::Conv2dOptions(1, 32, 3).padding(1))),
            "torch::nn::Conv2d(1, 32, kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])");
  EXPECT_EQ(printed(nn::Conv2d(
                nn::Conv2dOptions(2, 4, {3, 2}).padding(torch::kSame).dilation(2).groups(2).bias(false))),
            "torch::nn::Conv2d(2, 4, kernel_size=[3, 2], stride=[1, 1], padding='same', "
            "dilation=[2, 2], groups=2, bias=false)");
  EXPECT_EQ(printed(nn::Conv2d(nn::Conv2dOptions(2, 4, 3).padding(torch::kValid))),
            "torch::nn::Conv2d(2, 4, kernel_size=[3, 3], stride=[1, 1], padding='valid')");
  EXPECT_EQ(printed(nn::Conv2d(nn::Conv2dOptions(2, 4, 3).stride({2, 1}).padding({1, 0}))),
            "torch::nn::Conv2d(2, 4, kernel_size=[3, 3], stride=[2, 1], padding=[1, 0])");
  EXPECT_EQ(printed(nn::MaxPool2d(2)),
            "torch::nn::MaxPool2d(kernel_size=[2, 2], stride=[2, 2], padding=[0, 0], "
            "dilation=[1, 1], ceil_mode=false)");
  EXPECT_EQ(printed(nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(1).padding(1).ceil_mode(true))),
            "torch::nn::MaxPool2d(kernel_size=[3, 3], stride=[1, 1], padding=[1, 1], "
            "dilation=[1, 1], ceil_mode=true)");
  EXPECT_EQ(printed(nn::AvgPool2d(nn::AvgPool2dOptions(3).stride(1).padding(1))),
            "torch::nn::AvgPool2d(kernel_size=[3, 3], stride=[1, 1], padding=[1, 1])");
  EXPECT_EQ(printed(nn::BatchNorm2d(8)),
            "torch::nn::BatchNorm2d(8, eps=1e-05, momentum=0.1, affine=true, "
            "track_running_stats=true)");
  EXPECT_EQ(printed(nn::BatchNorm2d(nn::BatchNorm2dOptions(8).affine(false).track_running_stats(
                false).momentum(0.2).eps(1e-3))),
            "torch::nn::BatchNorm2d(8, eps=0.001, momentum=0.2, affine=false, "
            "track_running_stats=false)");
  EXPECT_EQ(printed(nn::LayerNorm(nn::LayerNormOptions({4, 5}))),
            "torch::nn::LayerNorm([4, 5], eps=1e-05, elementwise_affine=true)");
  EXPECT_EQ(printed(nn::LayerNorm(nn::LayerNormOptions({4}).elementwise_affine(false).eps(1e-3))),
            "torch::nn::LayerNorm([4], eps=0.001, elementwise_affine=false)");
  EXPECT_EQ(printed(nn::Dropout()), "torch::nn::Dropout(p=0.5, inplace=false)");
  EXPECT_EQ(printed(nn::Dropout(nn::DropoutOptions(0.2).inplace(true))),
            "torch::nn::Dropout(p=0.2, inplace=true)");
  EXPECT_EQ(printed(nn::Embedding(10, 3)),
            "torch::nn::Embedding(num_embeddings=10, embedding_dim=3)");
  EXPECT_EQ(printed(nn::Embedding(nn::EmbeddingOptions(10, 3).padding_idx(0).scale_grad_by_freq(true))),
            "torch::nn::Embedding(num_embeddings=10, embedding_dim=3, padding_idx=0, "
            "scale_grad_by_freq=true)");
  EXPECT_EQ(printed(nn::ReLU()), "torch::nn::ReLU()");
  EXPECT_EQ(printed(nn::ReLU(nn::ReLUOptions(true))), "torch::nn::ReLU(inplace=true)");
  EXPECT_EQ(printed(nn::GELU()), "torch::nn::GELU()");
  EXPECT_EQ(printed(nn::Tanh()), "torch::nn::Tanh()");
  EXPECT_EQ(printed(nn::Sigmoid()), "torch::nn::Sigmoid()");
  EXPECT_EQ(printed(nn::Flatten(nn::FlattenOptions().start_dim(0).end_dim(2))),
            "torch::nn::Flatten(start_dim=0, end_dim=2)");
  EXPECT_EQ(printed(nn::Identity()), "torch::nn::Identity()");
  EXPECT_EQ(printed(nn::Softmax(1)), "torch::nn::Softmax(dim=1)");
  EXPECT_EQ(printed(nn::LogSoftmax(-1)), "torch::nn::LogSoftmax(dim=-1)");
  EXPECT_EQ(printed(nn::Linear(nn::LinearOptions(512, 10).bias(false))),
            "torch::nn::Linear(in_features=512, out_features=10, bias=false)");
}

}  // namespace
