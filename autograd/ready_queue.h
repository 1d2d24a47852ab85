// autograd/ready_queue.h — ReadyQueue, the Nodes ready to run, in the order
// the engine runs them.
//
// Each GraphTask started outside a device thread has a queue of its own for
// its CPU Nodes (drained by the thread running the task); each accelerator
// device has one queue shared by every task (drained by that device's
// thread). See Note [Threads of a graph task] in autograd/engine.cc.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "autograd/graph_task.h"

namespace torch {
namespace autograd {

// torch::autograd::CompareNodeTask
//
// The priority of NodeTasks (true when `a` runs after `b`): the shutdown
// order first, then wake-ups (all equal: a device's queue may hold several,
// one per reentrant task completed on it), then tasks of deeper reentrant
// passes, then the most recently created Node (highest sequence_nr), as in
// PyTorch.
struct CompareNodeTask {
  bool operator()(const NodeTask& a, const NodeTask& b) const {
    if (a.is_shutdown_task_ != b.is_shutdown_task_) return b.is_shutdown_task_;
    if (a.fn_ == nullptr || b.fn_ == nullptr) return a.fn_ != nullptr && b.fn_ == nullptr;
    if (a.reentrant_depth_ != b.reentrant_depth_) {
      return a.reentrant_depth_ < b.reentrant_depth_;
    }
    return a.fn_->sequence_nr() < b.fn_->sequence_nr();
  }
};

// torch::autograd::ReadyQueue
//
// A heap of NodeTasks under a mutex. Thread-safe: any thread pushes, and
// pop() blocks until there is a task. It does not count the GraphTask's
// outstanding tasks; the engine does that before pushing.
struct ReadyQueue {
  void push(NodeTask task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      heap_.push_back(std::move(task));
      std::push_heap(heap_.begin(), heap_.end(), CompareNodeTask());
    }
    not_empty_.notify_one();
  }
  // Asks the thread draining this queue to return (device threads).
  void push_shutdown_task() {
    NodeTask stop;
    stop.is_shutdown_task_ = true;
    push(std::move(stop));
  }
  // The first task in CompareNodeTask's order; waits for one.
  NodeTask pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    not_empty_.wait(lock, [this] { return !heap_.empty(); });
    std::pop_heap(heap_.begin(), heap_.end(), CompareNodeTask());
    NodeTask task = std::move(heap_.back());
    heap_.pop_back();
    return task;
  }
  bool empty() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return heap_.empty();
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return heap_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable not_empty_;
  std::vector<NodeTask> heap_;
};

}  // namespace autograd
}  // namespace torch
