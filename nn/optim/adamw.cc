#include "nn/optim/adamw.h"

#include "nn/optim/adam_common.h"
#include "registration/record_function.h"

namespace torch {
namespace optim {

AdamWOptions::AdamWOptions(double lr) : lr_(lr) {}

bool operator==(const AdamWOptions& lhs, const AdamWOptions& rhs) {
  return adam_detail::options_equal(lhs, rhs);
}

std::vector<std::pair<std::string, at::Tensor>> AdamWParamState::named_tensors() const {
  return adam_detail::named_tensors(*this);
}

bool operator==(const AdamWParamState& lhs, const AdamWParamState& rhs) {
  return adam_detail::states_equal(lhs, rhs);
}

AdamW::AdamW(std::vector<OptimizerParamGroup> param_groups, AdamWOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<AdamWOptions>(defaults)) {
  adam_detail::check_options(defaults, "AdamW", "");
  // The base constructor added the groups without the AdamW checks.
  for (const auto& group : param_groups_) check_group_options(group.options());
}

AdamW::AdamW(std::vector<at::Tensor> params, AdamWOptions defaults)
    : AdamW(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void AdamW::check_group_options(const OptimizerOptions& options) const {
  adam_detail::options_of<AdamWOptions>(options, "AdamW", " (param group)");
}

at::Tensor AdamW::step(LossClosure closure) {
  RECORD_USER_SCOPE("Optimizer.step#AdamW.step");
  NoGradGuard no_grad;
  at::Tensor loss;
  if (closure != nullptr) {
    AutoGradMode enable_grad(true);
    loss = closure();
  }
  adam_detail::step_all<AdamWOptions, AdamWParamState, /*kDecoupled=*/true>(
      param_groups_, state_, "AdamW", &Optimizer::check_grad);
  return loss;
}

std::unique_ptr<OptimizerParamState> AdamW::param_state_from_fields(
    const OptimizerParamGroup& group, const at::Tensor& param, const std::string& where,
    std::map<std::string, at::Tensor>& fields) const {
  const bool amsgrad =
      adam_detail::options_of<AdamWOptions>(group.options(), "AdamW", ".load_named_state")
          .amsgrad();
  auto state = std::make_unique<AdamWParamState>();
  state->step(take_int_field(fields, "step", where));
  state->exp_avg(take_tensor_field(fields, "exp_avg", param, where, true));
  state->exp_avg_sq(take_tensor_field(fields, "exp_avg_sq", param, where, true));
  state->max_exp_avg_sq(take_tensor_field(fields, "max_exp_avg_sq", param, where, amsgrad));
  check_no_fields_left(fields, where, "step, exp_avg, exp_avg_sq, max_exp_avg_sq");
  return state;
}

}  // namespace optim
}  // namespace torch
