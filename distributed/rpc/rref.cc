// RRef: owner and user references and the reference-counting protocol.
//
// Note [RRef protocol]
// ~~~~~~~~~~~~~~~~~~~~
// PyTorch's protocol (rref.rst), with Ember's names:
//   - An RRef has a global id (worker, counter) given by the worker that
//     called remote(); every reference to it (a fork) has its own id too.
//     The owner keeps the value and the set of live forks; when the set
//     becomes empty it drops the value.
//   - remote(): the caller makes the RRef id and its own fork id and sends
//     REMOTE_CALL; the owner records the fork before running the op and
//     answers when the value (or its error) is ready; that answer confirms
//     the caller's user. A remote() to oneself makes an owner handle.
//   - Deleting the last handle of a user sends RREF_USER_DELETE, but only
//     once the user is confirmed, so the owner never sees a delete before
//     the fork it deletes.
//   - Passing an RRef in a call forks it: the parent makes a fork id. When
//     the parent is the owner, it records the fork before sending. When the
//     callee is the owner, no fork is made. Otherwise the parent keeps its
//     own user alive (children_) until the child has told the owner
//     (RREF_FORK_REQUEST, acknowledged) and then the parent
//     (RREF_CHILD_ACCEPT). A callee receives the value of an RRef argument
//     (Ember's operators take IValues), so it holds its user for the
//     duration of the call and releases it, waiting for the owner's ack,
//     before it answers.
//   - shutdown() releases every user that is still alive, then clears the
//     owner table; debug::rref_counts() is then zero.
#include <atomic>
#include <sstream>

#include "distributed/rpc/agent.h"

namespace torch {
namespace distributed {
namespace rpc {

namespace {
// Live owner entries and unreleased user references in this process, for
// debug::rref_counts(). Counted by the objects themselves, so an entry that
// leaks (kept alive by a stray callback) still shows. Relaxed: a counter, no
// other memory is published through it.
std::atomic<int64_t> g_live_owners{0};
std::atomic<int64_t> g_live_users{0};
}  // namespace

Agent::Owner::Owner() { g_live_owners.fetch_add(1, std::memory_order_relaxed); }
Agent::Owner::~Owner() {
  g_live_owners.fetch_sub(1, std::memory_order_relaxed);
}

namespace {

GloballyUniqueId from_proto(const ember::rpc::RRefId& id) {
  return GloballyUniqueId{id.worker(), id.local_id()};
}
void to_proto(const GloballyUniqueId& id, ember::rpc::RRefId* out) {
  out->set_worker(id.worker);
  out->set_local_id(id.local_id);
}

}  // namespace

namespace detail {

RRefState::~RRefState() {
  if (released.load()) return;
  if (auto a = agent.lock()) {
    try {
      a->release(*this, /*wait=*/false);
    } catch (...) {
      // RPC already stopped: shutdown() cleared the tables.
    }
  }
}

}  // namespace detail

std::shared_ptr<Agent::Owner> Agent::get_or_create_owner(
    const GloballyUniqueId& id) {
  std::lock_guard<std::mutex> g(mutex_);
  auto& o = owners_[id];
  if (!o) o = std::make_shared<Owner>();
  return o;
}

// Note [Deletes before forks]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The owner serves requests on several threads, so a user's delete can be
// handled before the request that records its fork: a remote() that timed
// out on its creator is released at once, and its REMOTE_CALL may still be
// on its way. A delete of a fork the owner does not know leaves a tombstone
// (at most kMaxTombstones), and the fork it names is then never recorded:
// the late REMOTE_CALL is answered with an error without running, and no
// owner entry is left behind for a user that no longer exists.
bool Agent::add_fork(const GloballyUniqueId& rref_id,
                     const GloballyUniqueId& fork_id) {
  std::lock_guard<std::mutex> g(mutex_);
  if (deleted_forks_.erase(fork_id)) return false;
  auto& o = owners_[rref_id];
  if (!o) o = std::make_shared<Owner>();
  o->forks.insert(fork_id);
  return true;
}

void Agent::remove_fork(const GloballyUniqueId& rref_id,
                        const GloballyUniqueId& fork_id) {
  std::shared_ptr<Owner> dropped;  // freed outside the lock
  std::lock_guard<std::mutex> g(mutex_);
  auto it = owners_.find(rref_id);
  if (it == owners_.end() || !it->second->forks.count(fork_id)) {
    if (deleted_forks_.size() < kMaxTombstones) deleted_forks_.insert(fork_id);
    return;
  }
  it->second->forks.erase(fork_id);
  if (it->second->forks.empty()) {
    dropped = std::move(it->second);
    owners_.erase(it);
  }
}

void Agent::register_user(const std::shared_ptr<detail::RRefState>& s) {
  g_live_users.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> g(mutex_);
  users_[s->fork_id] = s;
}

void Agent::forget_user(detail::RRefState& s) {
  if (!s.released.exchange(true)) {
    g_live_users.fetch_sub(1, std::memory_order_relaxed);
  }
}

namespace debug {
RRefCounts rref_counts() {
  RRefCounts c;
  c.owners = g_live_owners.load(std::memory_order_relaxed);
  c.users = g_live_users.load(std::memory_order_relaxed);
  return c;
}
}  // namespace debug

RRef Agent::remote(int to, const std::string& op,
                   const std::vector<RpcArg>& args, double timeout) {
  auto s = std::make_shared<detail::RRefState>();
  s->agent = weak_from_this();
  s->rref_id = new_id();
  s->fork_id = new_id();
  s->owner = to;
  s->is_owner = (to == rank_);
  ember::rpc::Envelope env;
  env.set_kind(ember::rpc::REMOTE_CALL);
  env.set_op(op);
  to_proto(s->rref_id, env.mutable_rref_id());
  to_proto(s->fork_id, env.mutable_fork_id());
  wire::Encoder enc;
  encode_args(to, args, &env, &enc);
  if (AutogradHooks* hooks = autograd_hooks()) {
    // See Note [Distributed autograd hooks] in agent.h.
    std::vector<c10::IValue> values;
    for (const auto& a : args) values.push_back(a.is_rref() ? c10::IValue() : a.value());
    hooks->wrap_request(to, &env, values, /*force=*/false);
  }
  std::vector<std::shared_ptr<detail::RRefState>> held;
  for (const auto& a : args) {
    if (a.is_rref()) held.push_back(detail::RRefAccess::state(a.rref()));
  }
  if (s->is_owner) {
    // The owner's own handle is a fork like any other; the op still runs
    // through this worker's server, like every request.
    add_fork(s->rref_id, s->fork_id);
  } else {
    register_user(s);
  }
  auto fut = send(to, env, enc, timeout, "remote(" + op + ")",
                  [held](wire::Decoded&) { return c10::IValue(); });
  fut->addCallback([confirmed = s->confirmed](Future& f) {
    if (f.hasError()) {
      confirmed->setErrorIfNeeded(f.exception_ptr());
    } else if (!confirmed->completed()) {
      confirmed->markCompleted();
    }
  });
  return detail::RRefAccess::make(std::move(s));
}

void Agent::handle_remote(wire::Decoded msg, transport::ServerCall call) {
  const GloballyUniqueId rid = from_proto(msg.envelope.rref_id());
  const GloballyUniqueId fid = from_proto(msg.envelope.fork_id());
  if (!add_fork(rid, fid)) {
    // See Note [Deletes before forks].
    ember::rpc::Envelope env;
    env.set_kind(ember::rpc::REMOTE_RESPONSE);
    env.set_error("Error on Node " + std::to_string(rank_) + ": remote(" +
                  msg.envelope.op() + ") arrived after its creator released "
                  "the RRef (its remote() timed out); it was not run.");
    reply(call, env);
    return;
  }
  std::shared_ptr<Owner> owner = get_or_create_owner(rid);
  auto run = [this, owner, call](wire::Decoded m) {
    ember::rpc::Envelope env;
    env.set_kind(ember::rpc::REMOTE_RESPONSE);
    std::string error;
    try {
      // The value keeps its history (See Note [Distributed autograd hooks]).
      AutogradHooks* hooks =
          m.envelope.has_autograd() ? autograd_hooks() : nullptr;
      std::shared_ptr<void> scope = hooks ? hooks->enter(m.envelope) : nullptr;
      std::vector<std::shared_ptr<detail::RRefState>> held;
      std::vector<c10::IValue> args =
          resolve_args(m, options_.rpc_timeout, &held);
      c10::IValue v = run_operator(m.envelope.op(), std::move(args));
      for (auto& h : held) release(*h, /*wait=*/true);
      owner->value->markCompleted(std::move(v));
    } catch (const c10::Error& e) {
      error = e.what_without_backtrace();
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) {
      error = "Error on Node " + std::to_string(rank_) + ": " + error;
      owner->value->setErrorIfNeeded(std::make_exception_ptr(make_error(error)));
      env.set_error(error);
    }
    reply(call, env);
  };
  auto shared = std::make_shared<wire::Decoded>(std::move(msg));
  post([run, shared] { run(std::move(*shared)); });
}

void Agent::handle_fetch(wire::Decoded& msg, transport::ServerCall call) {
  std::shared_ptr<Owner> owner =
      get_or_create_owner(from_proto(msg.envelope.rref_id()));
  // Answered when the value is ready: at once, or from the thread that
  // completes it. No thread waits. A fetch made in a distributed autograd
  // context sends the value with a send function.
  std::shared_ptr<ember::rpc::Envelope> request;
  if (msg.envelope.has_autograd()) {
    request = std::make_shared<ember::rpc::Envelope>();
    request->set_from_rank(msg.envelope.from_rank());
    *request->mutable_autograd() = msg.envelope.autograd();
  }
  const int from = msg.envelope.from_rank();
  owner->value->addCallback([this, call, request, from](Future& f) {
    ember::rpc::Envelope env;
    env.set_kind(ember::rpc::RREF_FETCH_RESPONSE);
    wire::Encoder enc;
    if (f.hasError()) {
      env.set_error(f.tryRetrieveErrorMessage());
    } else {
      try {
        enc.add_value(env.add_values(), f.constValue());
        if (request && autograd_hooks()) {
          autograd_hooks()->wrap_response(*request, &env, f.constValue());
        }
      } catch (const c10::Error& e) {
        env.clear_values();
        enc = wire::Encoder();
        env.set_error("Error on Node " + std::to_string(rank_) + ": " +
                      e.what_without_backtrace());
      }
    }
    reply(call, env, &enc, from);
  });
}

c10::IValue Agent::local_value(const detail::RRefState& s) {
  TORCH_CHECK(s.is_owner, "RRef::local_value: this worker ('", name_,
              "') is not the owner of RRef ", s.rref_id.str(), " (owned by '",
              info(s.owner).name, "'); call to_here() on a user.");
  std::shared_ptr<Owner> owner;
  {
    std::lock_guard<std::mutex> g(mutex_);
    auto it = owners_.find(s.rref_id);
    TORCH_CHECK(it != owners_.end(), "RRef::local_value: RRef ",
                s.rref_id.str(), " is gone (RPC was shut down).");
    owner = it->second;
  }
  owner->value->waitAndThrow();
  return owner->value->value();
}

c10::IValue Agent::to_here(const detail::RRefState& s, double timeout) {
  if (s.is_owner) return local_value(s);
  // remote()'s own failure (the op's error, a timeout) surfaces here.
  if (s.confirmed->completed() && s.confirmed->hasError()) {
    std::rethrow_exception(s.confirmed->exception_ptr());
  }
  ember::rpc::Envelope env;
  env.set_kind(ember::rpc::RREF_FETCH_CALL);
  to_proto(s.rref_id, env.mutable_rref_id());
  to_proto(s.fork_id, env.mutable_fork_id());
  wire::Encoder enc;
  if (AutogradHooks* hooks = autograd_hooks()) {
    // to_here() always records a send/recv pair in a context, as PyTorch's.
    hooks->wrap_request(s.owner, &env, {}, /*force=*/true);
  }
  auto fut = send(s.owner, env, enc, resolve_timeout(timeout), "to_here()",
                  [](wire::Decoded& d) -> c10::IValue {
                    TORCH_CHECK(d.values.size() == 1,
                                "rpc: bad message: to_here() got ",
                                d.values.size(), " values instead of 1");
                    return std::move(d.values[0]);
                  });
  fut->waitAndThrow();
  return fut->value();
}

void Agent::release(detail::RRefState& s, bool wait) {
  if (s.released.exchange(true)) return;
  if (s.is_owner) {
    remove_fork(s.rref_id, s.fork_id);
    return;
  }
  g_live_users.fetch_sub(1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> g(mutex_);
    users_.erase(s.fork_id);
  }
  // The delete goes out once the owner knows the fork (See Note [RRef
  // protocol]); it is sent even when remote() failed, since the owner may
  // have recorded the fork anyway, and the owner ignores unknown forks.
  std::weak_ptr<Agent> weak = weak_from_this();
  const GloballyUniqueId rid = s.rref_id, fid = s.fork_id;
  const int owner = s.owner;
  auto send_delete = [weak, rid, fid, owner]() -> c10::intrusive_ptr<Future> {
    auto self = weak.lock();
    if (!self) return {};
    ember::rpc::Envelope env;
    env.set_kind(ember::rpc::RREF_USER_DELETE);
    to_proto(rid, env.mutable_rref_id());
    to_proto(fid, env.mutable_fork_id());
    wire::Encoder enc;
    try {
      return self->send(owner, env, enc, self->resolve_timeout(kUnsetRpcTimeout),
                        "RRef delete",
                        [](wire::Decoded&) { return c10::IValue(); });
    } catch (const c10::Error&) {
      return {};  // RPC stopped: the owner's table is cleared at shutdown
    }
  };
  if (wait) {
    s.confirmed->wait();
    if (auto f = send_delete()) f->wait();
  } else if (s.confirmed->completed()) {
    send_delete();
  } else {
    s.confirmed->addCallback([send_delete](Future&) { send_delete(); });
  }
}

std::shared_ptr<detail::RRefState> Agent::receive_rref(
    const ember::rpc::RRefArg& arg, double timeout) {
  auto s = std::make_shared<detail::RRefState>();
  s->agent = weak_from_this();
  s->rref_id = from_proto(arg.rref_id());
  s->fork_id = from_proto(arg.fork_id());
  s->owner = arg.owner();
  s->is_owner = false;
  TORCH_CHECK(arg.owner() >= 0 && arg.owner() < world_size_ &&
                  arg.parent() >= 0 && arg.parent() < world_size_,
              "rpc: bad message: an RRef argument names rank ", arg.owner(),
              " or ", arg.parent(), " outside the group");
  register_user(s);
  if (arg.parent() == arg.owner()) {
    s->confirmed->markCompleted();  // the owner recorded the fork itself
    return s;
  }
  ember::rpc::Envelope req;
  req.set_kind(ember::rpc::RREF_FORK_REQUEST);
  *req.mutable_rref_id() = arg.rref_id();
  *req.mutable_fork_id() = arg.fork_id();
  wire::Encoder enc;
  auto ack = send(arg.owner(), req, enc, timeout, "RRef fork request",
                  [](wire::Decoded&) { return c10::IValue(); });
  ack->wait();
  if (ack->hasError()) {
    s->confirmed->setError(ack->exception_ptr());
    std::rethrow_exception(ack->exception_ptr());
  }
  s->confirmed->markCompleted();
  ember::rpc::Envelope accept;
  accept.set_kind(ember::rpc::RREF_CHILD_ACCEPT);
  *accept.mutable_fork_id() = arg.fork_id();
  wire::Encoder enc2;
  send(arg.parent(), accept, enc2, timeout, "RRef child accept",
       [](wire::Decoded&) { return c10::IValue(); })
      ->waitAndThrow();
  return s;
}

std::vector<c10::IValue> Agent::resolve_args(
    wire::Decoded& msg, double timeout,
    std::vector<std::shared_ptr<detail::RRefState>>* held) {
  std::vector<c10::IValue> args = std::move(msg.values);
  for (int i = 0; i < msg.envelope.values_size(); ++i) {
    if (!msg.envelope.values(i).has_rref()) continue;
    const auto& arg = msg.envelope.values(i).rref();
    if (arg.owner() == rank_) {
      // The creator's remote() and this call travel separately, so the
      // REMOTE_CALL that makes the value may not have been handled yet: wait
      // for it as a fetch does (the entry it will fill, made now if need be;
      // an entry whose value never comes is answered with an error at
      // shutdown).
      std::shared_ptr<Owner> owner = get_or_create_owner(from_proto(arg.rref_id()));
      owner->value->waitAndThrow();
      args[i] = owner->value->value();
      continue;
    }
    auto s = receive_rref(arg, timeout);
    held->push_back(s);
    args[i] = to_here(*s, timeout);
  }
  return args;
}

// ---------------------------------------------------------------------------
// RRef handle.

namespace {
std::shared_ptr<Agent> agent_of(const std::shared_ptr<detail::RRefState>& s,
                                const char* api) {
  TORCH_CHECK(s != nullptr, api, ": the RRef is empty (default-constructed).");
  auto a = s->agent.lock();
  TORCH_CHECK(a != nullptr && !a->closed(), api, ": RPC has been shut down; the RRef ",
              s->rref_id.str(), " can no longer be used.");
  return a;
}
}  // namespace

c10::IValue RRef::to_here(double timeout) const {
  return agent_of(state_, "RRef::to_here")->to_here(*state_, timeout);
}

WorkerInfo RRef::owner() const {
  return agent_of(state_, "RRef::owner")->info(state_->owner);
}

std::string RRef::owner_name() const { return owner().name; }

bool RRef::is_owner() const {
  TORCH_CHECK(state_ != nullptr, "RRef::is_owner: the RRef is empty.");
  return state_->is_owner;
}

c10::IValue RRef::local_value() const {
  return agent_of(state_, "RRef::local_value")->local_value(*state_);
}

bool RRef::confirmed_by_owner() const {
  TORCH_CHECK(state_ != nullptr, "RRef::confirmed_by_owner: the RRef is empty.");
  return state_->is_owner ||
         (state_->confirmed->completed() && !state_->confirmed->hasError());
}

std::string RRef::rref_id() const {
  TORCH_CHECK(state_ != nullptr, "RRef::rref_id: the RRef is empty.");
  return state_->rref_id.str();
}

std::string RRef::fork_id() const {
  TORCH_CHECK(state_ != nullptr, "RRef::fork_id: the RRef is empty.");
  return state_->fork_id.str();
}

}  // namespace rpc
}  // namespace distributed
}  // namespace torch
