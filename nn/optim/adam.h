// nn/optim/adam.h — torch::optim::Adam: adaptive moment estimation with
// L2 weight decay folded into the gradient, and optional AMSGrad.
//
//   torch::optim::Adam opt(model->parameters(),
//                          torch::optim::AdamOptions(1e-3).betas({0.9, 0.999}));
//   opt.zero_grad();
//   loss.backward();
//   opt.step();
//
// The update of each parameter p with gradient g at step t (from 1) is
// PyTorch's:
//   g = g + weight_decay * p
//   m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g * g
//   v' = amsgrad ? (vmax = max(vmax, v)) : v
//   p = p - lr / (1 - beta1^t) * m / (sqrt(v') / sqrt(1 - beta2^t) + eps)
// For decoupled weight decay use AdamW (nn/optim/adamw.h).
#pragma once

#include <cstdint>
#include <memory>
#include <tuple>
#include <vector>

#include "nn/arg.h"
#include "nn/optim/optimizer.h"

namespace torch {
namespace optim {

// torch::optim::AdamOptions
//
// Defaults: lr 1e-3, betas (0.9, 0.999), eps 1e-8, weight_decay 0, amsgrad
// false. Checked when the optimizer is built, when a group is added and at
// every step: lr, eps, weight_decay >= 0; each beta in [0, 1).
struct AdamOptions : public OptimizerCloneableOptions<AdamOptions> {
  // NOLINTNEXTLINE(google-explicit-constructor): libtorch converts implicitly
  AdamOptions(double lr = 1e-3);
  TORCH_ARG(double, lr) = 1e-3;
  typedef std::tuple<double, double> betas_t;
  TORCH_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(bool, amsgrad) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double lr) override { this->lr(lr); }
  friend bool operator==(const AdamOptions& lhs, const AdamOptions& rhs);
};

// torch::optim::AdamParamState
//
// The step count and moment estimates of one parameter; max_exp_avg_sq is
// defined only with amsgrad.
struct AdamParamState : public OptimizerCloneableParamState<AdamParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(at::Tensor, exp_avg);
  TORCH_ARG(at::Tensor, exp_avg_sq);
  TORCH_ARG(at::Tensor, max_exp_avg_sq) = {};

 public:
  // Ember extension: step (0-dim int64), exp_avg, exp_avg_sq, max_exp_avg_sq.
  std::vector<std::pair<std::string, at::Tensor>> named_tensors() const override;
  friend bool operator==(const AdamParamState& lhs, const AdamParamState& rhs);
};

// torch::optim::Adam
class Adam : public Optimizer {
 public:
  explicit Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults = {});
  explicit Adam(std::vector<at::Tensor> params, AdamOptions defaults = {});

  at::Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_group_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> param_state_from_fields(
      const OptimizerParamGroup& group, const at::Tensor& param, const std::string& where,
      std::map<std::string, at::Tensor>& fields) const override;
};

}  // namespace optim
}  // namespace torch
