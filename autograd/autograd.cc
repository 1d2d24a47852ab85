#include "autograd/autograd.h"

#include "aten/Functions.h"
#include "autograd/engine.h"
#include "autograd/variable.h"

namespace torch {
namespace autograd {
namespace {

// The roots and their incoming gradients (ones for one-element outputs when
// none is given), checked.
std::pair<edge_list, variable_list> make_roots(const variable_list& outputs,
                                               const variable_list& grad_outputs) {
  TORCH_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(),
              "backward: got ", outputs.size(), " tensors but ", grad_outputs.size(),
              " gradients; pass one gradient per tensor (or none for one-element "
              "tensors).");
  edge_list roots;
  variable_list grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const at::Tensor& out = outputs[i];
    TORCH_CHECK(out.defined() && out.requires_grad(), "element ", i, " of tensors does "
                "not require grad and does not have a grad_fn");
    at::Tensor g = grad_outputs.empty() ? at::Tensor() : grad_outputs[i];
    if (!g.defined()) {
      TORCH_CHECK(out.numel() == 1, "grad can be implicitly created only for scalar "
                  "outputs; output ", i, " has shape ", out.sizes(), ". Pass a gradient "
                  "of that shape (e.g. torch::ones_like(output)).");
      g = at::ones_like(out);
    } else {
      TORCH_CHECK(g.sizes() == out.sizes(), "Mismatch in shape: grad_output[", i,
                  "] has a shape of ", g.sizes(), " and output[", i, "] has a shape of ",
                  out.sizes(), ".");
      TORCH_CHECK(g.device() == out.device(), "backward: grad_output[", i, "] is on ",
                  g.device(), " but output[", i, "] is on ", out.device(), ".");
    }
    roots.push_back(impl::gradient_edge(out));
    grads.push_back(std::move(g));
  }
  return {std::move(roots), std::move(grads)};
}

edge_list input_edges(const variable_list& inputs) {
  edge_list edges;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const at::Tensor& in = inputs[i];
    TORCH_CHECK(in.defined() && in.requires_grad(), "One of the differentiated Tensors "
                "(input ", i, ") does not require grad");
    Edge e = impl::gradient_edge(in);
    TORCH_INTERNAL_ASSERT(e.is_valid(), "an input that requires grad has no edge");
    edges.push_back(std::move(e));
  }
  return edges;
}

}  // namespace

void backward(const variable_list& tensors, const variable_list& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph,
              const variable_list& inputs) {
  auto [roots, grads] = make_roots(tensors, grad_tensors);
  const edge_list outputs = input_edges(inputs);
  Engine::get_default_engine().execute(roots, grads, retain_graph.value_or(create_graph),
                                       create_graph, /*accumulate_grad=*/true, outputs);
}

variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs, std::optional<bool> retain_graph,
                   bool create_graph, bool allow_unused) {
  TORCH_CHECK(!inputs.empty(), "grad requires at least one input.");
  auto [roots, grads] = make_roots(outputs, grad_outputs);
  const edge_list edges = input_edges(inputs);
  variable_list result = Engine::get_default_engine().execute(
      roots, grads, retain_graph.value_or(create_graph), create_graph,
      /*accumulate_grad=*/false, edges);
  for (size_t i = 0; i < result.size(); ++i) {
    TORCH_CHECK(allow_unused || result[i].defined(), "One of the differentiated Tensors "
                "appears to not have been used in the graph. Set allow_unused=True if "
                "this is the desired behavior.");
  }
  return result;
}

}  // namespace autograd
}  // namespace torch
