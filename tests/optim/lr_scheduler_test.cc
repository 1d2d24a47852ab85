// torch::optim::LRScheduler, StepLR (libtorch 1.13's step counting) and
// Ember's CosineAnnealingLR (Python's closed form): learning-rate sequences
// over several param groups, and their errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <memory>
#include <vector>

#include "nn/optim/optim.h"
#include "tests/optim/optim_test_util.h"
#include "tests/support/error_of.h"

namespace {

using ember_test::errorOf;
using optim_test::param_of;
using ::testing::HasSubstr;
using torch::optim::CosineAnnealingLR;
using torch::optim::OptimizerParamGroup;
using torch::optim::SGD;
using torch::optim::SGDOptions;
using torch::optim::StepLR;

std::vector<double> lrs_of(const torch::optim::Optimizer& opt) {
  std::vector<double> lrs;
  for (const auto& group : opt.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

// Two groups with learning rates 0.1 and 0.4.
struct TwoGroups {
  at::Tensor a = param_of({1.0}, {1});
  at::Tensor b = param_of({2.0}, {1});
  SGD opt{{OptimizerParamGroup({a}),
           OptimizerParamGroup({b}, std::make_unique<SGDOptions>(SGDOptions(0.4)))},
          SGDOptions(0.1)};
};

TEST(StepLR, DecaysOnCallsStepSizePlusOneThenEveryStepSizeAsLibtorch) {
  TwoGroups t;
  StepLR sched(t.opt, /*step_size=*/2, /*gamma=*/0.5);
  // lr after the k-th call of step(), k = 1..7: libtorch decays when
  // k - 1 is a positive multiple of step_size.
  const double scale[] = {1, 1, 0.5, 0.5, 0.25, 0.25, 0.125};
  for (double s : scale) {
    sched.step();
    const std::vector<double> lrs = lrs_of(t.opt);
    EXPECT_DOUBLE_EQ(lrs[0], 0.1 * s);
    EXPECT_DOUBLE_EQ(lrs[1], 0.4 * s);
  }
}

TEST(StepLR, DefaultGammaIsATenthAndOtherOptimizersWork) {
  at::Tensor p = param_of({1.0}, {1});
  torch::optim::Adam opt({p}, torch::optim::AdamOptions(1e-3));
  StepLR sched(opt, 1);
  sched.step();  // k = 1: no decay yet
  EXPECT_DOUBLE_EQ(lrs_of(opt)[0], 1e-3);
  sched.step();
  EXPECT_DOUBLE_EQ(lrs_of(opt)[0], 1e-4);
  sched.step();
  EXPECT_DOUBLE_EQ(lrs_of(opt)[0], 1e-5);
}

TEST(StepLR, TheOptimizerStepsWithTheScheduledRate) {
  at::Tensor p = param_of({1.0}, {1});
  SGD opt({p}, SGDOptions(1.0));
  StepLR sched(opt, 1, 0.5);
  sched.step();
  sched.step();  // lr 0.5
  optim_test::set_grad(p, {1.0});
  opt.step();
  EXPECT_VALUES_NEAR(p, std::vector<double>{0.5}, 0);
}

TEST(StepLR, RefusesAZeroStepSize) {
  TwoGroups t;
  EXPECT_THAT(errorOf([&] { StepLR sched(t.opt, 0); }),
              HasSubstr("StepLR: step_size must be > 0, got 0"));
}

TEST(CosineAnnealingLR, FollowsPythonsClosedFormPerGroup) {
  TwoGroups t;
  const double eta_min = 0.01;
  const int64_t T_max = 4;
  CosineAnnealingLR sched(t.opt, T_max, eta_min);
  const double pi = std::acos(-1.0);
  for (int k = 1; k <= 2 * T_max + 1; ++k) {
    sched.step();
    const double f = (1 + std::cos(pi * k / T_max)) / 2;
    const std::vector<double> lrs = lrs_of(t.opt);
    EXPECT_NEAR(lrs[0], eta_min + (0.1 - eta_min) * f, 1e-15) << "step " << k;
    EXPECT_NEAR(lrs[1], eta_min + (0.4 - eta_min) * f, 1e-15) << "step " << k;
  }
}

TEST(CosineAnnealingLR, ReachesEtaMinAtTMaxAndTheBaseAgainAtTwiceTMax) {
  at::Tensor p = param_of({1.0}, {1});
  SGD opt({p}, SGDOptions(0.2));
  CosineAnnealingLR sched(opt, 3);
  for (int k = 0; k < 3; ++k) sched.step();
  EXPECT_NEAR(lrs_of(opt)[0], 0.0, 1e-15);
  for (int k = 0; k < 3; ++k) sched.step();
  EXPECT_NEAR(lrs_of(opt)[0], 0.2, 1e-15);
}

TEST(CosineAnnealingLR, RefusesBadArgumentsAndChangedGroups) {
  TwoGroups t;
  EXPECT_THAT(errorOf([&] { CosineAnnealingLR s(t.opt, 0); }),
              HasSubstr("CosineAnnealingLR: T_max must be > 0, got 0"));
  EXPECT_THAT(errorOf([&] { CosineAnnealingLR s(t.opt, 10, -0.5); }),
              HasSubstr("CosineAnnealingLR: eta_min must be >= 0, got -0.5"));
  CosineAnnealingLR sched(t.opt, 10);
  t.opt.add_param_group({{param_of({3.0}, {1})}});
  EXPECT_THAT(errorOf([&] { sched.step(); }),
              HasSubstr("the scheduler computed 2 learning rates but the optimizer has 3 param "
                        "groups"));
}

// Options without get_lr()/set_lr(), as a user's optimizer might have.
struct BareOptions : torch::optim::OptimizerCloneableOptions<BareOptions> {};

class NoLrOptimizer : public torch::optim::Optimizer {
 public:
  explicit NoLrOptimizer(std::vector<at::Tensor> params)
      : Optimizer(std::move(params), std::make_unique<BareOptions>()) {}
  at::Tensor step(LossClosure /*closure*/ = nullptr) override { return {}; }
};

TEST(LRScheduler, NeedsOptionsThatExposeTheLearningRate) {
  NoLrOptimizer opt({param_of({1.0}, {1})});
  StepLR sched(opt, 1);
  EXPECT_THAT(errorOf([&] { sched.step(); }),
              HasSubstr("this options type does not override get_lr()"));
  EXPECT_THAT(errorOf([&] { CosineAnnealingLR c(opt, 5); }),
              HasSubstr("this options type does not override get_lr()"));
}

}  // namespace
