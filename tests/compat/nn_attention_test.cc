// torch::nn::MultiheadAttention and torch::scaled_dot_product_attention
// (issue 15): against attention computed head by head and sample by sample
// with mm and softmax, masks, gradients against finite differences, errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <torch/torch.h>

#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_test::errorOf;
using torch::autograd::variable_list;

// One head of one sample: softmax(q k^T / sqrt(d) masked) v, plus the weights.
std::pair<torch::Tensor, torch::Tensor> reference_head(const torch::Tensor& q, const torch::Tensor& k,
                                                       const torch::Tensor& v,
                                                       const torch::Tensor& ignore /*[S] bool*/) {
  auto scores = torch::mm(q, k.t()) / std::sqrt(static_cast<double>(q.size(1)));
  if (ignore.defined()) {
    for (int64_t j = 0; j < k.size(0); ++j) {
      if (ignore[j].item<bool>()) scores.select(1, j).fill_(-std::numeric_limits<double>::infinity());
    }
  }
  auto w = torch::softmax(scores, 1);
  return {torch::mm(w, v), w};
}

TEST(AttentionCompat, MultiheadAttentionMatchesHeadByHead) {
  torch::manual_seed(20);
  const int64_t e = 4, heads = 2, l = 3, s = 5, n = 2, d = e / heads;
  torch::nn::MultiheadAttention mha(torch::nn::MultiheadAttentionOptions(e, heads));
  mha->to(torch::kDouble);
  {
    torch::NoGradGuard no_grad;
    mha->in_proj_bias.normal_();
    mha->out_proj->bias.normal_();
  }
  const auto query = torch::randn({l, n, e}, torch::kDouble);
  const auto key = torch::randn({s, n, e}, torch::kDouble);
  const auto value = torch::randn({s, n, e}, torch::kDouble);
  auto padding = torch::zeros({n, s}, torch::kBool);
  padding[1][3].fill_(true);
  auto [out, weights] = mha(query, key, value, padding);
  ASSERT_EQ(out.sizes(), (std::vector<int64_t>{l, n, e}));
  ASSERT_EQ(weights.sizes(), (std::vector<int64_t>{n, l, s}));

  const auto w = mha->in_proj_weight.detach();
  const auto b = mha->in_proj_bias.detach();
  for (int64_t i = 0; i < n; ++i) {
    auto q = torch::addmm(b.narrow(0, 0, e), query.select(1, i), w.narrow(0, 0, e).t());
    auto k = torch::addmm(b.narrow(0, e, e), key.select(1, i), w.narrow(0, e, e).t());
    auto v = torch::addmm(b.narrow(0, 2 * e, e), value.select(1, i), w.narrow(0, 2 * e, e).t());
    std::vector<torch::Tensor> outs;
    auto mean_weights = torch::zeros({l, s}, torch::kDouble);
    for (int64_t h = 0; h < heads; ++h) {
      auto [o, hw] = reference_head(q.narrow(1, h * d, d), k.narrow(1, h * d, d),
                                    v.narrow(1, h * d, d), padding[i]);
      outs.push_back(o);
      mean_weights += hw / heads;
    }
    const auto expected = mha->out_proj(torch::cat(outs, 1));
    EXPECT_TRUE(torch::allclose(out.select(1, i), expected, 1e-9, 1e-9)) << "sample " << i;
    EXPECT_TRUE(torch::allclose(weights[i], mean_weights, 1e-9, 1e-9)) << "sample " << i;
  }
  EXPECT_EQ(weights[1].select(1, 3).abs().sum().item<double>(), 0.0);  // the padded key

  // Per-head weights, a causal boolean mask (true = masked), unbatched input.
  auto causal = torch::ones({l, l}, torch::kBool);
  for (int64_t r = 0; r < l; ++r) {
    for (int64_t c = 0; c <= r; ++c) causal[r][c].fill_(false);
  }
  auto [u, uw] = mha->forward(query.select(1, 0), query.select(1, 0), query.select(1, 0), {}, true, causal,
                     /*average_attn_weights=*/false);
  EXPECT_EQ(u.sizes(), (std::vector<int64_t>{l, e}));
  ASSERT_EQ(uw.sizes(), (std::vector<int64_t>{heads, l, l}));
  EXPECT_EQ(uw.select(2, 2).select(1, 0).abs().sum().item<double>(), 0.0);
  EXPECT_NEAR(uw[1][0][0].item<double>(), 1.0, 1e-12);  // the first query sees only itself
  auto [no_w_out, no_w] = mha->forward(query, key, value, {}, /*need_weights=*/false);
  EXPECT_FALSE(no_w.defined());
  EXPECT_TRUE(torch::allclose(no_w_out, std::get<0>(mha(query, key, value))));
}

TEST(AttentionCompat, ParametersOptionsAndGradients) {
  torch::manual_seed(21);
  torch::nn::MultiheadAttention mha(
      torch::nn::MultiheadAttentionOptions(4, 2).kdim(3).vdim(5).add_bias_kv(true)
          .add_zero_attn(true));
  std::vector<std::string> names;
  for (const auto& p : mha->named_parameters()) names.push_back(p.key());
  EXPECT_EQ(names, (std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight",
                                             "in_proj_bias", "bias_k", "bias_v",
                                             "out_proj.weight", "out_proj.bias"}));
  mha->to(torch::kDouble);
  auto q = torch::randn({2, 1, 4}, torch::kDouble).requires_grad_();
  auto k = torch::randn({3, 1, 3}, torch::kDouble).requires_grad_();
  auto v = torch::randn({3, 1, 5}, torch::kDouble).requires_grad_();
  auto [out, w] = mha(q, k, v);
  EXPECT_EQ(w.sizes(), (std::vector<int64_t>{1, 2, 5}));  // 3 keys + bias_k + the zero key
  EXPECT_TRUE(torch::autograd::gradcheck(
      [&](const variable_list& in) {
        auto [o, weights] = mha(in[0], in[1], in[2]);
        return variable_list{o, weights};
      },
      {q, k, v, mha->k_proj_weight, mha->bias_v}));

  // scaled_dot_product_attention: against softmax(q k^T / sqrt(E)) v, causal, bool and float masks.
  auto sq = torch::randn({2, 3, 4}, torch::kDouble).requires_grad_();
  auto sk = torch::randn({2, 5, 4}, torch::kDouble).requires_grad_();
  auto sv = torch::randn({2, 5, 6}, torch::kDouble).requires_grad_();
  const auto plain = torch::scaled_dot_product_attention(sq, sk, sv);
  const auto expected = torch::matmul(torch::softmax(torch::matmul(sq, sk.transpose(1, 2)) / 2.0, -1), sv);
  EXPECT_TRUE(torch::allclose(plain, expected, 1e-12, 1e-12));
  auto keep = torch::ones({3, 5}, torch::kBool);
  keep[0][4].fill_(false);
  const auto bias = torch::where(keep, torch::zeros({3, 5}, torch::kDouble),
                                 torch::full({3, 5}, -1e9, torch::kDouble));
  EXPECT_TRUE(torch::allclose(torch::scaled_dot_product_attention(sq, sk, sv, keep),
                              torch::scaled_dot_product_attention(sq, sk, sv, bias), 1e-9, 1e-9));
  const auto causal = torch::scaled_dot_product_attention(sq, sk.narrow(1, 0, 3), sv.narrow(1, 0, 3),
                                                          {}, 0.0, /*is_causal=*/true);
  EXPECT_TRUE(torch::allclose(causal.select(1, 0), sv.select(1, 0), 1e-12, 1e-12));
  EXPECT_TRUE(torch::autograd::gradcheck(
      [&](const variable_list& in) {
        return variable_list{torch::scaled_dot_product_attention(in[0], in[1], in[2], keep, 0.0,
                                                                 false, 0.3)};
      },
      {sq, sk, sv}));

  EXPECT_THAT(errorOf([] { torch::nn::MultiheadAttention(6, 4); }),
              HasSubstr("MultiheadAttention: embed_dim (6) must be divisible by num_heads (4)."));
  EXPECT_THAT(errorOf([&] { mha(torch::randn({2, 1, 5}, torch::kDouble), k, v); }),
              HasSubstr("MultiheadAttention: expected query with embed_dim (4) features in its "
                        "last dimension, but got sizes [2, 1, 5]."));
  EXPECT_THAT(errorOf([&] { mha(q, k, v, torch::zeros({1, 4}, torch::kBool)); }),
              HasSubstr("MultiheadAttention: expected key_padding_mask of sizes [1, 3] (batch, S), "
                        "but got [1, 4]."));
  EXPECT_THAT(errorOf([&] { torch::scaled_dot_product_attention(sq, sk, sv.narrow(1, 0, 4)); }),
              HasSubstr("scaled_dot_product_attention: key and value must have the same sequence "
                        "length (dimension -2), but got 5 and 4."));
}

}  // namespace
