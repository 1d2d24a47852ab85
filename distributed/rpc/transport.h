// distributed/rpc/transport.h — the agent's only door into gRPC's C++ API:
// the server and its incoming calls, channels to peers, and outgoing calls
// (blocking or with a completion callback), small ones on one stream per
// peer (See Note [One stream per peer] in transport.cc). Internal to
// //distributed/rpc.
//
//   auto server = transport::Server::start(
//       {"127.0.0.1:0", "unix-abstract:x"},
//       [](void* arg, const grpc::ByteBuffer& request,
//          transport::ServerCall call) {
//         transport::finish(call, reply_frame);    // from any thread, once
//       }, /*arg=*/nullptr, &port);
//   transport::Endpoint peer("127.0.0.1:" + std::to_string(port));
//   transport::ClientCall c;  c.request = frame;  c.set_timeout(1.0);
//   grpc::Status s = transport::call_blocking(peer, &c);   // c.response
//   server->shutdown(/*grace_s=*/1.0);
//
// Note [TSan and gRPC]
// ~~~~~~~~~~~~~~~~~~~~
// Debian's libgrpc is not built with ThreadSanitizer, but much of gRPC's C++
// API is header-inline templates (the unary call paths, the handlers of a
// service, the completion's std::function, shared_ptr<Channel>). Compiled
// into an instrumented file they are checked by TSan while the atomics and
// futexes that order them live in the uninstrumented library: every call
// that completes on another thread is then a false report. So every such
// template is instantiated in one module of its own,
// libember_rpc_transport.so (distributed/rpc/transport*.cc, the generated
// rpc.grpc.pb.cc and rpc.pb.cc), which --config=tsan compiles without
// -fsanitize=thread (.bazelrc), like libgrpc itself. A new file of the
// module is named transport<something>.cc so that .bazelrc's pattern takes
// it: an instrumented one reports gRPC's own handoffs as races (seen: the
// unary handler's Finish callback, when the pattern named transport.cc
// only).
//
// Uninstrumented code still calls TSan's interceptors (operator
// new/delete, malloc/free, memcpy, epoll), and those are checked unless the
// caller's module is named by a `called_from_lib` suppression. The tests
// name gRPC, abseil and libember_rpc_transport.so (tests/distributed/
// tsan.supp, compiled into every suite as __tsan_default_suppressions):
// e.g. a channel is freed by shared_ptr code inlined into transport.cc
// after gRPC's threads read strings inside it through libstdc++, ordered
// only inside libgrpc; with transport.cc in its own ignored module that
// free is no longer checked (and its shadow is reset, so the memory's next
// owner starts clean). A module is the unit TSan can ignore, hence the
// separate shared object: while transport.cc was linked into
// libember_distributed.so, ignoring it would have ignored the agent too,
// and libstdc++ cannot be ignored (its pthread calls for
// std::condition_variable would vanish with it).
//
// What stays checked: every access by instrumented code (the agent in
// libember_distributed.so: agent*.cc, rref.cc, rpc.cc, wire.cc; the core;
// the tests), on any thread, including gRPC's threads (and the transport's
// timer thread) running the agent's handler and completion callbacks. The agent hands work between gRPC's
// threads and its own only through std::mutex / std::condition_variable
// (the agent's mutex, the pool's queue, Futures, wire.cc's slice-reference
// mutex), which TSan sees through its pthread interceptors. Completion
// callbacks are plain function pointers with a pointer argument, so no
// closure written by an instrumented thread is read through gRPC's
// invisible handoff. No `race:` suppression is used; the one other entry,
// `thread:grpc_core::Thread::Thread`, only forgives gRPC's own threads not
// yet joined by its asynchronous shutdown when a worker process exits.
#pragma once

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/rpc_method.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>

#include <pthread.h>
#include <string>
#include <vector>

namespace torch {
namespace distributed {
namespace rpc {
namespace transport {

// transport::detail::Mutex, transport::detail::CondVar
//
// The transport's own locks: pthread's, called from this module only. A
// std::mutex would not do under --config=tsan: its inline lock() may bind
// to the instrumented copy in another module while unlock() is inlined
// here, so TSan sees locks without unlocks ("double lock of a mutex"). All
// of the transport's synchronization is then invisible to TSan, like its
// memory accesses (See Note [TSan and gRPC] above).
namespace detail {
class Mutex {
 public:
  Mutex();
  ~Mutex();
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;
  void lock();
  void unlock();
  pthread_mutex_t* native() { return &mutex_; }

 private:
  pthread_mutex_t mutex_;
};

class CondVar {
 public:
  CondVar();  // on the monotonic clock
  ~CondVar();
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;
  void wait(std::unique_lock<Mutex>& lock);
  void wait_until(std::unique_lock<Mutex>& lock, std::chrono::steady_clock::time_point when);
  void notify_one();

 private:
  pthread_cond_t cond_;
};
}  // namespace detail

// TLS material (PEM text), or none when cert_chain is empty.
struct Tls {
  std::string cert_chain;
  std::string private_key;
  std::string root_certs;
  std::string server_name;
  bool enabled() const { return !cert_chain.empty(); }
};

// One incoming call, a unary call or one message of a peer's stream (See
// Note [One stream per peer] in transport.cc). Finished exactly once, with
// finish() or fail(), from any thread; valid until then. Copies name the
// same call.
struct ServerCall {
  struct State;
  State* state = nullptr;
};

void finish(ServerCall call, grpc::ByteBuffer reply);
void fail(ServerCall call, grpc::StatusCode code, const std::string& message);

// Runs on a gRPC thread for each incoming call as handler(arg, request,
// call); the request is valid until the call is finished.
using Handler = void (*)(void* arg, const grpc::ByteBuffer& request,
                         ServerCall call);
// done(a, b, status) of an outgoing call.
using Done = void (*)(void* a, void* b, grpc::Status status);

class Server {
 public:
  // Listens on every address in `addresses` (host:port or a gRPC unix
  // address); *first_port is the port of the first. Null when it could not
  // listen.
  static std::unique_ptr<Server> start(const std::vector<std::string>& addresses,
                                       const Tls& tls, Handler handler,
                                       void* arg, int* first_port);
  ~Server();
  // Stops taking calls and waits for the running ones; after grace_s those
  // still running are cancelled.
  void shutdown(double grace_s);

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class Endpoint;
struct ClientCall;
class ClientStream;
class SyncStream;
// Makes the call and waits on this thread for its reply.
grpc::Status call_blocking(Endpoint& to, ClientCall* call);
// Starts the call; done(a, b, status) runs once, on a gRPC thread or the
// transport's timer thread, never inside cancel() (and inside call_async
// only when the peer's stream failed as it opened).
void call_async(Endpoint& to, ClientCall* call, Done done, void* a, void* b);

// For tests of a server's checks: sends `message` as it is (no stream
// header added) on a new stream to `to`, and returns how that stream ended
// (OK if a reply came back instead).
grpc::Status send_raw_stream_message(Endpoint& to, const grpc::ByteBuffer& message,
                                     double timeout_s);

// A channel to one peer with the agent's methods registered on it, and its
// stream (opened on first use, reopened after it breaks); blocking callers'
// streams go on a second channel, a connection of their own (Note [Poll
// strategy] in transport.cc).
class Endpoint {
 public:
  Endpoint(const std::string& target, const Tls& tls);
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  // Ends the blocking callers' idle streams and their connection, for good
  // (the agent's shutdown: the peer's server waits for the connection to
  // close; Note [Idle blocking streams] in transport_client.cc). Blocking
  // calls on this Endpoint fail from then on.
  void close_blocking();

 private:
  friend struct IdleSweep;
  // Takes what is ready on the idle blocking callers' streams, without
  // sleeping, and drops those that ended (Note [Idle blocking streams] in
  // transport_client.cc).
  void service_idle();
  friend grpc::Status call_blocking(Endpoint& to, ClientCall* call);
  friend void call_async(Endpoint& to, ClientCall* call, Done done, void* a,
                         void* b);
  friend grpc::Status send_raw_stream_message(Endpoint& to,
                                              const grpc::ByteBuffer& message,
                                              double timeout_s);
  friend struct ClientCall;
  std::shared_ptr<ClientStream> stream();
  std::unique_ptr<SyncStream> take_sync();
  // A new blocking caller's stream; null after close_blocking.
  std::unique_ptr<SyncStream> new_sync();
  std::shared_ptr<grpc::GenericStub> blocking_stub();
  void give_back(std::unique_ptr<SyncStream> s);
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<grpc::internal::RpcMethod> method_;
  std::unique_ptr<grpc::internal::RpcMethod> stream_method_;
  std::unique_ptr<grpc::GenericStub> stub_;
  std::shared_ptr<grpc::Channel> blocking_channel_;  // null after close_blocking
  std::shared_ptr<grpc::GenericStub> blocking_stub_;
  detail::Mutex mutex_;
  std::shared_ptr<ClientStream> stream_;
  std::vector<std::unique_ptr<SyncStream>> idle_;  // blocking callers'
  // Replaced streams until their calls end (destroyed here, before the
  // channel: See Endpoint::~Endpoint).
  std::vector<std::shared_ptr<ClientStream>> retired_;
};

// One outgoing call: the request, the response, and its context.
struct ClientCall {
  ClientCall();
  ~ClientCall();
  ClientCall(const ClientCall&) = delete;
  ClientCall& operator=(const ClientCall&) = delete;
  grpc::ByteBuffer request;
  grpc::ByteBuffer response;
  // seconds; 0 = none. Before the call starts.
  void set_timeout(double seconds);
  // Waits for the server (rendezvous), instead of failing at once.
  void set_wait_for_ready();
  // From any thread while the call runs; it then fails with CANCELLED.
  void cancel();

 private:
  friend grpc::Status call_blocking(Endpoint& to, ClientCall* call);
  friend void call_async(Endpoint& to, ClientCall* call, Done done, void* a,
                         void* b);
  friend class ClientStream;
  friend struct Timers;
  friend class SyncStream;
  bool on_stream() const;
  bool send_on(Endpoint& to);
  void finish(grpc::Status status);
  grpc::ClientContext context_;  // a unary call's
  Done done_ = nullptr;          // call_async's
  void* done_a_ = nullptr;
  void* done_b_ = nullptr;
  bool wait_for_ready_ = false;
  bool has_deadline_ = false;
  std::chrono::steady_clock::time_point deadline_;
  // A call on a stream (See Note [One stream per peer] in transport.cc):
  // the asynchronous stream and its id there, or the blocking caller's
  // stream, while the call runs.
  detail::Mutex mutex_;
  std::shared_ptr<ClientStream> stream_;
  SyncStream* sync_ = nullptr;
  uint64_t id_ = 0;
  bool cancelled_ = false;
  bool has_timer_ = false;
};

}  // namespace transport
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
