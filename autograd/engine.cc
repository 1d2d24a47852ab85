// autograd/engine.cc — the scheduling of backward passes: which thread runs
// which Node, when a GraphTask is complete, reentrant calls and their pool.
// The data it schedules is in graph_task.h and ready_queue.h; anomaly mode's
// check is in anomaly_mode.cc.
#include "autograd/engine.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "aten/Functions.h"
#include "autograd/FunctionsManual.h"
#include "autograd/anomaly_mode.h"
#include "autograd/engine_tls.h"
#include "autograd/functions/basic_ops.h"
#include "autograd/grad_mode.h"
#include "autograd/ready_queue.h"
#include "c10/core/StreamGuard.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "registration/record_function.h"

namespace torch {
namespace autograd {

// Note [Threads of a graph task]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The thread that calls execute_with_graph_task runs the task's CPU Nodes
// itself, draining the task's cpu_ready_queue_ until the task completes,
// and returns the completed future. This holds for a user's thread calling
// backward(), and equally for a thread that runs no backward of its own,
// such as an RPC thread that built a GraphTask from receive functions: it
// does the work, and any other thread may wait on future_result_ (which
// exists from the task's construction) meanwhile. The alternative, handing
// CPU work to an engine thread and returning a pending future at once,
// costs a hand-off per backward call and leaves the caller's thread idle;
// a caller that must not block (an RPC thread serving requests) calls
// execute_with_graph_task from a thread it can spare instead.
//
// Nodes whose gradients are on an accelerator go to that device's queue,
// drained by the device's one thread (device_thread_main); gradients they
// produce for CPU Nodes come back to the task's cpu_ready_queue_. A device
// thread makes its device current once, when it starts, through the
// runtime registered for the device type (c10::impl::getDeviceGuardImpl),
// so every Node of the device runs with it; a device type without a runtime
// gets a thread all the same, which then changes no device. Each Node runs
// under its own stream; see Note [Streams of a backward pass].
//
// A backward called from inside a Node (reentrant) runs the new task nested
// on the same thread, up to Engine::kMaxReentrantDepth calls on one stack,
// draining the new task's queue while the outer task waits. On a device
// thread the new task's CPU queue is the device's queue itself, so the
// thread keeps serving its device (other tasks' Nodes included) while it
// waits; the nested loop returns once its task is complete, which may leave
// that task's wake-up in the device's queue, where the device thread skips
// it (and CompareNodeTask treats wake-ups as equal). Past the depth limit the task goes to the reentrant pool (Note
// [Reentrant pool]) and the calling thread blocks until the pool thread is
// done with it.

// Note [Reentrant pool]
// ~~~~~~~~~~~~~~~~~~~~~
// Threads that run GraphTasks a reentrant call could not nest any deeper. A
// thread is started when a task arrives and every existing one is busy (up
// to Engine::kMaxReentrantPoolThreads; a thread whose task is complete
// counts as free), and is kept for the next task, so
// the number of threads follows the deepest chains running at once (a chain
// D deep holds D / kMaxReentrantDepth threads, each waiting for the next),
// not the number of calls. A pool thread starts each task at depth 0: a
// chain of any length nests kMaxReentrantDepth calls per stack. When every
// allowed thread is busy, the caller nests the task on its own stack instead
// of queueing it: a queued task could wait for a thread that is itself
// waiting for the caller, and nesting deeper only risks the stack in chains
// kMaxReentrantPoolThreads * kMaxReentrantDepth deep. A task started on a
// device thread drains that device's queue, so the pool thread running it
// stands in for the device thread while it does: it makes the same device
// current, with the stream that was current on the calling thread (the
// stream of the Node that called backward), and treats the device's queue
// as its own (tls_device_queue), so that a reentrant call on the pool
// thread nests on that queue too and the device's Nodes keep a thread that
// drains them; the calling device thread is blocked meanwhile. It restores
// its own device, stream and queue when the task is done.
//
// The caller waits until the worker has let go of the task, not only until
// the task's future completes: the worker holds no reference to the task
// after that, so the task (its error, its buffers) is released on the
// caller's thread and in an order ThreadSanitizer can see. Waiting on the
// future alone leaves the worker holding the task for a moment; when the
// task failed, the worker could then free the exception object after the
// caller had read it, ordered only by libstdc++'s exception_ptr count, which
// is not instrumented (a data race to TSan).

// Note [Streams of a backward pass]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// As in PyTorch, each backward Node runs on the stream its forward op ran
// on, and gradients passed between Nodes on different streams are ordered
// by events, so a backward pass is as correct as its forward with no
// synchronization written by the user:
//   - Node::stream() is recorded when the Node gets its first input on a
//     device other than the CPU (Node::add_input_metadata, which runs right
//     after the forward op): the thread's current stream on that device.
//     GraphRoot records the caller's current stream, the one the incoming
//     gradients were made on. CPU Nodes, and devices whose type has no
//     runtime registered, record none.
//   - evaluate_function runs a Node's hooks and apply() under a
//     c10::OptionalStreamGuard of its stream (which also makes the stream's
//     device current), so the kernels of the backward queue on it.
//   - Each output goes to the next Node's InputBuffer with both streams
//     (the producer's and the consumer's). InputBuffer::add makes the
//     stream that will use the gradient wait for the one that made it: it
//     records a c10::Event on the producer's stream and blocks the
//     consumer's stream on it, only when the two differ, without blocking
//     any thread; a sum of two gradients runs on the consumer's stream
//     after both waits. Gradients on the CPU skip all of this after one
//     compare of the device type.
// The CPU pays one load of Node::stream_ per Node (a branch, no guard
// object) and a device-type compare per gradient; the registry is asked
// only off the CPU. Not yet
// done as PyTorch does: making the caller's current streams wait for the
// streams of the leaves (AccumulateGrad) when backward() returns, and
// telling a caching allocator that a gradient is used on another stream
// (record_stream); the device runtime has no hook for the latter yet.

// Note [Completing a graph task]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// outstanding_tasks_ counts NodeTasks pushed and not yet run. A push
// increments it (relaxed) on a thread that already holds a count that cannot
// drop meanwhile: the caller before the first push, or a running Node whose
// own decrement comes later. So the count cannot reach zero while work is
// pending, and the increment orders nothing. Each decrement is acq_rel: the
// release publishes what the Node did (its captures, its gradients in
// not_ready_, errors), and the thread whose decrement reaches zero acquires
// all of them through the release sequence before it runs the final
// callbacks and completes future_result_. That thread alone completes the
// task, then wakes the thread draining the task's CPU queue, which sees the
// future complete (Future::completed() is an acquire load) and returns.

namespace {

// The graph task whose Node (or final callback) this thread runs; null
// between Nodes of an outermost pass and on threads running no backward.
thread_local GraphTask* tls_current_task = nullptr;
// execute_with_graph_task calls running nested on this thread's stack.
thread_local int tls_depth = 0;
// On a device thread, the queue it drains (a reentrant task's CPU queue
// there), and its device; null and nullopt elsewhere. A pool thread sets
// both while it runs a task started on a device thread (Note [Reentrant
// pool]).
thread_local std::shared_ptr<ReadyQueue> tls_device_queue;
thread_local std::optional<c10::Device> tls_device;

}  // namespace

namespace detail {
bool current_task_needs(const Node* fn) {
  GraphTask* task = tls_current_task;
  return task == nullptr || task->needs(fn);
}
}  // namespace detail

// ---- the engine ----------------------------------------------------------------------------

struct Engine::Impl {
  // One queue and one worker per non-CPU device, started on first use.
  std::mutex devices_mutex;
  std::map<std::pair<int, int>, std::shared_ptr<ReadyQueue>> device_queues;
  std::vector<std::thread> device_threads;

  // The reentrant pool; see Note [Reentrant pool]. Guarded by pool_mutex.
  // A task handed to the pool, owned by the calling thread's stack frame,
  // which waits until `done` (the worker has let go of it). `device` is set
  // when the task drains a device's queue (it was started on that device's
  // thread), `stream` when that device has a runtime: the caller's current
  // stream there.
  struct PoolJob {
    const std::shared_ptr<GraphTask>& task;
    std::optional<c10::Device> device;
    std::optional<c10::Stream> stream;
    bool done = false;
  };
  struct PoolWorker {
    std::thread thread;
    PoolJob* job = nullptr;  // the job it runs; null while idle
  };
  std::mutex pool_mutex;
  std::condition_variable pool_work;
  std::condition_variable pool_done;
  std::deque<PoolJob*> pool_queue;
  std::deque<PoolWorker> pool_workers;  // a deque: workers keep their address
  bool pool_stopping = false;

  std::shared_ptr<ReadyQueue> queue_for(GraphTask& task, c10::Device device) {
    if (device.type() == c10::DeviceType::CPU) return task.cpu_ready_queue_;
    std::lock_guard<std::mutex> lock(devices_mutex);
    const auto key = std::make_pair(static_cast<int>(device.type()),
                                    static_cast<int>(device.index()));
    auto it = device_queues.find(key);
    if (it != device_queues.end()) return it->second;
    auto queue = std::make_shared<ReadyQueue>();
    device_queues.emplace(key, queue);
    device_threads.emplace_back([this, queue, device] { device_thread_main(device, queue); });
    return queue;
  }

  // The entry point of the worker thread of `device`: makes `device`
  // current for the thread's life, then runs the Nodes of `queue`. See
  // Note [Threads of a graph task].
  void device_thread_main(c10::Device device, const std::shared_ptr<ReadyQueue>& queue) {
    tls_device_queue = queue;
    tls_device = device;
    if (c10::impl::hasDeviceGuardImpl(device.type())) {
      try {
        c10::impl::getDeviceGuardImpl(device.type())->setDevice(device);
      } catch (const c10::Error& e) {
        // A gradient on a device the runtime does not have. The thread
        // still serves the queue: each such Node then fails on its own
        // stream guard, and its task reports the error to its caller.
        TORCH_WARN("autograd engine: the thread of device ", device,
                   " could not make it current: ", e.what());
      }
    }
    while (true) {
      NodeTask task = queue->pop();
      if (task.is_shutdown_task_) return;
      // A wake-up meant for a reentrant task's loop on this queue (thread_main)
      // that returned before popping it: nothing to run or account for.
      if (!task.fn_) continue;
      std::shared_ptr<GraphTask> base = task.base_.lock();
      if (!base) continue;
      run_task(base, std::move(task));
    }
  }

  // Runs one task of `base` on this thread and accounts for it.
  void run_task(const std::shared_ptr<GraphTask>& base, NodeTask task) {
    if (task.fn_ && !base->has_error_.load(std::memory_order_relaxed)) {
      GraphTask* prev = tls_current_task;
      tls_current_task = base.get();
      at::AutoGradMode grad_mode(base->grad_mode_);
      try {
        evaluate_function(base, task.fn_, std::move(task.inputs_));
      } catch (...) {
        set_error(*base, std::current_exception());
      }
      tls_current_task = prev;
    }
    // Drop this thread's reference to the Node before the task can complete:
    // once the caller's backward() returns, the Node (an AccumulateGrad holds
    // its variable) must not stay alive here, or a device's memory is freed
    // at some moment after backward() (seen as a leak by a backend's tests).
    task.fn_.reset();
    // See Note [Completing a graph task].
    if (base->outstanding_tasks_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      mark_completed(*base);
      // Wake the thread draining the task's CPU queue.
      base->cpu_ready_queue_->push(NodeTask(base, nullptr, InputBuffer(0)));
    }
  }

  static void set_error(GraphTask& task, std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(task.mutex_);
    if (!task.has_error_.load(std::memory_order_relaxed)) {
      task.exception_ = std::move(e);
      task.has_error_.store(true, std::memory_order_relaxed);
    }
  }

  static void mark_completed(GraphTask& task) {
    // Final callbacks may queue further callbacks; run until none is left.
    if (!task.has_error_.load(std::memory_order_relaxed)) {
      GraphTask* prev = tls_current_task;
      tls_current_task = &task;
      for (size_t i = 0;; ++i) {
        std::function<void()> callback;
        {
          std::lock_guard<std::mutex> lock(task.final_callbacks_lock_);
          if (i >= task.final_callbacks_.size()) break;
          callback = task.final_callbacks_[i];
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
    std::exception_ptr error;
    std::vector<at::Tensor> captured;
    {
      std::lock_guard<std::mutex> lock(task.mutex_);
      error = task.exception_;
      captured = std::move(task.captured_vars_);
    }
    try {
      if (error) {
        task.future_result_->setError(std::move(error));
      } else {
        task.future_result_->markCompleted(c10::IValue(std::move(captured)));
      }
    } catch (const std::exception& e) {
      // A callback that someone attached to the future threw. The future is
      // complete and its waiters have woken; the exception has no caller
      // to go to on an engine thread. (Attach work that can fail with
      // Future::then, whose child future carries the error.)
      TORCH_WARN("autograd engine: a callback of a graph task's future threw: ", e.what());
    }
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

  void evaluate_function(const std::shared_ptr<GraphTask>& task,
                         const std::shared_ptr<Node>& fn, InputBuffer&& input_buffer) {
    // See Note [Streams of a backward pass]. The guard is held until the
    // outputs are routed, so that sums in the next buffers queue after this
    // Node's work. CPU Nodes take the branch without a guard object.
    const std::optional<c10::Stream>& opt_parent_stream = fn->stream();
    if (C10_UNLIKELY(opt_parent_stream.has_value())) {
      c10::StreamGuard parent_stream_guard(*opt_parent_stream);
      run_node(task, fn, std::move(input_buffer), opt_parent_stream);
    } else {
      run_node(task, fn, std::move(input_buffer), opt_parent_stream);
    }
  }

  // evaluate_function under the Node's stream: runs `fn` and routes its
  // outputs (with `opt_parent_stream`, its stream) to the next Nodes.
  void run_node(const std::shared_ptr<GraphTask>& task, const std::shared_ptr<Node>& fn,
                InputBuffer&& input_buffer,
                const std::optional<c10::Stream>& opt_parent_stream) {
    variable_list inputs = InputBuffer::variables(std::move(input_buffer));
    if (!task->exec_info_.empty()) {
      auto it = task->exec_info_.find(fn.get());
      if (it != task->exec_info_.end() && !it->second.captures_.empty()) {
        // Captured gradients pass the Node's tensor hooks first (once).
        variable_list hooked = inputs;
        for (auto& hook : fn->tensor_pre_hooks()) hooked = (*hook)(hooked);
        std::lock_guard<std::mutex> lock(task->mutex_);
        for (const auto& c : it->second.captures_) {
          task->captured_vars_[c.output_idx] = hooked[c.input_nr];
        }
      }
      if (it == task->exec_info_.end() || !it->second.needed_) return;
    }
    variable_list outputs;
    {
      // The profiler's range of the Node (one relaxed load when off); See
      // Note [Forward and backward sequence numbers].
      at::RecordFunction record(at::RecordScope::BACKWARD_FUNCTION);
      if (C10_UNLIKELY(record.isActive())) {
        record.beforeBackward("autograd::engine::evaluate_function: " + fn->name(),
                              fn->sequence_nr(), fn->thread_id());
      }
      outputs = (*fn)(std::move(inputs));
    }
    validate_outputs(*fn, outputs);
    // The flag is read once per Node; see AnomalyMode::is_enabled.
    if (AnomalyMode::is_enabled()) detail::check_anomaly(*fn, outputs);
    if (!task->keep_graph_) fn->release_variables();

    std::lock_guard<std::mutex> lock(task->mutex_);
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Edge& next = fn->next_edge(i);
      if (!next.is_valid()) continue;
      Node* key = next.function.get();
      bool ready = false;
      int* dep = task->dependencies_.find(key);
      TORCH_INTERNAL_ASSERT(dep != nullptr && *dep > 0,
                            "dependency not found for ", next.function->name());
      if (--*dep == 0) ready = true;
      const std::optional<c10::Stream>& opt_next_stream = next.function->stream();
      auto waiting = task->not_ready_.find(key);
      if (waiting == task->not_ready_.end()) {
        InputBuffer buffer(next.function->num_inputs());
        buffer.add(next.input_nr, std::move(outputs[i]), opt_parent_stream, opt_next_stream);
        if (ready) {
          push(task, next.function, std::move(buffer));
        } else {
          task->not_ready_.emplace(key, std::move(buffer));
        }
      } else {
        waiting->second.add(next.input_nr, std::move(outputs[i]), opt_parent_stream,
                            opt_next_stream);
        if (ready) {
          InputBuffer buffer = std::move(waiting->second);
          task->not_ready_.erase(waiting);
          push(task, next.function, std::move(buffer));
        }
      }
    }
  }

  void push(const std::shared_ptr<GraphTask>& task, std::shared_ptr<Node> fn,
            InputBuffer&& inputs) {
    const c10::Device device = inputs.device();
    NodeTask t(task, std::move(fn), std::move(inputs));
    t.reentrant_depth_ = task->reentrant_depth_;
    // See Note [Completing a graph task] for why relaxed suffices.
    task->outstanding_tasks_.fetch_add(1, std::memory_order_relaxed);
    queue_for(*task, device)->push(std::move(t));
  }

  // Runs the CPU side of `task` on this thread until it completes.
  void thread_main(const std::shared_ptr<GraphTask>& task) {
    bool shutdown_seen = false;
    while (!task->future_result_->completed()) {
      NodeTask next = task->cpu_ready_queue_->pop();
      if (next.is_shutdown_task_) {
        // A device thread's queue, drained by a reentrant task: pass the
        // order on to the device thread's own loop once this task is done.
        shutdown_seen = true;
        continue;
      }
      if (!next.fn_) continue;  // a wake-up: re-check completion
      std::shared_ptr<GraphTask> base = next.base_.lock();
      if (!base) continue;
      run_task(base, std::move(next));
    }
    if (shutdown_seen) task->cpu_ready_queue_->push_shutdown_task();
  }

  // Runs `task` on a pool thread and waits until that thread has let go of
  // it; false when every allowed thread is busy (the caller then runs it).
  // See Note [Reentrant pool].
  bool run_in_pool(const std::shared_ptr<GraphTask>& task) {
    PoolJob job{task, std::nullopt, std::nullopt};
    if (tls_device_queue != nullptr && task->cpu_ready_queue_ == tls_device_queue) {
      // See Note [Reentrant pool]: the worker stands in for this device thread.
      job.device = tls_device;
      if (c10::impl::hasDeviceGuardImpl(tls_device->type())) {
        job.stream = c10::impl::getDeviceGuardImpl(tls_device->type())->getStream(*tls_device);
      }
    }
    std::unique_lock<std::mutex> lock(pool_mutex);
    // A worker is available when idle, or when its task is complete: it is
    // then on its way back (the thread waiting for that task may wake, and
    // call here, before the worker has taken the lock again).
    size_t available = 0;
    for (const PoolWorker& w : pool_workers) {
      if (w.job == nullptr || w.job->task->future_result_->completed()) ++available;
    }
    if (pool_queue.size() >= available) {
      if (pool_workers.size() >= static_cast<size_t>(kMaxReentrantPoolThreads)) return false;
      PoolWorker& worker = pool_workers.emplace_back();
      worker.thread = std::thread([this, &worker] { pool_thread_main(worker); });
    }
    pool_queue.push_back(&job);
    pool_work.notify_one();
    pool_done.wait(lock, [&job] { return job.done; });
    return true;
  }

  void pool_thread_main(PoolWorker& self) {
    std::unique_lock<std::mutex> lock(pool_mutex);
    while (true) {
      pool_work.wait(lock, [this] { return pool_stopping || !pool_queue.empty(); });
      if (pool_queue.empty()) return;  // stopping
      PoolJob* job = pool_queue.front();
      pool_queue.pop_front();
      self.job = job;
      lock.unlock();
      // A fresh stack: the task starts at depth 0 here.
      TORCH_INTERNAL_ASSERT(tls_depth == 0 && tls_current_task == nullptr,
                            "a reentrant pool thread picked a task while running one");
      tls_depth = 1;
      run_pool_job(*job);
      tls_depth = 0;
      lock.lock();
      self.job = nullptr;
      job->done = true;  // the caller's frame, and `job`, may go once the lock is released
      pool_done.notify_all();
    }
  }

  // Runs a job's task on this pool thread, standing in for the device
  // thread that started it, if one did (See Note [Reentrant pool]).
  void run_pool_job(const PoolJob& job) {
    if (!job.device) {
      thread_main(job.task);  // copies of the task it makes are gone when it returns
      return;
    }
    tls_device_queue = job.task->cpu_ready_queue_;
    tls_device = job.device;
    {
      // Restores this thread's stream and device when the task is done.
      c10::OptionalStreamGuard stream_guard(job.stream);
      thread_main(job.task);
    }
    tls_device = std::nullopt;
    tls_device_queue = nullptr;
  }

  ~Impl() {
    std::vector<std::thread> threads;
    {
      std::lock_guard<std::mutex> lock(devices_mutex);
      for (auto& [key, queue] : device_queues) queue->push_shutdown_task();
      threads = std::move(device_threads);
    }
    {
      std::lock_guard<std::mutex> lock(pool_mutex);
      pool_stopping = true;
      for (PoolWorker& w : pool_workers) threads.push_back(std::move(w.thread));
    }
    pool_work.notify_all();
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
  std::lock_guard<std::mutex> lock(task->final_callbacks_lock_);
  task->final_callbacks_.push_back(std::move(callback));
}

void Engine::compute_dependencies(Node* root, GraphTask& task) {
  TORCH_CHECK(root != nullptr, "compute_dependencies: the root Node is null. Pass the Node "
              "the backward pass starts from (e.g. a GraphRoot).");
  TORCH_CHECK(task.dependencies_.size() == 0, "compute_dependencies: the GraphTask already "
              "has dependencies for ", task.dependencies_.size(), " Nodes. Call it once per "
              "GraphTask, with a root whose edges reach every Node of the pass.");
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
      ++task.dependencies_.at_or_insert(next, inserted);
      if (inserted) stack.push_back(next);
    }
  }
}

c10::intrusive_ptr<c10::ivalue::Future> Engine::execute_with_graph_task(
    const std::shared_ptr<GraphTask>& graph_task, std::shared_ptr<Node> graph_root,
    InputBuffer&& input_buffer) {
  TORCH_CHECK(graph_task != nullptr && graph_root != nullptr, "execute_with_graph_task: "
              "the ", graph_task == nullptr ? "GraphTask" : "root Node", " is null. Pass "
              "a GraphTask prepared with compute_dependencies and the Node it starts from.");
  TORCH_CHECK(!graph_task->future_result_->completed() &&
                  graph_task->outstanding_tasks_.load(std::memory_order_relaxed) == 0,
              "execute_with_graph_task: this GraphTask has already run (or is running). A "
              "GraphTask runs once; make a new one for each backward pass.");
  TORCH_CHECK(input_buffer.size() == graph_root->num_inputs(), "execute_with_graph_task: "
              "the input buffer holds ", input_buffer.size(), " gradients but the root Node ",
              graph_root->name(), " takes ", graph_root->num_inputs(), ". Pass "
              "InputBuffer(root->num_inputs()).");
  impl_->push(graph_task, std::move(graph_root), std::move(input_buffer));
  // See Note [Threads of a graph task].
  if (tls_depth < kMaxReentrantDepth || !impl_->run_in_pool(graph_task)) {
    ++tls_depth;
    impl_->thread_main(graph_task);
    --tls_depth;
    TORCH_INTERNAL_ASSERT(graph_task->future_result_->completed(),
                          "execute_with_graph_task: the task's thread returned early");
  }
  return graph_task->future_result_;
}

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
  const GraphTask* enclosing = tls_current_task;
  auto task = std::make_shared<GraphTask>(
      keep_graph, create_graph, enclosing ? enclosing->reentrant_depth_ + 1 : 0,
      tls_device_queue);

  std::shared_ptr<Node> root = make_node<GraphRoot>(roots, inputs);
  compute_dependencies(root.get(), *task);
  if (!outputs.empty()) task->init_to_execute(*root, outputs, accumulate_grad);

  c10::intrusive_ptr<c10::ivalue::Future> fut =
      execute_with_graph_task(task, std::move(root), InputBuffer(0));
  fut->wait();
  if (fut->hasError()) std::rethrow_exception(fut->exception_ptr());
  if (outputs.empty()) return {};
  return fut->constValue().to<variable_list>();
}

}  // namespace autograd
}  // namespace torch
