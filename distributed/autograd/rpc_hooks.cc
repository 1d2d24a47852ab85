// The agent's AutogradHooks (Note [Distributed autograd hooks] in
// distributed/rpc/agent.h): where a call's tensors cross a process boundary
// inside a context, a send function on one side and a recv function on the
// other join the two workers' graphs.
#include <functional>

#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "distributed/autograd/engine.h"
#include "distributed/autograd/functions.h"
#include "distributed/rpc/agent.h"

namespace torch {
namespace distributed {
namespace autograd {

namespace {

using Envelope = ember::rpc::Envelope;
using TensorFn = std::function<void(const at::Tensor&, ember::rpc::TensorMeta*)>;

// Calls fn(tensor, its wire header) for every defined tensor of `v`, whose
// encoding is `w` (the Encoder's order).
void for_each_tensor(const c10::IValue& v, ember::rpc::Value* w, const TensorFn& fn) {
  if (v.isTensor() && w->has_tensor()) {
    at::Tensor t(v.toTensorBase());
    if (t.defined()) fn(t, w->mutable_tensor());
  } else if (v.isTensorList() && w->has_tensor_list()) {
    std::vector<at::Tensor> ts = v.toTensorVector();
    auto* metas = w->mutable_tensor_list();
    if (static_cast<int>(ts.size()) != metas->tensors_size()) return;
    for (size_t i = 0; i < ts.size(); ++i) {
      if (ts[i].defined()) fn(ts[i], metas->mutable_tensors(static_cast<int>(i)));
    }
  } else if (v.isOptionalTensorList() && w->has_optional_tensor_list()) {
    auto ts = v.toOptionalTensorVector();
    auto* metas = w->mutable_optional_tensor_list();
    if (static_cast<int>(ts.size()) != metas->tensors_size()) return;
    for (size_t i = 0; i < ts.size(); ++i) {
      if (ts[i].has_value() && ts[i]->defined()) {
        fn(at::Tensor(*ts[i]),
           metas->mutable_tensors(static_cast<int>(i))->mutable_tensor());
      }
    }
  }
}

// The tensors of `values` (encoded in `env`) that require grad, flagged on
// the wire, under a new send function of `ctx`; its message id, or 0 when
// none requires grad.
int64_t attach_send(const ContextPtr& ctx, const std::vector<c10::IValue>& values,
                    Envelope* env) {
  if (!at::GradMode::is_enabled()) return 0;
  std::shared_ptr<SendRpcBackward> send;
  const int n = std::min(static_cast<int>(values.size()), env->values_size());
  for (int i = 0; i < n; ++i) {
    for_each_tensor(values[i], env->mutable_values(i),
                    [&](const at::Tensor& t, ember::rpc::TensorMeta* meta) {
                      if (!t.requires_grad()) return;
                      if (!send) send = torch::autograd::make_node<SendRpcBackward>();
                      send->add_next_edge(torch::autograd::impl::gradient_edge(t));
                      send->add_input_metadata(t);
                      meta->set_requires_grad(true);
                    });
  }
  if (!send) return 0;
  const int64_t id = DistAutogradContainer::get_instance().new_autograd_message_id();
  ctx->add_send_function(std::move(send), id);
  return id;
}

// The received tensors flagged as requiring grad get a recv function of
// `ctx` as their grad_fn.
void attach_recv(const ContextPtr& ctx, int from, int64_t message_id,
                 rpc::wire::Decoded* d) {
  std::vector<at::Tensor> tensors;
  const int n = std::min(static_cast<int>(d->values.size()),
                         d->envelope.values_size());
  for (int i = 0; i < n; ++i) {
    for_each_tensor(d->values[i], d->envelope.mutable_values(i),
                    [&](const at::Tensor& t, ember::rpc::TensorMeta* meta) {
                      if (meta->requires_grad()) tensors.push_back(t);
                    });
  }
  if (tensors.empty()) return;
  TORCH_CHECK(message_id != 0, "rpc: bad message: tensors that require grad "
              "without an autograd message id");
  for (const auto& t : tensors) {
    TORCH_CHECK(c10::isFloatingType(t.scalar_type()), "rpc: bad message: a ", t.scalar_type(),
                " tensor marked as requiring grad");
  }
  auto recv = torch::autograd::make_node<RecvRpcBackward>(ctx, from, message_id);
  for (const auto& t : tensors) torch::autograd::set_history(t, recv);
  ctx->add_recv_function(std::move(recv), message_id);
}

struct Scope {
  int64_t previous;
  ~Scope() { DistAutogradContainer::set_current_context_id(previous); }
};

class Hooks final : public rpc::AutogradHooks {
 public:
  void wrap_request(int to, Envelope* env, const std::vector<c10::IValue>& args,
                    bool force) override {
    const int64_t id = DistAutogradContainer::current_context_id();
    if (id < 0) return;
    bool any = false;
    if (!force && at::GradMode::is_enabled()) {
      const int n = std::min(static_cast<int>(args.size()), env->values_size());
      for (int i = 0; i < n && !any; ++i) {
        for_each_tensor(args[i], env->mutable_values(i),
                        [&](const at::Tensor& t, ember::rpc::TensorMeta*) {
                          any = any || t.requires_grad();
                        });
      }
    }
    if (!any && !force) return;
    ContextPtr ctx = DistAutogradContainer::get_instance().retrieve_context(id);
    ctx->add_known_worker_id(to);
    const int64_t message = attach_send(ctx, args, env);
    auto* md = env->mutable_autograd();
    md->set_context_id(id);
    md->set_message_id(message);
    md->set_wrapped_kind(env->kind());
    env->set_kind(ember::rpc::FORWARD_AUTOGRAD_REQ);
  }

  void unwrap_request(rpc::wire::Decoded* msg) override {
    const auto& md = msg->envelope.autograd();
    const auto kind = md.wrapped_kind();
    TORCH_CHECK(kind == ember::rpc::OP_CALL || kind == ember::rpc::REMOTE_CALL ||
                    kind == ember::rpc::RREF_FETCH_CALL,
                "rpc: bad message: FORWARD_AUTOGRAD_REQ wraps kind ", kind);
    ContextPtr ctx =
        DistAutogradContainer::get_instance().get_or_create_context(md.context_id());
    const int from = msg->envelope.from_rank();
    ctx->add_known_worker_id(from);
    attach_recv(ctx, from, md.message_id(), msg);
    msg->envelope.set_kind(kind);
  }

  std::shared_ptr<void> enter(const Envelope& request) override {
    auto scope = std::make_shared<Scope>();
    scope->previous = DistAutogradContainer::current_context_id();
    DistAutogradContainer::set_current_context_id(request.autograd().context_id());
    return scope;
  }

  void wrap_response(const Envelope& request, Envelope* response,
                     const c10::IValue& result) override {
    if (!request.has_autograd() || response->values_size() != 1) return;
    const int64_t id = request.autograd().context_id();
    ContextPtr ctx = DistAutogradContainer::get_instance().retrieve_context_if_present(id);
    TORCH_CHECK(ctx != nullptr, "dist_autograd: context ", id, " was released "
                "while an RPC made in it ran.");
    const int64_t message = attach_send(ctx, {result}, response);
    if (message == 0) return;
    ctx->add_known_worker_id(request.from_rank());
    response->mutable_autograd()->set_context_id(id);
    response->mutable_autograd()->set_message_id(message);
    response->set_kind(ember::rpc::FORWARD_AUTOGRAD_RESP);
  }

  void unwrap_response(rpc::wire::Decoded* reply) override {
    const auto& md = reply->envelope.autograd();
    ContextPtr ctx = DistAutogradContainer::get_instance().retrieve_context_if_present(
        md.context_id());
    TORCH_CHECK(ctx != nullptr, "dist_autograd: context ", md.context_id(),
                " was released before the response of an RPC made in it "
                "arrived.");
    ctx->add_known_worker_id(reply->envelope.from_rank());
    attach_recv(ctx, reply->envelope.from_rank(), md.message_id(), reply);
  }

  c10::intrusive_ptr<c10::ivalue::Future> handle(
      rpc::wire::Decoded msg,
      std::function<void(std::function<void()>)> post) override {
    const auto& md = msg.envelope.autograd();
    if (msg.envelope.kind() == ember::rpc::CLEANUP_AUTOGRAD_CONTEXT_REQ) {
      DistAutogradContainer::get_instance().release_context(
          md.context_id(), msg.envelope.from_rank());
      auto done = c10::make_intrusive<c10::ivalue::Future>();
      done->markCompleted();
      return done;
    }
    TORCH_CHECK(msg.values.size() == 2 && msg.values[0].isOptionalTensorList() &&
                    msg.values[1].isBool(),
                "rpc: bad message: BACKWARD_AUTOGRAD_REQ needs the gradients "
                "and retain_graph");
    std::vector<at::Tensor> grads;
    for (auto& g : msg.values[0].toOptionalTensorVector()) {
      grads.push_back(g.has_value() ? at::Tensor(*g) : at::Tensor());
    }
    return DistEngine::execute_send_function_async(
        md.context_id(), md.message_id(), std::move(grads),
        msg.values[1].toBool(), post);
  }
};

// Installed when libember_distributed.so loads; never destroyed (the agent
// may call it during static destruction).
const bool g_installed = [] {
  static Hooks* hooks = new Hooks();
  rpc::set_autograd_hooks(hooks);
  return true;
}();

}  // namespace

}  // namespace autograd
}  // namespace distributed
}  // namespace torch
