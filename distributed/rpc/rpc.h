// distributed/rpc/rpc.h — torch::distributed::rpc: call operators on other
// processes, and hold references to values that live there (RRef).
//
// PyTorch's Python RPC API spelled in C++. A worker is a process with a name
// and a rank; init_rpc joins it to the group (rendezvous through rank 0 at
// MASTER_ADDR:MASTER_PORT), after which any worker can run any operator of
// another worker's registry by its qualified name:
//
//   namespace rpc = torch::distributed::rpc;
//   rpc::init_rpc("worker0", /*rank=*/0, /*world_size=*/2);
//   c10::IValue r = rpc::rpc_sync("worker1", "aten::add.Tensor", {t1, t2});
//   auto fut = rpc::rpc_async("worker1", "aten::mul.Tensor", {t1, t2});
//   at::Tensor p = at::Tensor(fut->value().toTensorBase());  // after wait()
//   rpc::RRef rr = rpc::remote("worker1", "aten::add.Scalar", {t1, 3});
//   at::Tensor s = at::Tensor(rr.to_here().toTensorBase());
//   rpc::shutdown();  // waits for every worker's outstanding work
//
// The transport is gRPC (its own shared object, //:ember_distributed; the
// core never links it). Arguments and results are IValues of every kind but
// Generator; tensors arrive contiguous, on the CPU. Errors raised by the
// callee come back as c10::Error "Error on Node <rank>: <message>".
// docs/distributed.md has the launch recipes, security and the differences
// from PyTorch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "registration/Future.h"
#include "registration/IValue.h"

namespace torch {
namespace distributed {
namespace rpc {

// torch::distributed::rpc::Future
//
// The one future type of Ember (c10::ivalue::Future): wait(), value(),
// then(cb), completed(), hasError().
using Future = c10::ivalue::Future;

// The timeout value meaning "use RpcBackendOptions::rpc_timeout".
constexpr double kUnsetRpcTimeout = -1.0;
// PyTorch's default per-call timeout, in seconds.
constexpr double kDefaultRpcTimeoutSeconds = 60.0;

// torch::distributed::rpc::RpcBackendOptions
//
// init_method: "tcp://host:port" of rank 0's rendezvous, or "" for
//   "tcp://$MASTER_ADDR:$MASTER_PORT" (torchrun's variables).
// rpc_timeout: seconds a call may take by default; 0 means no timeout.
// init_timeout: seconds rank 0 waits for every rank to join (and the others
//   for rank 0 to answer).
// token: the shared secret every call carries; "" takes EMBER_RPC_TOKEN, and
//   when that is unset too, rank 0 generates one and hands it out at
//   rendezvous.
// use_unix_sockets: workers on one host (same hostname) talk over unix
//   sockets instead of TCP.
// num_worker_threads: threads that run the operators of incoming calls
//   (PyTorch's default, 16); a call waits for a free one.
// tls_cert_chain, tls_private_key, tls_root_certs: paths of PEM files. When
//   the first two are set, every connection (rendezvous included) uses TLS
//   through gRPC's SSL credentials, mutually: each worker presents its
//   certificate and requires a peer certificate signed by tls_root_certs.
// tls_server_name: the name the workers' certificates are issued for,
//   checked instead of the address dialled (e.g. "ember-rpc").
struct RpcBackendOptions {
  std::string init_method;
  double rpc_timeout = kDefaultRpcTimeoutSeconds;
  double init_timeout = 60.0;
  std::string token;
  bool use_unix_sockets = true;
  int num_worker_threads = 16;
  std::string tls_cert_chain;
  std::string tls_private_key;
  std::string tls_root_certs;
  std::string tls_server_name;
};

// torch::distributed::rpc::WorkerInfo
struct WorkerInfo {
  std::string name;
  int64_t id = -1;  // the rank
};

class RRef;

namespace detail {
struct RRefState;
struct RRefAccess;
}  // namespace detail

// torch::distributed::rpc::RRef
//
// A reference to a value owned by one worker (the owner). Made by remote();
// copies share one user reference. The owner keeps the value while any
// worker holds a reference to it, and frees it when the last one is gone
// (PyTorch's reference-counting protocol, docs/distributed.md). An RRef
// passed as an argument of rpc_sync/rpc_async/remote is forked to the callee,
// which receives its value (fetched from the owner unless it is the owner).
// Thread safety: const members may be called from any thread.
class RRef {
 public:
  RRef() = default;

  // torch::distributed::rpc::RRef::to_here
  //
  // The value, copied from the owner (a blocking call; the owner waits until
  // the remote() that made the value has run). Throws the remote op's error,
  // or a timeout error when remote() itself timed out.
  c10::IValue to_here(double timeout = kUnsetRpcTimeout) const;

  // The owner's WorkerInfo and name; whether this process is the owner.
  WorkerInfo owner() const;
  std::string owner_name() const;
  bool is_owner() const;

  // torch::distributed::rpc::RRef::local_value
  //
  // The value on the owner (waits until it is ready). Throws on a user.
  c10::IValue local_value() const;

  // Whether the owner has confirmed this reference (remote() answered).
  bool confirmed_by_owner() const;

  // Global ids: "<worker>:<counter>" of the RRef and of this fork.
  std::string rref_id() const;
  std::string fork_id() const;

  bool defined() const { return static_cast<bool>(state_); }

 private:
  friend struct detail::RRefAccess;
  explicit RRef(std::shared_ptr<detail::RRefState> state)
      : state_(std::move(state)) {}
  std::shared_ptr<detail::RRefState> state_;
};

// torch::distributed::rpc::RpcArg
//
// One argument of a remote call: anything an IValue can hold, or an RRef.
// Converts implicitly, so calls read `rpc_sync("w1", "aten::add.Tensor",
// {t1, t2})` and `rpc_sync("w1", "aten::add.Tensor", {rref, t2})`.
class RpcArg {
 public:
  template <class T,
            std::enable_if_t<std::is_constructible<c10::IValue, T&&>::value &&
                                 !std::is_same<std::decay_t<T>, RRef>::value,
                             int> = 0>
  /* implicit */ RpcArg(T&& value) : value_(std::forward<T>(value)) {}
  /* implicit */ RpcArg(RRef rref) : rref_(std::move(rref)) {}

  bool is_rref() const { return rref_.defined(); }
  const c10::IValue& value() const { return value_; }
  const RRef& rref() const { return rref_; }

 private:
  c10::IValue value_;
  RRef rref_;
};

// torch::distributed::rpc::init_rpc
//
// Starts this worker's server and joins the group: rank 0 listens at
// MASTER_ADDR:MASTER_PORT (or options.init_method), every rank registers its
// name and address there, and all receive the full table. rank/world_size
// -1 read RANK/WORLD_SIZE from the environment. Throws c10::Error naming the
// problem: a duplicate name or rank, a world size that differs from rank
// 0's, ranks missing at the init timeout, or a second init_rpc.
void init_rpc(const std::string& name, int64_t rank = -1,
              int64_t world_size = -1,
              const RpcBackendOptions& options = RpcBackendOptions());

// torch::distributed::rpc::rpc_sync / rpc_async
//
// Runs the operator `op` ("ns::name.overload"; the overload may be left out
// when the name has one) on worker `to` with `args`; trailing arguments left
// out take the schema's defaults. rpc_sync returns the result: one IValue
// for an op with one return, None for none, a list-like IValue for several
// (a TensorList when they are all tensors). timeout in seconds
// (kUnsetRpcTimeout: the default; 0: none). Errors: the callee's as
// "Error on Node <rank>: ...", timeouts and dead workers naming the worker.
c10::IValue rpc_sync(const std::string& to, const std::string& op,
                     std::vector<RpcArg> args = {},
                     double timeout = kUnsetRpcTimeout);
c10::intrusive_ptr<Future> rpc_async(const std::string& to,
                                     const std::string& op,
                                     std::vector<RpcArg> args = {},
                                     double timeout = kUnsetRpcTimeout);

// torch::distributed::rpc::remote
//
// Runs `op` on `to` and keeps the result there; returns at once with an RRef
// to it. Errors of the op, or a timeout of the call, surface on the RRef's
// next use (to_here, local_value), as in PyTorch.
RRef remote(const std::string& to, const std::string& op,
            std::vector<RpcArg> args = {}, double timeout = kUnsetRpcTimeout);

// torch::distributed::rpc::get_worker_info
//
// This worker's info, or another's by name (throws for an unknown name).
WorkerInfo get_worker_info();
WorkerInfo get_worker_info(const std::string& name);
std::vector<WorkerInfo> get_all_worker_infos();

// torch::distributed::rpc::shutdown
//
// graceful (the default): waits until this worker's outstanding calls are
// done, releases its RRefs, then waits at a barrier (through rank 0) until
// every worker got there, so no worker loses a request in flight; then
// stops the server. Workers that died are left out of the barrier: shutdown
// completes and then throws c10::Error listing them. graceful=false stops at
// once (pending calls fail).
void shutdown(bool graceful = true);

// Whether init_rpc has run and shutdown has not.
bool is_initialized();

namespace debug {

// torch::distributed::rpc::debug::RRefCounts
//
// Live RRefs on this worker: owner entries (values kept for users) and user
// references not yet deleted. Both are 0 after shutdown().
struct RRefCounts {
  int64_t owners = 0;
  int64_t users = 0;
};
RRefCounts rref_counts();

// torch::distributed::rpc::debug::SharedTensorCounts
//
// Tensors this process sent to a peer on its host by address instead of
// through gRPC, tensors it read so from a peer, and the bytes it keeps
// alive now for peers' reads (0 once every caller released its results).
// See "Large tensors between workers of one host" in docs/distributed.md.
struct SharedTensorCounts {
  int64_t sent = 0;
  int64_t received = 0;
  int64_t pinned_bytes = 0;
};
SharedTensorCounts shared_tensor_counts();

}  // namespace debug

}  // namespace rpc
}  // namespace distributed
}  // namespace torch
