// torch::nn::RNN, LSTM, GRU and their cells (issue 15): one step against a
// scalar reference written from the documented equations, the layers
// against their cells stepped by hand (layers, directions, batch_first,
// h_n order), gradients against finite differences, a sequence an LSTM
// learns, shapes, parameter names and error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <vector>

#include <torch/torch.h>

#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_test::errorOf;
using torch::autograd::variable_list;

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

void set(torch::Tensor& p, std::vector<double> values) {
  torch::NoGradGuard no_grad;
  p.copy_(torch::tensor(values, torch::kDouble).reshape(p.sizes()));
}

std::vector<int64_t> sizes(const torch::Tensor& t) { return t.sizes().vec(); }

TEST(RecurrentCells, OneStepMatchesTheEquations) {
  const double x = 0.7, h = -0.4, c = 0.9;
  {
    torch::nn::RNNCell cell(1, 1);
    cell->to(torch::kDouble);
    set(cell->weight_ih, {0.5});
    set(cell->weight_hh, {-1.2});
    set(cell->bias_ih, {0.1});
    set(cell->bias_hh, {0.2});
    const double out = cell(torch::tensor({{x}}, torch::kDouble),
                            torch::tensor({{h}}, torch::kDouble)).item<double>();
    EXPECT_NEAR(out, std::tanh(0.5 * x + 0.1 - 1.2 * h + 0.2), 1e-12);
    torch::nn::RNNCell relu(torch::nn::RNNCellOptions(1, 1).nonlinearity(torch::kReLU));
    relu->to(torch::kDouble);
    set(relu->weight_ih, {-1.0});
    set(relu->weight_hh, {0.0});
    set(relu->bias_ih, {0.0});
    set(relu->bias_hh, {0.0});
    EXPECT_EQ(relu(torch::tensor({x}, torch::kDouble)).item<double>(), 0.0);  // unbatched
  }
  {
    // Gates i, f, g, o: each its own weights, so a swapped gate shows.
    torch::nn::LSTMCell cell(1, 1);
    cell->to(torch::kDouble);
    const std::vector<double> wi{0.3, -0.6, 0.9, 0.4}, wh{-0.2, 0.5, 0.1, -0.7},
        bi{0.05, 0.6, -0.1, 0.2}, bh{0.0, 0.3, 0.25, -0.15};
    set(cell->weight_ih, wi);
    set(cell->weight_hh, wh);
    set(cell->bias_ih, bi);
    set(cell->bias_hh, bh);
    auto pre = [&](int g) { return wi[g] * x + bi[g] + wh[g] * h + bh[g]; };
    const double c_ref = sigmoid(pre(1)) * c + sigmoid(pre(0)) * std::tanh(pre(2));
    const double h_ref = sigmoid(pre(3)) * std::tanh(c_ref);
    auto [h1, c1] = cell(torch::tensor({{x}}, torch::kDouble),
                         std::make_tuple(torch::tensor({{h}}, torch::kDouble),
                                         torch::tensor({{c}}, torch::kDouble)));
    EXPECT_NEAR(h1.item<double>(), h_ref, 1e-12);
    EXPECT_NEAR(c1.item<double>(), c_ref, 1e-12);
    EXPECT_EQ(sizes(h1), (std::vector<int64_t>{1, 1}));
  }
  {
    // Gates r, z, n; r multiplies W_hn h + b_hn (bias included).
    torch::nn::GRUCell cell(1, 1);
    cell->to(torch::kDouble);
    const std::vector<double> wi{0.3, -0.6, 0.9}, wh{-0.2, 0.5, 0.8}, bi{0.05, 0.6, -0.1},
        bh{0.4, 0.3, 0.7};
    set(cell->weight_ih, wi);
    set(cell->weight_hh, wh);
    set(cell->bias_ih, bi);
    set(cell->bias_hh, bh);
    const double r = sigmoid(wi[0] * x + bi[0] + wh[0] * h + bh[0]);
    const double z = sigmoid(wi[1] * x + bi[1] + wh[1] * h + bh[1]);
    const double n = std::tanh(wi[2] * x + bi[2] + r * (wh[2] * h + bh[2]));
    const double out = cell(torch::tensor({{x}}, torch::kDouble),
                            torch::tensor({{h}}, torch::kDouble)).item<double>();
    EXPECT_NEAR(out, (1 - z) * n + z * h, 1e-12);
  }
}

// Runs `cell` over x [L, N, I] forwards or backwards from h; outputs [L, N, H].
torch::Tensor unroll(torch::nn::GRUCell& cell, const torch::Tensor& x, torch::Tensor& h,
                     bool reverse) {
  const int64_t steps = x.size(0);
  std::vector<torch::Tensor> out(steps);
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t t = reverse ? steps - 1 - s : s;
    h = cell(x[t], h);
    out[t] = h;
  }
  return torch::stack(out, 0);
}

void copy_weights(torch::nn::GRU& gru, const std::string& suffix, torch::nn::GRUCell& cell) {
  auto p = gru->named_parameters();
  torch::NoGradGuard no_grad;
  cell->weight_ih.copy_(p["weight_ih" + suffix]);
  cell->weight_hh.copy_(p["weight_hh" + suffix]);
  cell->bias_ih.copy_(p["bias_ih" + suffix]);
  cell->bias_hh.copy_(p["bias_hh" + suffix]);
}

TEST(RecurrentLayers, StackedBidirectionalGRUIsItsCellsStepped) {
  torch::manual_seed(4);
  torch::nn::GRU gru(torch::nn::GRUOptions(3, 4).num_layers(2).bidirectional(true).batch_first(true));
  const auto x = torch::randn({2, 5, 3});   // [N, L, I]
  const auto h0 = torch::randn({4, 2, 4});  // [layers * directions, N, H]
  auto [out, h_n] = gru(x, h0);
  ASSERT_EQ(sizes(out), (std::vector<int64_t>{2, 5, 8}));
  ASSERT_EQ(sizes(h_n), (std::vector<int64_t>{4, 2, 4}));

  torch::nn::GRUCell f0(3, 4), b0(3, 4), f1(8, 4), b1(8, 4);
  copy_weights(gru, "_l0", f0);
  copy_weights(gru, "_l0_reverse", b0);
  copy_weights(gru, "_l1", f1);
  copy_weights(gru, "_l1_reverse", b1);
  const auto xt = x.transpose(0, 1);  // time first
  std::vector<torch::Tensor> h{h0[0], h0[1], h0[2], h0[3]};
  auto layer0 = torch::cat({unroll(f0, xt, h[0], false), unroll(b0, xt, h[1], true)}, 2);
  auto layer1 = torch::cat({unroll(f1, layer0, h[2], false), unroll(b1, layer0, h[3], true)}, 2);
  EXPECT_TRUE(torch::allclose(out, layer1.transpose(0, 1), 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(h_n, torch::stack(h, 0), 1e-5, 1e-6));
}

TEST(RecurrentLayers, LSTMAndRNNLayersAreTheirCellsStepped) {
  torch::manual_seed(5);
  torch::nn::LSTM lstm(2, 3);
  torch::nn::LSTMCell cell(2, 3);
  {
    torch::NoGradGuard no_grad;
    cell->weight_ih.copy_(lstm->named_parameters()["weight_ih_l0"]);
    cell->weight_hh.copy_(lstm->named_parameters()["weight_hh_l0"]);
    cell->bias_ih.copy_(lstm->named_parameters()["bias_ih_l0"]);
    cell->bias_hh.copy_(lstm->named_parameters()["bias_hh_l0"]);
  }
  const auto x = torch::randn({4, 2, 2});
  auto [out, state] = lstm(x);  // zero initial state
  std::tuple<torch::Tensor, torch::Tensor> hc{torch::zeros({2, 3}), torch::zeros({2, 3})};
  for (int64_t t = 0; t < 4; ++t) {
    hc = cell(x[t], hc);
    EXPECT_TRUE(torch::allclose(out[t], std::get<0>(hc), 1e-5, 1e-6)) << "step " << t;
  }
  EXPECT_TRUE(torch::allclose(std::get<0>(state)[0], std::get<0>(hc), 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(std::get<1>(state)[0], std::get<1>(hc), 1e-5, 1e-6));

  torch::nn::RNN rnn(torch::nn::RNNOptions(2, 3).nonlinearity(torch::kReLU).bias(false));
  EXPECT_EQ(rnn->parameters().size(), 2u);
  torch::nn::RNNCell rcell(torch::nn::RNNCellOptions(2, 3).nonlinearity(torch::kReLU).bias(false));
  {
    torch::NoGradGuard no_grad;
    rcell->weight_ih.copy_(rnn->named_parameters()["weight_ih_l0"]);
    rcell->weight_hh.copy_(rnn->named_parameters()["weight_hh_l0"]);
  }
  const auto u = torch::randn({3, 2});  // unbatched [L, I]
  auto [rout, rh] = rnn(u);
  EXPECT_EQ(sizes(rout), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(sizes(rh), (std::vector<int64_t>{1, 3}));
  torch::Tensor hr;
  for (int64_t t = 0; t < 3; ++t) hr = rcell(u[t], hr);
  EXPECT_TRUE(torch::allclose(rh[0], hr, 1e-5, 1e-6));
  EXPECT_GE(rout.min().item<float>(), 0.0f);
}

// Many small ops: worker threads only add wake-ups, which cost seconds on a
// loaded machine.
void one_thread() { at::set_num_threads(1); }

TEST(RecurrentLayers, GradientsMatchFiniteDifferences) {
  one_thread();
  torch::manual_seed(6);
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(2, 2).num_layers(2).bidirectional(true));
  lstm->to(torch::kDouble);
  auto x = torch::randn({2, 1, 2}, torch::kDouble).requires_grad_();
  auto h0 = torch::randn({4, 1, 2}, torch::kDouble).requires_grad_();
  auto c0 = torch::randn({4, 1, 2}, torch::kDouble).requires_grad_();
  auto p = lstm->named_parameters();
  // Parameters are perturbed in place by gradcheck, so listing them checks their gradients too.
  EXPECT_TRUE(torch::autograd::gradcheck(
      [&](const variable_list& in) {
        auto [out, state] = lstm(in[0], std::make_tuple(in[1], in[2]));
        return variable_list{out, std::get<0>(state), std::get<1>(state)};
      },
      {x, h0, c0, p["weight_ih_l1_reverse"], p["bias_hh_l0"], p["weight_hh_l0_reverse"]}));

  torch::nn::GRU gru(torch::nn::GRUOptions(2, 2).batch_first(true));
  gru->to(torch::kDouble);
  auto g = gru->named_parameters();
  auto xb = torch::randn({2, 3, 2}, torch::kDouble).requires_grad_();
  EXPECT_TRUE(torch::autograd::gradcheck(
      [&](const variable_list& in) { return variable_list{std::get<0>(gru(in[0]))}; },
      {xb, g["weight_hh_l0"], g["bias_hh_l0"], g["weight_ih_l0"]}));

  torch::nn::LSTM proj(torch::nn::LSTMOptions(2, 3).proj_size(2));
  proj->to(torch::kDouble);
  EXPECT_EQ(sizes(proj->named_parameters()["weight_hr_l0"]), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(sizes(proj->named_parameters()["weight_hh_l0"]), (std::vector<int64_t>{12, 2}));
  EXPECT_TRUE(torch::autograd::gradcheck(
      [&](const variable_list& in) {
        auto [out, state] = proj(in[0]);
        return variable_list{out, std::get<1>(state)};
      },
      {x, proj->named_parameters()["weight_hr_l0"]}));
}

// The classic memory task: the target is the first element of a random
// ±1 sequence, seen five steps earlier. A model without memory scores MSE 1.
TEST(RecurrentLayers, LSTMLearnsToRecallTheFirstElement) {
  one_thread();
  torch::manual_seed(7);
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(1, 8).batch_first(true));
  torch::nn::Linear head(8, 1);
  std::vector<torch::Tensor> params = lstm->parameters();
  for (auto& p : head->parameters()) params.push_back(p);
  torch::optim::Adam opt(params, torch::optim::AdamOptions(0.03));
  auto batch = [] { return torch::randint(0, 2, {32, 5, 1}).to(torch::kFloat) * 2 - 1; };
  auto loss_of = [&](const torch::Tensor& x) {
    auto out = std::get<0>(lstm(x));
    return torch::mse_loss(head(out.select(1, 4)), x.select(1, 0));
  };
  const double before = loss_of(batch()).item<double>();
  for (int step = 0; step < 80; ++step) {
    opt.zero_grad();
    auto loss = loss_of(batch());
    loss.backward();
    opt.step();
  }
  torch::NoGradGuard no_grad;
  const double after = loss_of(batch()).item<double>();
  EXPECT_GT(before, 0.5);
  EXPECT_LT(after, 0.05) << "before " << before;
  std::cerr << "recall loss " << before << " -> " << after << "\n";
}

TEST(RecurrentLayers, ShapesNamesAndPrinting) {
  torch::nn::LSTM lstm(torch::nn::LSTMOptions(3, 5).num_layers(2).bidirectional(true)
                           .batch_first(true));
  std::vector<std::string> names;
  for (const auto& item : lstm->named_parameters()) names.push_back(item.key());
  EXPECT_EQ(names.size(), 16u);
  EXPECT_EQ(names[0], "weight_ih_l0");
  EXPECT_EQ(names[4], "weight_ih_l0_reverse");
  EXPECT_EQ(names[15], "bias_hh_l1_reverse");
  EXPECT_EQ(sizes(lstm->named_parameters()["weight_ih_l1"]), (std::vector<int64_t>{20, 10}));
  EXPECT_EQ(lstm->all_weights().size(), 16u);
  auto [out, state] = lstm(torch::randn({4, 7, 3}));
  EXPECT_EQ(sizes(out), (std::vector<int64_t>{4, 7, 10}));
  EXPECT_EQ(sizes(std::get<0>(state)), (std::vector<int64_t>{4, 4, 5}));
  EXPECT_EQ(sizes(std::get<1>(state)), (std::vector<int64_t>{4, 4, 5}));
  auto [u, us] = lstm(torch::randn({7, 3}));  // unbatched
  EXPECT_EQ(sizes(u), (std::vector<int64_t>{7, 10}));
  EXPECT_EQ(sizes(std::get<0>(us)), (std::vector<int64_t>{4, 5}));
  const double bound = 1 / std::sqrt(5.0);
  for (const auto& w : lstm->parameters()) EXPECT_LE(w.abs().max().item<double>(), bound);

  std::ostringstream s;
  s << *lstm << " " << *torch::nn::GRUCell(torch::nn::GRUCellOptions(2, 3).bias(false));
  EXPECT_EQ(s.str(), "torch::nn::LSTM(input_size=3, hidden_size=5, num_layers=2, bias=true, "
                     "batch_first=true, dropout=0, bidirectional=true) "
                     "torch::nn::GRUCell(2, 3, bias=false)");

  // Dropout between layers: active in training only.
  torch::nn::GRU drop(torch::nn::GRUOptions(2, 4).num_layers(2).dropout(1.0));
  auto x = torch::randn({3, 1, 2});
  const auto eval_out = [&] { drop->eval(); auto o = std::get<0>(drop(x)); drop->train(); return o; }();
  const auto train_out = std::get<0>(drop(x));
  // With every first-layer output dropped, layer 2 sees zeros: its output no longer depends on x.
  EXPECT_TRUE(torch::allclose(train_out, std::get<0>(drop(torch::randn({3, 1, 2})))));
  EXPECT_FALSE(torch::allclose(train_out, eval_out));
}

TEST(RecurrentLayers, ErrorsSayWhatWasExpected) {
  torch::nn::LSTM lstm(3, 4);
  EXPECT_THAT(errorOf([&] { lstm(torch::randn({2, 2, 2, 3})); }),
              HasSubstr("LSTM: expected a 2-d (unbatched) or 3-d (batched) input, but got a 4-d "
                        "input of sizes [2, 2, 2, 3]."));
  EXPECT_THAT(errorOf([&] { lstm(torch::randn({5, 2, 6})); }),
              HasSubstr("LSTM: input.size(-1) must be equal to input_size. Expected 3, got 6."));
  EXPECT_THAT(errorOf([&] {
                lstm(torch::randn({5, 2, 3}),
                     std::make_tuple(torch::zeros({1, 3, 4}), torch::zeros({1, 2, 4})));
              }),
              HasSubstr("LSTM: expected h_0 of sizes [1, 2, 4], but got [1, 3, 4]"));
  torch::nn::GRU gru(torch::nn::GRUOptions(3, 4).batch_first(true));
  EXPECT_THAT(errorOf([&] { gru(torch::randn({2, 5, 3}), torch::zeros({2, 1, 4})); }),
              HasSubstr("GRU: expected h_0 of sizes [1, 2, 4], but got [2, 1, 4]; it is "
                        "[num_layers * num_directions, batch, size] (not batch-first)."));
  EXPECT_THAT(errorOf([&] { gru(torch::randn({2, 0, 3})); }),
              HasSubstr("GRU: the input sequence is empty"));
  EXPECT_THAT(errorOf([] { torch::nn::RNN(torch::nn::RNNOptions(3, 4).dropout(1.5)); }),
              HasSubstr("RNN: dropout must be a probability between 0 and 1, but got 1.5."));
  EXPECT_THAT(errorOf([] { torch::nn::LSTM(torch::nn::LSTMOptions(3, 4).proj_size(4)); }),
              HasSubstr("LSTM: proj_size (4) must be smaller than hidden_size (4)."));
  torch::nn::GRUCell cell(3, 4);
  EXPECT_THAT(errorOf([&] { cell(torch::randn({2, 5})); }),
              HasSubstr("GRUCell: input has inconsistent input_size: got 5, expected 3."));
  EXPECT_THAT(errorOf([&] { cell(torch::randn({2, 2, 3})); }),
              HasSubstr("GRUCell: expected a 1-d (unbatched) or 2-d (batched) input, but got a "
                        "3-d input"));
  EXPECT_THAT(errorOf([&] { cell(torch::randn({2, 3}), torch::zeros({3, 4})); }),
              HasSubstr("GRUCell: expected hx of sizes [2, 4] (the input's batch and "
                        "hidden_size), but got [3, 4]."));
}

}  // namespace
