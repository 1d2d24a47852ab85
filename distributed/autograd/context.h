// distributed/autograd/context.h — DistAutogradContext and
// DistAutogradContainer (seed 001's "distributed autograd context"):
// internal to libember_distributed.so; users see autograd.h.
//
//   auto& container = DistAutogradContainer::get_instance();
//   auto ctx = container.new_context();          // id: rank << 48 | counter
//   ctx->add_send_function(send, container.new_autograd_message_id());
//   container.retrieve_context(ctx->context_id()); // throws when unknown
//   container.release_context(ctx->context_id());  // here and on known workers
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

#include "autograd/graph_task.h"
#include "distributed/autograd/autograd.h"
#include "registration/Future.h"

namespace torch {
namespace distributed {
namespace autograd {

struct SendRpcBackward;
struct RecvRpcBackward;

// torch::distributed::autograd::BackwardPass
//
// The state of one backward pass of a context on this worker (Note [FAST
// mode] in engine.cc). Guarded by the context's mutex_.
struct BackwardPass {
  std::shared_ptr<torch::autograd::GraphTask> task;
  // Send functions (by message id) whose gradients have not arrived.
  std::map<int64_t, std::shared_ptr<torch::autograd::Node>> undelivered;
  // Deliveries that arrived before the root reserved their counts.
  std::vector<torch::autograd::NodeTask> early;
  bool reserved = false;  // the root added the undelivered to the count
  bool aborted = false;
  // The leaves whose gradients the task captures, in capture order.
  std::vector<at::Tensor> leaves;
  // Gradient RPCs sent by this worker's recv functions.
  std::vector<c10::intrusive_ptr<c10::ivalue::Future>> outstanding;
};

// torch::distributed::autograd::DistAutogradContext
//
// One context on one worker: its send and recv functions by message id
// (they keep the graph alive until the context is released), the workers
// it exchanged messages with, the gradients accumulated here, and the
// running backward pass. Thread-safe.
class DistAutogradContext {
 public:
  explicit DistAutogradContext(int64_t context_id);
  ~DistAutogradContext();
  DistAutogradContext(const DistAutogradContext&) = delete;
  DistAutogradContext& operator=(const DistAutogradContext&) = delete;

  int64_t context_id() const { return context_id_; }

  void add_known_worker_id(int worker_id);
  std::set<int> known_worker_ids() const;

  void add_send_function(std::shared_ptr<SendRpcBackward> fn, int64_t message_id);
  void add_recv_function(std::shared_ptr<RecvRpcBackward> fn, int64_t message_id);
  // Throws when the context has no send function with that id.
  std::shared_ptr<SendRpcBackward> retrieve_send_function(int64_t message_id);
  std::map<int64_t, std::shared_ptr<SendRpcBackward>> send_functions() const;
  // The same, for a caller that holds mutex_.
  const std::map<int64_t, std::shared_ptr<SendRpcBackward>>&
  send_functions_locked() const {
    return send_functions_;
  }
  size_t num_recv_functions() const;

  GradientMap get_gradients() const;
  // Adds `grad` to the gradient of `variable` (out of place).
  void accumulate_grad(const at::Tensor& variable, const at::Tensor& grad);

  // Guards everything below and the members above; the engine takes it too.
  mutable std::mutex mutex_;
  std::shared_ptr<BackwardPass> pass_;

 private:
  const int64_t context_id_;
  std::set<int> known_workers_;
  std::map<int64_t, std::shared_ptr<SendRpcBackward>> send_functions_;
  std::map<int64_t, std::shared_ptr<RecvRpcBackward>> recv_functions_;
  GradientMap gradients_;
};

using ContextPtr = std::shared_ptr<DistAutogradContext>;

// torch::distributed::autograd::DistAutogradContainer
//
// This worker's contexts by id, the id counters, and the thread-local
// current context. Ids are (rank << 48) | counter, so they are unique
// across workers. Thread-safe.
class DistAutogradContainer {
 public:
  static DistAutogradContainer& get_instance();

  // A new context, made current on this thread. Throws when RPC is not
  // initialized or a context is current already.
  ContextPtr new_context();
  // The context `id`, created if this worker has not seen it (a callee on
  // first contact).
  ContextPtr get_or_create_context(int64_t id);
  // Throws "... context <id> ..." when unknown here.
  ContextPtr retrieve_context(int64_t id) const;
  ContextPtr retrieve_context_if_present(int64_t id) const;
  // Removes the context here (aborting its pass) and sends its release to
  // every worker it knows but `except` (fire and forget). No-op if unknown.
  void release_context(int64_t id, int except = -1);
  int64_t new_autograd_message_id();

  static int64_t current_context_id();
  static void set_current_context_id(int64_t id);
  size_t num_autograd_contexts() const;

 private:
  DistAutogradContainer() = default;
  int64_t make_id(std::atomic<int64_t>& counter);
  mutable std::mutex mutex_;
  std::unordered_map<int64_t, ContextPtr> contexts_;
  // Relaxed: only uniqueness matters.
  std::atomic<int64_t> next_context_{1};
  std::atomic<int64_t> next_message_{1};
};

}  // namespace autograd
}  // namespace distributed
}  // namespace torch
