// Two programs of the kind PyTorch's C++ tutorials contain, written here as
// a libtorch user would (issue 15): a GRU encoder-decoder that learns to
// reverse variable-length token sequences, feeding the encoder a
// PackedSequence, and a small Transformer encoder language model with a
// causal mask and sinusoidal positions. Both train for a few seconds and
// must learn their task.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <tuple>
#include <vector>

#include <torch/torch.h>

namespace {

constexpr int64_t kPad = 0, kStart = 1, kVocab = 10;  // tokens 2..9 are data

// ---- a packed-sequence GRU encoder-decoder ----

struct EncoderImpl : torch::nn::Module {
  EncoderImpl(int64_t vocab, int64_t hidden)
      : embed(register_module(
            "embed", torch::nn::Embedding(torch::nn::EmbeddingOptions(vocab, hidden).padding_idx(kPad)))),
        gru(register_module("gru",
                            torch::nn::GRU(torch::nn::GRUOptions(hidden, hidden).batch_first(true)))) {}

  // tokens [B, T] (padded with kPad), lengths [B] -> final state [1, B, H].
  torch::Tensor forward(const torch::Tensor& tokens, const torch::Tensor& lengths) {
    auto packed = torch::nn::utils::rnn::pack_padded_sequence(embed(tokens), lengths,
                                                              /*batch_first=*/true,
                                                              /*enforce_sorted=*/false);
    auto [output, h_n] = gru->forward_with_packed_input(packed);
    return h_n;
  }

  torch::nn::Embedding embed;
  torch::nn::GRU gru;
};
TORCH_MODULE(Encoder);

struct DecoderImpl : torch::nn::Module {
  DecoderImpl(int64_t vocab, int64_t hidden)
      : embed(register_module("embed", torch::nn::Embedding(vocab, hidden))),
        gru(register_module("gru",
                            torch::nn::GRU(torch::nn::GRUOptions(hidden, hidden).batch_first(true)))),
        out(register_module("out", torch::nn::Linear(hidden, vocab))) {}

  // inputs [B, T], state [1, B, H] -> (logits [B, T, V], state).
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& inputs,
                                                   const torch::Tensor& state) {
    auto [output, h] = gru(embed(inputs), state);
    return {out(output), h};
  }

  torch::nn::Embedding embed;
  torch::nn::GRU gru;
  torch::nn::Linear out;
};
TORCH_MODULE(Decoder);

struct Batch {
  torch::Tensor source, lengths, decoder_input, target;
};

// Sequences of 2..5 data tokens; the target is the source reversed.
Batch make_batch(int64_t size) {
  const auto lengths = torch::randint(2, 6, {size}, torch::kLong);
  auto source = torch::full({size, 5}, kPad, torch::kLong);
  auto target = torch::full({size, 5}, kPad, torch::kLong);
  auto decoder_input = torch::full({size, 5}, kPad, torch::kLong);
  auto tokens = torch::randint(2, kVocab, {size, 5}, torch::kLong);
  auto src = source.accessor<int64_t, 2>();
  auto tgt = target.accessor<int64_t, 2>();
  auto dec = decoder_input.accessor<int64_t, 2>();
  auto tok = tokens.accessor<int64_t, 2>();
  for (int64_t b = 0; b < size; ++b) {
    const int64_t len = lengths[b].item<int64_t>();
    for (int64_t t = 0; t < len; ++t) {
      src[b][t] = tok[b][t];
      tgt[b][t] = tok[b][len - 1 - t];
      dec[b][t] = t == 0 ? kStart : tgt[b][t - 1];
    }
  }
  return {source, lengths, decoder_input, target};
}

// Small tensors: one thread (OpenMP's second thread only waits here, and on
// a loaded machine costs 10x).
TEST(TutorialPrograms, PackedGruSeq2SeqLearnsToReverse) {
  torch::set_num_threads(1);
  torch::manual_seed(0);
  Encoder encoder(kVocab, 32);
  Decoder decoder(kVocab, 32);
  std::vector<torch::Tensor> parameters = encoder->parameters();
  for (auto& p : decoder->parameters()) parameters.push_back(p);
  torch::optim::Adam optimizer(parameters, torch::optim::AdamOptions(1e-2));
  torch::nn::CrossEntropyLoss criterion(torch::nn::CrossEntropyLossOptions().ignore_index(kPad));

  double first_loss = 0, last_loss = 0;
  for (int step = 0; step < 100; ++step) {
    const Batch batch = make_batch(32);
    optimizer.zero_grad();
    auto [logits, state] = decoder(batch.decoder_input, encoder(batch.source, batch.lengths));
    auto loss = criterion(logits.reshape({-1, kVocab}), batch.target.reshape({-1}));
    loss.backward();
    const double norm = torch::nn::utils::clip_grad_norm_(parameters, 1.0);
    ASSERT_TRUE(std::isfinite(norm));
    optimizer.step();
    if (step == 0) first_loss = loss.item<double>();
    last_loss = loss.item<double>();
  }
  EXPECT_LT(last_loss, first_loss / 4) << "first " << first_loss << ", last " << last_loss;

  // Greedy decoding of fresh sequences, one token at a time.
  torch::NoGradGuard no_grad;
  encoder->eval();
  decoder->eval();
  const Batch test = make_batch(64);
  auto state = encoder(test.source, test.lengths);
  auto token = torch::full({64, 1}, kStart, torch::kLong);
  std::vector<torch::Tensor> predicted;
  for (int t = 0; t < 5; ++t) {
    auto [logits, next_state] = decoder(token, state);
    state = next_state;
    token = logits.argmax(-1);
    predicted.push_back(token);
  }
  const auto prediction = torch::cat(predicted, 1);
  const auto valid = test.target != kPad;
  const double accuracy = (prediction == test.target).logical_and(valid).sum().item<double>() /
                          valid.sum().item<double>();
  EXPECT_GT(accuracy, 0.6) << "token accuracy " << accuracy;
  std::cout << "seq2seq: loss " << first_loss << " -> " << last_loss << ", accuracy " << accuracy << "\n";
}

// ---- a Transformer encoder language model ----

struct PositionalEncodingImpl : torch::nn::Module {
  PositionalEncodingImpl(int64_t d_model, int64_t max_len) {
    auto position = torch::arange(max_len, torch::kFloat).unsqueeze(1);
    auto div = torch::exp(torch::arange(0, d_model, 2, torch::kFloat) *
                          (-std::log(10000.0) / d_model));
    // Even features sin, odd features cos: [max_len, 1, d_model].
    auto pe = torch::stack({torch::sin(position * div), torch::cos(position * div)}, 2)
                  .reshape({max_len, 1, d_model});
    table = register_buffer("pe", pe);
  }
  torch::Tensor forward(const torch::Tensor& x) { return x + table.narrow(0, 0, x.size(0)); }
  torch::Tensor table;
};
TORCH_MODULE(PositionalEncoding);

struct LanguageModelImpl : torch::nn::Module {
  LanguageModelImpl(int64_t vocab, int64_t d_model)
      : embed(register_module("embed", torch::nn::Embedding(vocab, d_model))),
        positions(register_module("positions", PositionalEncoding(d_model, 64))),
        encoder(register_module(
            "encoder",
            torch::nn::TransformerEncoder(torch::nn::TransformerEncoderOptions(
                torch::nn::TransformerEncoderLayerOptions(d_model, 4).dim_feedforward(64).dropout(0.0),
                2)))),
        head(register_module("head", torch::nn::Linear(d_model, vocab))),
        scale(std::sqrt(static_cast<double>(d_model))) {}

  // tokens [T, B] -> logits [T, B, V]; position t sees positions <= t.
  torch::Tensor forward(const torch::Tensor& tokens) {
    auto mask = torch::nn::TransformerImpl::generate_square_subsequent_mask(tokens.size(0));
    auto h = encoder(positions(embed(tokens) * scale), mask);
    return head(h);
  }

  torch::nn::Embedding embed;
  PositionalEncoding positions;
  torch::nn::TransformerEncoder encoder;
  torch::nn::Linear head;
  double scale;
};
TORCH_MODULE(LanguageModel);

// Each sequence counts up by one from a random start (mod 8, tokens 2..9):
// every token but the first is predictable from the previous one.
torch::Tensor counting_batch(int64_t length, int64_t batch) {
  auto start = torch::randint(0, 8, {1, batch}, torch::kLong);
  auto steps = torch::arange(length, torch::kLong).unsqueeze(1);
  return torch::remainder(start + steps, 8) + 2;
}

TEST(TutorialPrograms, TransformerLanguageModelLearnsToCount) {
  torch::set_num_threads(1);
  torch::manual_seed(1);
  LanguageModel model(kVocab, 32);
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(3e-3));
  double first_loss = 0, last_loss = 0;
  for (int step = 0; step < 60; ++step) {
    auto tokens = counting_batch(9, 16);
    auto input = tokens.narrow(0, 0, 8), target = tokens.narrow(0, 1, 8);
    optimizer.zero_grad();
    auto logits = model(input);
    auto loss = torch::nn::functional::cross_entropy(logits.reshape({-1, kVocab}),
                                                     target.reshape({-1}));
    loss.backward();
    torch::nn::utils::clip_grad_norm_(model->parameters(), 0.5);
    optimizer.step();
    if (step == 0) first_loss = loss.item<double>();
    last_loss = loss.item<double>();
  }
  EXPECT_LT(last_loss, first_loss / 4) << "first " << first_loss << ", last " << last_loss;
  torch::NoGradGuard no_grad;
  model->eval();
  auto tokens = counting_batch(9, 32);
  auto predicted = model(tokens.narrow(0, 0, 8)).argmax(-1);
  const double accuracy =
      (predicted == tokens.narrow(0, 1, 8)).to(torch::kDouble).mean().item<double>();
  EXPECT_GT(accuracy, 0.9) << "accuracy " << accuracy;
  std::cout << "language model: loss " << first_loss << " -> " << last_loss << ", accuracy " << accuracy << "\n";
}

}  // namespace
