// nn/optim/adam_common.h — private to nn/optim: what Adam and AdamW share
// (option checks, the per-parameter update, state comparison and naming).
// Their options and state types are distinct (as in libtorch) but have the
// same fields, so the code is written once over them as templates.
#pragma once

#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "c10/util/Exception.h"
#include "nn/optim/optimizer.h"

namespace torch {
namespace optim {
namespace adam_detail {

// Throws unless `o` is a valid configuration; `name` is "Adam" or "AdamW",
// `where` says which check this is.
template <class Options>
void check_options(const Options& o, const char* name, const char* where) {
  const double beta1 = std::get<0>(o.betas());
  const double beta2 = std::get<1>(o.betas());
  TORCH_CHECK(o.lr() >= 0, name, where, ": Invalid learning rate: ", o.lr(), "; expected lr >= 0.");
  TORCH_CHECK(o.eps() >= 0, name, where, ": Invalid epsilon value: ", o.eps(),
              "; expected eps >= 0.");
  TORCH_CHECK(beta1 >= 0 && beta1 < 1, name, where, ": Invalid beta parameter at index 0: ", beta1,
              "; expected a value in [0, 1).");
  TORCH_CHECK(beta2 >= 0 && beta2 < 1, name, where, ": Invalid beta parameter at index 1: ", beta2,
              "; expected a value in [0, 1).");
  TORCH_CHECK(o.weight_decay() >= 0, name, where,
              ": Invalid weight_decay value: ", o.weight_decay(), "; expected weight_decay >= 0.");
}

// The options of a group as `Options`, checked.
template <class Options>
const Options& options_of(const OptimizerOptions& options, const char* name, const char* where) {
  const auto* typed = dynamic_cast<const Options*>(&options);
  TORCH_CHECK(typed != nullptr, name, where,
              ": a param group has options of another optimizer; "
              "give ",
              name, " groups ", name, "Options (or no options, to use the defaults).");
  check_options(*typed, name, where);
  return *typed;
}

template <class Options>
bool options_equal(const Options& a, const Options& b) {
  return a.lr() == b.lr() && a.betas() == b.betas() && a.eps() == b.eps() &&
         a.weight_decay() == b.weight_decay() && a.amsgrad() == b.amsgrad();
}

inline bool same_tensor_values(const at::Tensor& a, const at::Tensor& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  return at::equal(a, b);
}

template <class State>
bool states_equal(const State& a, const State& b) {
  return a.step() == b.step() && same_tensor_values(a.exp_avg(), b.exp_avg()) &&
         same_tensor_values(a.exp_avg_sq(), b.exp_avg_sq()) &&
         same_tensor_values(a.max_exp_avg_sq(), b.max_exp_avg_sq());
}

template <class State>
std::vector<std::pair<std::string, at::Tensor>> named_tensors(const State& s) {
  return {{"step", at::scalar_tensor(s.step(), at::TensorOptions().dtype(at::kLong))},
          {"exp_avg", s.exp_avg()},
          {"exp_avg_sq", s.exp_avg_sq()},
          {"max_exp_avg_sq", s.max_exp_avg_sq()}};
}

// Note [Adam in place]
// ~~~~~~~~~~~~~~~~~~~~
// PyTorch divides by denom = sqrt(v)/sqrt(bc2) + eps and steps by lr/bc1.
// Multiplying both by sqrt(bc2) gives the same quotient with
// denom = sqrt(v) + eps*sqrt(bc2) and step lr*sqrt(bc2)/bc1, which saves a
// pass over the tensor. The first moment uses lerp_ (one pass for
// m = beta1*m + (1-beta1)*g). Equal to PyTorch's update up to rounding.

// One Adam (kDecoupled = false) or AdamW step over every group.
// `check_grad` is Optimizer::check_grad (protected, so passed in).
template <class Options, class State, bool kDecoupled, class CheckGrad>
void step_all(std::vector<OptimizerParamGroup>& groups, Optimizer::StateMap& states,
              const char* name, CheckGrad check_grad) {
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    OptimizerParamGroup& group = groups[gi];
    const Options& o = options_of<Options>(group.options(), name, ".step");
    const double lr = o.lr();
    const double beta1 = std::get<0>(o.betas());
    const double beta2 = std::get<1>(o.betas());
    const double weight_decay = o.weight_decay();
    for (size_t i = 0; i < group.params().size(); ++i) {
      const at::Tensor& p = group.params()[i];
      at::Tensor grad = p.grad();
      if (!grad.defined()) continue;
      check_grad(p, grad, name, gi, i);
      auto it = states.find(p.unsafeGetTensorImpl());
      if (it == states.end()) {
        auto fresh = std::make_unique<State>();
        fresh->exp_avg(at::zeros_like(p));
        fresh->exp_avg_sq(at::zeros_like(p));
        if (o.amsgrad()) fresh->max_exp_avg_sq(at::zeros_like(p));
        it = states.emplace(p.unsafeGetTensorImpl(), std::move(fresh)).first;
      }
      auto* s = dynamic_cast<State*>(it->second.get());
      TORCH_CHECK(s != nullptr && s->exp_avg().defined() && s->exp_avg_sq().defined(), name,
                  ".step: the state of a parameter is not a complete ", name,
                  "ParamState; it was replaced through state(). Erase that entry or store a ", name,
                  "ParamState with exp_avg and exp_avg_sq.");
      if (weight_decay != 0) {
        if (kDecoupled) {
          p.mul_(1 - lr * weight_decay);
        } else {
          grad = grad.add(p, weight_decay);  // g + wd*p enters both moments
        }
      }
      s->step(s->step() + 1);
      const double t = static_cast<double>(s->step());
      const double bias_correction1 = 1 - std::pow(beta1, t);
      const double sqrt_bias_correction2 = std::sqrt(1 - std::pow(beta2, t));
      s->exp_avg().lerp_(grad, 1 - beta1);
      s->exp_avg_sq().mul_(beta2).addcmul_(grad, grad, 1 - beta2);
      const at::Tensor* v = &s->exp_avg_sq();
      if (o.amsgrad()) {
        // amsgrad may have been switched on after the state was made.
        if (!s->max_exp_avg_sq().defined()) s->max_exp_avg_sq(at::zeros_like(p));
        at::maximum_out(s->max_exp_avg_sq(), s->max_exp_avg_sq(), s->exp_avg_sq());
        v = &s->max_exp_avg_sq();
      }
      // See Note [Adam in place].
      at::Tensor denom = v->sqrt();
      denom.add_(o.eps() * sqrt_bias_correction2);
      p.addcdiv_(s->exp_avg(), denom, -lr * sqrt_bias_correction2 / bias_correction1);
    }
  }
}

}  // namespace adam_detail
}  // namespace optim
}  // namespace torch
