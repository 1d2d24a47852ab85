// DistEngine: FAST-mode distributed backward passes (engine.h).
#include "distributed/autograd/engine.h"

#include <chrono>
#include <condition_variable>
#include <list>
#include <thread>
#include <tuple>

#include "aten/Functions.h"
#include "autograd/engine.h"
#include "autograd/functions/accumulate_grad.h"
#include "autograd/ready_queue.h"
#include "autograd/variable.h"
#include "distributed/autograd/functions.h"
#include "distributed/rpc/agent.h"

namespace torch {
namespace distributed {
namespace autograd {

// Note [FAST mode]
// ~~~~~~~~~~~~~~~~
// Seed 001's FAST mode on the shared autograd Engine, with one GraphTask
// per context per worker (BackwardPass):
//   - Dependencies are counted locally, from the roots and from every send
//     function of the context, each of which is assumed to receive
//     gradients once per pass (an RPC whose result does not reach the loss
//     breaks that assumption, as in PyTorch). Every Node reached runs,
//     except AccumulateGrad: its gradient is captured (exec_info_) and added
//     to the context when the task is done, never to .grad.
//   - The task starts from a DistGraphRoot. Its apply() adds one to the
//     task's outstanding count per send function still waiting for
//     gradients ("reserved"), which keeps the task open, and the thread
//     that called execute_with_graph_task draining its queue, until they
//     arrive. It may: it runs on that thread holding the root's own count
//     (Note [Completing a graph task] in autograd/engine.cc).
//   - A delivery (BACKWARD_AUTOGRAD_REQ, on a gRPC thread) pushes its send
//     function with the gradients onto the task's CPU queue without adding
//     to the count (it was reserved), or keeps it in `early` until the root
//     has run. The first delivery of a pass to a worker starts the pass
//     there (on a pool thread), answered when it and the gradient RPCs its
//     recv functions sent are done; later ones are answered at once. So the
//     answers form a tree rooted at the worker that called backward(), which
//     returns when its own task and all its RPCs are done: the whole pass.
//   - Errors: a Node's error, a failed gradient RPC, or the context's
//     release aborts the pass: the error is set on the task and every
//     reserved count is released by pushing the undelivered send functions,
//     which the engine then skips, so the task completes with the error and
//     its thread returns. An aborted pass stays in the context, refusing
//     late deliveries, until the context is released. The engine records a
//     Node's error in the task without telling anyone, so the passes
//     waiting for deliveries are watched (ErrorWatcher).

namespace {

using torch::autograd::AccumulateGrad;
using torch::autograd::Edge;
using torch::autograd::edge_list;
using torch::autograd::Engine;
using torch::autograd::GraphTask;
using torch::autograd::InputBuffer;
using torch::autograd::Node;
using torch::autograd::NodeTask;
using torch::autograd::variable_list;
using Future = c10::ivalue::Future;

// Called with ctx.mutex_ held. See Note [FAST mode].
void abort_locked(BackwardPass& pass, std::exception_ptr error) {
  if (pass.aborted) return;
  pass.aborted = true;
  GraphTask& task = *pass.task;
  if (error) {
    std::lock_guard<std::mutex> lock(task.mutex_);
    if (!task.has_error_.load(std::memory_order_relaxed)) {
      task.exception_ = std::move(error);
      task.has_error_.store(true, std::memory_order_relaxed);
    }
  }
  if (pass.reserved) {
    for (auto& entry : pass.undelivered) {
      const size_t n = entry.second->num_inputs();
      task.cpu_ready_queue_->push(NodeTask(pass.task, entry.second, InputBuffer(n)));
    }
    pass.undelivered.clear();
  }
  pass.early.clear();
}

// Note [Watching passes for errors]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A Node that throws sets the task's has_error_; the engine then skips the
// task's remaining Nodes, but the counts reserved for undelivered send
// functions keep the task open, and the deliveries may never come (the
// error stopped the work that leads to them). The engine has no error
// callback (adding one changes GraphTask, which every autograd file sees),
// so one thread polls the passes that wait for deliveries, every
// kWatchInterval, and aborts those whose task has an error; it sleeps
// without polling while no pass waits. The flag is read relaxed: a late
// read only delays the abort, which then takes the context's mutex.
class ErrorWatcher {
 public:
  static ErrorWatcher& get() {
    // Leaked with its detached thread: passes may end during exit.
    static ErrorWatcher* w = new ErrorWatcher();
    return *w;
  }
  using Entry = std::pair<std::weak_ptr<DistAutogradContext>, std::weak_ptr<BackwardPass>>;
  std::list<Entry>::iterator watch(Entry e) {
    std::lock_guard<std::mutex> g(mutex_);
    auto it = entries_.insert(entries_.end(), std::move(e));
    if (!started_) {
      started_ = true;
      std::thread([this] { run(); }).detach();
    }
    cv_.notify_one();
    return it;
  }
  void unwatch(std::list<Entry>::iterator it) {
    std::lock_guard<std::mutex> g(mutex_);
    entries_.erase(it);
  }

 private:
  static constexpr std::chrono::milliseconds kWatchInterval{2};
  void run() {
    std::unique_lock<std::mutex> l(mutex_);
    for (;;) {
      if (entries_.empty()) {
        cv_.wait(l, [this] { return !entries_.empty(); });
      } else {
        cv_.wait_for(l, kWatchInterval);
      }
      std::vector<Entry> failed;
      for (const auto& e : entries_) {
        auto pass = e.second.lock();
        if (pass && pass->task->has_error_.load(std::memory_order_relaxed)) {
          failed.push_back(e);
        }
      }
      l.unlock();
      for (const auto& e : failed) {
        auto c = e.first.lock();
        auto p = e.second.lock();
        if (!c || !p) continue;
        std::lock_guard<std::mutex> g(c->mutex_);
        abort_locked(*p, nullptr);  // the engine recorded the error
      }
      l.lock();
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  std::list<Entry> entries_;
  bool started_ = false;
};

// Runs a pass's task on this thread until it completes (See Note [Threads
// of a graph task] in autograd/engine.cc), watched for errors meanwhile.
c10::intrusive_ptr<Future> run_pass(const ContextPtr& ctx,
                                    const std::shared_ptr<BackwardPass>& pass,
                                    std::shared_ptr<Node> root) {
  auto& watcher = ErrorWatcher::get();
  auto it = watcher.watch({ctx, pass});
  struct Unwatch {
    ErrorWatcher& w;
    std::list<ErrorWatcher::Entry>::iterator it;
    ~Unwatch() { w.unwatch(it); }
  } unwatch{watcher, it};
  return Engine::get_default_engine().execute_with_graph_task(
      pass->task, std::move(root), InputBuffer(0));
}

// The root of a pass on one worker. See Note [FAST mode].
struct DistGraphRoot : Node {
  DistGraphRoot(std::weak_ptr<DistAutogradContext> ctx,
                std::weak_ptr<BackwardPass> pass, edge_list edges,
                variable_list grads)
      : Node(std::move(edges)),
        ctx_(std::move(ctx)),
        pass_(std::move(pass)),
        grads_(std::move(grads)) {}
  std::string name() const override { return "DistGraphRoot"; }

 protected:
  variable_list apply(variable_list&&) override {
    auto ctx = ctx_.lock();
    auto pass = pass_.lock();
    if (ctx && pass) {
      std::lock_guard<std::mutex> g(ctx->mutex_);
      if (!pass->aborted) {
        GraphTask& task = *pass->task;
        task.outstanding_tasks_.fetch_add(
            pass->undelivered.size() + pass->early.size(),
            std::memory_order_relaxed);
        pass->reserved = true;
        for (auto& t : pass->early) task.cpu_ready_queue_->push(std::move(t));
        pass->early.clear();
      }
    }
    return std::move(grads_);
  }

 private:
  std::weak_ptr<DistAutogradContext> ctx_;
  std::weak_ptr<BackwardPass> pass_;
  variable_list grads_;
};

// A new pass of `ctx` with its root; ctx->mutex_ held.
std::pair<std::shared_ptr<BackwardPass>, std::shared_ptr<Node>> make_pass(
    const ContextPtr& ctx, edge_list edges, variable_list grads,
    bool keep_graph) {
  auto pass = std::make_shared<BackwardPass>();
  pass->task = std::make_shared<GraphTask>(keep_graph, /*grad_mode=*/false,
                                           /*reentrant_depth=*/0);
  GraphTask& task = *pass->task;
  std::shared_ptr<Node> root = torch::autograd::make_node<DistGraphRoot>(
      ctx, pass, std::move(edges), std::move(grads));
  task.exec_info_[root.get()].needed_ = true;
  std::vector<Node*> stack{root.get()};
  for (const auto& entry : ctx->send_functions_locked()) {
    pass->undelivered.emplace(entry.first, entry.second);
    task.exec_info_[entry.second.get()].needed_ = true;
    stack.push_back(entry.second.get());
  }
  // Iterative: graphs of any depth.
  while (!stack.empty()) {
    Node* fn = stack.back();
    stack.pop_back();
    for (const Edge& e : fn->next_edges()) {
      Node* next = e.function.get();
      if (next == nullptr) continue;
      bool inserted = false;
      ++task.dependencies_.at_or_insert(next, inserted);
      if (!inserted) continue;
      if (auto* acc = dynamic_cast<AccumulateGrad*>(next)) {
        task.exec_info_[next].captures_.push_back(
            GraphTask::ExecInfo::Capture{0, pass->leaves.size()});
        pass->leaves.push_back(acc->variable());
      } else {
        task.exec_info_[next].needed_ = true;
        stack.push_back(next);
      }
    }
  }
  task.captured_vars_.resize(pass->leaves.size());
  return {std::move(pass), std::move(root)};
}

void accumulate(DistAutogradContext& ctx, const BackwardPass& pass,
                const c10::IValue& captured) {
  std::vector<at::Tensor> grads = captured.toTensorList();
  TORCH_INTERNAL_ASSERT(grads.size() == pass.leaves.size());
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i].defined()) ctx.accumulate_grad(pass.leaves[i], grads[i]);
  }
}

std::vector<c10::intrusive_ptr<Future>> take_outstanding(
    DistAutogradContext& ctx, BackwardPass& pass) {
  std::lock_guard<std::mutex> g(ctx.mutex_);
  return std::move(pass.outstanding);
}

// Completes when every one of `futures` has: with the first error, if any.
c10::intrusive_ptr<Future> when_all(
    const std::vector<c10::intrusive_ptr<Future>>& futures) {
  auto all = c10::make_intrusive<Future>();
  if (futures.empty()) {
    all->markCompleted();
    return all;
  }
  struct State {
    std::mutex mutex;
    size_t left;
    std::exception_ptr error;
  };
  auto state = std::make_shared<State>();
  state->left = futures.size();
  for (const auto& f : futures) {
    f->addCallback([state, all](Future& done) {
      std::exception_ptr error;
      {
        std::lock_guard<std::mutex> g(state->mutex);
        if (done.hasError() && !state->error) state->error = done.exception_ptr();
        if (--state->left != 0) return;
        error = state->error;
      }
      if (error) {
        all->setError(error);
      } else {
        all->markCompleted();
      }
    });
  }
  return all;
}

// Ends a pass that succeeded: the context can run another. A failed pass
// stays (See Note [FAST mode]).
void finish_pass(DistAutogradContext& ctx, const std::shared_ptr<BackwardPass>& pass) {
  std::lock_guard<std::mutex> g(ctx.mutex_);
  if (ctx.pass_ == pass && !pass->aborted) ctx.pass_.reset();
}

}  // namespace

void DistEngine::abort(DistAutogradContext& ctx, std::exception_ptr error) {
  std::lock_guard<std::mutex> g(ctx.mutex_);
  if (ctx.pass_) abort_locked(*ctx.pass_, std::move(error));
}

void DistEngine::add_outstanding_rpc(const ContextPtr& ctx,
                                     c10::intrusive_ptr<Future> rpc) {
  std::shared_ptr<BackwardPass> pass;
  {
    std::lock_guard<std::mutex> g(ctx->mutex_);
    pass = ctx->pass_;
    if (pass) pass->outstanding.push_back(rpc);
  }
  std::weak_ptr<DistAutogradContext> wctx = ctx;
  std::weak_ptr<BackwardPass> wpass = pass;
  rpc->addCallback([wctx, wpass](Future& f) {
    if (!f.hasError()) return;
    auto c = wctx.lock();
    auto p = wpass.lock();
    if (!c || !p) return;
    std::lock_guard<std::mutex> g(c->mutex_);
    if (c->pass_ == p) abort_locked(*p, f.exception_ptr());
  });
}

void DistEngine::execute(int64_t context_id, const std::vector<at::Tensor>& roots,
                         bool retain_graph) {
  ContextPtr ctx = DistAutogradContainer::get_instance().retrieve_context(context_id);
  TORCH_CHECK(!roots.empty(), "dist_autograd::backward: no roots; pass the "
              "loss (a tensor of one element) to differentiate.");
  edge_list edges;
  variable_list grads;
  for (size_t i = 0; i < roots.size(); ++i) {
    const at::Tensor& r = roots[i];
    TORCH_CHECK(r.defined() && r.requires_grad(), "dist_autograd::backward: "
                "root ", i, " does not require grad; the roots must come from "
                "tensors that require grad.");
    TORCH_CHECK(r.numel() == 1, "dist_autograd::backward: root ", i, " has "
                "shape ", r.sizes(), " but the roots must have one element "
                "(a loss); reduce it first, e.g. with sum().");
    edges.push_back(torch::autograd::impl::gradient_edge(r));
    grads.push_back(at::ones_like(r));
  }
  std::shared_ptr<BackwardPass> pass;
  std::shared_ptr<Node> root;
  {
    std::lock_guard<std::mutex> g(ctx->mutex_);
    TORCH_CHECK(!ctx->pass_, "dist_autograd::backward: context ", context_id,
                ctx->pass_ && ctx->pass_->aborted
                    ? " had a backward pass that failed; use a new context."
                    : " already runs a backward pass on this worker; wait for "
                      "it, or use another context.");
    std::tie(pass, root) = make_pass(ctx, std::move(edges), std::move(grads),
                                     retain_graph);
    ctx->pass_ = pass;
  }
  c10::intrusive_ptr<Future> fut;
  std::exception_ptr error;
  try {
    fut = run_pass(ctx, pass, std::move(root));
    if (fut->hasError()) error = fut->exception_ptr();
  } catch (...) {
    error = std::current_exception();
  }
  if (!error) {
    accumulate(*ctx, *pass, fut->constValue());
    auto all = when_all(take_outstanding(*ctx, *pass));
    all->wait();
    if (all->hasError()) error = all->exception_ptr();
  }
  if (error) abort(*ctx, error);
  finish_pass(*ctx, pass);
  if (error) {
    // Every other worker drops the context (and stops its part of the pass);
    // this one keeps it, failed, until it is left.
    auto agent = rpc::current_agent("dist_autograd::backward");
    for (int w : ctx->known_worker_ids()) {
      if (w == agent->rank()) continue;
      ember::rpc::Envelope env;
      env.set_kind(ember::rpc::CLEANUP_AUTOGRAD_CONTEXT_REQ);
      env.mutable_autograd()->set_context_id(context_id);
      rpc::wire::Encoder enc;
      try {
        agent->send(w, env, enc, agent->resolve_timeout(rpc::kUnsetRpcTimeout),
                    "dist_autograd context release",
                    [](rpc::wire::Decoded&) { return c10::IValue(); });
      } catch (const c10::Error&) {
      }
    }
    std::rethrow_exception(error);
  }
}

c10::intrusive_ptr<Future> DistEngine::execute_send_function_async(
    int64_t context_id, int64_t message_id, std::vector<at::Tensor> grads,
    bool retain_graph, const std::function<void(std::function<void()>)>& post) {
  ContextPtr ctx =
      DistAutogradContainer::get_instance().retrieve_context_if_present(context_id);
  TORCH_CHECK(ctx != nullptr, "dist_autograd: gradients arrived for context ",
              context_id, ", which this worker does not know (it was released "
              "already).");
  std::shared_ptr<SendRpcBackward> send = ctx->retrieve_send_function(message_id);
  TORCH_CHECK(grads.size() == send->num_inputs(), "rpc: bad message: ",
              grads.size(), " gradients for a send function of ",
              send->num_inputs(), " tensors");
  InputBuffer buffer(send->num_inputs());
  for (size_t i = 0; i < grads.size(); ++i) {
    if (grads[i].defined()) {
      buffer.add(i, std::move(grads[i]), std::nullopt, std::nullopt);
    }
  }
  bool first = false;
  std::shared_ptr<BackwardPass> pass;
  std::shared_ptr<Node> root;
  {
    std::lock_guard<std::mutex> g(ctx->mutex_);
    if (!ctx->pass_) {
      first = true;
      std::tie(pass, root) = make_pass(ctx, {}, {}, retain_graph);
      ctx->pass_ = pass;
    } else {
      pass = ctx->pass_;
    }
    TORCH_CHECK(!pass->aborted, "dist_autograd: the backward pass of context ",
                context_id, " already failed on this worker.");
    auto it = pass->undelivered.find(message_id);
    TORCH_CHECK(it != pass->undelivered.end(), "dist_autograd: gradients for "
                "message ", message_id, " arrived twice in one backward pass of "
                "context ", context_id, ".");
    pass->undelivered.erase(it);
    NodeTask task(pass->task, send, std::move(buffer));
    if (pass->reserved) {
      pass->task->cpu_ready_queue_->push(std::move(task));
    } else {
      pass->early.push_back(std::move(task));
    }
  }
  auto done = c10::make_intrusive<Future>();
  if (!first) {
    done->markCompleted();
    return done;
  }
  // execute_with_graph_task drains the task on the calling thread until it
  // completes: a pool thread, never the gRPC thread.
  post([ctx, pass, root, done]() mutable {
    c10::intrusive_ptr<Future> fut;
    try {
      fut = run_pass(ctx, pass, std::move(root));
    } catch (...) {
      DistEngine::abort(*ctx, std::current_exception());
      done->setError(std::current_exception());
      return;
    }
    if (fut->hasError()) {
      done->setError(fut->exception_ptr());
      return;
    }
    accumulate(*ctx, *pass, fut->constValue());
    when_all(take_outstanding(*ctx, *pass))
        ->addCallback([ctx, pass, done](Future& all) {
          if (all.hasError()) {
            DistEngine::abort(*ctx, all.exception_ptr());
            done->setError(all.exception_ptr());
            return;
          }
          finish_pass(*ctx, pass);
          done->markCompleted();
        });
  });
  return done;
}

}  // namespace autograd
}  // namespace distributed
}  // namespace torch
