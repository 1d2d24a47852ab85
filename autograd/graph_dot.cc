#include "autograd/graph_dot.h"

#include <map>
#include <unordered_map>

#include "autograd/functions/accumulate_grad.h"
#include "autograd/variable.h"

namespace torch {
namespace autograd {

namespace {

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

// DOT's quoted strings: quotes and backslashes escaped, line breaks as \n.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string graph_dot(const at::Tensor& root,
                      const std::vector<std::pair<std::string, at::Tensor>>& named) {
  TORCH_CHECK(root.defined(), "graph_dot: the tensor is undefined; pass the result of a "
                              "computation on tensors that require grad.");
  const std::shared_ptr<Node>& root_fn = impl::grad_fn(root);
  TORCH_CHECK(root_fn != nullptr,
              "graph_dot: the tensor has no autograd graph (it is a leaf, or no input "
              "of the ops that made it requires grad); compute it from tensors created "
              "with requires_grad(true), outside torch::NoGradGuard.");
  std::unordered_map<const c10::TensorImpl*, std::string> name_of;
  for (const auto& [name, t] : named) {
    if (t.defined()) name_of.emplace(t.unsafeGetTensorImpl(), name);
  }

  std::string out =
      "digraph autograd {\n"
      "  graph [rankdir=BT];\n"
      "  node [shape=box, style=filled, fillcolor=lightgrey, fontname=\"monospace\", "
      "fontsize=10];\n"
      "  edge [fontname=\"monospace\", fontsize=9];\n";
  out += "  output [label=" +
         quoted("output\n" + shape_string(root.sizes().vec())) +
         ", fillcolor=darkolivegreen1];\n";

  std::unordered_map<const Node*, size_t> id_of;
  std::vector<const Node*> order;
  auto visit = [&](const Node* n) {
    auto [it, inserted] = id_of.emplace(n, order.size());
    if (inserted) order.push_back(n);
    return it->second;
  };
  out += "  n" + std::to_string(visit(root_fn.get())) + " -> output [label=" +
         quoted(shape_string(root_fn->input_metadata(impl::gradient_edge(root).input_nr)
                                 .shape())) +
         "];\n";
  // Breadth first over an explicit list: no recursion on deep graphs.
  for (size_t i = 0; i < order.size(); ++i) {
    const Node* n = order[i];
    std::string label = n->name();
    std::string color = "lightgrey";
    if (const auto* acc = dynamic_cast<const AccumulateGrad*>(n)) {
      const at::Tensor& v = acc->variable();
      auto it = name_of.find(v.unsafeGetTensorImpl());
      label = (it != name_of.end() ? it->second : std::string("leaf")) + "\n" +
              shape_string(v.sizes().vec());
      color = "lightblue";
    }
    out += "  n" + std::to_string(i) + " [label=" + quoted(label) + ", fillcolor=" + color +
           "];\n";
    // The tensors the Node saved for backward, as torchviz draws them:
    // orange boxes tied to their Node by a dotted line.
    const std::vector<SavedTensorInfo> saved = n->saved_tensors_info();
    for (size_t k = 0; k < saved.size(); ++k) {
      const SavedTensorInfo& t = saved[k];
      if (!t.defined) continue;
      std::string text = t.name + "\n";
      if (t.released) {
        text += "(freed by backward)";
      } else {
        text += shape_string(t.sizes);
        if (t.dtype != c10::ScalarType::Float) text += std::string(" ") + c10::toString(t.dtype);
      }
      const std::string id = "n" + std::to_string(i) + "s" + std::to_string(k);
      out += "  " + id + " [label=" + quoted(text) + ", fillcolor=orange];\n";
      out += "  " + id + " -> n" + std::to_string(i) + " [style=dotted, arrowhead=none];\n";
    }
    for (const Edge& e : n->next_edges()) {
      if (!e.is_valid()) continue;
      const size_t next = visit(e.function.get());
      // Drawn forward (input -> op); the label is the shape of the gradient
      // that flows back along the arrow.
      out += "  n" + std::to_string(next) + " -> n" + std::to_string(i) + " [label=" +
             quoted(shape_string(e.function->input_metadata(e.input_nr).shape())) + "];\n";
    }
  }
  out += "}\n";
  return out;
}

}  // namespace autograd
}  // namespace torch
