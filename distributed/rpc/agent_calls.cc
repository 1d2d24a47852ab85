// The gRPC agent's outgoing calls: sending a request, completing its future
// from the reply, and the peers' names. See Note [Agent threads] in agent.h.
#include <sstream>

#include "distributed/rpc/agent.h"

namespace torch {
namespace distributed {
namespace rpc {

using detail::status_text;

// ---------------------------------------------------------------------------
// Calls.

WorkerInfo Agent::info(int rank) const {
  std::lock_guard<std::mutex> g(mutex_);
  TORCH_CHECK(rank >= 0 && rank < static_cast<int>(peers_.size()),
              "rpc: no worker with rank ", rank, " (world_size=", world_size_,
              ").");
  return peers_[rank]->info;
}

int Agent::rank_of(const std::string& name) const {
  std::lock_guard<std::mutex> g(mutex_);
  auto it = rank_by_name_.find(name);
  if (it == rank_by_name_.end()) {
    std::ostringstream known;
    for (auto& p : peers_) known << " '" << p->info.name << "'";
    TORCH_CHECK(false, "rpc: unknown worker '", name, "'; the workers are",
                known.str(), ".");
  }
  return it->second;
}

void Agent::note_dead(int rank) {
  {
    std::lock_guard<std::mutex> g(mutex_);
    dead_.insert(rank);
    cv_.notify_all();
  }
  drop_pins(rank);  // a dead worker reads nothing more
}

c10::intrusive_ptr<Future> Agent::send(int to, ember::rpc::Envelope& request,
                                       wire::Encoder& encoder, double timeout,
                                       const std::string& what,
                                       ReplyHandler handler, bool blocking) {
  // Everything the completion reads is written before the call is
  // published under mutex_, which the completion takes first (Note [TSan
  // and gRPC] in docs/distributed.md).
  std::string token;
  Peer* peer;
  {
    std::lock_guard<std::mutex> g(mutex_);
    // Until the barrier is passed this worker still serves its peers,
    // whose requests may need calls of their own (forks, fetches).
    TORCH_CHECK(!closed_, "rpc: ", what, " after shutdown(); RPC is shut "
                "down on this worker.");
    TORCH_CHECK(ready_, "rpc: ", what, " before init_rpc finished.");
    token = token_;
    peer = peers_.at(to).get();
  }
  request.set_token(token);
  request.set_from_rank(rank_);
  request.set_reads_your_memory(peer->i_read);  // set before ready_
  auto owned = std::make_unique<PendingCall>();
  owned->to = to;
  owned->timeout = timeout;
  owned->what = what;
  owned->handler = std::move(handler);
  // Large arguments to a peer that reads this worker's memory are shared,
  // and live as long as the call (See Note [Shared tensors] in
  // peer_memory.h).
  owned->rpc.request = encoder.has_shareable() && may_share_with(to)
                           ? encoder.finish_sharing(request, &owned->shared)
                           : encoder.finish(request);
  owned->rpc.set_timeout(timeout);
  auto future = owned->future;
  {
    std::lock_guard<std::mutex> g(mutex_);
    TORCH_CHECK(!closed_, "rpc: ", what, " after shutdown(); RPC is shut "
                "down on this worker.");
    ++outstanding_;
    pending_.insert(owned.get());
  }
  PendingCall* call = owned.release();
  if (blocking) {
    // See Note [Synchronous calls].
    grpc::Status status = transport::call_blocking(*peer->endpoint, &call->rpc);
    complete(call, std::move(status));
    return future;
  }
  // A raw pointer: shutdown() waits for every completion (outstanding_)
  // before the agent can go, and the agent must never be destroyed on a
  // gRPC thread.
  transport::call_async(*peer->endpoint, &call->rpc, &Agent::on_done, this,
                        call);
  return future;
}

void Agent::on_done(void* self, void* call, grpc::Status status) {
  static_cast<Agent*>(self)->complete(static_cast<PendingCall*>(call),
                                      std::move(status));
}

// Note [Synchronous calls]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// rpc_sync (and other callers that wait at once) make a blocking gRPC call:
// the calling thread polls for its own reply, so the reply wakes it
// directly instead of a gRPC callback thread that then wakes it through the
// Future (one context switch less per call; figures in docs/benchmarks.md).
// Both kinds share complete(), the accounting (outstanding_, pending_) and
// cancellation.
void Agent::complete(PendingCall* call, grpc::Status status) {
  // Taking the agent's mutex first orders everything send() wrote into
  // `call` before what follows, for TSan too: gRPC's own synchronization is
  // invisible to it (Note [TSan and gRPC] in docs/distributed.md).
  WorkerInfo peer;
  {
    std::lock_guard<std::mutex> g(mutex_);
    pending_.erase(call);
    peer = peers_[call->to]->info;
  }
  std::exception_ptr error;
  c10::IValue value;
  if (status.ok()) {
    try {
      wire::Decoded d = wire::decode_header(call->rpc.response);
      learn_reader(call->to, d.envelope);
      // Shared results are released as soon as they are read, or failed
      // to be (See Note [Shared tensors] in peer_memory.h).
      const uint64_t pin = d.envelope.pin_id();
      try {
        wire::RemoteSource source;
        wire::decode_values(d, source_of(call->to, &source));
      } catch (...) {
        if (pin != 0) send_release(call->to, pin);
        throw;
      }
      if (pin != 0) send_release(call->to, pin);
      if (!d.envelope.error().empty()) {
        error = std::make_exception_ptr(make_error(d.envelope.error()));
      } else {
        if (d.envelope.kind() == ember::rpc::FORWARD_AUTOGRAD_RESP) {
          AutogradHooks* hooks = autograd_hooks();
          TORCH_CHECK(hooks != nullptr, "rpc: bad message: an autograd "
                      "response without distributed autograd");
          hooks->unwrap_response(&d);
        }
        value = call->handler(d);
      }
    } catch (const c10::Error& e) {
      error = std::make_exception_ptr(e);
    } catch (...) {
      error = std::current_exception();
    }
  } else {
    const std::string who =
        "'" + peer.name + "' (rank " + std::to_string(peer.id) + ")";
    if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      std::ostringstream s;
      s << "rpc: " << call->what << " to " << who << " timed out after "
        << call->timeout
        << " s; a late reply is dropped. Pass a larger timeout (0 for "
           "none) or find out why the worker is slow.";
      error = std::make_exception_ptr(make_error(s.str()));
    } else if (status.error_code() == grpc::StatusCode::PERMISSION_DENIED) {
      error = std::make_exception_ptr(make_error(
          "rpc: " + call->what + " to " + who + " was refused: " +
          status.error_message() +
          ". Every worker must use the same EMBER_RPC_TOKEN."));
    } else if (status.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      error = std::make_exception_ptr(make_error(
          "rpc: " + call->what + " to " + who +
          " was rejected: " + status.error_message()));
    } else {
      if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
        note_dead(call->to);
      }
      error = std::make_exception_ptr(make_error(
          "rpc: " + call->what + " to " + who +
          " failed: the worker is unreachable or died (" +
          status_text(status) + ")."));
    }
    // Without a response the callee may still be reading shared arguments,
    // unless it refused the call or died (See Note [Shared tensors]).
    const auto code = status.error_code();
    if (code != grpc::StatusCode::PERMISSION_DENIED &&
        code != grpc::StatusCode::INVALID_ARGUMENT &&
        code != grpc::StatusCode::UNAVAILABLE) {
      keep_stale_args(call->to, std::move(call->shared));
    }
  }
  auto fut = call->future;
  delete call;
  if (error) {
    fut->setError(error);
  } else {
    fut->markCompleted(std::move(value));
  }
  std::lock_guard<std::mutex> g(mutex_);
  --outstanding_;
  cv_.notify_all();
}

void Agent::encode_args(int to, const std::vector<RpcArg>& args,
                        ember::rpc::Envelope* env, wire::Encoder* enc) {
  for (const auto& a : args) {
    if (!a.is_rref()) {
      enc->add_value(env->add_values(), a.value());
      continue;
    }
    const auto& s = detail::RRefAccess::state(a.rref());
    auto* arg = env->add_values()->mutable_rref();
    GloballyUniqueId fork = new_id();
    arg->mutable_rref_id()->set_worker(s->rref_id.worker);
    arg->mutable_rref_id()->set_local_id(s->rref_id.local_id);
    arg->mutable_fork_id()->set_worker(fork.worker);
    arg->mutable_fork_id()->set_local_id(fork.local_id);
    arg->set_owner(s->owner);
    arg->set_parent(rank_);
    if (s->owner == to) continue;  // the owner resolves it locally
    if (s->is_owner) {
      add_fork(s->rref_id, fork);  // the owner knows the child at once
    } else {
      // Keep this user alive until the child accepts (See Note [RRef
      // protocol] in rref.cc).
      std::lock_guard<std::mutex> g(mutex_);
      children_[fork] = s;
    }
  }
}

void Agent::wait_outstanding() {
  std::unique_lock<std::mutex> l(mutex_);
  cv_.wait(l, [this] { return outstanding_ == 0; });
}

}  // namespace rpc
}  // namespace distributed
}  // namespace torch
