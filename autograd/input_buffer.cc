#include "autograd/input_buffer.h"

#include "aten/Functions.h"

namespace torch {
namespace autograd {

void InputBuffer::add(size_t pos, at::Tensor&& var) {
  TORCH_INTERNAL_ASSERT(pos < buffer_.size(), "InputBuffer::add: position ", pos,
                        " out of range for ", buffer_.size(), " inputs");
  if (!var.defined()) return;
  at::Tensor& old = buffer_[pos];
  if (!old.defined()) {
    old = std::move(var);
    return;
  }
  // Out of place: either side may be referenced elsewhere (a captured
  // gradient, a retained .grad), and under create_graph the sum must have
  // history.
  old = at::add(old, var);
}

}  // namespace autograd
}  // namespace torch
