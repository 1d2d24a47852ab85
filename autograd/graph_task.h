// autograd/graph_task.h — GraphTask, the state of one backward pass, and
// NodeTask, one Node ready to run in it. Public so that code above the core
// engine (distributed autograd) can build a GraphTask from roots of its own
// and run it through Engine::execute_with_graph_task.
//
//   auto task = std::make_shared<GraphTask>(/*keep_graph=*/false,
//                                           /*grad_mode=*/false,
//                                           /*reentrant_depth=*/0);
//   Engine& engine = Engine::get_default_engine();
//   engine.compute_dependencies(root.get(), *task);
//   auto fut = engine.execute_with_graph_task(task, root, InputBuffer(0));
//   fut->waitAndThrow();
//
// Engine::execute does exactly this for backward() and grad(). Everything a
// caller sets (exec_info_ through init_to_execute, the dependencies) is set
// before execute_with_graph_task; from then on the engine owns the task's
// state and the caller reads only future_result_.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "autograd/edge.h"
#include "autograd/function.h"
#include "autograd/input_buffer.h"
#include "registration/Future.h"

namespace torch {
namespace autograd {

struct ReadyQueue;

// Note [Dependency counts]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// The number of edges still to deliver a gradient to each Node of a graph
// task. Filled once per backward call for every reachable Node and then only
// looked up and decremented, so an open-addressing table (linear probing,
// power-of-two capacity, at most half full, no erasure: a Node whose count
// reached zero keeps its slot) replaces std::unordered_map's allocation per
// entry. GraphTask's other maps (not_ready_, exec_info_) stay
// std::unordered_map: not_ready_ only holds Nodes with more than one input
// waiting (single-input Nodes never enter it) and exec_info_ is built only for
// grad() and backward(inputs=), so neither is on every Node's path.

// torch::autograd::DependencyCounts
//
// The table of Note [Dependency counts]. Not thread-safe: GraphTask guards it
// with its mutex_.
class DependencyCounts {
 public:
  // The count of `fn`, inserted at 0 if absent; `inserted` tells which.
  int& at_or_insert(Node* fn, bool& inserted) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    Slot& slot = probe(fn);
    inserted = slot.fn == nullptr;
    if (inserted) {
      slot.fn = fn;
      ++size_;
    }
    return slot.count;
  }
  // The count of `fn`, or null when `fn` is not part of the task.
  int* find(Node* fn) {
    if (slots_.empty()) return nullptr;
    Slot& slot = probe(fn);
    return slot.fn == nullptr ? nullptr : &slot.count;
  }
  size_t size() const { return size_; }

 private:
  struct Slot {
    Node* fn = nullptr;
    int count = 0;
  };
  Slot& probe(Node* fn) {
    const size_t mask = slots_.size() - 1;
    // Fibonacci hashing of the address (its low bits are alignment zeros).
    size_t i = (reinterpret_cast<uintptr_t>(fn) * 0x9E3779B97F4A7C15ull) >> 20 & mask;
    while (slots_[i].fn != nullptr && slots_[i].fn != fn) i = (i + 1) & mask;
    return slots_[i];
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    for (const Slot& s : old) {
      if (s.fn != nullptr) probe(s.fn) = s;
    }
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

// torch::autograd::GraphTask
//
// One backward pass: which Nodes it runs, how many gradients each still
// waits for, the buffers of those waiting, what it returns, and how it ends.
// Shared (std::shared_ptr) by the caller, the engine and every NodeTask
// queued for it (those hold it weakly). Members marked "before execution"
// are written only by the thread that builds the task, before it calls
// Engine::execute_with_graph_task, and are read-only afterwards; the others
// are guarded as each says.
struct GraphTask {
  // keep_graph: keep saved tensors for another backward (retain_graph).
  // grad_mode: record the backward pass itself (create_graph).
  // reentrant_depth: how many backward passes enclose this one (0 for a
  // pass started outside any backward).
  // cpu_ready_queue: where this task's CPU Nodes go; null makes a new queue
  // of the task's own, drained by the thread that runs the task (see
  // Note [Threads of a graph task] in autograd/engine.cc).
  GraphTask(bool keep_graph, bool grad_mode, int reentrant_depth,
            std::shared_ptr<ReadyQueue> cpu_ready_queue = nullptr);

  // torch::autograd::GraphTask::ExecInfo
  //
  // What grad() (or backward with inputs) needs of a Node: whether it must
  // run, and which of its incoming gradients are results (captures).
  struct ExecInfo {
    struct Capture {
      uint32_t input_nr;   // which input of the Node
      size_t output_idx;   // where in captured_vars_
    };
    bool should_execute() const { return needed_ || !captures_.empty(); }
    bool needed_ = false;
    std::vector<Capture> captures_;
  };

  // torch::autograd::GraphTask::init_to_execute
  //
  // Limits the task to the Nodes on a path from `graph_root` to one of
  // `outputs` (before execution). With accumulate_grad, the Nodes of
  // `outputs` run (AccumulateGrad writes .grad); without, the gradients
  // arriving along `outputs` are captured in order and become the future's
  // value. Iterative, so graphs of any depth work.
  void init_to_execute(Node& graph_root, const edge_list& outputs, bool accumulate_grad);

  // Whether the pass needs `fn` to run (always, with exec_info_ empty).
  bool needs(const Node* fn) const {
    if (exec_info_.empty()) return true;
    auto it = exec_info_.find(const_cast<Node*>(fn));
    return it != exec_info_.end() && it->second.should_execute();
  }

  const bool keep_graph_;
  const bool grad_mode_;
  const int reentrant_depth_;

  // NodeTasks pushed and not yet finished; the task is complete when it
  // returns to zero. Incremented (relaxed) before each push, decremented
  // (acq_rel) after each NodeTask ran; see Note [Completing a graph task] in
  // autograd/engine.cc for why those orders suffice.
  std::atomic<uint64_t> outstanding_tasks_{0};
  // Whether a Node (or final callback) threw. Set under mutex_ together with
  // exception_; read without the lock (relaxed) only to skip the remaining
  // Nodes early: a reader that misses a concurrent set runs one more Node
  // whose result is discarded, and the completing thread reads it after the
  // acquire of the last decrement, which orders every earlier set.
  std::atomic<bool> has_error_{false};

  // Where this task's CPU Nodes are queued (before execution).
  std::shared_ptr<ReadyQueue> cpu_ready_queue_;

  // Guards exception_, dependencies_, not_ready_ and captured_vars_.
  std::mutex mutex_;
  // The first error; goes to future_result_ when the task completes.
  std::exception_ptr exception_;
  // Gradients each Node still waits for (filled by
  // Engine::compute_dependencies before execution). See Note [Dependency
  // counts].
  DependencyCounts dependencies_;
  // Nodes that got some, but not all, of their gradients.
  std::unordered_map<Node*, InputBuffer> not_ready_;
  // Empty: run every Node reachable from the root. Otherwise only those
  // whose entry should_execute() (see init_to_execute). Before execution.
  std::unordered_map<Node*, ExecInfo> exec_info_;
  // The gradients init_to_execute's captures collect, in `outputs` order.
  std::vector<at::Tensor> captured_vars_;

  // Callbacks queued with Engine::queue_callback; they run in order once
  // every Node has run (and no error occurred). Guarded by
  // final_callbacks_lock_, which callbacks may retake to queue more.
  std::vector<std::function<void()>> final_callbacks_;
  std::mutex final_callbacks_lock_;

  // Completed when the task is: with captured_vars_ as a Tensor list, or
  // with the first error. Created with the task, so a caller may hand it
  // out (or wait on it from another thread) before execution starts.
  const c10::intrusive_ptr<c10::ivalue::Future> future_result_;
};

// torch::autograd::NodeTask
//
// One entry of a ReadyQueue: a Node of a GraphTask with its gradients, a
// wake-up for the thread draining the queue (fn_ null), or the order to
// stop a device thread (is_shutdown_task_).
struct NodeTask {
  NodeTask() = default;
  NodeTask(std::weak_ptr<GraphTask> base, std::shared_ptr<Node> fn, InputBuffer inputs,
           bool is_shutdown_task = false)
      : base_(std::move(base)), fn_(std::move(fn)), inputs_(std::move(inputs)),
        is_shutdown_task_(is_shutdown_task) {}

  std::weak_ptr<GraphTask> base_;
  std::shared_ptr<Node> fn_;
  InputBuffer inputs_{0};
  // The GraphTask's reentrant depth: deeper (inner) passes run first on a
  // shared queue, so that an outer pass waiting for them does not starve.
  int reentrant_depth_ = 0;
  bool is_shutdown_task_ = false;
};

}  // namespace autograd
}  // namespace torch
