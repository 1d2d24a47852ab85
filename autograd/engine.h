// autograd/engine.h — runs the backward pass of a graph.
//
// Engine::execute makes a GraphTask for one backward call: it counts, from
// the roots, how many gradients each Node waits for (iteratively, so graphs
// of any depth work), then runs Nodes whose inputs are complete, most recent
// first (by sequence_nr). CPU work runs on the calling thread through the
// GraphTask's own ready queue; each accelerator device gets one worker
// thread, started once, with its own queue. A backward called from inside a
// Node (reentrant backward) runs nested on the same thread, up to
// kMaxReentrantDepth, and on a pool thread beyond. The first error thrown by
// any Node (on any thread) stops the task and is rethrown to the caller; the
// engine stays usable.
#pragma once

#include <functional>
#include <memory>

#include "autograd/edge.h"
#include "autograd/function.h"

namespace torch {
namespace autograd {

struct GraphTask;

class Engine {
 public:
  static Engine& get_default_engine();

  // Computes the gradients of `roots` (with incoming gradients `inputs`,
  // one per root). keep_graph keeps saved tensors for another backward;
  // create_graph records the backward pass itself (higher-order gradients).
  // With `outputs` empty, gradients accumulate into the leaves' .grad
  // (accumulate_grad must be true); otherwise the gradients arriving along
  // those edges are returned, in order, and only the Nodes needed to reach
  // them run.
  variable_list execute(const edge_list& roots, const variable_list& inputs,
                        bool keep_graph, bool create_graph, bool accumulate_grad,
                        const edge_list& outputs = {});

  // Runs `callback` when the current backward pass finishes (after every
  // Node). Only valid while a backward pass runs on this thread.
  void queue_callback(std::function<void()> callback);

  // Whether this thread is running a backward pass.
  static bool is_checkpoint_valid();

  static constexpr int kMaxReentrantDepth = 60;

  ~Engine();

 private:
  Engine();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace autograd
}  // namespace torch
