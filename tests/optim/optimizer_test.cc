// torch::optim::Optimizer, the base: parameter groups and their checks,
// zero_grad in both modes, accessors, option cloning, and Ember's named
// state for checkpoints (round trip, and every error of load_named_state).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nn/optim/optim.h"
#include "tests/optim/optim_test_util.h"
#include "tests/support/error_of.h"

namespace {

using ember_test::errorOf;
using optim_test::grads_for;
using optim_test::param_of;
using optim_test::set_grad;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using torch::optim::Adam;
using torch::optim::AdamOptions;
using torch::optim::OptimizerParamGroup;
using torch::optim::SGD;
using torch::optim::SGDOptions;
using NamedState = std::vector<std::pair<std::string, at::Tensor>>;

std::vector<std::string> names_of(const NamedState& named) {
  std::vector<std::string> names;
  for (const auto& entry : named) names.push_back(entry.first);
  return names;
}

// A copy of the named state that the optimizer's next steps cannot change.
NamedState copy_of(const NamedState& named) {
  NamedState copy;
  for (const auto& [name, t] : named) copy.emplace_back(name, t.clone());
  return copy;
}

TEST(Optimizer, AddParamGroupRefusesBadParameters) {
  at::Tensor a = param_of({1.0}, {1}), b = param_of({2.0}, {1});
  SGD opt({a}, SGDOptions(0.1));
  EXPECT_THAT(errorOf([&] {
                opt.add_param_group({{b, a}});
              }),
              HasSubstr("some parameters appear in more than one parameter group (parameter 1 of "
                        "param group 1 is already optimized)"));
  EXPECT_THAT(errorOf([&] {
                opt.add_param_group({{b, b}});
              }),
              HasSubstr("some parameters appear in more than one parameter group (parameter 1 of "
                        "param group 1"));
  EXPECT_THAT(errorOf([&] { opt.add_param_group({{b * 2}}); }),
              HasSubstr("can't optimize a non-leaf Tensor (parameter 0 of param group 1"));
  EXPECT_THAT(errorOf([&] { opt.add_param_group({{at::ones({2})}}); }),
              HasSubstr("parameter 0 of param group 1 does not require grad"));
  EXPECT_THAT(errorOf([&] {
                opt.add_param_group({{b, at::Tensor()}});
              }),
              HasSubstr("parameter 1 of param group 1 is an undefined tensor"));
  EXPECT_EQ(opt.param_groups().size(), 1u);  // nothing was added
  EXPECT_THAT(errorOf([&] {
                SGD bad({a, a}, SGDOptions(0.1));
              }),
              HasSubstr("some parameters appear in more than one parameter group"));
  opt.add_param_group({{b}});
  EXPECT_EQ(opt.param_groups().size(), 2u);
  EXPECT_EQ(opt.size(), 2u);
  EXPECT_DOUBLE_EQ(opt.param_groups()[1].options().get_lr(), 0.1);  // the defaults
}

TEST(Optimizer, AnOptimizerWithoutGroupsSaysSoWhenAskedForParameters) {
  SGD opt(std::vector<OptimizerParamGroup>{}, SGDOptions(0.1));
  EXPECT_EQ(opt.size(), 0u);
  EXPECT_FALSE(opt.step().defined());
  EXPECT_THAT(errorOf([&] { opt.parameters(); }),
              HasSubstr("Optimizer::parameters: the optimizer has no param groups"));
  const torch::optim::Optimizer& const_opt = opt;
  EXPECT_THAT(errorOf([&] { const_opt.parameters(); }),
              HasSubstr("Optimizer::parameters: the optimizer has no param groups"));
  at::Tensor a = param_of({1.0}, {1});
  opt.add_param_group({{a}});
  EXPECT_EQ(opt.parameters().size(), 1u);
  EXPECT_EQ(opt.parameters()[0].unsafeGetTensorImpl(), a.unsafeGetTensorImpl());
}

TEST(Optimizer, GroupsAndOptionsAreCopiedNotShared) {
  at::Tensor a = param_of({1.0}, {1});
  OptimizerParamGroup group({a}, std::make_unique<SGDOptions>(0.5));
  OptimizerParamGroup copy = group;
  static_cast<SGDOptions&>(copy.options()).lr(0.25);
  EXPECT_DOUBLE_EQ(group.options().get_lr(), 0.5);
  EXPECT_DOUBLE_EQ(copy.options().get_lr(), 0.25);
  EXPECT_EQ(copy.params()[0].unsafeGetTensorImpl(), a.unsafeGetTensorImpl());
  OptimizerParamGroup bare({a});
  EXPECT_FALSE(bare.has_options());
  EXPECT_THAT(errorOf([&] { bare.options(); }),
              HasSubstr("OptimizerParamGroup::options: this group has no options"));
  std::unique_ptr<torch::optim::OptimizerOptions> clone = SGDOptions(0.3).momentum(0.5).clone();
  EXPECT_TRUE(static_cast<SGDOptions&>(*clone) == SGDOptions(0.3).momentum(0.5));
}

TEST(Optimizer, BaseOptionsHaveNoLearningRate) {
  torch::optim::OptimizerOptions base;
  EXPECT_THAT(errorOf([&] { base.get_lr(); }),
              HasSubstr("this options type does not override get_lr()"));
  EXPECT_THAT(errorOf([&] { base.set_lr(0.1); }),
              HasSubstr("this options type does not override set_lr()"));
}

TEST(Optimizer, ZeroGradSetsToNoneByDefault) {
  at::Tensor a = param_of({1.0, 2.0}, {2}), b = param_of({3.0}, {1});
  SGD opt({a, b}, SGDOptions(0.1));
  set_grad(a, {1.0, 1.0});
  opt.zero_grad();
  EXPECT_FALSE(a.grad().defined());
  EXPECT_FALSE(b.grad().defined());
}

TEST(Optimizer, ZeroGradFalseZeroesTheSameGradientTensor) {
  at::Tensor a = param_of({1.0, 2.0}, {2});
  SGD opt({a}, SGDOptions(0.1));
  (a * a).sum().backward();
  void* grad_data = a.grad().data_ptr();
  opt.zero_grad(/*set_to_none=*/false);
  ASSERT_TRUE(a.grad().defined());
  EXPECT_EQ(a.grad().data_ptr(), grad_data);
  EXPECT_VALUES_NEAR(a.grad(), (std::vector<double>{0.0, 0.0}), 0);
  (a * 3).sum().backward();  // accumulates into the zeroed gradient
  EXPECT_VALUES_NEAR(a.grad(), (std::vector<double>{3.0, 3.0}), 0);
}

TEST(Optimizer, ZeroGradFalseDetachesAGradientWithHistory) {
  at::Tensor a = param_of({1.0, 2.0}, {2});
  SGD opt({a}, SGDOptions(0.1));
  (a * a).sum().backward({}, /*retain_graph=*/true, /*create_graph=*/true);
  ASSERT_NE(a.grad().grad_fn(), nullptr);
  opt.zero_grad(false);
  EXPECT_EQ(a.grad().grad_fn(), nullptr);
  EXPECT_VALUES_NEAR(a.grad(), (std::vector<double>{0.0, 0.0}), 0);
}

// Runs `steps` steps with the deterministic gradients from step `first` on.
template <class Opt>
void run(Opt& opt, const std::vector<at::Tensor>& params, int first, int steps) {
  for (int k = first; k < first + steps; ++k) {
    for (size_t i = 0; i < params.size(); ++i) {
      set_grad(params[i],
               grads_for(static_cast<size_t>(params[i].numel()), k, static_cast<int>(i)));
    }
    opt.step();
  }
}

std::vector<at::Tensor> fresh_params() {
  return {param_of({0.5, -1.0, 2.0, 0.25, 1.5, -0.5}, {2, 3}), param_of({1.0, -2.0, 0.5}, {3}),
          param_of({3.0}, {1})};
}

std::vector<at::Tensor> copies(const std::vector<at::Tensor>& params) {
  std::vector<at::Tensor> out;
  for (const auto& p : params) out.push_back(p.detach().clone().requires_grad_());
  return out;
}

TEST(NamedState, SgdNamesEachMomentumBufferByGroupAndIndex) {
  auto p = fresh_params();
  SGD opt({OptimizerParamGroup({p[0], p[1]}), OptimizerParamGroup({p[2]})},
          SGDOptions(0.1).momentum(0.9));
  EXPECT_TRUE(opt.named_state().empty());  // no step yet
  set_grad(p[1], {1.0, 2.0, 3.0});
  set_grad(p[2], {1.0});
  opt.step();
  const NamedState named = opt.named_state();
  EXPECT_THAT(names_of(named), ElementsAre("0.1.momentum_buffer", "1.0.momentum_buffer"));
  EXPECT_VALUES_NEAR(named[0].second, (std::vector<double>{1.0, 2.0, 3.0}), 0);
}

TEST(NamedState, AdamNamesItsStepAsA0DimInt64Tensor) {
  auto p = fresh_params();
  Adam opt({p[0]}, AdamOptions(0.1).amsgrad(true));
  run(opt, {p[0]}, 0, 3);
  const NamedState named = opt.named_state();
  EXPECT_THAT(names_of(named),
              ElementsAre("0.0.step", "0.0.exp_avg", "0.0.exp_avg_sq", "0.0.max_exp_avg_sq"));
  EXPECT_EQ(named[0].second.dim(), 0);
  EXPECT_EQ(named[0].second.scalar_type(), at::kLong);
  EXPECT_EQ(named[0].second.item<int64_t>(), 3);
  EXPECT_EQ(named[1].second.sizes().vec(), (std::vector<int64_t>{2, 3}));
  Adam plain({p[1]}, AdamOptions(0.1));
  run(plain, {p[1]}, 0, 1);
  EXPECT_THAT(names_of(plain.named_state()),
              ElementsAre("0.0.step", "0.0.exp_avg", "0.0.exp_avg_sq"));
}

// Saves after 3 steps, loads into a fresh optimizer over copies of the
// parameters, and checks that both continue identically.
template <class Opt, class Options>
void check_round_trip(const Options& options) {
  auto p = fresh_params();
  Opt a({OptimizerParamGroup({p[0], p[1]}), OptimizerParamGroup({p[2]})}, options);
  run(a, p, 0, 3);
  const NamedState saved = copy_of(a.named_state());
  ASSERT_FALSE(saved.empty());
  const NamedState snapshot = copy_of(saved);

  auto q = copies(p);
  Opt b({OptimizerParamGroup({q[0], q[1]}), OptimizerParamGroup({q[2]})}, options);
  b.load_named_state(saved);
  EXPECT_EQ(b.state().size(), 3u);
  run(a, p, 3, 4);
  run(b, q, 3, 4);
  for (size_t i = 0; i < p.size(); ++i) {
    SCOPED_TRACE("parameter " + std::to_string(i));
    EXPECT_VALUES_NEAR(q[i], optim_test::values(p[i]), 0);
  }
  const NamedState after_a = a.named_state(), after_b = b.named_state();
  ASSERT_EQ(names_of(after_a), names_of(after_b));
  for (size_t i = 0; i < after_a.size(); ++i) {
    EXPECT_TRUE(at::equal(after_a[i].second, after_b[i].second)) << after_a[i].first;
  }
  // The loaded state is a copy: b's steps left the saved tensors alone.
  for (size_t i = 0; i < saved.size(); ++i) {
    EXPECT_TRUE(at::equal(saved[i].second, snapshot[i].second)) << saved[i].first;
  }
}

TEST(NamedState, SgdRoundTripContinuesIdentically) {
  check_round_trip<SGD>(SGDOptions(0.05).momentum(0.9).weight_decay(0.01).nesterov(true));
}

TEST(NamedState, AdamRoundTripContinuesIdentically) {
  check_round_trip<Adam>(AdamOptions(0.05).amsgrad(true).weight_decay(0.1));
}

TEST(NamedState, AdamWRoundTripContinuesIdentically) {
  check_round_trip<torch::optim::AdamW>(torch::optim::AdamWOptions(0.05));
}

TEST(NamedState, LoadingReplacesTheWholeState) {
  auto p = fresh_params();
  SGD opt({p[0], p[1]}, SGDOptions(0.1).momentum(0.9));
  run(opt, {p[0], p[1]}, 0, 2);
  ASSERT_EQ(opt.state().size(), 2u);
  NamedState only_second = {opt.named_state()[1]};
  opt.load_named_state(copy_of(only_second));
  EXPECT_EQ(opt.state().size(), 1u);
  EXPECT_EQ(opt.state().count(p[1].unsafeGetTensorImpl()), 1u);
  opt.load_named_state({});
  EXPECT_TRUE(opt.state().empty());
}

TEST(NamedState, LoadRefusesMismatchesAndLeavesTheStateUntouched) {
  auto p = fresh_params();
  Adam opt({OptimizerParamGroup({p[0], p[1]}), OptimizerParamGroup({p[2]})},
           AdamOptions(0.1).amsgrad(true));
  run(opt, p, 0, 2);
  const NamedState good = copy_of(opt.named_state());
  const NamedState before = copy_of(opt.named_state());
  auto with = [&](const std::string& name, at::Tensor t) {
    NamedState n = good;
    for (auto& entry : n) {
      if (entry.first == name) {
        entry.second = std::move(t);
        return n;
      }
    }
    n.emplace_back(name, std::move(t));
    return n;
  };
  auto without = [&](const std::string& name) {
    NamedState n;
    for (const auto& entry : good) {
      if (entry.first != name) n.push_back(entry);
    }
    return n;
  };
  auto load = [&](const NamedState& n) { return errorOf([&] { opt.load_named_state(n); }); };
  const at::Tensor like0 = at::zeros({2, 3}, at::TensorOptions().dtype(at::kDouble));

  for (const char* bad :
       {"momentum", "0.1", "0..step", ".0.step", "a.0.step", "0.-1.step", "00.0.step", "0.0."}) {
    EXPECT_THAT(load(with(bad, like0)),
                HasSubstr("' is not a state name '<group>.<index>.<field>'"))
        << bad;
  }
  EXPECT_THAT(load(with("2.0.exp_avg", like0)),
              HasSubstr("'2.0.exp_avg' names param group 2 but the optimizer has 2 param groups"));
  EXPECT_THAT(load(with("1.1.exp_avg", like0)),
              HasSubstr("'1.1.exp_avg' names parameter 1 of param group 1, which has 1 "
                        "parameters"));
  EXPECT_THAT(load(with("0.0.exp_avg", at::zeros({3, 2}, at::TensorOptions().dtype(at::kDouble)))),
              HasSubstr("'0.0.exp_avg' has shape [3, 2], dtype Double and device cpu, but "
                        "parameter 0.0 has shape [2, 3], dtype Double and device cpu"));
  EXPECT_THAT(load(with("0.0.exp_avg_sq", at::zeros({2, 3}))),
              HasSubstr("'0.0.exp_avg_sq' has shape [2, 3], dtype Float"));
  EXPECT_THAT(load(with("0.0.exp_avg", at::Tensor())),
              HasSubstr("'0.0.exp_avg' is an undefined tensor"));
  EXPECT_THAT(load(without("0.1.exp_avg_sq")), HasSubstr("'0.1.exp_avg_sq' is missing"));
  EXPECT_THAT(load(without("1.0.max_exp_avg_sq")),  // required by amsgrad
              HasSubstr("'1.0.max_exp_avg_sq' is missing"));
  EXPECT_THAT(load(without("0.0.step")), HasSubstr("'0.0.step' is missing"));
  EXPECT_THAT(load(with("0.0.momentum_buffer", like0)),
              HasSubstr("unknown state field 'momentum_buffer' in '0.0.momentum_buffer'; this "
                        "optimizer keeps: step, exp_avg, exp_avg_sq, max_exp_avg_sq"));
  EXPECT_THAT(load(with("0.0.step", at::scalar_tensor(2.0))),
              HasSubstr("'0.0.step' must be a 0-dim int64 tensor, got shape [] and dtype Float"));
  EXPECT_THAT(load(with("0.0.step", at::zeros({1}, at::TensorOptions().dtype(at::kLong)))),
              HasSubstr("'0.0.step' must be a 0-dim int64 tensor, got shape [1]"));
  EXPECT_THAT(load(with("0.0.step", at::scalar_tensor(-1, at::TensorOptions().dtype(at::kLong)))),
              HasSubstr("'0.0.step' is -1, expected a count >= 0"));
  NamedState twice = good;
  twice.push_back(good[1]);
  EXPECT_THAT(load(twice), HasSubstr("'" + good[1].first + "' appears twice"));

  // None of the failed loads changed anything.
  const NamedState after = opt.named_state();
  ASSERT_EQ(names_of(after), names_of(before));
  for (size_t i = 0; i < after.size(); ++i) {
    EXPECT_TRUE(at::equal(after[i].second, before[i].second)) << after[i].first;
  }
  EXPECT_EQ(load(good), "<no error>");
}

TEST(NamedState, SgdRefusesUnknownFields) {
  at::Tensor a = param_of({1.0, 2.0}, {2});
  SGD opt({a}, SGDOptions(0.1).momentum(0.9));
  const at::Tensor z = at::zeros({2}, at::TensorOptions().dtype(at::kDouble));
  EXPECT_THAT(errorOf([&] {
                opt.load_named_state({{"0.0.exp_avg", z}});
              }),
              HasSubstr("'0.0.momentum_buffer' is missing"));
  EXPECT_THAT(errorOf([&] {
                opt.load_named_state({{"0.0.momentum_buffer", z}, {"0.0.exp_avg", z}});
              }),
              HasSubstr("unknown state field 'exp_avg' in '0.0.exp_avg'; this optimizer keeps: "
                        "momentum_buffer"));
}

// An optimizer written by a user, which does not say how to load state.
class PlainDescent : public torch::optim::Optimizer {
 public:
  PlainDescent(std::vector<at::Tensor> params, double lr)
      : Optimizer(std::move(params), std::make_unique<SGDOptions>(lr)) {}
  at::Tensor step(LossClosure /*closure*/ = nullptr) override {
    torch::NoGradGuard no_grad;
    for (auto& p : parameters()) {
      if (p.grad().defined()) p.add_(p.grad(), -param_groups()[0].options().get_lr());
    }
    return {};
  }
};

class NullDefaults : public torch::optim::Optimizer {
 public:
  explicit NullDefaults(std::vector<at::Tensor> params) : Optimizer(std::move(params), nullptr) {}
  at::Tensor step(LossClosure /*closure*/ = nullptr) override { return {}; }
};

TEST(Optimizer, RefusesNullDefaults) {
  EXPECT_THAT(errorOf([&] { NullDefaults opt({param_of({1.0}, {1})}); }),
              HasSubstr("Optimizer: the default options are null; pass options."));
}

TEST(NamedState, AUserOptimizerWithoutLoadSupportSaysSo) {
  at::Tensor a = param_of({1.0}, {1});
  PlainDescent opt({a}, 0.5);
  set_grad(a, {1.0});
  opt.step();
  EXPECT_VALUES_NEAR(a, std::vector<double>{0.5}, 0);
  EXPECT_TRUE(opt.named_state().empty());
  EXPECT_EQ(errorOf([&] { opt.load_named_state({}); }), "<no error>");
  EXPECT_THAT(errorOf([&] {
                opt.load_named_state({{"0.0.x", at::zeros({1})}});
              }),
              HasSubstr("this optimizer does not say how to load the state of parameter 0.0"));
}

}  // namespace
