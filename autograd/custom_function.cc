#include "autograd/custom_function.h"

#include "aten/Functions.h"

namespace torch {
namespace autograd {

variable_list AutogradContext::get_saved_variables() const {
  TORCH_CHECK(!has_freed_buffers_, "Trying to backward through the graph a second time "
              "(or directly access saved tensors after they have already been freed). "
              "Specify retain_graph=True if you need to backward through the graph a "
              "second time.");
  variable_list out;
  std::shared_ptr<Node> node = grad_fn_.lock();
  for (const SavedVariable& v : saved_variables_) out.push_back(v.unpack(node));
  return out;
}

void AutogradContext::mark_dirty(const variable_list& inputs) {
  for (const auto& t : inputs) dirty_.insert(t.unsafeGetTensorImpl());
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  for (const auto& t : outputs) non_differentiable_.insert(t.unsafeGetTensorImpl());
}

bool AutogradContext::needs_input_grad(size_t index) const {
  std::shared_ptr<Node> node = grad_fn_.lock();
  return node != nullptr && index < node->num_outputs() && node->should_compute_output(index);
}

void AutogradContext::save_variables(const variable_list& outputs) {
  saved_variables_.clear();
  for (const auto& t : to_save_) {
    bool is_output = false;
    for (const auto& o : outputs) {
      is_output = is_output || (t.defined() && o.defined() && o.is_same(t));
    }
    saved_variables_.emplace_back(t, is_output);
  }
  to_save_.clear();
}

namespace detail {

void extract_tensors(variable_list& out, std::vector<bool>& is_tensor, const at::Tensor& t) {
  out.push_back(t);
  is_tensor.push_back(true);
}

void extract_tensors(variable_list& out, std::vector<bool>& is_tensor, const variable_list& ts) {
  for (const auto& t : ts) {
    out.push_back(t);
    is_tensor.push_back(true);
  }
}

variable_list to_output_list(const at::Tensor& t) { return {t}; }
variable_list to_output_list(const variable_list& ts) { return ts; }

void wrap_outputs(const variable_list& inputs, variable_list& outputs,
                  const std::shared_ptr<Node>& node, AutogradContext& ctx, bool is_executable) {
  for (auto& out : outputs) {
    if (!out.defined()) {
      if (is_executable) node->add_input_metadata_undefined();
      continue;
    }
    const c10::TensorImpl* impl = out.unsafeGetTensorImpl();
    const bool is_input = std::any_of(inputs.begin(), inputs.end(), [&](const at::Tensor& t) {
      return t.defined() && t.unsafeGetTensorImpl() == impl;
    });
    const bool dirty = ctx.dirty_.count(impl) > 0;
    const bool differentiable = ctx.non_differentiable_.count(impl) == 0 &&
                                c10::isFloatingType(out.scalar_type());
    if (is_input && !dirty) {
      // An input returned as-is: a new tensor over the same data, so that the
      // input keeps its own history.
      at::AutoGradMode no_grad(false);
      out = out.alias();
    }
    if (!is_executable) continue;
    if (!differentiable) {
      node->add_input_metadata_undefined();
      continue;
    }
    if (dirty) {
      check_inplace(out, true);
      impl::set_gradient_edge(out, Edge(node, node->add_input_metadata(out)));
    } else {
      set_history(out, node);
    }
  }
}

void check_backward_outputs(const Node& node, const variable_list& grads,
                            const std::vector<bool>& is_tensor_input) {
  TORCH_CHECK(grads.size() >= is_tensor_input.size(), "function ", node.name(),
              " returned an incorrect number of gradients (expected ",
              is_tensor_input.size(), ", got ", grads.size(), ")");
  for (size_t i = is_tensor_input.size(); i < grads.size(); ++i) {
    TORCH_CHECK(!grads[i].defined(), "function ", node.name(), " returned an incorrect "
                "number of gradients (expected ", is_tensor_input.size(), ", got ",
                grads.size(), ")");
  }
  for (size_t i = 0; i < is_tensor_input.size(); ++i) {
    TORCH_CHECK(is_tensor_input[i] || !grads[i].defined(), "function ", node.name(),
                " returned a gradient different than None at position ", i + 1,
                ", but the corresponding forward input was not a Variable");
  }
}

}  // namespace detail
}  // namespace autograd
}  // namespace torch
