// distributed/autograd/functions.h — the send and recv functions that join
// the autograd graphs of two workers at an RPC (seed 001).
//
// SendRpcBackward sits on the sender of tensors that require grad: its
// next edges are the sent tensors' gradient edges, and its inputs, the
// gradients of those tensors, arrive by RPC from the receiver during the
// backward pass; it passes them on. RecvRpcBackward is the grad_fn of the
// received tensors on the receiver: it sends the gradients it gets to the
// sender's SendRpcBackward (BACKWARD_AUTOGRAD_REQ) and has no next edges.
// Both are recorded in the context under the pair's message id.
#pragma once

#include <memory>
#include <string>

#include "autograd/function.h"
#include "distributed/autograd/context.h"

namespace torch {
namespace distributed {
namespace autograd {

// torch::distributed::autograd::SendRpcBackward
struct SendRpcBackward : torch::autograd::Node {
  std::string name() const override { return "SendRpcBackward"; }

 protected:
  torch::autograd::variable_list apply(
      torch::autograd::variable_list&& grads) override {
    return std::move(grads);
  }
};

// torch::distributed::autograd::RecvRpcBackward
//
// `from_worker` sent the tensors, whose send function has `message_id` in
// the context.
struct RecvRpcBackward : torch::autograd::Node {
  RecvRpcBackward(std::weak_ptr<DistAutogradContext> context, int from_worker,
                  int64_t message_id)
      : context_(std::move(context)),
        from_worker_(from_worker),
        message_id_(message_id) {}
  std::string name() const override { return "RecvRpcBackward"; }
  int from_worker() const { return from_worker_; }
  int64_t message_id() const { return message_id_; }

 protected:
  torch::autograd::variable_list apply(
      torch::autograd::variable_list&& grads) override;

 private:
  std::weak_ptr<DistAutogradContext> context_;
  const int from_worker_;
  const int64_t message_id_;
};

}  // namespace autograd
}  // namespace distributed
}  // namespace torch
