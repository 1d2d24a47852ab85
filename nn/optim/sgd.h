// nn/optim/sgd.h — torch::optim::SGD: stochastic gradient descent with
// optional momentum (heavy-ball or Nesterov), dampening and weight decay.
//
//   torch::optim::SGD opt(model->parameters(),
//                         torch::optim::SGDOptions(0.1).momentum(0.9).weight_decay(1e-4));
//   opt.zero_grad();
//   loss.backward();
//   opt.step();
//
// The update of each parameter p with gradient g is PyTorch's:
//   g = g + weight_decay * p
//   b = g (first step), else b = momentum * b + (1 - dampening) * g
//   g = nesterov ? g + momentum * b : b          (when momentum != 0)
//   p = p - lr * g
// computed with in-place ops and no temporaries (docs/optim.md).
#pragma once

#include <memory>
#include <vector>

#include "nn/arg.h"
#include "nn/optim/optimizer.h"

namespace torch {
namespace optim {

// torch::optim::SGDOptions
//
// lr has no default; momentum, dampening and weight_decay default to 0,
// nesterov to false. Checked when the optimizer is built, when a group is
// added and at every step: lr, momentum, dampening, weight_decay >= 0;
// nesterov needs momentum > 0 and dampening == 0.
struct SGDOptions : public OptimizerCloneableOptions<SGDOptions> {
  // NOLINTNEXTLINE(google-explicit-constructor): libtorch converts implicitly
  SGDOptions(double lr);
  TORCH_ARG(double, lr);
  TORCH_ARG(double, momentum) = 0;
  TORCH_ARG(double, dampening) = 0;
  TORCH_ARG(double, weight_decay) = 0;
  TORCH_ARG(bool, nesterov) = false;

 public:
  double get_lr() const override { return lr(); }
  void set_lr(const double lr) override { this->lr(lr); }
  friend bool operator==(const SGDOptions& lhs, const SGDOptions& rhs);
};

// torch::optim::SGDParamState
//
// The momentum buffer of one parameter (only kept when momentum != 0).
struct SGDParamState : public OptimizerCloneableParamState<SGDParamState> {
  TORCH_ARG(at::Tensor, momentum_buffer);

 public:
  // Ember extension: {"momentum_buffer"}.
  std::vector<std::pair<std::string, at::Tensor>> named_tensors() const override;
  friend bool operator==(const SGDParamState& lhs, const SGDParamState& rhs);
};

// torch::optim::SGD
class SGD : public Optimizer {
 public:
  SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults);
  SGD(std::vector<at::Tensor> params, SGDOptions defaults);

  at::Tensor step(LossClosure closure = nullptr) override;

 protected:
  void check_group_options(const OptimizerOptions& options) const override;
  std::unique_ptr<OptimizerParamState> param_state_from_fields(
      const OptimizerParamGroup& group, const at::Tensor& param, const std::string& where,
      std::map<std::string, at::Tensor>& fields) const override;
};

}  // namespace optim
}  // namespace torch
