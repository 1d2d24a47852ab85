#include "autograd/functions/basic_ops.h"

namespace torch {
namespace autograd {

GraphRoot::GraphRoot(edge_list functions, variable_list inputs)
    : Node(std::move(functions)), outputs_(std::move(inputs)) {
  // The gradients handed in were made on the caller's current stream: the
  // first Nodes they reach order their work after it. See Note [Streams of a
  // backward pass] in autograd/engine.cc.
  for (const at::Tensor& t : outputs_) {
    if (t.defined()) record_stream_of(t.device());
  }
}

variable_list GraphRoot::apply(variable_list&& /*inputs*/) { return outputs_; }

variable_list NotImplemented::apply(variable_list&& /*inputs*/) {
  C10_THROW_ERROR(NotImplementedError, "the derivative for '", op_,
                  "' is not implemented. Compute this op under torch::NoGradGuard "
                  "or on detached inputs if no gradient is needed through it.");
}

variable_list Error::apply(variable_list&& /*inputs*/) {
  C10_THROW_ERROR(Error, msg_);
}

}  // namespace autograd
}  // namespace torch
