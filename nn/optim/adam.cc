#include "nn/optim/adam.h"

#include "nn/optim/adam_common.h"
#include "registration/record_function.h"

namespace torch {
namespace optim {

AdamOptions::AdamOptions(double lr) : lr_(lr) {}

bool operator==(const AdamOptions& lhs, const AdamOptions& rhs) {
  return adam_detail::options_equal(lhs, rhs);
}

std::vector<std::pair<std::string, at::Tensor>> AdamParamState::named_tensors() const {
  return adam_detail::named_tensors(*this);
}

bool operator==(const AdamParamState& lhs, const AdamParamState& rhs) {
  return adam_detail::states_equal(lhs, rhs);
}

Adam::Adam(std::vector<OptimizerParamGroup> param_groups, AdamOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamOptions>(defaults)) {
  adam_detail::check_options(defaults, "Adam", "");
  // The base constructor added the groups without the Adam checks.
  for (const auto& group : param_groups_) check_group_options(group.options());
}

Adam::Adam(std::vector<at::Tensor> params, AdamOptions defaults)
    : Adam(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void Adam::check_group_options(const OptimizerOptions& options) const {
  adam_detail::options_of<AdamOptions>(options, "Adam", " (param group)");
}

at::Tensor Adam::step(LossClosure closure) {
  RECORD_USER_SCOPE("Optimizer.step#Adam.step");
  NoGradGuard no_grad;
  at::Tensor loss;
  if (closure != nullptr) {
    AutoGradMode enable_grad(true);
    loss = closure();
  }
  adam_detail::step_all<AdamOptions, AdamParamState, /*kDecoupled=*/false>(
      param_groups_, state_, "Adam", &Optimizer::check_grad);
  return loss;
}

std::unique_ptr<OptimizerParamState> Adam::param_state_from_fields(
    const OptimizerParamGroup& group, const at::Tensor& param, const std::string& where,
    std::map<std::string, at::Tensor>& fields) const {
  const bool amsgrad =
      adam_detail::options_of<AdamOptions>(group.options(), "Adam", ".load_named_state").amsgrad();
  auto state = std::make_unique<AdamParamState>();
  state->step(take_int_field(fields, "step", where));
  state->exp_avg(take_tensor_field(fields, "exp_avg", param, where, true));
  state->exp_avg_sq(take_tensor_field(fields, "exp_avg_sq", param, where, true));
  state->max_exp_avg_sq(take_tensor_field(fields, "max_exp_avg_sq", param, where, amsgrad));
  check_no_fields_left(fields, where, "step, exp_avg, exp_avg_sq, max_exp_avg_sq");
  return state;
}

}  // namespace optim
}  // namespace torch
