// autograd/saved_variable.h — a tensor a Node keeps for its backward.
//
// Saves the tensor and its version at save time; unpack() refuses a tensor
// changed in place since (PyTorch's message), and one already released by a
// backward without retain_graph. An op's own output is saved without its
// grad_fn (that would be a reference cycle) and gets it back on unpack.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aten/Tensor.h"

namespace torch {
namespace autograd {

struct Node;

// torch::autograd::SavedTensorInfo — what a Node saved, as a picture of the
// graph shows it (graph_dot): the name of the forward argument or result
// ("self", "result", "tensors[1]"), the tensor's sizes and dtype, or that it
// was released by a backward pass without retain_graph.
struct SavedTensorInfo {
  std::string name;
  bool defined = false;   // an undefined tensor (an optional argument) was saved
  bool released = false;  // freed after a backward pass
  std::vector<int64_t> sizes;
  c10::ScalarType dtype = c10::ScalarType::Undefined;
};

class SavedVariable {
 public:
  SavedVariable() = default;
  SavedVariable(const at::Tensor& variable, bool is_output);

  // The saved tensor; `saved_for` is the Node that saved it (needed for
  // saved outputs).
  at::Tensor unpack(const std::shared_ptr<Node>& saved_for = nullptr) const;
  // Frees the tensor; a later unpack() throws.
  void reset_data();
  bool defined() const { return was_defined_; }
  // Describes the saved tensor under `name` without unpacking it. Read it
  // while no backward pass releases the Node's tensors.
  SavedTensorInfo info(std::string name) const;

 private:
  // The input itself, or (for an output) a copy without history.
  at::Tensor data_;
  std::weak_ptr<Node> grad_fn_at_save_;  // for the in-place error message
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool was_defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
};

}  // namespace autograd
}  // namespace torch
