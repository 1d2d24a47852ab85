// distributed/autograd/engine.h — DistEngine: FAST-mode backward passes
// over a distributed autograd context, on the shared autograd Engine
// (Note [FAST mode] in engine.cc). Internal to libember_distributed.so.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

#include "distributed/autograd/context.h"
#include "registration/Future.h"

namespace torch {
namespace distributed {
namespace autograd {

class DistEngine {
 public:
  // The pass started by backward() on this worker (the roots are local).
  // Blocks until every worker involved is done; rethrows the first error.
  static void execute(int64_t context_id, const std::vector<at::Tensor>& roots,
                      bool retain_graph);

  // BACKWARD_AUTOGRAD_REQ: `grads` for the send function `message_id` of
  // the context. On the first contact of a pass with this worker, the pass
  // starts here, on a thread of `post`, and the Future completes when it
  // and the RPCs it made are done; later deliveries join the running pass
  // and complete at once.
  static c10::intrusive_ptr<c10::ivalue::Future> execute_send_function_async(
      int64_t context_id, int64_t message_id,
      std::vector<at::Tensor> grads, bool retain_graph,
      const std::function<void(std::function<void()>)>& post);

  // Stops the context's running pass, if any, with `error` (its waiting
  // thread returns). Takes the context's mutex.
  static void abort(DistAutogradContext& ctx, std::exception_ptr error);

  // Records a gradient RPC of the running pass: its failure aborts it.
  static void add_outstanding_rpc(const ContextPtr& ctx,
                                  c10::intrusive_ptr<c10::ivalue::Future> rpc);
};

}  // namespace autograd
}  // namespace distributed
}  // namespace torch
