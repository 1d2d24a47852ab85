// autograd/graph_task.cc — GraphTask's construction and init_to_execute.
#include "autograd/graph_task.h"

#include <unordered_set>

#include "autograd/ready_queue.h"

namespace torch {
namespace autograd {

GraphTask::GraphTask(bool keep_graph, bool grad_mode, int reentrant_depth,
                     std::shared_ptr<ReadyQueue> cpu_ready_queue)
    : keep_graph_(keep_graph),
      grad_mode_(grad_mode),
      reentrant_depth_(reentrant_depth),
      cpu_ready_queue_(cpu_ready_queue ? std::move(cpu_ready_queue)
                                       : std::make_shared<ReadyQueue>()),
      future_result_(c10::make_intrusive<c10::ivalue::Future>()) {
  TORCH_CHECK(reentrant_depth >= 0, "GraphTask: reentrant_depth is ", reentrant_depth,
              "; it counts the backward passes enclosing this one, so pass 0 or more.");
}

void GraphTask::init_to_execute(Node& graph_root, const edge_list& outputs,
                                bool accumulate_grad) {
  TORCH_CHECK(exec_info_.empty(), "GraphTask::init_to_execute: the GraphTask already has "
              "execution info for ", exec_info_.size(), " Nodes. Call it once per GraphTask, "
              "before execute_with_graph_task.");
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Edge& e = outputs[i];
    TORCH_CHECK(e.is_valid(), "GraphTask::init_to_execute: output edge ", i, " has no "
                "Node. Pass the gradient edges of tensors that require grad.");
    ExecInfo& info = exec_info_[e.function.get()];
    if (accumulate_grad) {
      info.needed_ = true;
    } else {
      info.captures_.push_back({e.input_nr, i});
    }
  }
  captured_vars_.resize(outputs.size());
  // Iterative post-order walk: a Node is needed if any child is needed or
  // captures.
  struct Frame {
    Node* fn;
    size_t next_child;
  };
  std::unordered_set<Node*> visited;
  std::vector<Frame> stack{{&graph_root, 0}};
  visited.insert(&graph_root);
  while (!stack.empty()) {
    Frame& frame = stack.back();
    const edge_list& edges = frame.fn->next_edges();
    if (frame.next_child < edges.size()) {
      Node* child = edges[frame.next_child++].function.get();
      if (child != nullptr && visited.insert(child).second) stack.push_back({child, 0});
      continue;
    }
    Node* fn = frame.fn;
    stack.pop_back();
    bool needed = false;
    for (const Edge& e : fn->next_edges()) {
      auto it = exec_info_.find(e.function.get());
      if (it != exec_info_.end() && it->second.should_execute()) {
        needed = true;
        break;
      }
    }
    if (needed) exec_info_[fn].needed_ = true;
  }
}

}  // namespace autograd
}  // namespace torch
