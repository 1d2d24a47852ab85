// autograd/gradcheck.h — checks an op's gradients against finite
// differences (as torch.autograd.gradcheck does in Python).
//
//   auto f = [](const variable_list& in) { return variable_list{at::exp(in[0]) * in[1]}; };
//   auto x = at::rand({3}, at::kDouble).requires_grad_();
//   auto y = at::rand({3}, at::kDouble).requires_grad_();
//   torch::autograd::gradcheck(f, {x, y});      // throws on a mismatch
//   torch::autograd::gradgradcheck(f, {x, y});  // second derivatives too
//
// Inputs that require grad must be float64 CPU tensors (any strides; they are
// perturbed in place one element at a time and restored). Every output
// element's gradient with respect to every input element is compared:
// |analytical - numerical| <= atol + rtol * |numerical|.
#pragma once

#include <functional>

#include "autograd/function.h"

namespace torch {
namespace autograd {

using GradcheckFn = std::function<variable_list(const variable_list&)>;

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
  // Throw c10::Error with the mismatching Jacobians (true), or return false.
  bool raise_exception = true;
};

bool gradcheck(const GradcheckFn& fn, const variable_list& inputs,
               const GradcheckOptions& options = {});

// gradcheck of the function (inputs, grad_outputs) -> the gradients of fn
// with create_graph: checks second derivatives. grad_outputs are random
// (seeded) unless given.
bool gradgradcheck(const GradcheckFn& fn, const variable_list& inputs,
                   const variable_list& grad_outputs = {},
                   const GradcheckOptions& options = {});

}  // namespace autograd
}  // namespace torch
