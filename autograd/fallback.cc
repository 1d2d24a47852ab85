// The Autograd-key fallback: what ops without an entry in derivatives.txt
// do under autograd (custom ops of users included). The op runs below
// autograd; if grad mode is on and a tensor input requires grad, its
// floating outputs get a NotImplemented Node, so that a backward through
// them raises "the derivative for 'ns::op' is not implemented" instead of
// silently missing a gradient.
#include "autograd/functions/basic_ops.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "c10/core/impl/LocalDispatchKeySet.h"
#include "registration/library.h"

namespace torch {
namespace autograd {
namespace {

void for_each_tensor(const c10::IValue& v, const std::function<void(const at::Tensor&)>& f) {
  if (v.isTensor()) {
    f(at::Tensor(v.toTensorBase()));
  } else if (v.isTensorList()) {
    for (const at::TensorBase& t : v.toTensorBaseVector()) f(at::Tensor(t));
  } else if (v.isOptionalTensorList()) {
    for (const auto& t : v.toOptionalTensorVector()) {
      if (t.has_value()) f(at::Tensor(*t));
    }
  }
}

void not_implemented_fallback(const c10::OperatorHandle& op, c10::DispatchKeySet ks,
                              c10::Stack* stack) {
  const auto& schema = op.schema();
  const size_t num_args = schema.arguments().size();
  const size_t begin = stack->size() - num_args;
  bool requires_grad = false;
  variable_list inputs;
  if (at::GradMode::is_enabled()) {
    for (size_t i = 0; i < num_args; ++i) {
      for_each_tensor((*stack)[begin + i], [&](const at::Tensor& t) {
        if (!t.defined()) return;
        inputs.push_back(t);
        requires_grad = requires_grad || t.requires_grad();
      });
    }
  }
  std::shared_ptr<NotImplemented> node;
  if (requires_grad) {
    for (size_t i = 0; i < num_args; ++i) {
      const auto& alias = schema.arguments()[i].alias_info();
      if (alias.has_value() && alias->is_write) {
        for_each_tensor((*stack)[begin + i], [](const at::Tensor& t) {
          check_inplace(t, true);
        });
      }
    }
    const auto& name = schema.operator_name();
    node = make_node<NotImplemented>(name.overload_name.empty()
                                         ? name.name
                                         : name.name + "." + name.overload_name);
    node->set_next_edges(collect_next_edges(inputs));
  }
  {
    at::AutoDispatchBelowADInplaceOrView below;
    op.redispatchBoxed(ks - c10::autograd_dispatch_keyset, stack);
  }
  if (!node) return;
  const size_t num_returns = schema.returns().size();
  for (size_t i = stack->size() - num_returns; i < stack->size(); ++i) {
    for_each_tensor((*stack)[i], [&](const at::Tensor& t) {
      if (t.defined() && c10::isFloatingType(t.scalar_type())) {
        set_history(t, node);
      } else {
        node->add_input_metadata_undefined();
      }
    });
  }
}

TORCH_LIBRARY_IMPL(_, Autograd, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&not_implemented_fallback>());
}

}  // namespace
}  // namespace autograd
}  // namespace torch
