// DistAutogradContext and DistAutogradContainer (context.h).
#include "distributed/autograd/context.h"

#include "aten/Functions.h"
#include "aten/TensorOperators.h"
#include "distributed/autograd/engine.h"
#include "distributed/autograd/functions.h"
#include "distributed/rpc/agent.h"

namespace torch {
namespace distributed {
namespace autograd {

namespace {
// Live contexts of this process, for debug::live_contexts(). Relaxed: a
// counter; nothing is published through it.
std::atomic<int64_t> g_live_contexts{0};
thread_local int64_t tls_current_context = -1;
constexpr int kCounterBits = 48;
}  // namespace

DistAutogradContext::DistAutogradContext(int64_t context_id)
    : context_id_(context_id) {
  g_live_contexts.fetch_add(1, std::memory_order_relaxed);
}

DistAutogradContext::~DistAutogradContext() {
  g_live_contexts.fetch_sub(1, std::memory_order_relaxed);
}

void DistAutogradContext::add_known_worker_id(int worker_id) {
  std::lock_guard<std::mutex> g(mutex_);
  known_workers_.insert(worker_id);
}

std::set<int> DistAutogradContext::known_worker_ids() const {
  std::lock_guard<std::mutex> g(mutex_);
  return known_workers_;
}

void DistAutogradContext::add_send_function(std::shared_ptr<SendRpcBackward> fn,
                                            int64_t message_id) {
  std::lock_guard<std::mutex> g(mutex_);
  TORCH_INTERNAL_ASSERT(send_functions_.count(message_id) == 0,
                        "dist_autograd: message id ", message_id, " used twice");
  send_functions_.emplace(message_id, std::move(fn));
}

void DistAutogradContext::add_recv_function(std::shared_ptr<RecvRpcBackward> fn,
                                            int64_t message_id) {
  std::lock_guard<std::mutex> g(mutex_);
  recv_functions_[message_id] = std::move(fn);
}

std::shared_ptr<SendRpcBackward> DistAutogradContext::retrieve_send_function(
    int64_t message_id) {
  std::lock_guard<std::mutex> g(mutex_);
  auto it = send_functions_.find(message_id);
  TORCH_CHECK(it != send_functions_.end(), "dist_autograd: context ",
              context_id_, " has no send function for message ", message_id,
              " on this worker; the gradients were sent to the wrong worker or "
              "context.");
  return it->second;
}

std::map<int64_t, std::shared_ptr<SendRpcBackward>>
DistAutogradContext::send_functions() const {
  std::lock_guard<std::mutex> g(mutex_);
  return send_functions_;
}

size_t DistAutogradContext::num_recv_functions() const {
  std::lock_guard<std::mutex> g(mutex_);
  return recv_functions_.size();
}

GradientMap DistAutogradContext::get_gradients() const {
  std::lock_guard<std::mutex> g(mutex_);
  return gradients_;
}

void DistAutogradContext::accumulate_grad(const at::Tensor& variable,
                                          const at::Tensor& grad) {
  std::lock_guard<std::mutex> g(mutex_);
  auto it = gradients_.find(variable);
  if (it == gradients_.end()) {
    gradients_.emplace(variable, grad);
  } else {
    it->second = it->second + grad;
  }
}

// ---------------------------------------------------------------------------

DistAutogradContainer& DistAutogradContainer::get_instance() {
  // Leaked: contexts may be released during static destruction.
  static DistAutogradContainer* container = new DistAutogradContainer();
  return *container;
}

int64_t DistAutogradContainer::make_id(std::atomic<int64_t>& counter) {
  const int64_t rank =
      rpc::current_agent("dist_autograd::context")->rank();
  const int64_t n = counter.fetch_add(1, std::memory_order_relaxed);
  TORCH_CHECK(n < (int64_t{1} << kCounterBits), "dist_autograd: this worker ran "
              "out of ids (2^48 contexts or messages).");
  return (rank << kCounterBits) | n;
}

ContextPtr DistAutogradContainer::new_context() {
  TORCH_CHECK(tls_current_context == -1, "dist_autograd::context: context ",
              tls_current_context, " is already current on this thread; "
              "contexts do not nest. Leave it first.");
  const int64_t id = make_id(next_context_);
  auto ctx = std::make_shared<DistAutogradContext>(id);
  {
    std::lock_guard<std::mutex> g(mutex_);
    contexts_.emplace(id, ctx);
  }
  tls_current_context = id;
  return ctx;
}

ContextPtr DistAutogradContainer::get_or_create_context(int64_t id) {
  std::lock_guard<std::mutex> g(mutex_);
  auto& ctx = contexts_[id];
  if (!ctx) ctx = std::make_shared<DistAutogradContext>(id);
  return ctx;
}

ContextPtr DistAutogradContainer::retrieve_context(int64_t id) const {
  ContextPtr ctx = retrieve_context_if_present(id);
  TORCH_CHECK(ctx != nullptr, "dist_autograd: context ", id, " is not known "
              "on this worker (never created here, or already released). Use "
              "the id of a live dist_autograd::context.");
  return ctx;
}

ContextPtr DistAutogradContainer::retrieve_context_if_present(int64_t id) const {
  std::lock_guard<std::mutex> g(mutex_);
  auto it = contexts_.find(id);
  return it == contexts_.end() ? nullptr : it->second;
}

void DistAutogradContainer::release_context(int64_t id, int except) {
  ContextPtr ctx;
  {
    std::lock_guard<std::mutex> g(mutex_);
    auto it = contexts_.find(id);
    if (it == contexts_.end()) return;
    ctx = std::move(it->second);
    contexts_.erase(it);
  }
  std::shared_ptr<rpc::Agent> agent;
  try {
    agent = rpc::current_agent("dist_autograd");
  } catch (const c10::Error&) {
    // RPC is down: there is nobody to tell.
  }
  const std::string where = agent ? " on worker " + std::to_string(agent->rank()) : "";
  DistEngine::abort(*ctx, std::make_exception_ptr(c10::Error(
      c10::SourceLocation{"release_context", __FILE__, __LINE__},
      "dist_autograd: context " + std::to_string(id) + " was released" + where +
          " during its backward pass")));
  if (!agent) return;
  for (int w : ctx->known_worker_ids()) {
    if (w == except || w == agent->rank()) continue;
    ember::rpc::Envelope env;
    env.set_kind(ember::rpc::CLEANUP_AUTOGRAD_CONTEXT_REQ);
    env.mutable_autograd()->set_context_id(id);
    rpc::wire::Encoder enc;
    try {
      // Fire and forget, as PyTorch's; shutdown() waits for these calls.
      agent->send(w, env, enc, agent->resolve_timeout(rpc::kUnsetRpcTimeout),
                  "dist_autograd context release",
                  [](rpc::wire::Decoded&) { return c10::IValue(); });
    } catch (const c10::Error&) {
      // RPC is shutting down; the peers drop their contexts with it.
    }
  }
}

int64_t DistAutogradContainer::new_autograd_message_id() {
  return make_id(next_message_);
}

int64_t DistAutogradContainer::current_context_id() {
  return tls_current_context;
}

void DistAutogradContainer::set_current_context_id(int64_t id) {
  tls_current_context = id;
}

size_t DistAutogradContainer::num_autograd_contexts() const {
  std::lock_guard<std::mutex> g(mutex_);
  return contexts_.size();
}

namespace debug {
int64_t live_contexts() {
  return g_live_contexts.load(std::memory_order_relaxed);
}
}  // namespace debug

}  // namespace autograd
}  // namespace distributed
}  // namespace torch
