#include "nn/optim/sgd.h"

#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "c10/util/Exception.h"
#include "registration/record_function.h"

namespace torch {
namespace optim {

namespace {

// Throws unless `o` is a valid SGD configuration; `where` names the group.
void check_sgd_options(const SGDOptions& o, const char* where) {
  TORCH_CHECK(o.lr() >= 0, "SGD", where, ": Invalid learning rate: ", o.lr(),
              "; expected lr >= 0.");
  TORCH_CHECK(o.momentum() >= 0, "SGD", where, ": Invalid momentum value: ", o.momentum(),
              "; expected momentum >= 0.");
  TORCH_CHECK(o.dampening() >= 0, "SGD", where, ": Invalid dampening value: ", o.dampening(),
              "; expected dampening >= 0.");
  TORCH_CHECK(o.weight_decay() >= 0, "SGD", where,
              ": Invalid weight_decay value: ", o.weight_decay(), "; expected weight_decay >= 0.");
  TORCH_CHECK(!o.nesterov() || (o.momentum() > 0 && o.dampening() == 0), "SGD", where,
              ": Nesterov momentum requires a momentum and zero dampening (got momentum ",
              o.momentum(), ", dampening ", o.dampening(),
              "); set momentum > 0 and dampening 0, or nesterov(false).");
}

const SGDOptions& sgd_options_of(const OptimizerOptions& options, const char* where) {
  const auto* sgd = dynamic_cast<const SGDOptions*>(&options);
  TORCH_CHECK(sgd != nullptr, "SGD", where,
              ": a param group has options of another optimizer; give SGD groups "
              "SGDOptions (or no options, to use the defaults).");
  check_sgd_options(*sgd, where);
  return *sgd;
}

// The state of a parameter, checked: state() is public and may be edited.
SGDParamState& sgd_state_of(const std::unique_ptr<OptimizerParamState>& state) {
  auto* sgd = dynamic_cast<SGDParamState*>(state.get());
  TORCH_CHECK(sgd != nullptr && sgd->momentum_buffer().defined(),
              "SGD.step: the state of a parameter is not an SGDParamState with a momentum "
              "buffer; it was replaced through state(). Erase that entry or store an "
              "SGDParamState.");
  return *sgd;
}

}  // namespace

SGDOptions::SGDOptions(double lr) : lr_(lr) {}

bool operator==(const SGDOptions& lhs, const SGDOptions& rhs) {
  return lhs.lr() == rhs.lr() && lhs.momentum() == rhs.momentum() &&
         lhs.dampening() == rhs.dampening() && lhs.weight_decay() == rhs.weight_decay() &&
         lhs.nesterov() == rhs.nesterov();
}

std::vector<std::pair<std::string, at::Tensor>> SGDParamState::named_tensors() const {
  return {{"momentum_buffer", momentum_buffer()}};
}

bool operator==(const SGDParamState& lhs, const SGDParamState& rhs) {
  const at::Tensor& a = lhs.momentum_buffer();
  const at::Tensor& b = rhs.momentum_buffer();
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  return at::equal(a, b);
}

SGD::SGD(std::vector<OptimizerParamGroup> param_groups, SGDOptions defaults)
    : Optimizer(std::move(param_groups), std::make_unique<SGDOptions>(defaults)) {
  check_sgd_options(defaults, "");
  // The base constructor added the groups without the SGD checks.
  for (const auto& group : param_groups_) check_group_options(group.options());
}

SGD::SGD(std::vector<at::Tensor> params, SGDOptions defaults)
    : SGD(std::vector<OptimizerParamGroup>{OptimizerParamGroup(std::move(params))}, defaults) {}

void SGD::check_group_options(const OptimizerOptions& options) const {
  sgd_options_of(options, " (param group)");
}

at::Tensor SGD::step(LossClosure closure) {
  RECORD_USER_SCOPE("Optimizer.step#SGD.step");
  NoGradGuard no_grad;
  at::Tensor loss;
  if (closure != nullptr) {
    AutoGradMode enable_grad(true);
    loss = closure();
  }
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    OptimizerParamGroup& group = param_groups_[g];
    const SGDOptions& o = sgd_options_of(group.options(), ".step");
    const double lr = o.lr();
    const double momentum = o.momentum();
    const double weight_decay = o.weight_decay();
    // Note [SGD in place]
    // ~~~~~~~~~~~~~~~~~~~~
    // PyTorch forms d = g + wd*p, then b = m*b + (1-dampening)*d and
    // p -= lr*(d + m*b) (Nesterov) or p -= lr*b. The same update without a
    // temporary: b = m*b + (1-dampening)*g + (1-dampening)*wd*p, and
    // p = p*(1 - lr*wd) - lr*g [- lr*m*b]. Equal up to rounding.
    for (size_t i = 0; i < group.params().size(); ++i) {
      const at::Tensor& p = group.params()[i];
      const at::Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      check_grad(p, grad, "SGD", g, i);
      if (momentum == 0) {
        if (weight_decay != 0) p.mul_(1 - lr * weight_decay);
        p.add_(grad, -lr);
        continue;
      }
      auto it = state_.find(p.unsafeGetTensorImpl());
      if (it == state_.end()) {
        // The first step's buffer is the gradient itself, undampened.
        auto fresh = std::make_unique<SGDParamState>();
        at::Tensor buf = grad.clone();
        if (weight_decay != 0) buf.add_(p, weight_decay);
        fresh->momentum_buffer(std::move(buf));
        it = state_.emplace(p.unsafeGetTensorImpl(), std::move(fresh)).first;
      } else {
        at::Tensor& buf = sgd_state_of(it->second).momentum_buffer();
        const double scale = 1 - o.dampening();
        if (scale == 1) {
          at::add_out(buf, grad, buf, momentum);  // g + m*b, one pass
        } else {
          buf.mul_(momentum).add_(grad, scale);
        }
        if (weight_decay != 0) buf.add_(p, weight_decay * scale);
      }
      const at::Tensor& buf = sgd_state_of(it->second).momentum_buffer();
      if (o.nesterov()) {
        if (weight_decay != 0) p.mul_(1 - lr * weight_decay);
        p.add_(grad, -lr).add_(buf, -lr * momentum);
      } else {
        p.add_(buf, -lr);
      }
    }
  }
  return loss;
}

std::unique_ptr<OptimizerParamState> SGD::param_state_from_fields(
    const OptimizerParamGroup& /*group*/, const at::Tensor& param, const std::string& where,
    std::map<std::string, at::Tensor>& fields) const {
  auto state = std::make_unique<SGDParamState>();
  state->momentum_buffer(take_tensor_field(fields, "momentum_buffer", param, where, true));
  check_no_fields_left(fields, where, "momentum_buffer");
  return state;
}

}  // namespace optim
}  // namespace torch
