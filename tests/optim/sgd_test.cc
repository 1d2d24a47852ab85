// torch::optim::SGD against PyTorch's update rule computed by hand with
// double loops: momentum, dampening, Nesterov, weight decay; param groups,
// skipped gradients, closures, in-place updates, option errors, and a small
// least-squares fit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "nn/optim/optim.h"
#include "tests/optim/optim_test_util.h"
#include "tests/support/error_of.h"

namespace {

using ember_test::errorOf;
using optim_test::grads_for;
using optim_test::param_of;
using optim_test::set_grad;
using ::testing::HasSubstr;
using torch::optim::SGD;
using torch::optim::SGDOptions;

struct SgdConfig {
  const char* name;
  double lr, momentum, dampening, weight_decay;
  bool nesterov;
};

// gtest prints a failing case by its name.
void PrintTo(const SgdConfig& c, std::ostream* os) { *os << c.name; }

// PyTorch's SGD, one step at a time; `buf` is empty before the first step.
void sgd_reference_step(std::vector<double>& p, std::vector<double>& buf,
                        const std::vector<double>& g, const SgdConfig& c) {
  const bool first = buf.empty();
  if (first) buf.resize(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    double d = g[i] + c.weight_decay * p[i];
    if (c.momentum != 0) {
      buf[i] = first ? d : c.momentum * buf[i] + (1 - c.dampening) * d;
      d = c.nesterov ? d + c.momentum * buf[i] : buf[i];
    }
    p[i] -= c.lr * d;
  }
}

SGDOptions options_of(const SgdConfig& c) {
  return SGDOptions(c.lr)
      .momentum(c.momentum)
      .dampening(c.dampening)
      .weight_decay(c.weight_decay)
      .nesterov(c.nesterov);
}

class SgdRule : public ::testing::TestWithParam<SgdConfig> {};

TEST_P(SgdRule, MatchesTheUpdateComputedByHandOverSeveralSteps) {
  const SgdConfig c = GetParam();
  std::vector<double> ref = {0.5, -1.25, 2.0, 0.0, -0.75, 3.5};
  at::Tensor p = param_of(ref, {2, 3});
  SGD opt({p}, options_of(c));
  std::vector<double> buf;
  for (int k = 0; k < 6; ++k) {
    const std::vector<double> g = grads_for(ref.size(), k);
    set_grad(p, g);
    opt.step();
    sgd_reference_step(ref, buf, g, c);
    EXPECT_VALUES_NEAR(p, ref, 1e-13);
  }
  if (c.momentum != 0) {
    auto it = opt.state().find(p.unsafeGetTensorImpl());
    ASSERT_NE(it, opt.state().end());
    const auto& state = static_cast<const torch::optim::SGDParamState&>(*it->second);
    EXPECT_VALUES_NEAR(state.momentum_buffer(), buf, 1e-13);
  } else {
    EXPECT_TRUE(opt.state().empty());  // plain SGD keeps no state
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configs, SgdRule,
    ::testing::Values(SgdConfig{"plain", 0.1, 0, 0, 0, false},
                      SgdConfig{"weight_decay", 0.1, 0, 0, 0.3, false},
                      SgdConfig{"momentum", 0.05, 0.9, 0, 0, false},
                      SgdConfig{"momentum_dampening", 0.05, 0.9, 0.25, 0, false},
                      SgdConfig{"momentum_dampening_decay", 0.05, 0.8, 0.5, 0.1, false},
                      SgdConfig{"nesterov", 0.05, 0.9, 0, 0, true},
                      SgdConfig{"nesterov_decay", 0.02, 0.7, 0, 0.2, true}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Sgd, Float32ParametersFollowTheSameRule) {
  const SgdConfig c{"", 0.05, 0.9, 0.1, 0.01, false};
  std::vector<double> ref = {0.5, -1.25, 2.0, 0.25};
  at::Tensor p = param_of(ref, {4}, at::kFloat);
  SGD opt({p}, options_of(c));
  std::vector<double> buf;
  for (int k = 0; k < 4; ++k) {
    const std::vector<double> g = grads_for(ref.size(), k);
    set_grad(p, g);
    opt.step();
    sgd_reference_step(ref, buf, g, c);
  }
  EXPECT_EQ(p.scalar_type(), at::kFloat);
  EXPECT_VALUES_NEAR(p, ref, 1e-6);
}

TEST(Sgd, ParamGroupsUseTheirOwnOptionsAndOthersTheDefaults) {
  std::vector<double> a_ref = {1.0, 2.0}, b_ref = {-1.0, 0.5, 0.25}, c_ref = {3.0};
  at::Tensor a = param_of(a_ref, {2}), b = param_of(b_ref, {3}), c = param_of(c_ref, {1});
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<at::Tensor>{a});  // takes the defaults
  groups.emplace_back(std::vector<at::Tensor>{b, c},
                      std::make_unique<SGDOptions>(SGDOptions(0.5).momentum(0.5)));
  SGD opt(groups, SGDOptions(0.1));
  EXPECT_EQ(opt.param_groups().size(), 2u);
  EXPECT_EQ(opt.size(), 3u);
  EXPECT_EQ(opt.parameters().size(), 1u);  // the first group's
  EXPECT_DOUBLE_EQ(static_cast<SGDOptions&>(opt.param_groups()[0].options()).lr(), 0.1);
  EXPECT_DOUBLE_EQ(static_cast<SGDOptions&>(opt.param_groups()[1].options()).lr(), 0.5);
  EXPECT_DOUBLE_EQ(static_cast<SGDOptions&>(opt.defaults()).lr(), 0.1);

  const SgdConfig ca{"", 0.1, 0, 0, 0, false}, cb{"", 0.5, 0.5, 0, 0, false};
  std::vector<double> buf_a, buf_b, buf_c;
  for (int k = 0; k < 3; ++k) {
    const auto ga = grads_for(2, k, 1), gb = grads_for(3, k, 2), gc = grads_for(1, k, 3);
    set_grad(a, ga);
    set_grad(b, gb);
    set_grad(c, gc);
    opt.step();
    sgd_reference_step(a_ref, buf_a, ga, ca);
    sgd_reference_step(b_ref, buf_b, gb, cb);
    sgd_reference_step(c_ref, buf_c, gc, cb);
  }
  EXPECT_VALUES_NEAR(a, a_ref, 1e-13);
  EXPECT_VALUES_NEAR(b, b_ref, 1e-13);
  EXPECT_VALUES_NEAR(c, c_ref, 1e-13);
}

TEST(Sgd, TheBriefsSnippetChangesTheLearningRateThroughTheGroupOptions) {
  at::Tensor p = param_of({1.0}, {1});
  torch::optim::SGD opt(
      std::vector<at::Tensor>{p},
      torch::optim::SGDOptions(0.1).momentum(0.9).nesterov(false).weight_decay(0));
  auto& o = static_cast<torch::optim::SGDOptions&>(opt.param_groups()[0].options());
  EXPECT_DOUBLE_EQ(o.lr(), 0.1);
  EXPECT_DOUBLE_EQ(o.get_lr(), 0.1);
  o.lr(0.25);
  set_grad(p, {2.0});
  opt.step();
  EXPECT_VALUES_NEAR(p, std::vector<double>{1.0 - 0.25 * 2.0}, 1e-15);
}

TEST(Sgd, ParametersWithoutAGradientAreLeftAloneAndGetNoState) {
  at::Tensor a = param_of({1.0, 2.0}, {2});
  at::Tensor b = param_of({3.0}, {1});
  SGD opt({a, b}, SGDOptions(0.1).momentum(0.9));
  set_grad(a, {1.0, -1.0});
  const int64_t b_version = b._version();
  opt.step();
  EXPECT_VALUES_NEAR(a, (std::vector<double>{0.9, 2.1}), 1e-15);
  EXPECT_VALUES_NEAR(b, std::vector<double>{3.0}, 0);
  EXPECT_EQ(b._version(), b_version);
  EXPECT_EQ(opt.state().count(a.unsafeGetTensorImpl()), 1u);
  EXPECT_EQ(opt.state().count(b.unsafeGetTensorImpl()), 0u);
}

TEST(Sgd, StepCallsTheClosureWithGradModeOnAndReturnsItsLoss) {
  at::Tensor w = param_of({1.0, -2.0}, {2});
  SGD opt({w}, SGDOptions(0.1));
  EXPECT_FALSE(opt.step().defined());  // no closure, no loss
  bool grad_mode_inside = false;
  at::Tensor loss = opt.step([&] {
    grad_mode_inside = torch::GradMode::is_enabled();
    opt.zero_grad();
    at::Tensor l = (w * w).sum();
    l.backward();
    return l;
  });
  EXPECT_TRUE(grad_mode_inside);
  ASSERT_TRUE(loss.defined());
  EXPECT_DOUBLE_EQ(loss.item<double>(), 5.0);
  // d(w.w)/dw = 2w: w - 0.1 * 2w = 0.8w
  EXPECT_VALUES_NEAR(w, (std::vector<double>{0.8, -1.6}), 1e-15);
  EXPECT_TRUE(torch::GradMode::is_enabled());  // restored after step
}

TEST(Sgd, UpdatesInPlaceWithoutHistoryAndBumpsTheVersion) {
  at::Tensor w = param_of({1.0, 2.0}, {2});
  SGD opt({w}, SGDOptions(0.1).momentum(0.5).weight_decay(0.1).nesterov(true));
  c10::TensorImpl* impl = w.unsafeGetTensorImpl();
  void* data = w.data_ptr();
  at::Tensor y = w * w;  // saves w for its backward
  set_grad(w, {1.0, 1.0});
  const int64_t version = w._version();
  opt.step();
  EXPECT_EQ(w.unsafeGetTensorImpl(), impl);
  EXPECT_EQ(w.data_ptr(), data);
  EXPECT_GT(w._version(), version);
  EXPECT_TRUE(w.is_leaf());
  EXPECT_TRUE(w.requires_grad());
  EXPECT_EQ(w.grad_fn(), nullptr);
  // As in PyTorch, a graph that saved the parameter before the step is stale.
  EXPECT_THAT(errorOf([&] { y.sum().backward(); }), HasSubstr("modified by an inplace operation"));
}

TEST(Sgd, LeastSquaresConverges) {
  torch::manual_seed(0);
  const at::Tensor x = at::randn({64, 3}, at::TensorOptions().dtype(at::kDouble));
  const at::Tensor w_true = optim_test::tensor_of({1.5, -2.0, 0.5}, {3, 1});
  const at::Tensor y = at::matmul(x, w_true) + 0.25;
  at::Tensor w = at::zeros({3, 1}, at::TensorOptions().dtype(at::kDouble)).requires_grad_();
  at::Tensor b = at::zeros({1}, at::TensorOptions().dtype(at::kDouble)).requires_grad_();
  SGD opt({w, b}, SGDOptions(0.05).momentum(0.9));
  double loss = 0;
  for (int i = 0; i < 300; ++i) {
    opt.zero_grad();
    at::Tensor l = (at::matmul(x, w) + b - y).pow(2).mean();
    l.backward();
    opt.step();
    loss = l.item<double>();
  }
  EXPECT_LT(loss, 1e-12);
  EXPECT_VALUES_NEAR(w, (std::vector<double>{1.5, -2.0, 0.5}), 1e-6);
  EXPECT_VALUES_NEAR(b, std::vector<double>{0.25}, 1e-6);
}

TEST(Sgd, InvalidOptionsAreRefusedWithLibtorchsMessages) {
  at::Tensor p = param_of({1.0}, {1});
  auto make = [&](SGDOptions o) { return [&p, o] { SGD opt({p}, o); }; };
  EXPECT_THAT(errorOf(make(SGDOptions(-1))), HasSubstr("Invalid learning rate: -1"));
  EXPECT_THAT(errorOf(make(SGDOptions(0.1).momentum(-0.5))),
              HasSubstr("Invalid momentum value: -0.5"));
  EXPECT_THAT(errorOf(make(SGDOptions(0.1).dampening(-1))),
              HasSubstr("Invalid dampening value: -1"));
  EXPECT_THAT(errorOf(make(SGDOptions(0.1).weight_decay(-0.25))),
              HasSubstr("Invalid weight_decay value: -0.25"));
  EXPECT_THAT(errorOf(make(SGDOptions(0.1).nesterov(true))),
              HasSubstr("Nesterov momentum requires a momentum and zero dampening"));
  EXPECT_THAT(errorOf(make(SGDOptions(0.1).nesterov(true).momentum(0.9).dampening(0.1))),
              HasSubstr("Nesterov momentum requires a momentum and zero dampening"));
  EXPECT_THAT(errorOf(make(SGDOptions(std::nan("")))), HasSubstr("Invalid learning rate: nan"));
  EXPECT_EQ(errorOf(make(SGDOptions(0).nesterov(true).momentum(0.9))), "<no error>");
}

TEST(Sgd, BadGroupOptionsAreRefusedWhenAddedAndAtStep) {
  at::Tensor a = param_of({1.0}, {1}), b = param_of({2.0}, {1}), c = param_of({3.0}, {1});
  SGD opt({a}, SGDOptions(0.1));
  EXPECT_THAT(errorOf([&] {
                opt.add_param_group({{b}, std::make_unique<SGDOptions>(SGDOptions(-2))});
              }),
              HasSubstr("SGD (param group): Invalid learning rate: -2"));
  EXPECT_THAT(
      errorOf([&] {
        opt.add_param_group(
            {{b}, std::make_unique<torch::optim::AdamOptions>(torch::optim::AdamOptions())});
      }),
      HasSubstr("has options of another optimizer; give SGD groups SGDOptions"));
  EXPECT_EQ(opt.param_groups().size(), 1u);  // neither was added
  // Options given to the constructor's groups are checked too.
  EXPECT_THAT(errorOf([&] {
                std::vector<torch::optim::OptimizerParamGroup> groups;
                groups.emplace_back(std::vector<at::Tensor>{c},
                                    std::make_unique<SGDOptions>(SGDOptions(0.1).momentum(-1)));
                SGD bad(groups, SGDOptions(0.1));
              }),
              HasSubstr("Invalid momentum value: -1"));
  // A learning rate made invalid after construction is caught at the step.
  opt.param_groups()[0].options().set_lr(-3);
  set_grad(a, {1.0});
  EXPECT_THAT(errorOf([&] { opt.step(); }), HasSubstr("SGD.step: Invalid learning rate: -3"));
  EXPECT_VALUES_NEAR(a, std::vector<double>{1.0}, 0);
}

TEST(Sgd, AStateReplacedThroughStateIsRefusedAtStep) {
  at::Tensor a = param_of({1.0}, {1});
  SGD opt({a}, SGDOptions(0.1).momentum(0.9));
  set_grad(a, {1.0});
  opt.step();
  opt.state()[a.unsafeGetTensorImpl()] = std::make_unique<torch::optim::AdamParamState>();
  EXPECT_THAT(errorOf([&] { opt.step(); }),
              HasSubstr("the state of a parameter is not an SGDParamState"));
  opt.state()[a.unsafeGetTensorImpl()] = nullptr;
  EXPECT_THAT(errorOf([&] { opt.step(); }),
              HasSubstr("the state of a parameter is not an SGDParamState"));
}

TEST(Sgd, AGradientSetByHandMustMatchItsParameter) {
  at::Tensor a = param_of({1.0}, {1}), b = param_of({1.0, 2.0, 3.0}, {3});
  SGD opt({a, b}, SGDOptions(0.1));
  set_grad(a, {1.0});
  b.mutable_grad() = optim_test::tensor_of({1.0}, {1});  // would broadcast
  EXPECT_THAT(errorOf([&] { opt.step(); }),
              HasSubstr("SGD.step: the gradient of parameter 1 of param group 0 has shape [1], "
                        "dtype Double and device cpu, but the parameter has shape [3]"));
  b.mutable_grad() = optim_test::tensor_of({1.0, 1.0, 1.0}, {3}, at::kFloat);
  EXPECT_THAT(errorOf([&] { opt.step(); }),
              HasSubstr("has shape [3], dtype Float and device cpu, but the parameter has shape "
                        "[3], dtype Double"));
}

}  // namespace
