// aten/VariableHooks.h — how at::Tensor reaches autograd.
//
// at::Tensor's autograd methods (grad_fn, backward, retain_grad,
// register_hook, …) live in the autograd package, which sits above aten.
// Autograd installs an implementation of this interface when the core
// library loads; aten calls through it. Internal: users call the methods on
// at::Tensor.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "c10/util/ArrayRef.h"

namespace torch {
namespace autograd {
struct Node;
}  // namespace autograd
}  // namespace torch

namespace at {

class Tensor;
using TensorList = c10::ArrayRef<Tensor>;

namespace impl {

struct VariableHooksInterface {
  virtual ~VariableHooksInterface() = default;
  virtual const std::shared_ptr<torch::autograd::Node>& grad_fn(const Tensor& self) const = 0;
  virtual const Tensor& grad(const Tensor& self) const = 0;
  virtual Tensor& mutable_grad(const Tensor& self) const = 0;
  virtual void set_requires_grad(const Tensor& self, bool requires_grad) const = 0;
  virtual bool is_leaf(const Tensor& self) const = 0;
  virtual int64_t output_nr(const Tensor& self) const = 0;
  virtual void retain_grad(const Tensor& self) const = 0;
  virtual bool retains_grad(const Tensor& self) const = 0;
  virtual void backward(const Tensor& self, const Tensor& gradient,
                        std::optional<bool> retain_graph, bool create_graph,
                        std::optional<TensorList> inputs) const = 0;
  virtual unsigned register_hook(const Tensor& self,
                                 std::function<Tensor(const Tensor&)> hook) const = 0;
  virtual void remove_hook(const Tensor& self, unsigned pos) const = 0;
  virtual void set_data(const Tensor& self, const Tensor& new_data) const = 0;
};

// Installs the hooks (once, from the autograd package; the object must live
// for the whole process).
void SetVariableHooks(VariableHooksInterface* hooks);
// The installed hooks; throws c10::Error when autograd is not linked.
VariableHooksInterface* GetVariableHooks();

}  // namespace impl
}  // namespace at
