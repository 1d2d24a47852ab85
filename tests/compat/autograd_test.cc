// Autograd as libtorch's C++ autograd example uses it: requires_grad
// factories, grad_fn names, backward of a scalar and of a vector with a
// gradient argument, NoGradGuard, torch::autograd::grad with create_graph,
// and custom Functions (a linear map with saved tensors; a constant factor
// kept in ctx->saved_data as an IValue). Each value is checked by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include <torch/torch.h>

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::Function;
using torch::autograd::variable_list;

TEST(AutogradExample, BasicBackward) {
  auto x = torch::ones({2, 2}, torch::requires_grad());
  auto y = x + 2;
  EXPECT_THAT(y.grad_fn()->name(), ::testing::HasSubstr("AddBackward"));
  auto z = y * y * 3;
  auto out = z.mean();
  out.backward();
  // d(mean(3 (x + 2)²))/dx = 6 (x + 2) / 4 = 4.5 at x = 1.
  EXPECT_TRUE(torch::allclose(x.grad(), torch::full({2, 2}, 4.5)));

  auto a = torch::randn({2, 2});
  a = ((a * 3) / (a - 1));
  EXPECT_FALSE(a.requires_grad());
  a.requires_grad_(true);
  EXPECT_TRUE(a.requires_grad());
  auto b = (a * a).sum();
  EXPECT_THAT(b.grad_fn()->name(), ::testing::HasSubstr("SumBackward"));
}

TEST(AutogradExample, VectorJacobianAndNoGrad) {
  torch::manual_seed(0);
  auto x = torch::randn(3, torch::requires_grad());
  auto y = x * 2;
  int doublings = 1;
  while (y.norm().item<double>() < 1000) {
    y = y * 2;
    ++doublings;
  }
  auto v = torch::tensor({0.1, 1.0, 0.0001}, torch::kFloat);
  y.backward(v);
  EXPECT_TRUE(torch::allclose(x.grad(), v * std::pow(2.0, doublings)));

  EXPECT_TRUE(x.requires_grad());
  EXPECT_TRUE(x.pow(2).requires_grad());
  {
    torch::NoGradGuard no_grad;
    EXPECT_FALSE(x.pow(2).requires_grad());
  }
  y = x.detach();
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(x.eq(y).all().item<bool>());
}

TEST(AutogradExample, HigherOrderGradients) {
  auto model = torch::nn::Linear(4, 3);
  auto input = torch::randn({3, 4}).requires_grad_(true);
  auto output = model(input);
  auto target = torch::randn({3, 3});
  auto loss = torch::nn::MSELoss()(output, target);
  auto grad_output = torch::ones_like(loss);
  auto gradient_penalty =
      torch::pow((torch::autograd::grad({loss}, {input}, {grad_output}, /*retain_graph=*/true,
                                        /*create_graph=*/true)[0]
                      .norm() -
                  1),
                 2);
  gradient_penalty.backward();
  ASSERT_TRUE(model->weight.grad().defined());
  EXPECT_EQ(model->weight.grad().sizes(), model->weight.sizes());
  EXPECT_GT(model->weight.grad().abs().sum().item<double>(), 0.0);
}

// y = x wᵀ + b with its own backward.
struct LinearFunction : public Function<LinearFunction> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor input, torch::Tensor weight,
                               torch::Tensor bias = torch::Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    auto output = input.mm(weight.t());
    if (bias.defined()) output += bias.unsqueeze(0).expand_as(output);
    return output;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    auto input = saved[0], weight = saved[1], bias = saved[2];
    auto grad_output = grad_outputs[0];
    auto grad_input = grad_output.mm(weight);
    auto grad_weight = grad_output.t().mm(input);
    auto grad_bias = torch::Tensor();
    if (bias.defined()) grad_bias = grad_output.sum(0);
    return {grad_input, grad_weight, grad_bias};
  }
};

// y = x * constant, the constant kept in ctx->saved_data.
struct MulConstant : public Function<MulConstant> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor tensor, double constant) {
    ctx->saved_data["constant"] = constant;
    return tensor * constant;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), torch::Tensor()};
  }
};

TEST(AutogradExample, CustomFunctions) {
  auto x = torch::randn({2, 3}).requires_grad_();
  auto weight = torch::randn({4, 3}).requires_grad_();
  auto y = LinearFunction::apply(x, weight);
  y.sum().backward();
  // d(sum(x wᵀ))/dx = ones [2, 4] · w; /dw = onesᵀ · x.
  EXPECT_TRUE(torch::allclose(x.grad(), torch::ones({2, 4}).mm(weight)));
  EXPECT_TRUE(torch::allclose(weight.grad(), torch::ones({4, 2}).mm(x)));

  auto t = torch::randn({2}).requires_grad_();
  auto r = MulConstant::apply(t, 5.5);
  r.sum().backward();
  EXPECT_TRUE(torch::allclose(t.grad(), torch::full({2}, 5.5)));
}

}  // namespace
