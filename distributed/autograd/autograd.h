// distributed/autograd/autograd.h — torch::distributed::autograd: backward
// passes over graphs that span workers, through RPC (seed 001).
//
// PyTorch's torch.distributed.autograd spelled in C++. Inside a context,
// every RPC whose arguments or results require grad records a send function
// on the sender and a recv function on the receiver, so the graph of a
// forward pass continues across workers; backward() runs it (FAST mode) and
// each worker accumulates the gradients of its own leaves in its copy of the
// context, never in .grad:
//
//   namespace dist_autograd = torch::distributed::autograd;
//   {
//     dist_autograd::context ctx;   // `with dist_autograd.context() as context_id`
//     at::Tensor t3 = rpc::rpc_sync("worker1", "aten::add.Tensor", {t1, t2}).toTensor();
//     at::Tensor loss = (t3 * t4).sum();
//     dist_autograd::backward(ctx.id(), {loss});
//     dist_autograd::GradientMap grads = dist_autograd::get_gradients(ctx.id());
//     grads.at(t1);                 // lookup by tensor (identity)
//   }                               // released on every worker it touched
//
// RPC must be initialized (rpc::init_rpc). Link //:ember_distributed. The
// design (contexts, send/recv functions, the FAST-mode engine) is described
// in docs/distributed.md and Note [FAST mode] in engine.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "aten/Tensor.h"

namespace torch {
namespace distributed {
namespace autograd {

// Hash and equality of a tensor by identity (its TensorImpl), as PyTorch's
// Dict[Tensor, Tensor] of get_gradients.
struct TensorIdentityHash {
  size_t operator()(const at::Tensor& t) const {
    return std::hash<const void*>()(t.unsafeGetTensorImpl());
  }
};
struct TensorIdentityEqual {
  bool operator()(const at::Tensor& a, const at::Tensor& b) const {
    return a.unsafeGetTensorImpl() == b.unsafeGetTensorImpl();
  }
};

// torch::distributed::autograd::GradientMap
//
// Leaf tensor -> its gradient accumulated in a context on this worker.
using GradientMap = std::unordered_map<at::Tensor, at::Tensor,
                                       TensorIdentityHash, TensorIdentityEqual>;

// torch::distributed::autograd::context
//
// RAII: creates a distributed autograd context with a globally unique id
// (this worker's rank << 48 | a counter) and makes it current on this
// thread; the destructor releases it here and on every worker it touched
// (asynchronously). Contexts do not nest on one thread. Not copyable.
class context {
 public:
  context();
  ~context();
  context(const context&) = delete;
  context& operator=(const context&) = delete;
  int64_t id() const { return id_; }

 private:
  int64_t id_;
};

// torch::distributed::autograd::backward
//
// Runs the backward pass of the context's graph from `roots` (tensors of
// one element that require grad, all on this worker), with FAST mode:
// every send function recorded in the context is expected to receive
// gradients. Returns when every worker involved is done; rethrows the first
// error, from another worker as "Error on Node <rank>: ...", after which
// the context is released on every other worker. retain_graph keeps the
// saved tensors for another backward in the same context.
void backward(int64_t context_id, const std::vector<at::Tensor>& roots,
              bool retain_graph = false);

// torch::distributed::autograd::get_gradients
//
// The gradients accumulated on this worker in the context (a copy of the
// map; the tensors are shared).
GradientMap get_gradients(int64_t context_id);

// The context current on this thread, or -1.
int64_t current_context_id();

namespace debug {

// Contexts alive on this worker (counted by the objects themselves, so one
// kept alive by a stray reference still shows). 0 once every context was
// left and its release reached this worker.
int64_t live_contexts();

}  // namespace debug

}  // namespace autograd
}  // namespace distributed
}  // namespace torch
