// RecvRpcBackward::apply: the gradients go to the sender (functions.h).
#include "distributed/autograd/functions.h"

#include <optional>

#include "distributed/autograd/engine.h"
#include "distributed/rpc/agent.h"

namespace torch {
namespace distributed {
namespace autograd {

torch::autograd::variable_list RecvRpcBackward::apply(
    torch::autograd::variable_list&& grads) {
  ContextPtr ctx = context_.lock();
  TORCH_CHECK(ctx != nullptr, "RecvRpcBackward: the distributed autograd "
              "context was released during the backward pass.");
  auto agent = rpc::current_agent("dist_autograd::backward");
  bool retain_graph = false;
  {
    std::lock_guard<std::mutex> g(ctx->mutex_);
    if (ctx->pass_) retain_graph = ctx->pass_->task->keep_graph_;
  }
  ember::rpc::Envelope env;
  env.set_kind(ember::rpc::BACKWARD_AUTOGRAD_REQ);
  env.mutable_autograd()->set_context_id(ctx->context_id());
  env.mutable_autograd()->set_message_id(message_id_);
  std::vector<std::optional<at::Tensor>> list;
  list.reserve(grads.size());
  for (auto& g : grads) {
    list.push_back(g.defined() ? std::optional<at::Tensor>(std::move(g))
                               : std::nullopt);
  }
  rpc::wire::Encoder enc;
  enc.add_value(env.add_values(), c10::IValue(std::move(list)));
  enc.add_value(env.add_values(), c10::IValue(retain_graph));
  auto fut = agent->send(from_worker_, env, enc,
                         agent->resolve_timeout(rpc::kUnsetRpcTimeout),
                         "dist_autograd backward",
                         [](rpc::wire::Decoded&) { return c10::IValue(); });
  DistEngine::add_outstanding_rpc(ctx, std::move(fut));
  return {};
}

}  // namespace autograd
}  // namespace distributed
}  // namespace torch
