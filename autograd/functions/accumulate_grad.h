// autograd/functions/accumulate_grad.h — the Node at each leaf that requires
// grad: adds the gradient reaching it into the leaf's .grad.
//
// The first gradient is stolen (no copy) when nothing else refers to it and
// the pass does not create a graph; later ones are added in place, or out of
// place under create_graph (so that .grad itself has history). A mutex per
// leaf makes concurrent backward passes safe. The leaf's tensor hooks run
// first and may replace the gradient.
#pragma once

#include <mutex>

#include "autograd/function.h"

namespace torch {
namespace autograd {

struct AccumulateGrad : Node {
  explicit AccumulateGrad(at::Tensor variable);
  std::string name() const override { return "AccumulateGrad"; }
  const at::Tensor& variable() const { return variable_; }

 protected:
  variable_list apply(variable_list&& grads) override;

 private:
  at::Tensor variable_;
};

}  // namespace autograd
}  // namespace torch
