// Gradients flow from module forwards to their parameters and inputs:
// torch::autograd::gradcheck (float64, finite differences) on Linear,
// Conv2d, BatchNorm2d (training), LayerNorm, Embedding and a Sequential
// with a loss.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "nn/nn.h"
#include "tests/nn/nn_test_util.h"

namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;
using torch::autograd::gradcheck;
using torch::autograd::variable_list;

// gradcheck of `forward` with respect to `input` and every parameter of
// `module` (made float64 first; gradcheck perturbs the parameters in place).
template <typename Holder, typename Forward>
bool check_module(Holder& module, torch::Tensor input, Forward forward) {
  module->to(torch::kDouble);
  variable_list inputs;
  if (input.defined()) inputs.push_back(input.to(torch::kDouble).requires_grad_());
  for (auto& p : module->parameters()) inputs.push_back(p);
  const bool has_input = input.defined();
  return gradcheck(
      [&](const variable_list& in) {
        return variable_list{forward(has_input ? in[0] : torch::Tensor())};
      },
      inputs);
}

TEST(Gradcheck, Linear) {
  torch::manual_seed(1);
  nn::Linear fc(3, 2);
  EXPECT_TRUE(check_module(fc, torch::randn({4, 3}), [&](const torch::Tensor& x) { return fc(x); }));
}

TEST(Gradcheck, Conv2dWithStridePaddingGroups) {
  torch::manual_seed(2);
  nn::Conv2d conv(nn::Conv2dOptions(2, 2, 2).stride(2).padding(1).groups(2));
  EXPECT_TRUE(check_module(conv, torch::randn({1, 2, 3, 3}),
                           [&](const torch::Tensor& x) { return conv(x); }));
}

TEST(Gradcheck, BatchNorm2dTraining) {
  torch::manual_seed(3);
  nn::BatchNorm2d bn(nn::BatchNorm2dOptions(2).track_running_stats(false));
  {
    torch::NoGradGuard no_grad;
    bn->weight.uniform_(0.5, 1.5);
    bn->bias.uniform_(-1, 1);
  }
  EXPECT_TRUE(check_module(bn, torch::randn({3, 2, 2, 1}),
                           [&](const torch::Tensor& x) { return bn(x); }));
}

TEST(Gradcheck, LayerNorm) {
  torch::manual_seed(4);
  nn::LayerNorm ln(nn::LayerNormOptions({3}));
  {
    torch::NoGradGuard no_grad;
    ln->weight.uniform_(0.5, 1.5);
  }
  EXPECT_TRUE(check_module(ln, torch::randn({2, 3}), [&](const torch::Tensor& x) { return ln(x); }));
}

TEST(Gradcheck, EmbeddingWeight) {
  torch::manual_seed(5);
  // (Without padding_idx: its row's zero gradient is by design not the
  // true derivative, which finite differences would see.)
  nn::Embedding emb(4, 2);
  auto idx = nn_test::make<int64_t>({3}, {0, 3, 0});
  EXPECT_TRUE(check_module(emb, torch::Tensor(), [&](const torch::Tensor&) { return emb(idx); }));
}

TEST(Gradcheck, SequentialWithCrossEntropy) {
  torch::manual_seed(6);
  nn::Sequential net(nn::Linear(3, 4), nn::Tanh(), nn::Linear(4, 3));
  auto target = nn_test::make<int64_t>({2}, {0, 2});
  EXPECT_TRUE(check_module(net, torch::randn({2, 3}), [&](const torch::Tensor& x) {
    return F::cross_entropy(net->forward(x), target,
                            F::CrossEntropyFuncOptions().label_smoothing(0.1));
  }));
}

}  // namespace
