// torch::optim::Adam and AdamW against PyTorch's update rules computed by
// hand with double loops: bias correction, L2 vs decoupled weight decay,
// AMSGrad; defaults, state, skipped gradients, option errors, convergence.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
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
using torch::optim::Adam;
using torch::optim::AdamOptions;
using torch::optim::AdamW;
using torch::optim::AdamWOptions;

struct AdamConfig {
  const char* name;
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad;
};

// gtest prints a failing case by its name.
void PrintTo(const AdamConfig& c, std::ostream* os) { *os << c.name; }

struct AdamRef {
  std::vector<double> m, v, vmax;
  int64_t t = 0;
};

// PyTorch's Adam (decoupled = false) or AdamW step, written out.
void adam_reference_step(std::vector<double>& p, AdamRef& s, const std::vector<double>& g_in,
                         const AdamConfig& c, bool decoupled) {
  if (s.m.empty()) s.m = s.v = s.vmax = std::vector<double>(p.size(), 0.0);
  s.t += 1;
  const double bc1 = 1 - std::pow(c.beta1, static_cast<double>(s.t));
  const double bc2 = 1 - std::pow(c.beta2, static_cast<double>(s.t));
  for (size_t i = 0; i < p.size(); ++i) {
    double g = g_in[i];
    if (decoupled) {
      p[i] *= 1 - c.lr * c.weight_decay;
    } else {
      g += c.weight_decay * p[i];
    }
    s.m[i] = c.beta1 * s.m[i] + (1 - c.beta1) * g;
    s.v[i] = c.beta2 * s.v[i] + (1 - c.beta2) * g * g;
    s.vmax[i] = std::max(s.vmax[i], s.v[i]);
    const double v = c.amsgrad ? s.vmax[i] : s.v[i];
    const double denom = std::sqrt(v) / std::sqrt(bc2) + c.eps;
    p[i] -= c.lr / bc1 * s.m[i] / denom;
  }
}

template <class Options>
Options options_of(const AdamConfig& c) {
  return Options(c.lr)
      .betas(std::make_tuple(c.beta1, c.beta2))
      .eps(c.eps)
      .weight_decay(c.weight_decay)
      .amsgrad(c.amsgrad);
}

const AdamConfig kConfigs[] = {
    {"defaults", 1e-3, 0.9, 0.999, 1e-8, 0, false},
    {"large_lr", 0.1, 0.9, 0.999, 1e-8, 0, false},
    {"weight_decay", 0.05, 0.9, 0.999, 1e-8, 0.1, false},
    {"amsgrad", 0.05, 0.8, 0.9, 1e-8, 0, true},
    {"amsgrad_weight_decay", 0.05, 0.5, 0.7, 1e-3, 0.2, true},
    {"zero_betas", 0.01, 0.0, 0.0, 0.1, 0, false},
};

// Checks the parameter and every state field after each of 8 steps.
template <class Opt, class Options, class State>
void check_against_reference(const AdamConfig& c, bool decoupled) {
  std::vector<double> ref = {0.5, -1.25, 2.0, 0.0, -0.75, 3.5};
  at::Tensor p = param_of(ref, {3, 2});
  Opt opt({p}, options_of<Options>(c));
  AdamRef s;
  for (int k = 0; k < 8; ++k) {
    // The gradients shrink over time so that AMSGrad's max matters.
    std::vector<double> g = grads_for(ref.size(), k);
    for (double& x : g) x /= 1 + k * k;
    set_grad(p, g);
    opt.step();
    adam_reference_step(ref, s, g, c, decoupled);
    EXPECT_VALUES_NEAR(p, ref, 1e-12);
  }
  const auto& state = dynamic_cast<const State&>(*opt.state().at(p.unsafeGetTensorImpl()));
  EXPECT_EQ(state.step(), 8);
  EXPECT_VALUES_NEAR(state.exp_avg(), s.m, 1e-12);
  EXPECT_VALUES_NEAR(state.exp_avg_sq(), s.v, 1e-12);
  EXPECT_EQ(state.max_exp_avg_sq().defined(), c.amsgrad);
  if (c.amsgrad) EXPECT_VALUES_NEAR(state.max_exp_avg_sq(), s.vmax, 1e-12);
}

class AdamRule : public ::testing::TestWithParam<AdamConfig> {};

TEST_P(AdamRule, AdamMatchesTheUpdateComputedByHand) {
  check_against_reference<Adam, AdamOptions, torch::optim::AdamParamState>(GetParam(), false);
}

TEST_P(AdamRule, AdamWMatchesTheUpdateComputedByHand) {
  check_against_reference<AdamW, AdamWOptions, torch::optim::AdamWParamState>(GetParam(), true);
}

INSTANTIATE_TEST_SUITE_P(Configs, AdamRule, ::testing::ValuesIn(kConfigs),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Adam, DefaultsAreLibtorchs) {
  const AdamOptions a;
  EXPECT_DOUBLE_EQ(a.lr(), 1e-3);
  EXPECT_DOUBLE_EQ(std::get<0>(a.betas()), 0.9);
  EXPECT_DOUBLE_EQ(std::get<1>(a.betas()), 0.999);
  EXPECT_DOUBLE_EQ(a.eps(), 1e-8);
  EXPECT_DOUBLE_EQ(a.weight_decay(), 0);
  EXPECT_FALSE(a.amsgrad());
  const AdamWOptions w;
  EXPECT_DOUBLE_EQ(w.lr(), 1e-3);
  EXPECT_DOUBLE_EQ(std::get<0>(w.betas()), 0.9);
  EXPECT_DOUBLE_EQ(std::get<1>(w.betas()), 0.999);
  EXPECT_DOUBLE_EQ(w.eps(), 1e-8);
  EXPECT_DOUBLE_EQ(w.weight_decay(), 1e-2);
  EXPECT_FALSE(w.amsgrad());
  EXPECT_TRUE(AdamOptions(0.5) == AdamOptions().lr(0.5));
  EXPECT_FALSE(AdamWOptions() == AdamWOptions().amsgrad(true));
  // The optimizer's defaults are a copy of the options it was given.
  at::Tensor p = param_of({1.0}, {1});
  Adam opt({p});
  EXPECT_TRUE(static_cast<const AdamOptions&>(opt.defaults()) == AdamOptions());
}

TEST(Adam, Float32ParametersFollowTheSameRule) {
  const AdamConfig c{"", 0.01, 0.9, 0.999, 1e-8, 0.01, false};
  std::vector<double> ref = {0.5, -1.25, 2.0, 0.25};
  at::Tensor p = param_of(ref, {4}, at::kFloat);
  AdamW opt({p}, options_of<AdamWOptions>(c));
  AdamRef s;
  for (int k = 0; k < 5; ++k) {
    const std::vector<double> g = grads_for(ref.size(), k);
    set_grad(p, g);
    opt.step();
    adam_reference_step(ref, s, g, c, true);
  }
  EXPECT_EQ(p.scalar_type(), at::kFloat);
  EXPECT_VALUES_NEAR(p, ref, 1e-6);
}

TEST(Adam, ParamGroupsUseTheirOwnOptionsAndSkipParametersWithoutGrad) {
  std::vector<double> a_ref = {1.0, 2.0}, b_ref = {-1.0, 0.5};
  at::Tensor a = param_of(a_ref, {2}), b = param_of(b_ref, {2}), c = param_of({7.0}, {1});
  Adam opt({a, c}, AdamOptions(0.1));
  opt.add_param_group({{b}, std::make_unique<AdamOptions>(AdamOptions(0.02).amsgrad(true))});
  const AdamConfig ca{"", 0.1, 0.9, 0.999, 1e-8, 0, false};
  const AdamConfig cb{"", 0.02, 0.9, 0.999, 1e-8, 0, true};
  AdamRef sa, sb;
  for (int k = 0; k < 4; ++k) {
    const auto ga = grads_for(2, k, 1), gb = grads_for(2, k, 2);
    set_grad(a, ga);
    set_grad(b, gb);
    opt.step();
    adam_reference_step(a_ref, sa, ga, ca, false);
    adam_reference_step(b_ref, sb, gb, cb, false);
  }
  EXPECT_VALUES_NEAR(a, a_ref, 1e-12);
  EXPECT_VALUES_NEAR(b, b_ref, 1e-12);
  EXPECT_VALUES_NEAR(c, std::vector<double>{7.0}, 0);
  EXPECT_EQ(opt.state().count(c.unsafeGetTensorImpl()), 0u);
  EXPECT_EQ(opt.state().size(), 2u);
}

TEST(Adam, AmsgradSwitchedOnLaterStartsItsMaximumFromTheCurrentMoment) {
  at::Tensor p = param_of({1.0, -1.0}, {2});
  Adam opt({p}, AdamOptions(0.1));
  set_grad(p, {0.5, 0.25});
  opt.step();
  static_cast<AdamOptions&>(opt.param_groups()[0].options()).amsgrad(true);
  set_grad(p, {0.1, 0.2});
  opt.step();
  const auto& s =
      static_cast<const torch::optim::AdamParamState&>(*opt.state().at(p.unsafeGetTensorImpl()));
  ASSERT_TRUE(s.max_exp_avg_sq().defined());
  EXPECT_VALUES_NEAR(s.max_exp_avg_sq(), optim_test::values(s.exp_avg_sq()), 0);
}

TEST(Adam, StepReturnsTheClosuresLossAndUpdatesInPlace) {
  at::Tensor w = param_of({1.0, -2.0}, {2});
  AdamW opt({w}, AdamWOptions(0.1));
  void* data = w.data_ptr();
  const int64_t version = w._version();
  at::Tensor loss = opt.step([&] {
    opt.zero_grad();
    at::Tensor l = (w * w).sum();
    l.backward();
    return l;
  });
  EXPECT_DOUBLE_EQ(loss.item<double>(), 5.0);
  EXPECT_EQ(w.data_ptr(), data);
  EXPECT_GT(w._version(), version);
  EXPECT_TRUE(w.is_leaf());
  // First Adam step moves each element by lr (times the sign), less decay.
  EXPECT_VALUES_NEAR(w, (std::vector<double>{1.0 * (1 - 1e-3) - 0.1, -2.0 * (1 - 1e-3) + 0.1}),
                     1e-7);
}

TEST(Adam, LeastSquaresConverges) {
  torch::manual_seed(1);
  const at::Tensor x = at::randn({64, 3}, at::TensorOptions().dtype(at::kDouble));
  const at::Tensor w_true = optim_test::tensor_of({1.5, -2.0, 0.5}, {3, 1});
  const at::Tensor y = at::matmul(x, w_true) - 0.5;
  at::Tensor w = at::zeros({3, 1}, at::TensorOptions().dtype(at::kDouble)).requires_grad_();
  at::Tensor b = at::zeros({1}, at::TensorOptions().dtype(at::kDouble)).requires_grad_();
  Adam opt({w, b}, AdamOptions(0.05));
  double loss = 0;
  for (int i = 0; i < 1000; ++i) {
    loss = opt.step([&] {
                opt.zero_grad();
                at::Tensor l = (at::matmul(x, w) + b - y).pow(2).mean();
                l.backward();
                return l;
              })
               .item<double>();
  }
  EXPECT_LT(loss, 1e-8);
  EXPECT_VALUES_NEAR(w, (std::vector<double>{1.5, -2.0, 0.5}), 1e-4);
  EXPECT_VALUES_NEAR(b, std::vector<double>{-0.5}, 1e-4);
}

template <class Opt, class Options>
void expect_option_errors(const std::string& name) {
  at::Tensor p = param_of({1.0}, {1});
  auto make = [&](Options o) { return [&p, o] { Opt opt({p}, o); }; };
  EXPECT_THAT(errorOf(make(Options(-1))), HasSubstr(name + ": Invalid learning rate: -1"));
  EXPECT_THAT(errorOf(make(Options().eps(-1e-3))), HasSubstr("Invalid epsilon value: -0.001"));
  EXPECT_THAT(errorOf(make(Options().betas({-0.1, 0.9}))),
              HasSubstr("Invalid beta parameter at index 0: -0.1"));
  EXPECT_THAT(errorOf(make(Options().betas({1.0, 0.9}))),
              HasSubstr("Invalid beta parameter at index 0: 1"));
  EXPECT_THAT(errorOf(make(Options().betas({0.9, 1.0}))),
              HasSubstr("Invalid beta parameter at index 1: 1"));
  EXPECT_THAT(errorOf(make(Options().betas({0.9, -2.0}))),
              HasSubstr("Invalid beta parameter at index 1: -2"));
  EXPECT_THAT(errorOf(make(Options().weight_decay(-1))),
              HasSubstr("Invalid weight_decay value: -1"));
  EXPECT_EQ(errorOf(make(Options(0).betas({0.0, 0.0}).eps(0))), "<no error>");

  Opt opt({p}, Options());
  EXPECT_THAT(
      errorOf([&] {
        opt.add_param_group(
            {{param_of({2.0}, {1})}, std::make_unique<torch::optim::SGDOptions>(0.1)});
      }),
      HasSubstr("has options of another optimizer; give " + name + " groups " + name + "Options"));
  EXPECT_THAT(errorOf([&] {
                opt.add_param_group({{param_of({2.0}, {1})},
                                     std::make_unique<Options>(Options().betas({0.9, 1.5}))});
              }),
              HasSubstr(name + " (param group): Invalid beta parameter at index 1: 1.5"));
  static_cast<Options&>(opt.param_groups()[0].options()).eps(-1);
  set_grad(p, {1.0});
  EXPECT_THAT(errorOf([&] { opt.step(); }), HasSubstr(name + ".step: Invalid epsilon value: -1"));
  EXPECT_VALUES_NEAR(p, std::vector<double>{1.0}, 0);
}

TEST(Adam, InvalidOptionsAreRefusedWithLibtorchsMessages) {
  expect_option_errors<Adam, AdamOptions>("Adam");
}

TEST(AdamW, InvalidOptionsAreRefusedWithLibtorchsMessages) {
  expect_option_errors<AdamW, AdamWOptions>("AdamW");
}

TEST(Adam, AStateReplacedThroughStateIsRefusedAtStep) {
  at::Tensor p = param_of({1.0}, {1});
  Adam opt({p});
  set_grad(p, {1.0});
  opt.step();
  // An AdamW state in an Adam optimizer: same fields, another type.
  opt.state()[p.unsafeGetTensorImpl()] = std::make_unique<torch::optim::AdamWParamState>();
  EXPECT_THAT(errorOf([&] { opt.step(); }),
              HasSubstr("the state of a parameter is not a complete AdamParamState"));
  opt.state()[p.unsafeGetTensorImpl()] = std::make_unique<torch::optim::AdamParamState>();
  EXPECT_THAT(errorOf([&] { opt.step(); }),
              HasSubstr("the state of a parameter is not a complete AdamParamState"));
}

TEST(Adam, AGradientSetByHandMustMatchItsParameter) {
  at::Tensor a = param_of({1.0, 2.0}, {2});
  AdamW opt({a});
  a.mutable_grad() = optim_test::tensor_of({1.0, 2.0}, {2, 1});
  EXPECT_THAT(errorOf([&] { opt.step(); }),
              HasSubstr("AdamW.step: the gradient of parameter 0 of param group 0 has shape "
                        "[2, 1]"));
  EXPECT_TRUE(opt.state().empty());
}

}  // namespace
