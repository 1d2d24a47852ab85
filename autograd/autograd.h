// autograd/autograd.h — torch::autograd::backward and torch::autograd::grad.
//
//   auto x = torch::ones({2, 2}, torch::requires_grad());
//   auto y = (x * x).sum();
//   torch::autograd::backward({y});                    // x.grad() == 2 * x
//   auto g = torch::autograd::grad({y}, {x}, {}, true, true);  // create_graph
#pragma once

#include <optional>

#include "aten/Tensor.h"
#include "autograd/function.h"

namespace torch {
namespace autograd {

using tensor_list = std::vector<at::Tensor>;

// Accumulates the gradients of `tensors` into the leaves (or only into
// `inputs` when given). grad_tensors may be empty for one-element tensors.
// retain_graph defaults to create_graph.
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const variable_list& inputs = {});

// The gradients of `outputs` with respect to `inputs`, without touching
// .grad. An input the outputs do not depend on throws unless allow_unused,
// which gives an undefined tensor.
variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs = {},
                   std::optional<bool> retain_graph = std::nullopt,
                   bool create_graph = false, bool allow_unused = false);

}  // namespace autograd
}  // namespace torch
