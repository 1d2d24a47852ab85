// autograd/functions/tensor.h — the Nodes that keep gradients right when a
// view is modified in place (PyTorch's CopySlices), and the "view of the
// base's history" Node a view gets afterwards. See Note [In-place on views]
// in autograd/variable.cc.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aten/Tensor.h"
#include "autograd/function.h"

namespace torch {
namespace autograd {

// The grad_fn of a base after an in-place op on one of its views. Wraps the
// in-place op's Node `fn` (recorded with the view as its input 0): its
// backward takes the gradient of the whole base, runs `fn` on the part that
// corresponds to the view, writes fn's gradient for the view back into that
// part, and passes fn's gradients for its other inputs through.
//
// Edges: 0 is the base's history before the op; 1.. are fn's edges 1..
// (e.g. the `other` of add_). fn's own edge 0 (the view's old history) is
// replaced by the base's, so that fn computes its input-0 gradient exactly
// when this Node's output 0 is needed (fn is not in the graph the engine
// walks, so it could not otherwise tell).
struct CopySlices : Node {
  CopySlices(const at::Tensor& base, const at::Tensor& view, std::shared_ptr<Node> fn);
  std::string name() const override { return "CopySlices"; }
  void release_variables() override;
  // The wrapped Node (null once released).
  std::shared_ptr<Node> fn() const { return fn_; }

 protected:
  variable_list apply(variable_list&& grads) override;

 private:
  std::vector<int64_t> base_sizes_, base_strides_;
  std::vector<int64_t> view_sizes_, view_strides_;
  int64_t view_offset_ = 0;  // relative to the base's storage offset
  std::shared_ptr<Node> fn_;
};

// A new grad_fn for `view` describing it as a view of `base`'s current
// history: an AsStridedBackward0 with the view's geometry, whose edge is
// the base's gradient edge and whose input is `view`.
std::shared_ptr<Node> make_view_of_base_node(const at::Tensor& view, const at::Tensor& base);

}  // namespace autograd
}  // namespace torch
