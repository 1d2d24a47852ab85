// autograd/graph_dot.h — the autograd graph behind a tensor as a Graphviz DOT
// text (in the spirit of torchviz's make_dot): render it with
// `dot -Tpng graph.dot -o graph.png`.
//
//   at::Tensor loss = model->forward(x).sum();
//   std::vector<std::pair<std::string, at::Tensor>> params;
//   for (const auto& p : model->named_parameters()) params.emplace_back(p.key(), p.value());
//   std::ofstream("graph.dot") << torch::autograd::graph_dot(loss, params);
//
// Nodes are the backward functions (MmBackward0, …), drawn from the leaves
// to the tensor as the forward pass ran; a leaf (AccumulateGrad) is named
// after its parameter where `named` holds it, and shows its shape; each
// arrow carries the shape of the gradient that flows back along it. The
// graph is walked without recursion, so deep graphs are fine; a large graph
// makes a large picture.
//
// Thread safety: read the graph while no backward pass frees it (it only
// reads Nodes' edges and input metadata).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "aten/Tensor.h"

namespace torch {
namespace autograd {

// torch::autograd::graph_dot
//
// The DOT text of the graph that produced `root` ("digraph autograd {…}").
// `named`: names for leaves (e.g. a module's named_parameters()). Throws if
// `root` has no graph (a leaf, or a tensor that does not require grad).
std::string graph_dot(const at::Tensor& root,
                      const std::vector<std::pair<std::string, at::Tensor>>& named = {});

}  // namespace autograd
}  // namespace torch
