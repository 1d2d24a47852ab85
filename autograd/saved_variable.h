// autograd/saved_variable.h — a tensor a Node keeps for its backward.
//
// Saves the tensor and its version at save time; unpack() refuses a tensor
// changed in place since (PyTorch's message), and one already released by a
// backward without retain_graph. An op's own output is saved without its
// grad_fn (that would be a reference cycle) and gets it back on unpack.
#pragma once

#include <cstdint>
#include <memory>

#include "aten/Tensor.h"

namespace torch {
namespace autograd {

struct Node;

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
