// autograd/custom_function.h — user-defined differentiable functions, as
// torch::autograd::Function<T> in PyTorch:
//
//   struct MulConstant : torch::autograd::Function<MulConstant> {
//     static at::Tensor forward(AutogradContext* ctx, at::Tensor x, double c) {
//       ctx->saved_data["c"] = c;
//       return x * c;
//     }
//     static variable_list backward(AutogradContext* ctx, variable_list grads) {
//       return {grads[0] * ctx->saved_data["c"].toDouble(), at::Tensor()};
//     }
//   };
//   at::Tensor y = MulConstant::apply(x, 5.0);
//
// forward runs with grad mode off; it may return a Tensor or a
// variable_list. backward returns one gradient per forward argument (an
// undefined tensor for arguments that are not tensors or need none).
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "autograd/FunctionsManual.h"
#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "autograd/saved_variable.h"
#include "autograd/variable.h"
#include "registration/IValue.h"

namespace torch {
namespace autograd {

struct AutogradContext;
namespace detail {
void wrap_outputs(const variable_list& inputs, variable_list& outputs,
                  const std::shared_ptr<Node>& node, AutogradContext& ctx, bool is_executable);
}  // namespace detail

struct AutogradContext {
  AutogradContext() = default;
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

  // Tensors for backward (inputs or outputs of forward); checked against
  // in-place changes when read back.
  void save_for_backward(variable_list to_save) { to_save_ = std::move(to_save); }
  variable_list get_saved_variables() const;
  // Inputs that forward modified in place (and returned).
  void mark_dirty(const variable_list& inputs);
  // Outputs that get no gradient.
  void mark_non_differentiable(const variable_list& outputs);
  // Whether undefined incoming gradients become zeros (default true).
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  // Whether the gradient of forward's tensor input `index` is needed.
  bool needs_input_grad(size_t index) const;

  // Any other data for backward.
  std::unordered_map<std::string, c10::IValue> saved_data;

 private:
  template <class T>
  friend struct CppNode;
  template <class T>
  friend struct Function;
  friend void detail::wrap_outputs(const variable_list& inputs, variable_list& outputs,
                                   const std::shared_ptr<Node>& node, AutogradContext& ctx,
                                   bool is_executable);
  void save_variables(const variable_list& outputs);

  variable_list to_save_;
  std::vector<SavedVariable> saved_variables_;
  std::unordered_set<const c10::TensorImpl*> dirty_;
  std::unordered_set<const c10::TensorImpl*> non_differentiable_;
  std::weak_ptr<Node> grad_fn_;
  bool materialize_grads_ = true;
  bool has_freed_buffers_ = false;
};

// The backward Node of a custom Function.
template <class T>
struct CppNode : Node {
  std::vector<SavedTensorInfo> saved_tensors_info() const override {
    std::vector<SavedTensorInfo> out;
    for (size_t i = 0; i < ctx_.saved_variables_.size(); ++i) {
      out.push_back(ctx_.saved_variables_[i].info("saved[" + std::to_string(i) + "]"));
    }
    return out;
  }
  void release_variables() override {
    std::lock_guard<std::mutex> lock(mutex_);
    ctx_.saved_variables_.clear();
    ctx_.has_freed_buffers_ = true;
  }
  variable_list apply(variable_list&& grads) override;

  AutogradContext ctx_;
  // For each forward argument: whether it was a tensor (and so has an edge).
  std::vector<bool> is_tensor_input_;
};

namespace detail {
void extract_tensors(variable_list& out, std::vector<bool>& is_tensor, const at::Tensor& t);
void extract_tensors(variable_list& out, std::vector<bool>& is_tensor, const variable_list& ts);
template <typename U>
void extract_tensors(variable_list& /*out*/, std::vector<bool>& is_tensor, const U& /*other*/) {
  is_tensor.push_back(false);
}
// Sets the outputs' history (See custom_function.cc).
void wrap_outputs(const variable_list& inputs, variable_list& outputs,
                  const std::shared_ptr<Node>& node, AutogradContext& ctx, bool is_executable);
variable_list to_output_list(const at::Tensor& t);
variable_list to_output_list(const variable_list& ts);
void check_backward_outputs(const Node& node, const variable_list& grads,
                            const std::vector<bool>& is_tensor_input);
}  // namespace detail

template <class T>
struct Function {
  template <typename X = T, typename... Args>
  static auto apply(Args&&... args) {
    std::shared_ptr<CppNode<X>> node = make_node<CppNode<X>>();
    variable_list inputs;
    (detail::extract_tensors(inputs, node->is_tensor_input_, args), ...);
    const bool is_executable = compute_requires_grad(inputs);
    node->set_next_edges(collect_next_edges(inputs));
    node->ctx_.grad_fn_ = node;
    using Out = decltype(X::forward(&node->ctx_, std::forward<Args>(args)...));
    Out result = [&] {
      at::AutoGradMode no_grad(false);
      return X::forward(&node->ctx_, std::forward<Args>(args)...);
    }();
    variable_list outputs = detail::to_output_list(result);
    detail::wrap_outputs(inputs, outputs, node, node->ctx_, is_executable);
    if (is_executable) node->ctx_.save_variables(outputs);
    if constexpr (std::is_same_v<std::decay_t<Out>, at::Tensor>) {
      return outputs[0];
    } else {
      return outputs;
    }
  }
};

template <class T>
variable_list CppNode<T>::apply(variable_list&& grads) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ctx_.materialize_grads_) generated::details::materialize_grads(*this, grads);
  variable_list outputs = T::backward(&ctx_, std::move(grads));
  detail::check_backward_outputs(*this, outputs, is_tensor_input_);
  // Keep only the gradients of tensor arguments, in edge order.
  variable_list result;
  for (size_t i = 0; i < is_tensor_input_.size(); ++i) {
    if (is_tensor_input_[i]) result.push_back(i < outputs.size() ? outputs[i] : at::Tensor());
  }
  return result;
}

}  // namespace autograd
}  // namespace torch
