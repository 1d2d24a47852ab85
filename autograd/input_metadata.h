// autograd/input_metadata.h — what a Node expects of the gradient arriving
// at one of its inputs (the shape, dtype and device of the forward output it
// belongs to). The engine checks every incoming gradient against it.
#pragma once

#include <string>
#include <vector>

#include "aten/Tensor.h"

namespace torch {
namespace autograd {

struct InputMetadata {
  InputMetadata() = default;
  explicit InputMetadata(const at::Tensor& t)
      : shape_(t.sizes().vec()), dtype_(t.scalar_type()), device_(t.device()) {}

  const std::vector<int64_t>& shape() const { return shape_; }
  c10::ScalarType dtype() const { return dtype_; }
  c10::Device device() const { return device_; }
  bool is_same_shape(const at::Tensor& grad) const {
    return grad.sizes() == c10::IntArrayRef(shape_);
  }

 private:
  std::vector<int64_t> shape_;
  c10::ScalarType dtype_ = c10::ScalarType::Float;
  c10::Device device_{c10::DeviceType::CPU};
};

}  // namespace autograd
}  // namespace torch
