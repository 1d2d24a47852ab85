// distributed/rpc/agent.h — the gRPC agent behind rpc.h: one server per
// worker, one channel per peer, rendezvous and the shutdown barrier through
// rank 0, and the owner side of the RRef protocol. Internal to
// //distributed/rpc; users call the functions of rpc.h.
//
// Note [Agent threads]
// ~~~~~~~~~~~~~~~~~~~~
// The server uses gRPC's callback API: a request is decoded on a gRPC
// callback thread, and a reply can be finished later from any thread, so no
// thread waits per call. Requests that never block (fetches, acks, pings,
// the rendezvous and barrier bookkeeping) are answered on that thread.
// Operators (op calls and remote calls) run on the agent's pool
// (RpcBackendOptions::num_worker_threads): they may be long, or wait for
// other workers (RRef arguments fork and fetch), and must not stall gRPC's
// threads. The exception is an op call of a built-in (aten::) operator
// with no RRef argument and at most kInlineMaxBytes of tensors: it runs on
// the gRPC thread, as the pool's handoff costs more than such an op.
// Client calls go through one channel per peer with the method registered
// on it: asynchronous ones are callback unary calls whose completion runs on
// a gRPC thread and completes the caller's Future there; rpc_sync's are
// blocking calls polled by the caller (Note [Synchronous calls] in
// agent_calls.cc).
#pragma once


#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "distributed/rpc/peer_memory.h"
#include "distributed/rpc/rpc.h"
#include "distributed/rpc/transport.h"
#include "distributed/rpc/wire.h"

namespace torch {
namespace distributed {
namespace rpc {

// (worker, counter): the global id of an RRef or of one of its forks.
struct GloballyUniqueId {
  int32_t worker = -1;
  int64_t local_id = -1;
  bool operator<(const GloballyUniqueId& o) const {
    return worker != o.worker ? worker < o.worker : local_id < o.local_id;
  }
  bool operator==(const GloballyUniqueId& o) const {
    return worker == o.worker && local_id == o.local_id;
  }
  std::string str() const {
    return std::to_string(worker) + ":" + std::to_string(local_id);
  }
};

class Agent;

namespace detail {

// The state behind an RRef handle: a user reference (fork) or the owner's
// own reference. Deleting the last handle releases the fork (See Note [RRef
// protocol] in rref.cc).
struct RRefState {
  std::weak_ptr<Agent> agent;
  GloballyUniqueId rref_id;
  GloballyUniqueId fork_id;
  int32_t owner = -1;
  bool is_owner = false;
  // User: completes (None) when the owner knows this fork, or with the
  // error of the remote() that made it. Owner: complete at once.
  c10::intrusive_ptr<Future> confirmed = c10::make_intrusive<Future>();
  // Set once the fork was released (by the last handle or at shutdown).
  std::atomic<bool> released{false};
  ~RRefState();
};

struct RRefAccess {
  static RRef make(std::shared_ptr<RRefState> s) { return RRef(std::move(s)); }
  static const std::shared_ptr<RRefState>& state(const RRef& r) {
    return r.state_;
  }
};

}  // namespace detail

class Agent : public std::enable_shared_from_this<Agent> {
 public:
  using ReplyHandler = std::function<c10::IValue(wire::Decoded&)>;

  Agent(std::string name, int rank, int world_size, RpcBackendOptions options);
  ~Agent();

  // Starts the server and joins the group; throws on rendezvous errors.
  void start();
  // See rpc::shutdown().
  void shutdown(bool graceful);

  int rank() const { return rank_; }
  // Past shutdown's barrier (or an ungraceful shutdown): no new calls.
  bool closed() const {
    std::lock_guard<std::mutex> g(mutex_);
    return closed_;
  }
  int world_size() const { return world_size_; }
  const std::string& name() const { return name_; }
  WorkerInfo info(int rank) const;
  int rank_of(const std::string& name) const;  // throws for unknown names
  double resolve_timeout(double timeout) const {
    return timeout < 0 ? options_.rpc_timeout : timeout;
  }

  // Sends `request` (token and from_rank are filled in here) to `to` and
  // completes the returned Future with handler(reply), or with an error
  // naming the worker: the callee's ("Error on Node <to>: ..."), a timeout,
  // or the transport's. timeout in seconds, 0 = none. blocking: make the
  // call on this thread and return a completed Future (See Note
  // [Synchronous calls] in agent_calls.cc).
  c10::intrusive_ptr<Future> send(int to, ember::rpc::Envelope& request,
                                  wire::Encoder& encoder, double timeout,
                                  const std::string& what,
                                  ReplyHandler handler, bool blocking = false);

  // Builds the arguments of a call: values, and RRefs forked to `to`.
  void encode_args(int to, const std::vector<RpcArg>& args,
                   ember::rpc::Envelope* env, wire::Encoder* enc);

  GloballyUniqueId new_id() {
    return GloballyUniqueId{rank_, next_local_id_.fetch_add(1)};
  }

  // ---- RRefs (rref.cc) ----
  RRef remote(int to, const std::string& op, const std::vector<RpcArg>& args,
              double timeout);
  c10::IValue to_here(const detail::RRefState& s, double timeout);
  c10::IValue local_value(const detail::RRefState& s);
  void release(detail::RRefState& s, bool wait);
  // Marks a user released without telling the owner (RPC is stopping).
  void forget_user(detail::RRefState& s);

 private:
  struct Peer {
    WorkerInfo info;
    std::string tcp_address;
    std::string unix_address;
    std::string hostname;
    std::unique_ptr<transport::Endpoint> endpoint;
    // See Note [Shared tensors] in peer_memory.h. i_read: this worker can
    // read the peer's memory (found at rendezvous; read-only after).
    // reads_me: the peer said it can read this worker's.
    peer_memory::Probe probe;
    bool i_read = false;
    std::atomic<bool> reads_me{false};
    // Under pins_mutex_: bytes kept alive for the peer's reads (responses
    // not yet released, arguments of calls that ended without a response).
    size_t pinned_bytes = 0;
    std::vector<at::TensorBase> stale_args;
  };
  // A response's shared tensors, kept until its caller releases them.
  struct Pinned {
    int rank = -1;
    size_t bytes = 0;
    std::vector<at::TensorBase> tensors;
  };
  struct PendingCall;
  void complete(PendingCall* call, grpc::Status status);
  // transport's callbacks (See Note [TSan and gRPC] in transport.h).
  static void on_request(void* self, const grpc::ByteBuffer& request,
                         transport::ServerCall call);
  static void on_done(void* self, void* call, grpc::Status status);
  // The owner side of one RRef: its value (ready later) and live forks.
  struct Owner {
    Owner();   // counted for debug::rref_counts()
    ~Owner();
    Owner(const Owner&) = delete;
    Owner& operator=(const Owner&) = delete;
    c10::intrusive_ptr<Future> value = c10::make_intrusive<Future>();
    std::set<GloballyUniqueId> forks;
  };

  // Server side.
  void handle(const grpc::ByteBuffer& request, transport::ServerCall call);
  void admit(wire::Decoded msg, transport::ServerCall call);
  void admit_deferred();
  void dispatch(wire::Decoded msg, transport::ServerCall call);
  // `to`: the caller's rank, for a reply whose tensors may be shared with
  // it (See Note [Shared tensors] in peer_memory.h); -1: never shared.
  void reply(transport::ServerCall call, ember::rpc::Envelope& env,
             wire::Encoder* enc = nullptr, int to = -1);
  void reply_error(transport::ServerCall call,
                   ember::rpc::MessageKind kind, const std::string& error);
  // Runs an op for a request: resolves RRef arguments (may block).
  std::vector<c10::IValue> resolve_args(wire::Decoded& msg, double timeout,
                                        std::vector<std::shared_ptr<detail::RRefState>>* held);
  void handle_join(wire::Decoded& msg, transport::ServerCall call);
  void handle_barrier(wire::Decoded& msg, transport::ServerCall call);
  void maybe_release_barrier_locked();
  void handle_remote(wire::Decoded msg, transport::ServerCall call);
  void handle_fetch(wire::Decoded& msg, transport::ServerCall call);
  void post(std::function<void()> task);
  // An op call that runs on the gRPC thread (See Note [Agent threads]).
  bool runs_inline(const wire::Decoded& msg) const;
  static constexpr size_t kInlineMaxBytes = 64 << 10;

  // Rendezvous.
  void rendezvous();
  void connect_peers(const ember::rpc::WorkerTable& table);

  // RRef owner side (rref.cc).
  std::shared_ptr<Owner> get_or_create_owner(const GloballyUniqueId& id);
  // False when the fork was already deleted (See Note [Deletes before
  // forks] in rref.cc).
  bool add_fork(const GloballyUniqueId& rref_id,
                const GloballyUniqueId& fork_id);
  void remove_fork(const GloballyUniqueId& rref_id,
                   const GloballyUniqueId& fork_id);
  std::shared_ptr<detail::RRefState> receive_rref(
      const ember::rpc::RRefArg& arg, double timeout);
  void register_user(const std::shared_ptr<detail::RRefState>& s);

  void note_dead(int rank);
  void wait_outstanding();

  // Shared tensors (See Note [Shared tensors] in peer_memory.h).
  // Where `rank`'s shared tensors are read from, or nullptr if this worker
  // cannot read them.
  const wire::RemoteSource* source_of(int rank, wire::RemoteSource* storage);
  // Whether tensors may be shared with `rank`: it reads this worker's
  // memory, and less than kMaxPinnedBytes are kept alive for it.
  bool may_share_with(int rank);
  bool may_share_with_locked(const Peer& p) const;  // pins_mutex_ held
  void learn_reader(int rank, const ember::rpc::Envelope& env);
  void keep_stale_args(int rank, std::vector<at::TensorBase> args);
  // A response's shared tensors, kept under `id` until `rank` releases it.
  void pin(int rank, uint64_t id, std::vector<at::TensorBase> tensors);
  void unpin(int rank, uint64_t id);
  void count_pinned_locked(Peer& p, int64_t bytes);  // pins_mutex_ held
  void send_release(int to, uint64_t pin_id);
  void drop_pins(int rank);  // -1: every rank's

  const std::string name_;
  const int rank_;
  const int world_size_;
  RpcBackendOptions options_;
  std::string master_host_;
  int master_port_ = 0;
  std::string token_;
  std::string hostname_;
  transport::Tls tls_;  // read-only after the constructor
  bool share_memory_ = false;  // EMBER_RPC_SHARED_MEMORY; read-only too

  std::unique_ptr<transport::Server> server_;
  std::string tcp_address_;
  std::string unix_address_;

  mutable std::mutex mutex_;  // guards what follows unless noted
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Peer>> peers_;  // by rank; set once at start
  std::map<std::string, int> rank_by_name_;
  bool ready_ = false;            // rendezvous done: serve calls
  std::string rendezvous_error_;  // rank 0: why rendezvous failed
  std::set<int> dead_;
  int64_t outstanding_ = 0;
  std::set<PendingCall*> pending_;
  bool stopping_ = false;  // shutdown() began: requests are not deferred
  bool closed_ = false;    // past the barrier: no new outgoing calls
  // See Note [Requests before rendezvous] in agent.cc.
  struct Deferred {
    wire::Decoded msg;
    transport::ServerCall call;
  };
  static constexpr size_t kMaxDeferred = 4096;
  std::vector<Deferred> deferred_;

  // Rank 0: rendezvous and barrier.
  struct Waiter {
    transport::ServerCall call;
  };
  std::map<int, ember::rpc::WorkerEntry> joined_;
  std::map<int, Waiter> join_waiters_;
  std::set<int> barrier_joined_;
  std::vector<Waiter> barrier_waiters_;
  bool barrier_done_ = false;
  std::vector<int> barrier_dead_;

  // RRefs.
  std::map<GloballyUniqueId, std::shared_ptr<Owner>> owners_;
  std::map<GloballyUniqueId, std::weak_ptr<detail::RRefState>> users_;
  // Forks this worker made of its user RRefs, kept until the child accepts.
  std::map<GloballyUniqueId, std::shared_ptr<detail::RRefState>> children_;
  // Forks deleted before they were recorded (Note [Deletes before forks]).
  std::set<GloballyUniqueId> deleted_forks_;
  static constexpr size_t kMaxTombstones = 65536;
  std::atomic<int64_t> next_local_id_{0};

  // Responses' shared tensors by pin id (See Note [Shared tensors]).
  std::mutex pins_mutex_;  // guards pins_, next_pin_, Peer::pinned_bytes, stale_args
  std::map<uint64_t, Pinned> pins_;
  uint64_t next_pin_ = 1;

  // Pool for requests that block (See Note [Agent threads]).
  std::mutex pool_mutex_;
  std::condition_variable pool_cv_;
  std::deque<std::function<void()>> pool_tasks_;
  std::vector<std::thread> pool_;
  bool pool_stop_ = false;
};

// A call in flight (See Note [Synchronous calls] in agent_calls.cc): its gRPC
// call, the future it completes, how to read the reply, where it went.
struct Agent::PendingCall {
  transport::ClientCall rpc;
  c10::intrusive_ptr<Future> future = c10::make_intrusive<Future>();
  ReplyHandler handler;
  int to = -1;
  double timeout = 0;
  std::string what;
  // Arguments the callee reads from this worker's memory (See Note [Shared
  // tensors] in peer_memory.h).
  std::vector<at::TensorBase> shared;
};

// Note [Distributed autograd hooks]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The agent knows nothing of autograd: distributed/autograd (in the same
// shared object) installs an AutogradHooks when the library loads, and the
// agent calls it at the few points where a call's tensors cross a process
// boundary. Without hooks (never in libember_distributed.so) the autograd
// message kinds are refused. Every hook may throw c10::Error; the agent
// turns it into the call's error.
struct AutogradHooks {
  virtual ~AutogradHooks() = default;
  // Caller, before sending `env` (OP_CALL, REMOTE_CALL or RREF_FETCH_CALL)
  // to `to`, with `args` already encoded in it: inside a distributed
  // autograd context, when an argument requires grad or `force` is set
  // (to_here), records a send function and turns `env` into a
  // FORWARD_AUTOGRAD_REQ.
  virtual void wrap_request(int to, ember::rpc::Envelope* env,
                            const std::vector<c10::IValue>& args,
                            bool force) = 0;
  // Callee, on a FORWARD_AUTOGRAD_REQ: records a recv function as the
  // grad_fn of the received tensors that require grad and restores the
  // wrapped kind (envelope.autograd stays set).
  virtual void unwrap_request(wire::Decoded* msg) = 0;
  // Callee: makes the request's context current on this thread while its
  // operator runs (the returned object restores the previous one).
  virtual std::shared_ptr<void> enter(const ember::rpc::Envelope& request) = 0;
  // Callee, once `response` holds `result`: when the request carried
  // autograd metadata and a result tensor requires grad, records a send
  // function and turns `response` into a FORWARD_AUTOGRAD_RESP.
  virtual void wrap_response(const ember::rpc::Envelope& request,
                             ember::rpc::Envelope* response,
                             const c10::IValue& result) = 0;
  // Caller, on a FORWARD_AUTOGRAD_RESP: records a recv function as the
  // grad_fn of the result tensors that require grad.
  virtual void unwrap_response(wire::Decoded* reply) = 0;
  // BACKWARD_AUTOGRAD_REQ and CLEANUP_AUTOGRAD_CONTEXT_REQ, on the gRPC
  // thread: the returned Future completes when the answer may go (with an
  // error to send back). `post` runs blocking work on the agent's pool.
  virtual c10::intrusive_ptr<Future> handle(
      wire::Decoded msg, std::function<void(std::function<void()>)> post) = 0;
};
void set_autograd_hooks(AutogradHooks* hooks);
AutogradHooks* autograd_hooks();

// The agent of this process; throws when init_rpc has not run.
std::shared_ptr<Agent> current_agent(const char* api);

// Runs a registry operator by qualified name with boxed arguments, filling
// trailing defaults from its schema; returns its results as one IValue.
c10::IValue run_operator(const std::string& qualified_name,
                         std::vector<c10::IValue> args);

c10::Error make_error(const std::string& message);

// Helpers of the agent's files (agent.cc, agent_calls.cc, agent_lifecycle.cc).
namespace detail {
// "gRPC <CODE>: <message>" of a status.
std::string status_text(const grpc::Status& s);
// Environment variable `name`, or `fallback` when it is unset or empty.
std::string env_or(const char* name, const std::string& fallback);
// Constant-time comparison, so a wrong token's timing says nothing about
// the right one.
bool same_secret(const std::string& a, const std::string& b);
// `bytes` random bytes, in hex.
std::string random_hex(size_t bytes);
}  // namespace detail

}  // namespace rpc
}  // namespace distributed
}  // namespace torch
