#include "autograd/engine.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "aten/Functions.h"
#include "autograd/FunctionsManual.h"
#include "autograd/anomaly_mode.h"
#include "autograd/engine_tls.h"
#include "autograd/functions/basic_ops.h"
#include "autograd/grad_mode.h"
#include "autograd/input_buffer.h"

namespace torch {
namespace autograd {

// ---- anomaly mode ------------------------------------------------------------------------

namespace {
std::atomic<bool> g_anomaly{false};
}  // namespace

bool AnomalyMode::is_enabled() { return g_anomaly.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool enabled) {
  g_anomaly.store(enabled, std::memory_order_relaxed);
}
DetectAnomalyGuard::DetectAnomalyGuard() : prev_(AnomalyMode::is_enabled()) {
  AnomalyMode::set_enabled(true);
}
DetectAnomalyGuard::~DetectAnomalyGuard() { AnomalyMode::set_enabled(prev_); }

// ---- graph tasks ---------------------------------------------------------------------------

struct ReadyQueue;

// Note [Dependency counts]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// The number of edges still to deliver a gradient to each Node of a graph
// task. Filled once per backward call for every reachable Node and then only
// looked up and decremented, so an open-addressing table (linear probing,
// power-of-two capacity, at most half full, no erasure: a Node whose count
// reached zero keeps its slot) replaces std::unordered_map's allocation per
// entry.
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

// What grad() with inputs needs of a Node: whether it must run, and which
// of its incoming gradients are results (captures).
struct ExecInfo {
  struct Capture {
    uint32_t input_nr;
    size_t output_idx;
  };
  bool needed = false;
  std::vector<Capture> captures;
};

// One backward call. Its Nodes run on the calling thread (CPU) through
// cpu_queue, or on device threads; outstanding counts pushed tasks not yet
// finished, and the task is complete when it reaches zero.
struct GraphTask {
  GraphTask(bool keep_graph, bool grad_mode, int depth)
      : keep_graph(keep_graph), grad_mode(grad_mode), reentrant_depth(depth) {}

  const bool keep_graph;
  const bool grad_mode;  // create_graph
  const int reentrant_depth;
  std::atomic<uint64_t> outstanding{0};
  std::atomic<bool> has_error{false};
  std::atomic<bool> completed{false};
  std::shared_ptr<ReadyQueue> cpu_queue;

  std::mutex mutex;  // guards the members below
  std::exception_ptr exception;
  DependencyCounts dependencies;  // See Note [Dependency counts]
  std::unordered_map<Node*, InputBuffer> not_ready;
  std::unordered_map<Node*, ExecInfo> exec_info;  // empty: run everything
  variable_list captured;
  std::vector<std::function<void()>> final_callbacks;
  std::condition_variable done_cv;  // signalled on completion
};

struct NodeTask {
  std::weak_ptr<GraphTask> base;
  std::shared_ptr<Node> fn;  // null: a wake-up for the owning thread
  InputBuffer inputs{0};
  int depth = 0;
  bool shutdown = false;
};

// Tasks ordered: shutdown, then wake-ups, then deeper reentrant passes,
// then the most recently created Node (highest sequence_nr).
struct CompareNodeTask {
  bool operator()(const NodeTask& a, const NodeTask& b) const {
    if (a.shutdown != b.shutdown) return b.shutdown;
    if ((a.fn == nullptr) != (b.fn == nullptr)) return a.fn != nullptr;
    if (a.depth != b.depth) return a.depth < b.depth;
    return a.fn->sequence_nr() < b.fn->sequence_nr();
  }
};

struct ReadyQueue {
  void push(NodeTask task) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      heap.push_back(std::move(task));
      std::push_heap(heap.begin(), heap.end(), CompareNodeTask());
    }
    cv.notify_one();
  }
  NodeTask pop() {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [this] { return !heap.empty(); });
    std::pop_heap(heap.begin(), heap.end(), CompareNodeTask());
    NodeTask task = std::move(heap.back());
    heap.pop_back();
    return task;
  }
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<NodeTask> heap;
};

namespace {

// The graph task this thread is running, and its reentrant depth.
thread_local GraphTask* tls_current_task = nullptr;
thread_local int tls_depth = 0;

}  // namespace

namespace detail {
bool current_task_needs(const Node* fn) {
  GraphTask* task = tls_current_task;
  if (task == nullptr || task->exec_info.empty()) return true;
  auto it = task->exec_info.find(const_cast<Node*>(fn));
  return it != task->exec_info.end() && (it->second.needed || !it->second.captures.empty());
}
}  // namespace detail

// ---- the engine ----------------------------------------------------------------------------

struct Engine::Impl {
  // One queue and one worker per non-CPU device, started on first use.
  std::mutex devices_mutex;
  std::map<std::pair<int, int>, std::shared_ptr<ReadyQueue>> device_queues;
  std::vector<std::thread> device_threads;

  std::shared_ptr<ReadyQueue> queue_for(GraphTask& task, c10::Device device) {
    if (device.type() == c10::DeviceType::CPU) return task.cpu_queue;
    std::lock_guard<std::mutex> lock(devices_mutex);
    const auto key = std::make_pair(static_cast<int>(device.type()),
                                    static_cast<int>(device.index()));
    auto it = device_queues.find(key);
    if (it != device_queues.end()) return it->second;
    auto queue = std::make_shared<ReadyQueue>();
    device_queues.emplace(key, queue);
    device_threads.emplace_back([this, queue] { device_thread_main(queue); });
    return queue;
  }

  void device_thread_main(const std::shared_ptr<ReadyQueue>& queue) {
    while (true) {
      NodeTask task = queue->pop();
      if (task.shutdown) return;
      std::shared_ptr<GraphTask> base = task.base.lock();
      if (!base) continue;
      run_task(base, std::move(task));
    }
  }

  // Runs one task of `base` on this thread and accounts for it.
  void run_task(const std::shared_ptr<GraphTask>& base, NodeTask task) {
    if (task.fn && !base->has_error.load()) {
      GraphTask* prev = tls_current_task;
      tls_current_task = base.get();
      at::AutoGradMode grad_mode(base->grad_mode);
      try {
        evaluate_function(base, task.fn, std::move(task.inputs));
      } catch (...) {
        set_error(*base, std::current_exception());
      }
      tls_current_task = prev;
    }
    if (--base->outstanding == 0) {
      mark_completed(*base);
      // Wake the thread waiting on the task's CPU queue.
      NodeTask wake;
      wake.base = base;
      base->cpu_queue->push(std::move(wake));
    }
  }

  static void set_error(GraphTask& task, std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(task.mutex);
    if (!task.has_error.exchange(true)) task.exception = std::move(e);
  }

  static void mark_completed(GraphTask& task) {
    // Final callbacks may queue further callbacks; run until none is left.
    if (!task.has_error.load()) {
      GraphTask* prev = tls_current_task;
      tls_current_task = &task;
      for (size_t i = 0;; ++i) {
        std::function<void()> callback;
        {
          std::lock_guard<std::mutex> lock(task.mutex);
          if (i >= task.final_callbacks.size()) break;
          callback = task.final_callbacks[i];
        }
        try {
          callback();
        } catch (...) {
          set_error(task, std::current_exception());
          break;
        }
      }
      tls_current_task = prev;
    }
    {
      std::lock_guard<std::mutex> lock(task.mutex);
      task.completed.store(true);
    }
    task.done_cv.notify_all();
  }

  // Checks a Node's outputs against the inputs of the Nodes they go to:
  // count, shape (a broadcastable gradient is summed down), dtype
  // (converted) and device.
  static void validate_outputs(const Node& fn, variable_list& grads) {
    const edge_list& edges = fn.next_edges();
    TORCH_CHECK(grads.size() == edges.size(), "Function ", fn.name(), " returned an "
                "incorrect number of gradients (expected ", edges.size(), ", got ",
                grads.size(), ")");
    for (size_t i = 0; i < grads.size(); ++i) {
      const Edge& edge = edges[i];
      if (!edge.is_valid() || !grads[i].defined()) continue;
      const InputMetadata& meta = edge.function->input_metadata(edge.input_nr);
      at::Tensor& grad = grads[i];
      if (!meta.is_same_shape(grad)) {
        const c10::IntArrayRef want(meta.shape());
        bool expandable = static_cast<size_t>(grad.dim()) >= want.size();
        for (size_t k = 0; expandable && k < want.size(); ++k) {
          const int64_t g = grad.size(grad.dim() - 1 - static_cast<int64_t>(k));
          const int64_t w = want[want.size() - 1 - k];
          expandable = g == w || w == 1;
        }
        TORCH_CHECK(expandable, "Function ", fn.name(), " returned an invalid gradient at "
                    "index ", i, " - got ", grad.sizes(), " but expected shape compatible "
                    "with ", want);
        grad = generated::details::sum_to(grad, want);
      }
      TORCH_CHECK(grad.device() == meta.device(), "Function ", fn.name(), " returned an "
                  "invalid gradient at index ", i, " - expected device ", meta.device(),
                  " but got ", grad.device());
      if (grad.scalar_type() != meta.dtype()) {
        at::Tensor converted = at::empty(grad.sizes(), grad.options().dtype(meta.dtype()));
        converted.copy_(grad);
        grad = std::move(converted);
      }
    }
  }

  static void check_anomaly(const Node& fn, const variable_list& grads) {
    for (size_t i = 0; i < grads.size(); ++i) {
      const at::Tensor& g = grads[i];
      if (!g.defined() || !c10::isFloatingType(g.scalar_type()) || g.numel() == 0) continue;
      // NaN is the only value not equal to itself.
      const bool has_nan = at::eq(g, g).sum().item<int64_t>() != g.numel();
      TORCH_CHECK(!has_nan, "Function '", fn.name(), "' returned nan values in its ", i,
                  "th output.", fn.forward_trace().empty() ? std::string()
                  : c10::str(" It was created by the forward op ", fn.forward_trace(), "."));
    }
  }

  void evaluate_function(const std::shared_ptr<GraphTask>& task,
                         const std::shared_ptr<Node>& fn, InputBuffer&& input_buffer) {
    variable_list inputs = InputBuffer::variables(std::move(input_buffer));
    if (!task->exec_info.empty()) {
      auto it = task->exec_info.find(fn.get());
      if (it != task->exec_info.end() && !it->second.captures.empty()) {
        // Captured gradients pass the Node's tensor hooks first (once).
        variable_list hooked = inputs;
        for (auto& hook : fn->tensor_pre_hooks()) hooked = (*hook)(hooked);
        std::lock_guard<std::mutex> lock(task->mutex);
        for (const auto& c : it->second.captures) {
          task->captured[c.output_idx] = hooked[c.input_nr];
        }
      }
      if (it == task->exec_info.end() || !it->second.needed) return;
    }
    variable_list outputs = (*fn)(std::move(inputs));
    validate_outputs(*fn, outputs);
    if (AnomalyMode::is_enabled()) check_anomaly(*fn, outputs);
    if (!task->keep_graph) fn->release_variables();

    std::lock_guard<std::mutex> lock(task->mutex);
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Edge& next = fn->next_edge(i);
      if (!next.is_valid()) continue;
      Node* key = next.function.get();
      bool ready = false;
      int* dep = task->dependencies.find(key);
      TORCH_INTERNAL_ASSERT(dep != nullptr && *dep > 0,
                            "dependency not found for ", next.function->name());
      if (--*dep == 0) ready = true;
      auto waiting = task->not_ready.find(key);
      if (waiting == task->not_ready.end()) {
        InputBuffer buffer(next.function->num_inputs());
        buffer.add(next.input_nr, std::move(outputs[i]));
        if (ready) {
          push(task, next.function, std::move(buffer));
        } else {
          task->not_ready.emplace(key, std::move(buffer));
        }
      } else {
        waiting->second.add(next.input_nr, std::move(outputs[i]));
        if (ready) {
          InputBuffer buffer = std::move(waiting->second);
          task->not_ready.erase(waiting);
          push(task, next.function, std::move(buffer));
        }
      }
    }
  }

  void push(const std::shared_ptr<GraphTask>& task, std::shared_ptr<Node> fn,
            InputBuffer&& inputs) {
    const c10::Device device = inputs.device();
    NodeTask t;
    t.base = task;
    t.fn = std::move(fn);
    t.inputs = std::move(inputs);
    t.depth = task->reentrant_depth;
    ++task->outstanding;
    queue_for(*task, device)->push(std::move(t));
  }

  // Runs the CPU side of `task` on this thread until it completes.
  void thread_main(const std::shared_ptr<GraphTask>& task) {
    const int prev_depth = tls_depth;
    tls_depth = task->reentrant_depth;
    while (!task->completed.load()) {
      NodeTask next = task->cpu_queue->pop();
      if (!next.fn) continue;  // a wake-up: re-check completion
      std::shared_ptr<GraphTask> base = next.base.lock();
      if (!base) continue;
      run_task(base, std::move(next));
    }
    tls_depth = prev_depth;
  }

  ~Impl() {
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(devices_mutex);
      for (auto& [key, queue] : device_queues) {
        NodeTask stop;
        stop.shutdown = true;
        queue->push(std::move(stop));
      }
      threads = std::move(device_threads);
    }
    for (auto& t : threads) t.join();
  }
};

Engine::Engine() : impl_(std::make_unique<Impl>()) {}
Engine::~Engine() = default;

Engine& Engine::get_default_engine() {
  // Leaked on purpose: backward passes may run during static destruction.
  static Engine* engine = new Engine();
  return *engine;
}

bool Engine::is_checkpoint_valid() { return tls_current_task != nullptr; }

void Engine::queue_callback(std::function<void()> callback) {
  GraphTask* task = tls_current_task;
  TORCH_CHECK(task != nullptr, "Final callbacks can only be installed during backward pass.");
  std::lock_guard<std::mutex> lock(task->mutex);
  task->final_callbacks.push_back(std::move(callback));
}

namespace {

// Counts, for every Node reachable from root, the edges leading to it.
void compute_dependencies(Node* root, GraphTask& task) {
  // A Node is pushed when it first gets a count; the root has none (no
  // edge leads to it) and is never reached again in a DAG.
  std::vector<Node*> stack{root};
  while (!stack.empty()) {
    Node* fn = stack.back();
    stack.pop_back();
    for (const Edge& e : fn->next_edges()) {
      Node* next = e.function.get();
      if (next == nullptr) continue;
      bool inserted = false;
      ++task.dependencies.at_or_insert(next, inserted);
      if (inserted) stack.push_back(next);
    }
  }
}

// grad()/backward(inputs=): marks the Nodes on a path from root to an output
// edge as needed, and records the captures.
void init_to_execute(Node* root, GraphTask& task, const edge_list& outputs,
                     bool accumulate_grad) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Edge& e = outputs[i];
    ExecInfo& info = task.exec_info[e.function.get()];
    if (accumulate_grad) {
      info.needed = true;
    } else {
      info.captures.push_back({e.input_nr, i});
    }
  }
  task.captured.resize(outputs.size());
  // Iterative post-order walk: a Node is needed if any child is needed or
  // captures.
  struct Frame {
    Node* fn;
    size_t next_child;
  };
  std::unordered_set<Node*> visited;
  std::vector<Frame> stack{{root, 0}};
  visited.insert(root);
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
      auto it = task.exec_info.find(e.function.get());
      if (it != task.exec_info.end() && (it->second.needed || !it->second.captures.empty())) {
        needed = true;
        break;
      }
    }
    if (needed) task.exec_info[fn].needed = true;
  }
}

}  // namespace

variable_list Engine::execute(const edge_list& roots, const variable_list& inputs,
                              bool keep_graph, bool create_graph, bool accumulate_grad,
                              const edge_list& outputs) {
  TORCH_CHECK(roots.size() == inputs.size(), "backward: got ", roots.size(),
              " roots but ", inputs.size(), " gradients; pass one gradient per root.");
  TORCH_CHECK(accumulate_grad || !outputs.empty(), "backward: grad() needs inputs "
              "to compute gradients for.");
  for (size_t i = 0; i < roots.size(); ++i) {
    TORCH_CHECK(roots[i].is_valid(), "element ", i, " of tensors does not require grad "
                "and does not have a grad_fn");
  }
  const bool reentrant = tls_current_task != nullptr;
  const int depth = reentrant ? tls_depth + 1 : 0;
  auto task = std::make_shared<GraphTask>(keep_graph, create_graph, depth);
  task->cpu_queue = std::make_shared<ReadyQueue>();

  std::shared_ptr<Node> root = make_node<GraphRoot>(roots, inputs);
  compute_dependencies(root.get(), *task);
  if (!outputs.empty()) init_to_execute(root.get(), *task, outputs, accumulate_grad);

  impl_->push(task, root, InputBuffer(0));
  if (depth < kMaxReentrantDepth) {
    impl_->thread_main(task);
  } else {
    // Too deep to recurse further on this stack: a fresh thread (starting at
    // depth 0 of its own stack) runs the task while this one waits.
    std::thread helper([this, task] {
      tls_depth = 0;
      impl_->thread_main(task);
    });
    helper.join();
  }
  if (task->has_error.load()) {
    std::exception_ptr e;
    {
      std::lock_guard<std::mutex> lock(task->mutex);
      e = task->exception;
    }
    std::rethrow_exception(e);
  }
  return std::move(task->captured);
}

}  // namespace autograd
}  // namespace torch
