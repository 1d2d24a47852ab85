// TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer,
// TransformerDecoder and Transformer (issue 15): each layer against the
// same computation written out head by head with 2-d matmuls and a
// hand-written layer norm, the stacks against their layers, masks against
// their documented effect, gradients against finite differences.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include <torch/torch.h>

#include "tests/support/error_of.h"

namespace {

namespace nn = torch::nn;
using ::testing::HasSubstr;
using ember_test::errorOf;
using torch::Tensor;
using torch::autograd::variable_list;

// (x - mean) / sqrt(var + 1e-5) * w + b over the last dimension.
Tensor layer_norm_ref(const Tensor& x, const nn::LayerNorm& norm) {
  const auto mean = x.mean({-1}, true);
  const auto var = ((x - mean) * (x - mean)).mean({-1}, true);
  return (x - mean) / torch::sqrt(var + 1e-5) * norm->weight + norm->bias;
}

// Multi-head attention of query [L, N, E] over key/value [S, N, E], one
// batch element and head at a time. add_mask [L, S] is added to the
// scores; padding [N, S] (bool) removes keys.
Tensor attention_ref(const nn::MultiheadAttention& mha, const Tensor& query, const Tensor& key,
                     const Tensor& add_mask, const Tensor& padding) {
  const int64_t e = query.size(2), heads = mha->options.num_heads(), hd = e / heads;
  const auto w = mha->in_proj_weight, b = mha->in_proj_bias;
  std::vector<Tensor> batch;
  for (int64_t n = 0; n < query.size(1); ++n) {
    const auto xq = query.select(1, n), xk = key.select(1, n);
    std::vector<Tensor> per_head;
    for (int64_t h = 0; h < heads; ++h) {
      auto rows = [&](int64_t part) { return w.narrow(0, part * e + h * hd, hd); };
      auto bias = [&](int64_t part) { return b.narrow(0, part * e + h * hd, hd); };
      const auto q = torch::matmul(xq, rows(0).t()) + bias(0);
      const auto k = torch::matmul(xk, rows(1).t()) + bias(1);
      const auto v = torch::matmul(xk, rows(2).t()) + bias(2);
      auto scores = torch::matmul(q, k.t()) / std::sqrt(static_cast<double>(hd));
      if (add_mask.defined()) scores = scores + add_mask;
      if (padding.defined()) {
        scores = scores.masked_fill(padding.select(0, n).unsqueeze(0),
                                    -std::numeric_limits<double>::infinity());
      }
      per_head.push_back(torch::matmul(torch::softmax(scores, -1), v));
    }
    batch.push_back(torch::cat(per_head, 1));
  }
  const auto joined = torch::stack(batch, 1);  // [L, N, E]
  return torch::matmul(joined, mha->out_proj->weight.t()) + mha->out_proj->bias;
}

Tensor feed_forward_ref(const Tensor& x, const nn::Linear& l1, const nn::Linear& l2) {
  return torch::matmul(torch::relu(torch::matmul(x, l1->weight.t()) + l1->bias),
                       l2->weight.t()) +
         l2->bias;
}

Tensor encoder_layer_ref(nn::TransformerEncoderLayer& layer, const Tensor& src,
                         const Tensor& mask, const Tensor& padding) {
  auto x = layer_norm_ref(src + attention_ref(layer->self_attn, src, src, mask, padding),
                          layer->norm1);
  return layer_norm_ref(x + feed_forward_ref(x, layer->linear1, layer->linear2), layer->norm2);
}

TEST(TransformerCompat, EncoderLayerMatchesHandComposition) {
  torch::manual_seed(40);
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
  layer->eval();
  const auto src = torch::randn({5, 3, 8});
  const auto mask = nn::TransformerImpl::generate_square_subsequent_mask(5);
  auto padding = torch::zeros({3, 5}, torch::kBool);
  padding[1][4].fill_(true);
  padding[2][3].fill_(true);
  const auto y = layer(src, mask, padding);
  ASSERT_EQ(y.sizes(), src.sizes());
  EXPECT_TRUE(torch::allclose(y, encoder_layer_ref(layer, src, mask, padding), 1e-4, 1e-5));
  EXPECT_TRUE(torch::allclose(layer(src), encoder_layer_ref(layer, src, {}, {}), 1e-4, 1e-5));
  // libtorch's parameter names.
  const auto names = layer->named_parameters().keys();
  for (const char* name : {"self_attn.in_proj_weight", "self_attn.out_proj.weight",
                           "linear1.weight", "linear2.bias", "norm1.weight", "norm2.bias"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
  // GELU and a custom activation reach the feed-forward block.
  nn::TransformerEncoderLayer gelu(
      nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).activation(torch::kGELU));
  nn::TransformerEncoderLayer custom(nn::TransformerEncoderLayerOptions(8, 2)
                                         .dim_feedforward(16)
                                         .activation([](const Tensor& t) { return torch::gelu(t); }));
  gelu->eval();
  custom->eval();
  const auto params = gelu->named_parameters();
  {
    torch::NoGradGuard no_grad;
    for (auto& item : custom->named_parameters()) item.value().copy_(params[item.key()]);
  }
  EXPECT_TRUE(torch::allclose(gelu(src), custom(src)));
  EXPECT_FALSE(torch::allclose(gelu(src), encoder_layer_ref(gelu, src, {}, {}), 1e-4, 1e-5));
  std::ostringstream printed;
  printed << *layer;
  EXPECT_THAT(printed.str(), HasSubstr("torch::nn::TransformerEncoderLayer(d_model=8, nhead=2, "
                                      "dim_feedforward=16, dropout=0.1, activation=kReLU)(\n"
                                      "  (self_attn): torch::nn::MultiheadAttention("));
  EXPECT_THAT(errorOf([] { nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(6, 4)); }),
              HasSubstr("TransformerEncoderLayer: d_model (6) must be divisible by nhead (4)."));
}

TEST(TransformerCompat, DecoderLayerMatchesHandComposition) {
  torch::manual_seed(41);
  nn::TransformerDecoderLayer layer(nn::TransformerDecoderLayerOptions(8, 4).dim_feedforward(12));
  layer->eval();
  const auto tgt = torch::randn({4, 2, 8}), memory = torch::randn({6, 2, 8});
  const auto tgt_mask = nn::TransformerImpl::generate_square_subsequent_mask(4);
  auto memory_padding = torch::zeros({2, 6}, torch::kBool);
  memory_padding[0][5].fill_(true);
  const auto y = layer->forward(tgt, memory, tgt_mask, {}, {}, memory_padding);
  auto x = layer_norm_ref(tgt + attention_ref(layer->self_attn, tgt, tgt, tgt_mask, {}),
                          layer->norm1);
  x = layer_norm_ref(x + attention_ref(layer->multihead_attn, x, memory, {}, memory_padding),
                     layer->norm2);
  x = layer_norm_ref(x + feed_forward_ref(x, layer->linear1, layer->linear2), layer->norm3);
  EXPECT_TRUE(torch::allclose(y, x, 1e-4, 1e-5));
  EXPECT_THAT(errorOf([&] { layer(tgt, Tensor()); }),
              HasSubstr("TransformerDecoderLayer: memory (the encoder's output) is undefined"));
}

TEST(TransformerCompat, StacksCopyTheirLayerAndApplyTheNorm) {
  torch::manual_seed(42);
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
  nn::TransformerEncoder encoder(
      nn::TransformerEncoderOptions(layer, 2).norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({8})))));
  encoder->eval();
  ASSERT_EQ(encoder->layers->size(), 2u);
  // Each layer starts as a copy of `layer` (its own tensors, same values).
  auto first = encoder->layers->ptr<nn::TransformerEncoderLayerImpl>(0);
  EXPECT_TRUE(torch::equal(first->linear1->weight, layer->linear1->weight));
  EXPECT_NE(first->linear1->weight.data_ptr(), layer->linear1->weight.data_ptr());
  EXPECT_EQ(encoder->named_parameters().size(), 2 * layer->named_parameters().size() + 2);
  const auto src = torch::randn({3, 2, 8});
  const auto mask = nn::TransformerImpl::generate_square_subsequent_mask(3);
  auto x = src;
  for (size_t i = 0; i < 2; ++i) {
    x = encoder->layers->ptr<nn::TransformerEncoderLayerImpl>(i)->forward(x, mask);
  }
  auto norm = encoder->norm.get<nn::LayerNorm>();
  EXPECT_TRUE(torch::allclose(encoder(src, mask), layer_norm_ref(x, norm), 1e-5, 1e-6));

  nn::TransformerDecoder decoder(
      nn::TransformerDecoderOptions(nn::TransformerDecoderLayerOptions(8, 2).dim_feedforward(8), 3));
  decoder->eval();
  const auto tgt = torch::randn({4, 2, 8});
  auto t = tgt;
  for (size_t i = 0; i < 3; ++i) {
    t = decoder->layers->ptr<nn::TransformerDecoderLayerImpl>(i)->forward(t, src);
  }
  EXPECT_TRUE(torch::allclose(decoder(tgt, src), t));
  EXPECT_THAT(errorOf([] { nn::TransformerEncoder(nn::TransformerEncoderOptions(nn::TransformerEncoderLayer(nullptr), 2)); }),
              HasSubstr("TransformerEncoder: the layer in the options is empty (nullptr)"));
  EXPECT_THAT(errorOf([&] { nn::TransformerEncoder(layer, 0); }),
              HasSubstr("TransformerEncoder: num_layers must be positive, but got 0."));
}

TEST(TransformerCompat, TransformerMasksAndGradients) {
  torch::manual_seed(43);
  const auto mask = nn::TransformerImpl::generate_square_subsequent_mask(3);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> expected{0, -inf, -inf, 0, 0, -inf, 0, 0, 0};
  ASSERT_EQ(mask.scalar_type(), torch::kFloat);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(mask.flatten()[i].item<float>(), expected[i]) << i;

  nn::Transformer model(nn::TransformerOptions(8, 2, 2, 1).dim_feedforward(16).dropout(0.0));
  const auto src = torch::randn({5, 2, 8}), tgt = torch::randn({4, 2, 8});
  const auto tgt_mask = nn::TransformerImpl::generate_square_subsequent_mask(4);
  const auto y = model->forward(src, tgt, {}, tgt_mask);
  ASSERT_EQ(y.sizes(), tgt.sizes());
  EXPECT_TRUE(torch::allclose(
      y, model->decoder.forward(tgt, model->encoder.forward(src, Tensor(), Tensor()), tgt_mask,
                                Tensor(), Tensor(), Tensor())));
  // Causal: changing the last target step leaves earlier outputs alone.
  auto changed = tgt.clone();
  changed[3].copy_(torch::randn({2, 8}));
  const auto y2 = model->forward(src, changed, {}, tgt_mask);
  EXPECT_TRUE(torch::allclose(y.narrow(0, 0, 3), y2.narrow(0, 0, 3), 1e-5, 1e-6));
  EXPECT_FALSE(torch::allclose(y[3], y2[3]));
  // A padded source position does not influence the output.
  auto padding = torch::zeros({2, 5}, torch::kBool);
  padding[0][4].fill_(true);
  auto src2 = src.clone();
  src2[4][0].copy_(torch::randn({8}));
  EXPECT_TRUE(torch::allclose(model->forward(src, tgt, {}, {}, {}, padding, {}, padding)[0],
                              model->forward(src2, tgt, {}, {}, {}, padding, {}, padding)[0], 1e-5, 1e-6));
  // Matrices drawn with xavier_uniform_: |w| <= sqrt(6 / (fan_in + fan_out)).
  auto w = model->named_parameters()["encoder.layers.0.linear1.weight"];
  EXPECT_LE(w.abs().max().item<float>(), std::sqrt(6.0 / 24) + 1e-6);

  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(6));
  layer->eval();
  layer->to(torch::kDouble);
  auto x = torch::randn({3, 2, 4}, torch::kDouble).requires_grad_();
  const auto causal = nn::TransformerImpl::generate_square_subsequent_mask(3).to(torch::kDouble);
  EXPECT_TRUE(torch::autograd::gradcheck([&](const variable_list& in) {
    return variable_list{layer(in[0], causal)};
  }, {x}));
  EXPECT_THAT(errorOf([&] { model(src, torch::randn({4, 3, 8})); }),
              HasSubstr("Transformer: src and tgt must have the same batch size (dimension 1), "
                        "but got sizes [5, 2, 8] and [4, 3, 8]."));
  EXPECT_THAT(errorOf([&] { model(torch::randn({5, 2, 6}), torch::randn({4, 2, 6})); }),
              HasSubstr("Transformer: src and tgt must have d_model (8) features"));
}

}  // namespace
