// autograd/engine.h — runs the backward pass of a graph.
//
// Engine::execute makes a GraphTask (autograd/graph_task.h) for one backward
// call: it counts, from the roots, how many gradients each Node waits for
// (iteratively, so graphs of any depth work), then runs Nodes whose inputs
// are complete, most recent first (by sequence_nr). CPU work runs on the
// calling thread through the GraphTask's own ready queue; each accelerator
// device gets one worker thread, started once, with its own queue, which
// makes the device current through its registered runtime. Each Node runs
// under the stream its forward op ran on, and gradients crossing streams
// are ordered by events (Note [Streams of a backward pass] in
// autograd/engine.cc). A
// backward called from inside a Node (reentrant backward) runs nested on the
// same thread, up to kMaxReentrantDepth calls deep, and beyond that on a
// thread of a bounded pool, which starts counting the depth again. The first
// error thrown by any Node (on any thread) stops the task and is rethrown to
// the caller; the engine stays usable.
//
// Code that builds its own GraphTask (distributed autograd, from the
// receive functions of a backward that arrived over RPC) uses the pieces
// execute is made of: compute_dependencies, GraphTask::init_to_execute and
// execute_with_graph_task, whose Future carries the result or the error.
//
//   auto task = std::make_shared<GraphTask>(false, false, 0);
//   engine.compute_dependencies(root.get(), *task);
//   c10::intrusive_ptr<c10::ivalue::Future> fut =
//       engine.execute_with_graph_task(task, root, InputBuffer(0));
//   fut->waitAndThrow();   // the Tensor list of captures, or the error
#pragma once

#include <functional>
#include <memory>

#include "autograd/edge.h"
#include "autograd/function.h"
#include "autograd/graph_task.h"
#include "autograd/input_buffer.h"
#include "registration/Future.h"

namespace torch {
namespace autograd {

// torch::autograd::Engine
//
// One per process (get_default_engine); every member is thread-safe, and any
// number of threads may run backward passes at once (each on its own
// GraphTask).
class Engine {
 public:
  static Engine& get_default_engine();

  // torch::autograd::Engine::execute
  //
  // Computes the gradients of `roots` (with incoming gradients `inputs`,
  // one per root). keep_graph keeps saved tensors for another backward;
  // create_graph records the backward pass itself (higher-order gradients).
  // With `outputs` empty, gradients accumulate into the leaves' .grad
  // (accumulate_grad must be true); otherwise the gradients arriving along
  // those edges are returned, in order, and only the Nodes needed to reach
  // them run. Returns when the pass is complete; rethrows its first error.
  variable_list execute(const edge_list& roots, const variable_list& inputs,
                        bool keep_graph, bool create_graph, bool accumulate_grad,
                        const edge_list& outputs = {});

  // torch::autograd::Engine::execute_with_graph_task
  //
  // Runs `graph_task`, prepared by the caller (compute_dependencies from
  // `graph_root`, and init_to_execute if only some Nodes should run),
  // starting with `graph_root` and `input_buffer` as its gradients. Returns
  // graph_task->future_result_: the captured gradients (a Tensor list,
  // empty without captures) or the first error. On a thread that runs no
  // backward, and for a reentrant call within the depth limit, the calling
  // thread runs the task's CPU Nodes and the future is complete on return;
  // past the depth limit a pool thread runs them and the future may still
  // be pending. See Note [Threads of a graph task] in autograd/engine.cc.
  // A GraphTask runs once: passing it a second time throws.
  c10::intrusive_ptr<c10::ivalue::Future> execute_with_graph_task(
      const std::shared_ptr<GraphTask>& graph_task, std::shared_ptr<Node> graph_root,
      InputBuffer&& input_buffer);

  // torch::autograd::Engine::compute_dependencies
  //
  // Fills task.dependencies_ with, for every Node reachable from `root`,
  // the number of edges leading to it. Iterative. Call it once per
  // GraphTask, before execute_with_graph_task.
  void compute_dependencies(Node* root, GraphTask& task);

  // torch::autograd::Engine::queue_callback
  //
  // Runs `callback` when the current backward pass finishes (after every
  // Node). Only valid while a backward pass runs on this thread.
  void queue_callback(std::function<void()> callback);

  // Whether this thread is running a backward pass.
  static bool is_checkpoint_valid();

  // Reentrant backward calls nested on one thread before the next one goes
  // to the pool.
  static constexpr int kMaxReentrantDepth = 60;
  // Threads the reentrant pool may start. A chain of reentrant calls D deep
  // holds D / kMaxReentrantDepth of them at once; see Note [Reentrant pool]
  // in autograd/engine.cc for what happens when all are busy.
  static constexpr int kMaxReentrantPoolThreads = 32;

  ~Engine();

 private:
  Engine();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace autograd
}  // namespace torch
