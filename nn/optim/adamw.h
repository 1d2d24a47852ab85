// nn/optim/adamw.h — torch::optim::AdamW: Adam with decoupled weight decay.
//
//   torch::optim::AdamW opt(model->parameters(),
//                           torch::optim::AdamWOptions(1e-3).weight_decay(1e-2));
//
// As Adam (nn/optim/adam.h), except that weight decay shrinks the parameter
// directly instead of entering the gradient and the moments:
//   p = p * (1 - lr * weight_decay), then Adam's update without decay.
#pragma once

#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "nn/arg.h"
#include "nn/optim/optimizer.h"

namespace torch {
namespace optim {

// torch::optim::AdamWOptions
//
// Defaults: lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight_decay 1e-2,
// amsgrad false; checked as AdamOptions.
struct AdamWOptions : public OptimizerCloneableOptions<AdamWOptions> {
  // NOLINTNEXTLINE(google-explicit-constructor): libtorch converts implicitly
  AdamWOptions(double lr = 1e-3);
  TORCH_ARG(double, lr) = 1e-3;
  typedef std::tuple<double, double> betas_t;
  TORCH_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 1e-2;
  TORCH_ARG(bool, amsgrad) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double lr) override { this->lr(lr); }
  friend bool operator==(const AdamWOptions& lhs, const AdamWOptions& rhs);
};

// torch::optim::AdamWParamState — as AdamParamState.
struct AdamWParamState : public OptimizerCloneableParamState<AdamWParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(at::Tensor, exp_avg);
  TORCH_ARG(at::Tensor, exp_avg_sq);
  TORCH_ARG(at::Tensor, max_exp_avg_sq) = {};

 public:
  // Ember extension: step (0-dim int64), exp_avg, exp_avg_sq, max_exp_avg_sq.
  std::vector<std::pair<std::string, at::Tensor>> named_tensors() const override;
  friend bool operator==(const AdamWParamState& lhs, const AdamWParamState& rhs);
};

// torch::optim::AdamW
class AdamW : public Optimizer {
 public:
  explicit AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults = {});
  explicit AdamW(std::vector<at::Tensor> params, AdamWOptions defaults = {});

  at::Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_group_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> param_state_from_fields(
      const OptimizerParamGroup& group, const at::Tensor& param, const std::string& where,
      std::map<std::string, at::Tensor>& fields) const override;
};

}  // namespace optim
}  // namespace torch
