#include "nn/optim/optimizer.h"

#include <cstdlib>
#include <unordered_set>

#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "c10/util/Exception.h"
#include "registration/record_function.h"

namespace torch {
namespace optim {

std::unique_ptr<OptimizerParamState> OptimizerParamState::clone() const {
  return std::make_unique<OptimizerParamState>(*this);
}

std::vector<std::pair<std::string, at::Tensor>> OptimizerParamState::named_tensors() const {
  return {};
}

std::unique_ptr<OptimizerOptions> OptimizerOptions::clone() const {
  return std::make_unique<OptimizerOptions>(*this);
}

double OptimizerOptions::get_lr() const {
  C10_THROW_ERROR(Error,
                  "OptimizerOptions::get_lr: this options type does not override get_lr(); "
                  "override get_lr() and set_lr() in your OptimizerOptions subclass to use it "
                  "with an LRScheduler.");
}

void OptimizerOptions::set_lr(const double /*lr*/) {
  C10_THROW_ERROR(Error,
                  "OptimizerOptions::set_lr: this options type does not override set_lr(); "
                  "override get_lr() and set_lr() in your OptimizerOptions subclass to use it "
                  "with an LRScheduler.");
}

OptimizerParamGroup::OptimizerParamGroup(const OptimizerParamGroup& other)
    : params_(other.params_), options_(other.has_options() ? other.options_->clone() : nullptr) {}

OptimizerParamGroup& OptimizerParamGroup::operator=(const OptimizerParamGroup& other) {
  if (this != &other) {
    params_ = other.params_;
    options_ = other.has_options() ? other.options_->clone() : nullptr;
  }
  return *this;
}

OptimizerParamGroup::OptimizerParamGroup(std::vector<at::Tensor> params)
    : params_(std::move(params)) {}

OptimizerParamGroup::OptimizerParamGroup(std::vector<at::Tensor> params,
                                         std::unique_ptr<OptimizerOptions> options)
    : params_(std::move(params)), options_(std::move(options)) {}

OptimizerOptions& OptimizerParamGroup::options() {
  TORCH_CHECK(has_options(),
              "OptimizerParamGroup::options: this group has no options; give it options "
              "(set_options) or add it to an optimizer, which gives it the defaults.");
  return *options_;
}

const OptimizerOptions& OptimizerParamGroup::options() const {
  TORCH_CHECK(has_options(),
              "OptimizerParamGroup::options: this group has no options; give it options "
              "(set_options) or add it to an optimizer, which gives it the defaults.");
  return *options_;
}

Optimizer::Optimizer(std::vector<OptimizerParamGroup> param_groups,
                     std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  TORCH_CHECK(defaults_ != nullptr, "Optimizer: the default options are null; pass options.");
  for (const auto& group : param_groups) add_param_group(group);
}

Optimizer::Optimizer(std::vector<at::Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults)
    : Optimizer(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(parameters))},
                std::move(defaults)) {}

void Optimizer::add_param_group(const OptimizerParamGroup& param_group) {
  const size_t g = param_groups_.size();
  std::unordered_set<const c10::TensorImpl*> seen;
  for (const auto& group : param_groups_) {
    for (const auto& p : group.params()) seen.insert(p.unsafeGetTensorImpl());
  }
  const auto& params = param_group.params();
  for (size_t i = 0; i < params.size(); ++i) {
    const at::Tensor& p = params[i];
    TORCH_CHECK(p.defined(), "Optimizer: parameter ", i, " of param group ", g,
                " is an undefined tensor; pass only defined tensors.");
    TORCH_CHECK(p.is_leaf(), "Optimizer: can't optimize a non-leaf Tensor (parameter ", i,
                " of param group ", g,
                " was computed by an op); pass the leaf it came from, or a detached copy "
                "with requires_grad_().");
    TORCH_CHECK(p.requires_grad(), "Optimizer: parameter ", i, " of param group ", g,
                " does not require grad, so it would never get a gradient; call "
                "requires_grad_() on it or leave it out.");
    TORCH_CHECK(seen.insert(p.unsafeGetTensorImpl()).second,
                "Optimizer: some parameters appear in more than one parameter group "
                "(parameter ",
                i, " of param group ", g, " is already optimized); pass each tensor once.");
  }
  OptimizerParamGroup added(
      params, param_group.has_options() ? param_group.options().clone() : defaults_->clone());
  check_group_options(added.options());
  param_groups_.push_back(std::move(added));
}

void Optimizer::zero_grad(bool set_to_none) {
  RECORD_USER_SCOPE("Optimizer.zero_grad");
  for (auto& group : param_groups_) {
    for (auto& p : group.params()) {
      at::Tensor& grad = p.mutable_grad();
      if (!grad.defined()) continue;
      if (set_to_none) {
        grad = at::Tensor();
      } else {
        // A gradient from create_graph=true has history: zero a detached
        // alias so that the in-place op records nothing.
        if (grad.grad_fn() != nullptr) grad = grad.detach();
        NoGradGuard no_grad;
        grad.zero_();
      }
    }
  }
}

const std::vector<at::Tensor>& Optimizer::parameters() const {
  TORCH_CHECK(!param_groups_.empty(),
              "Optimizer::parameters: the optimizer has no param groups; add one with "
              "add_param_group.");
  return param_groups_.front().params();
}

std::vector<at::Tensor>& Optimizer::parameters() {
  TORCH_CHECK(!param_groups_.empty(),
              "Optimizer::parameters: the optimizer has no param groups; add one with "
              "add_param_group.");
  return param_groups_.front().params();
}

size_t Optimizer::size() const noexcept {
  size_t n = 0;
  for (const auto& group : param_groups_) n += group.params().size();
  return n;
}

void Optimizer::check_group_options(const OptimizerOptions& /*options*/) const {}

std::vector<std::pair<std::string, at::Tensor>> Optimizer::named_state() const {
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const auto& params = param_groups_[g].params();
    for (size_t i = 0; i < params.size(); ++i) {
      auto it = state_.find(params[i].unsafeGetTensorImpl());
      if (it == state_.end() || it->second == nullptr) continue;
      const std::string prefix = std::to_string(g) + "." + std::to_string(i) + ".";
      for (auto& field : it->second->named_tensors()) {
        if (field.second.defined()) out.emplace_back(prefix + field.first, std::move(field.second));
      }
    }
  }
  return out;
}

namespace {

// Parses a decimal index without sign or leading zeros; false otherwise.
bool parse_index(const std::string& s, size_t* out) {
  if (s.empty() || s.size() > 9 || (s.size() > 1 && s[0] == '0')) return false;
  size_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  *out = v;
  return true;
}

}  // namespace

void Optimizer::load_named_state(const std::vector<std::pair<std::string, at::Tensor>>& named) {
  // Group the fields by parameter, checking names first.
  std::map<std::pair<size_t, size_t>, std::map<std::string, at::Tensor>> by_param;
  for (const auto& [name, tensor] : named) {
    const size_t dot1 = name.find('.');
    const size_t dot2 = dot1 == std::string::npos ? dot1 : name.find('.', dot1 + 1);
    size_t g = 0;
    size_t i = 0;
    TORCH_CHECK(dot2 != std::string::npos && parse_index(name.substr(0, dot1), &g) &&
                    parse_index(name.substr(dot1 + 1, dot2 - dot1 - 1), &i) &&
                    dot2 + 1 < name.size(),
                "load_named_state: '", name,
                "' is not a state name '<group>.<index>.<field>' (e.g. '0.3.momentum_buffer'); "
                "pass what named_state() returned.");
    TORCH_CHECK(g < param_groups_.size(), "load_named_state: '", name, "' names param group ", g,
                " but the optimizer has ", param_groups_.size(),
                " param groups; the checkpoint was saved with different param groups.");
    TORCH_CHECK(i < param_groups_[g].params().size(), "load_named_state: '", name,
                "' names parameter ", i, " of param group ", g, ", which has ",
                param_groups_[g].params().size(),
                " parameters; the checkpoint was saved for different parameters.");
    TORCH_CHECK(tensor.defined(), "load_named_state: '", name,
                "' is an undefined tensor; pass what named_state() returned.");
    const bool fresh = by_param[{g, i}].emplace(name.substr(dot2 + 1), tensor).second;
    TORCH_CHECK(fresh, "load_named_state: '", name, "' appears twice; pass each name once.");
  }
  // Build the whole new state before replacing the old one.
  StateMap loaded;
  for (auto& [key, fields] : by_param) {
    const OptimizerParamGroup& group = param_groups_[key.first];
    const at::Tensor& param = group.params()[key.second];
    const std::string where = std::to_string(key.first) + "." + std::to_string(key.second);
    loaded[param.unsafeGetTensorImpl()] = param_state_from_fields(group, param, where, fields);
  }
  state_ = std::move(loaded);
}

std::unique_ptr<OptimizerParamState> Optimizer::param_state_from_fields(
    const OptimizerParamGroup& /*group*/, const at::Tensor& /*param*/, const std::string& where,
    std::map<std::string, at::Tensor>& /*fields*/) const {
  C10_THROW_ERROR(Error,
                  "load_named_state: this optimizer does not say how to load the state of "
                  "parameter " +
                      where + "; override Optimizer::param_state_from_fields in your optimizer.");
}

at::Tensor Optimizer::take_tensor_field(std::map<std::string, at::Tensor>& fields,
                                        const std::string& field, const at::Tensor& param,
                                        const std::string& where, bool required) {
  auto it = fields.find(field);
  if (it == fields.end()) {
    TORCH_CHECK(!required, "load_named_state: '", where, ".", field,
                "' is missing, but the other state of parameter ", where,
                " is there; pass every field named_state() returned.");
    return at::Tensor();
  }
  const at::Tensor src = std::move(it->second);
  fields.erase(it);
  TORCH_CHECK(src.sizes() == param.sizes() && src.scalar_type() == param.scalar_type() &&
                  src.device() == param.device(),
              "load_named_state: '", where, ".", field, "' has shape ", src.sizes(), ", dtype ",
              src.scalar_type(), " and device ", src.device(), ", but parameter ", where,
              " has shape ", param.sizes(), ", dtype ", param.scalar_type(), " and device ",
              param.device(), "; the checkpoint was saved for different parameters.");
  NoGradGuard no_grad;
  at::Tensor copy = at::empty_like(param);
  copy.copy_(src);
  return copy;
}

int64_t Optimizer::take_int_field(std::map<std::string, at::Tensor>& fields,
                                  const std::string& field, const std::string& where) {
  auto it = fields.find(field);
  TORCH_CHECK(it != fields.end(), "load_named_state: '", where, ".", field,
              "' is missing, but the other state of parameter ", where,
              " is there; pass every field named_state() returned.");
  const at::Tensor src = std::move(it->second);
  fields.erase(it);
  TORCH_CHECK(src.dim() == 0 && src.scalar_type() == at::kLong, "load_named_state: '", where, ".",
              field, "' must be a 0-dim int64 tensor, got shape ", src.sizes(), " and dtype ",
              src.scalar_type(), "; pass what named_state() returned.");
  const int64_t value = src.item<int64_t>();
  TORCH_CHECK(value >= 0, "load_named_state: '", where, ".", field, "' is ", value,
              ", expected a count >= 0.");
  return value;
}

void Optimizer::check_grad(const at::Tensor& param, const at::Tensor& grad, const char* optimizer,
                           size_t group, size_t index) {
  TORCH_CHECK(grad.sizes() == param.sizes() && grad.scalar_type() == param.scalar_type() &&
                  grad.device() == param.device(),
              optimizer, ".step: the gradient of parameter ", index, " of param group ", group,
              " has shape ", grad.sizes(), ", dtype ", grad.scalar_type(), " and device ",
              grad.device(), ", but the parameter has shape ", param.sizes(), ", dtype ",
              param.scalar_type(), " and device ", param.device(),
              "; a gradient set through mutable_grad() must match its parameter.");
}

void Optimizer::check_no_fields_left(const std::map<std::string, at::Tensor>& fields,
                                     const std::string& where, const char* known) {
  TORCH_CHECK(fields.empty(), "load_named_state: unknown state field '",
              fields.empty() ? std::string() : fields.begin()->first, "' in '", where, ".",
              fields.empty() ? std::string() : fields.begin()->first,
              "'; this optimizer keeps: ", known, ".");
}

}  // namespace optim
}  // namespace torch
