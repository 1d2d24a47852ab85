#include "autograd/functions/tensor.h"

#include "aten/Functions.h"
#include "autograd/generated/Functions.h"
#include "autograd/variable.h"

namespace torch {
namespace autograd {

CopySlices::CopySlices(const at::Tensor& base, const at::Tensor& view, std::shared_ptr<Node> fn)
    : base_sizes_(base.sizes().vec()),
      base_strides_(base.strides().vec()),
      view_sizes_(view.sizes().vec()),
      view_strides_(view.strides().vec()),
      view_offset_(view.storage_offset() - base.storage_offset()),
      fn_(std::move(fn)) {
  TORCH_INTERNAL_ASSERT(fn_ != nullptr && fn_->num_outputs() >= 1,
                        "CopySlices: the wrapped Node needs an edge for the view");
  add_input_metadata(base);
  edge_list edges;
  edges.reserve(fn_->num_outputs());
  edges.push_back(impl::gradient_edge(base));
  for (size_t i = 1; i < fn_->num_outputs(); ++i) edges.push_back(fn_->next_edge(i));
  fn_->next_edges()[0] = edges[0];
  set_next_edges(std::move(edges));
}

void CopySlices::release_variables() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!fn_) return;
  fn_->release_variables();
  // fn's edges all duplicate this Node's: dropping them here frees nothing,
  // and fn is then destroyed without recursing (Note [Deleting deep graphs]).
  fn_->next_edges().clear();
  fn_.reset();
}

variable_list CopySlices::apply(variable_list&& grads) {
  std::lock_guard<std::mutex> lock(mutex_);
  TORCH_CHECK(fn_ != nullptr, "Trying to backward through the graph a second time (or "
              "directly access saved tensors after they have already been freed). Saved "
              "intermediate values of the graph are freed when you call .backward() or "
              "autograd.grad(). Specify retain_graph=True if you need to backward through "
              "the graph a second time or if you need to access saved tensors after "
              "calling backward.");
  variable_list grad_inputs(num_outputs());
  const at::Tensor& grad = grads[0];
  if (!grad.defined()) return grad_inputs;
  // The base's gradient, laid out like the base so that the view's strides
  // and offset (relative to the base) pick out the view's elements.
  at::Tensor result = at::empty_strided(base_sizes_, base_strides_, grad.options());
  result.copy_(grad);
  at::Tensor grad_slice = result.as_strided(view_sizes_, view_strides_, view_offset_);
  variable_list res = (*fn_)({grad_slice.clone(at::MemoryFormat::Contiguous)});
  for (size_t i = 0; i < grad_inputs.size() && i < res.size(); ++i) {
    if (!should_compute_output(i)) continue;
    if (i == 0) {
      // The view's old values no longer reach the output: their gradient is
      // fn's gradient for its input, zero if fn has none (copy_, fill_).
      if (res[0].defined()) {
        grad_slice.copy_(res[0]);
      } else {
        grad_slice.zero_();
      }
      grad_inputs[0] = std::move(result);
    } else {
      grad_inputs[i] = std::move(res[i]);
    }
  }
  return grad_inputs;
}

std::shared_ptr<Node> make_view_of_base_node(const at::Tensor& view, const at::Tensor& base) {
  auto fn = make_node<generated::AsStridedBackward0>();
  fn->set_next_edges({impl::gradient_edge(base)});
  fn->self_sizes = base.sizes().vec();
  fn->self_strides = base.strides().vec();
  fn->self_storage_offset = base.storage_offset();
  fn->size_ = view.sizes().vec();
  fn->stride_ = view.strides().vec();
  fn->storage_offset_ = view.storage_offset();
  fn->add_input_metadata(view);
  return fn;
}

}  // namespace autograd
}  // namespace torch
