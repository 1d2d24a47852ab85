// torch::nn::utils::rnn (PackedSequence, pack_padded_sequence,
// pad_packed_sequence, pack_sequence, pad_sequence) and RNN/LSTM/GRU
// forward_with_packed_input (issue 15): packed layouts against hand-built
// rows, packed recurrent layers against running each sequence alone,
// gradients against finite differences, error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <torch/torch.h>

#include "tests/support/error_of.h"

namespace {

namespace nn = torch::nn;
namespace rnn_utils = torch::nn::utils::rnn;
using ::testing::HasSubstr;
using ember_test::errorOf;
using torch::Tensor;
using torch::autograd::variable_list;

std::vector<int64_t> longs(const Tensor& t) {
  const auto c = t.to(torch::kLong).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// Sequence i of length lengths[i], feature f of step s = 100 i + 10 s + f.
std::vector<Tensor> numbered_sequences(const std::vector<int64_t>& lengths, int64_t features) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < lengths.size(); ++i) {
    std::vector<float> v;
    for (int64_t s = 0; s < lengths[i]; ++s) {
      for (int64_t f = 0; f < features; ++f) v.push_back(100.f * i + 10.f * s + f);
    }
    out.push_back(torch::tensor(v).reshape({lengths[i], features}));
  }
  return out;
}

TEST(PackedSequenceCompat, PackAndPadRoundTrip) {
  const auto seqs = numbered_sequences({3, 1, 2}, 2);
  const auto padded = rnn_utils::pad_sequence(seqs);  // [3, 3, 2]
  ASSERT_EQ(padded.sizes(), (std::vector<int64_t>{3, 3, 2}));
  EXPECT_TRUE(torch::equal(padded.select(1, 1)[0], seqs[1][0]));
  EXPECT_EQ(padded[2][1].sum().item<float>(), 0.f);
  const auto lengths = torch::tensor({3, 1, 2}, torch::kLong);
  const auto packed = rnn_utils::pack_padded_sequence(padded, lengths, false, false);
  EXPECT_EQ(longs(packed.batch_sizes()), (std::vector<int64_t>{3, 2, 1}));
  EXPECT_EQ(longs(packed.sorted_indices()), (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(longs(packed.unsorted_indices()), (std::vector<int64_t>{0, 2, 1}));
  // Step 0 of sequences 0, 2, 1; step 1 of 0, 2; step 2 of 0.
  const auto expected_rows =
      torch::stack({seqs[0][0], seqs[2][0], seqs[1][0], seqs[0][1], seqs[2][1], seqs[0][2]});
  EXPECT_TRUE(torch::equal(packed.data(), expected_rows));
  auto [unpacked, out_lengths] = rnn_utils::pad_packed_sequence(packed, false, -1.0, 4);
  EXPECT_EQ(longs(out_lengths), (std::vector<int64_t>{3, 1, 2}));
  ASSERT_EQ(unpacked.sizes(), (std::vector<int64_t>{4, 3, 2}));
  EXPECT_TRUE(torch::equal(unpacked.narrow(0, 0, 1), padded.narrow(0, 0, 1)));
  EXPECT_TRUE(torch::equal(unpacked[1][0], seqs[0][1]));
  EXPECT_TRUE(torch::equal(unpacked[1][1], torch::full({2}, -1.f)));  // sequence 1 ended
  EXPECT_TRUE(torch::equal(unpacked[3], torch::full({3, 2}, -1.f)));  // total_length
  // batch_first both ways, and pack_sequence of sorted sequences.
  const auto bf = rnn_utils::pad_sequence(seqs, /*batch_first=*/true, 0.0);
  EXPECT_TRUE(torch::equal(bf, padded.transpose(0, 1)));
  const auto packed_bf = rnn_utils::pack_padded_sequence(bf, lengths, true, false);
  EXPECT_TRUE(torch::equal(packed_bf.data(), packed.data()));
  EXPECT_TRUE(torch::equal(std::get<0>(rnn_utils::pad_packed_sequence(packed_bf, true)), bf));
  const auto sorted = rnn_utils::pack_sequence({seqs[0], seqs[2], seqs[1]});
  EXPECT_FALSE(sorted.sorted_indices().defined());
  EXPECT_TRUE(torch::equal(sorted.data(), packed.data()));
  // Left padding puts the zeros first.
  const auto left = rnn_utils::pad_sequence(seqs, true, 0.0, "left");
  EXPECT_TRUE(torch::equal(left[1][2], seqs[1][0]));
  EXPECT_EQ(left[1][0].abs().sum().item<float>(), 0.f);

  EXPECT_THAT(errorOf([&] { rnn_utils::pack_sequence(seqs); }),
              HasSubstr("pack_padded_sequence: lengths must be sorted in decreasing order when "
                        "enforce_sorted is true, but got [3, 1, 2]; sort the batch or pass "
                        "enforce_sorted=false."));
  EXPECT_THAT(errorOf([&] { rnn_utils::pack_padded_sequence(padded, torch::tensor({4, 1, 2}), false, false); }),
              HasSubstr("pack_padded_sequence: every length must be between 1 and the number of "
                        "time steps (3), but got [4, 1, 2]."));
  EXPECT_THAT(errorOf([&] { rnn_utils::pad_packed_sequence(packed, false, 0.0, 2); }),
              HasSubstr("pad_packed_sequence: total_length (2) must be at least the length of "
                        "the longest sequence (3)."));
  EXPECT_THAT(errorOf([&] { rnn_utils::pad_sequence({seqs[0], torch::zeros({2, 3})}); }),
              HasSubstr("pad_sequence: every sequence must have the same trailing sizes, but "
                        "sequence 0 has sizes [3, 2] and sequence 1 has [2, 3]."));
  EXPECT_THAT(errorOf([&] { rnn_utils::pad_sequence(seqs, false, 0.0, "middle"); }),
              HasSubstr("pad_sequence: padding_side must be \"right\" or \"left\", but got "
                        "\"middle\"."));
}

TEST(PackedSequenceCompat, PackedLayersMatchEachSequenceRunAlone) {
  torch::manual_seed(50);
  const std::vector<int64_t> lengths{2, 5, 3, 5};
  std::vector<Tensor> seqs;
  for (int64_t len : lengths) seqs.push_back(torch::randn({len, 3}));
  const auto padded = rnn_utils::pad_sequence(seqs, /*batch_first=*/true);
  const auto packed = rnn_utils::pack_padded_sequence(padded, torch::tensor(lengths), true, false);

  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true).batch_first(true));
  const auto h0 = torch::randn({4, 4, 4}), c0 = torch::randn({4, 4, 4});
  auto [out, state] = lstm->forward_with_packed_input(packed, std::make_tuple(h0, c0));
  auto [h_n, c_n] = state;
  auto [out_padded, out_lengths] = rnn_utils::pad_packed_sequence(out, /*batch_first=*/true);
  ASSERT_EQ(out_padded.sizes(), (std::vector<int64_t>{4, 5, 8}));
  EXPECT_EQ(longs(out_lengths), lengths);
  for (size_t i = 0; i < lengths.size(); ++i) {
    const auto idx = static_cast<int64_t>(i);
    auto [alone, alone_state] = lstm(seqs[i].unsqueeze(0), std::make_tuple(
        h0.narrow(1, idx, 1), c0.narrow(1, idx, 1)));
    EXPECT_TRUE(torch::allclose(out_padded[idx].narrow(0, 0, lengths[i]), alone[0], 1e-5, 1e-6))
        << "sequence " << i;
    if (lengths[i] < 5) {
      EXPECT_EQ(out_padded[idx].narrow(0, lengths[i], 5 - lengths[i]).abs().sum().item<float>(), 0.f);
    }
    EXPECT_TRUE(torch::allclose(h_n.narrow(1, idx, 1), std::get<0>(alone_state), 1e-5, 1e-6));
    EXPECT_TRUE(torch::allclose(c_n.narrow(1, idx, 1), std::get<1>(alone_state), 1e-5, 1e-6));
  }

  nn::GRU gru(nn::GRUOptions(3, 2));
  nn::RNN rnn(nn::RNNOptions(3, 2).nonlinearity(torch::kReLU).bidirectional(true));
  const auto time_major = rnn_utils::pack_sequence(seqs, /*enforce_sorted=*/false);
  auto [gru_out, gru_h] = gru->forward_with_packed_input(time_major);
  auto [rnn_out, rnn_h] = rnn->forward_with_packed_input(time_major);
  const auto gru_padded = std::get<0>(rnn_utils::pad_packed_sequence(gru_out));
  for (size_t i = 0; i < lengths.size(); ++i) {
    const auto idx = static_cast<int64_t>(i);
    auto [g_alone, g_h] = gru(seqs[i]);  // unbatched
    EXPECT_TRUE(torch::allclose(gru_padded.select(1, idx).narrow(0, 0, lengths[i]), g_alone,
                                1e-5, 1e-6));
    EXPECT_TRUE(torch::allclose(gru_h.select(1, idx), g_h, 1e-5, 1e-6));
    auto [r_alone, r_h] = rnn(seqs[i]);
    EXPECT_TRUE(torch::allclose(rnn_h.select(1, idx), r_h, 1e-5, 1e-6));
  }

  EXPECT_THAT(errorOf([&] { gru->forward_with_packed_input(time_major, torch::zeros({1, 3, 2})); }),
              HasSubstr("GRU: expected h_0 of sizes [1, 4, 2] for this packed batch, but got "
                        "[1, 3, 2]."));
  EXPECT_THAT(errorOf([&] { lstm->forward_with_packed_input(rnn_utils::pack_sequence({torch::ones({2, 5})})); }),
              HasSubstr("LSTM::forward_with_packed_input: expected packed data [rows, "
                        "input_size=3], but got sizes [2, 5]."));
  EXPECT_THAT(errorOf([&] { gru->forward_with_packed_input(rnn_utils::PackedSequence(torch::ones({3, 3}), torch::tensor({1, 2}))); }),
              HasSubstr("GRU::forward_with_packed_input: batch_sizes must be positive and "
                        "non-increasing (longest sequence first), but got [2] values [1, 2]."));
}

TEST(PackedSequenceCompat, GradientsFlowThroughPacking) {
  torch::manual_seed(51);
  nn::GRU gru(nn::GRUOptions(2, 2).bidirectional(true));
  gru->to(torch::kDouble);
  auto x = torch::randn({3, 3, 2}, torch::kDouble).requires_grad_();
  const auto lengths = torch::tensor({1, 3, 2});
  EXPECT_TRUE(torch::autograd::gradcheck([&](const variable_list& in) {
    auto packed = rnn_utils::pack_padded_sequence(in[0], lengths, false, false);
    auto [out, h] = gru->forward_with_packed_input(packed);
    return variable_list{std::get<0>(rnn_utils::pad_packed_sequence(out)), h};
  }, {x}));
}

TEST(EmbeddingCompat, MaxNormAndScaleGradByFreq) {
  // Rows [3, 4] (norm 5), [0.3, 0.4] (norm 0.5), [6, 8] (norm 10, not picked).
  const auto table = torch::tensor({{3.0, 4.0}, {0.3, 0.4}, {6.0, 8.0}}, torch::kDouble);
  nn::Embedding emb(nn::EmbeddingOptions(3, 2)._weight(table.clone()).max_norm(1.0));
  const auto y = emb(torch::tensor({0, 1, 0}));
  // Picked rows above max_norm are scaled to norm 1 in the weight itself.
  EXPECT_TRUE(torch::allclose(y[0], torch::tensor({0.6, 0.8}, torch::kDouble), 1e-6));
  EXPECT_TRUE(torch::allclose(y[1], torch::tensor({0.3, 0.4}, torch::kDouble)));
  EXPECT_TRUE(torch::allclose(emb->weight[0], torch::tensor({0.6, 0.8}, torch::kDouble), 1e-6));
  EXPECT_TRUE(torch::equal(emb->weight[2], table[2]));
  // L1 norm with norm_type 1: [3, 4] has norm 7 -> scaled by 2 / 7.
  auto weight = table.clone();
  torch::nn::functional::embedding(torch::tensor({0}), weight,
                                   torch::nn::functional::EmbeddingFuncOptions().max_norm(2.0).norm_type(1.0));
  EXPECT_TRUE(torch::allclose(weight[0], table[0] * (2.0 / 7.0), 1e-6));
  auto bag_weight = table.clone();
  nn::EmbeddingBag bag(nn::EmbeddingBagOptions(3, 2)._weight(bag_weight).max_norm(1.0).mode(torch::kSum));
  EXPECT_TRUE(torch::allclose(bag(torch::tensor({{0, 1}})),
                              torch::tensor({{0.9, 1.2}}, torch::kDouble), 1e-6));

  // scale_grad_by_freq: index 1 occurs three times, 2 once: the gradient
  // of row 1 is the plain gradient divided by 3.
  const auto input = torch::tensor({1, 2, 1, 1});
  const auto offsets = torch::tensor({0, 2});
  auto w_plain = torch::randn({3, 2}, torch::kDouble).requires_grad_();
  auto w_scaled = w_plain.detach().clone().requires_grad_();
  namespace F = torch::nn::functional;
  const auto plain = F::embedding_bag(input, w_plain, F::EmbeddingBagFuncOptions().offsets(offsets).mode(torch::kSum));
  const auto scaled = F::embedding_bag(input, w_scaled, F::EmbeddingBagFuncOptions().offsets(offsets)
                                                            .mode(torch::kSum).scale_grad_by_freq(true));
  EXPECT_TRUE(torch::equal(plain, scaled));
  const auto upstream = torch::randn({2, 2}, torch::kDouble);
  plain.backward(upstream);
  scaled.backward(upstream);
  EXPECT_TRUE(torch::allclose(w_scaled.grad()[1], w_plain.grad()[1] / 3));
  EXPECT_TRUE(torch::allclose(w_scaled.grad()[2], w_plain.grad()[2]));
  EXPECT_THAT(errorOf([&] {
                F::embedding_bag(input, w_plain, F::EmbeddingBagFuncOptions().offsets(offsets)
                                                     .mode(torch::kMax).scale_grad_by_freq(true));
              }),
              HasSubstr("embedding_bag: scale_grad_by_freq is not supported with mode kMax (as "
                        "in PyTorch); use kSum or kMean."));
  EXPECT_THAT(errorOf([&] { nn::EmbeddingBag(nn::EmbeddingBagOptions(3, 2).sparse(true)); }),
              HasSubstr("EmbeddingBag: sparse=true is not supported"));
}

TEST(ClipGradCompat, NormValueAndVectors) {
  auto a = torch::zeros({2}, torch::kDouble).requires_grad_();
  auto b = torch::zeros({1}, torch::kDouble).requires_grad_();
  auto unused = torch::zeros({3}, torch::kDouble).requires_grad_();  // no gradient: skipped
  (a * torch::tensor({3.0, 4.0}, torch::kDouble)).sum().add(b * 12).sum().backward();
  // Gradients [3, 4] and [12]: joint 2-norm sqrt(9 + 16 + 144) = 13.
  EXPECT_DOUBLE_EQ(torch::nn::utils::clip_grad_norm_({a, b, unused}, 1.0), 13.0);
  const double k = 1.0 / (13.0 + 1e-6);
  EXPECT_TRUE(torch::allclose(a.grad(), torch::tensor({3 * k, 4 * k}, torch::kDouble)));
  EXPECT_TRUE(torch::allclose(b.grad(), torch::tensor({12 * k}, torch::kDouble)));
  // Below max_norm nothing changes; the infinity norm is the largest element.
  const auto before = a.grad().clone();
  EXPECT_NEAR(torch::nn::utils::clip_grad_norm_(std::vector<Tensor>{a, b}, 5.0,
                                                std::numeric_limits<double>::infinity()),
              12 * k, 1e-12);
  EXPECT_TRUE(torch::equal(a.grad(), before));
  torch::nn::utils::clip_grad_value_(b, 0.5);
  EXPECT_TRUE(torch::allclose(b.grad(), torch::tensor({0.5}, torch::kDouble)));
  const auto flat = torch::nn::utils::parameters_to_vector({a, b});
  EXPECT_EQ(flat.sizes(), (std::vector<int64_t>{3}));
  torch::nn::utils::vector_to_parameters(torch::tensor({7.0, 8.0, 9.0}, torch::kDouble), {a, b});
  EXPECT_TRUE(torch::equal(b, torch::tensor({9.0}, torch::kDouble)));
  b.mutable_grad() = torch::tensor({std::nan("")}, torch::kDouble);
  EXPECT_THAT(errorOf([&] { torch::nn::utils::clip_grad_norm_(b, 1.0, 2.0, true); }),
              HasSubstr("clip_grad_norm_: the total norm of order 2 of the gradients is nan, so "
                        "they cannot be clipped; pass error_if_nonfinite=false"));
  EXPECT_THAT(errorOf([&] { torch::nn::utils::vector_to_parameters(flat, {a}); }),
              HasSubstr("vector_to_parameters: the vector has 3 elements but the parameters "
                        "have 2."));
}

}  // namespace
