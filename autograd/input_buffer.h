// autograd/input_buffer.h — the gradients arriving at a Node's inputs,
// summed where several arrive at the same one.
#pragma once

#include <vector>

#include "aten/Tensor.h"

namespace torch {
namespace autograd {

class InputBuffer {
 public:
  explicit InputBuffer(size_t size) : buffer_(size) {}
  InputBuffer(InputBuffer&&) = default;
  InputBuffer& operator=(InputBuffer&&) = default;

  // Adds `var` at position `pos` (keeps it when it is the first one there).
  void add(size_t pos, at::Tensor&& var);
  size_t size() const { return buffer_.size(); }
  // The device of the first gradient present (the CPU when there is none):
  // the engine runs the Node on that device's queue.
  c10::Device device() const {
    for (const at::Tensor& t : buffer_) {
      if (t.defined()) return t.device();
    }
    return c10::Device(c10::DeviceType::CPU);
  }
  static std::vector<at::Tensor> variables(InputBuffer&& g) { return std::move(g.buffer_); }

 private:
  std::vector<at::Tensor> buffer_;
};

}  // namespace autograd
}  // namespace torch
