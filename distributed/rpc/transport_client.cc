// The transport's client: the channel to a peer (Endpoint), outgoing calls
// (ClientCall) and the two ways to make them, blocking and asynchronous,
// each on its kind of stream (transport_streams.h) or, when large, as a
// unary call of its own (See Note [One stream per peer] in transport.cc).
// Compiled without -fsanitize=thread under --config=tsan: See Note [TSan and
// gRPC] in transport.h.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/impl/codegen/client_callback.h>
#include <grpcpp/impl/codegen/client_unary_call.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "distributed/rpc/transport.h"
#include "distributed/rpc/transport_internal.h"
#include "distributed/rpc/transport_streams.h"

namespace torch {
namespace distributed {
namespace rpc {
namespace transport {

using namespace detail;  // NOLINT: the transport's own helpers

namespace {
grpc::Status unreachable() {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      "the RPC stream to the peer closed as it opened");
}
}  // namespace

// Note [Idle blocking streams]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Under gRPC's poll engine (Note [Poll strategy] in transport.cc) the
// blocking callers' connection is read only while some thread polls a
// completion queue with a call on it. An idle pooled stream has nobody: its
// connection would not see the peer's server finish the stream (whose
// graceful shutdown then waited out its grace period), a GOAWAY, or the
// acks of its own keepalive pings (after 20 s, a healthy connection would
// be closed as dead). One thread for the process looks at every
// Endpoint's idle streams every 200 ms (EMBER_RPC_IDLE_SWEEP_MS), takes
// what is ready on each without sleeping and drops those that ended. A
// connection with no call at all is not read either, so the agent's
// shutdown ends the blocking connection itself (close_blocking) instead of
// leaving it for the peer's server to wait on. The sweep is never
// destroyed (a worker may call until exit); an Endpoint leaves it before
// anything of it goes.
struct IdleSweep {
  void add(Endpoint* e) {
    std::lock_guard<Mutex> g(mutex_);
    endpoints_.insert(e);
    if (!started_) {
      started_ = true;
      std::thread([this] { run(); }).detach();
    }
  }
  // Waits for a sweep in progress.
  void remove(Endpoint* e) {
    std::lock_guard<Mutex> g(mutex_);
    endpoints_.erase(e);
  }

 private:
  void run() {
    // 10 ms to 10 min (tests lengthen it to see what happens between two
    // sweeps).
    const int64_t period_ms = env_int("EMBER_RPC_IDLE_SWEEP_MS", 200, 10, 600000);
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
      std::lock_guard<Mutex> g(mutex_);
      for (Endpoint* e : endpoints_) e->service_idle();
    }
  }

  Mutex mutex_;
  std::set<Endpoint*> endpoints_;
  bool started_ = false;
};

namespace {
IdleSweep& idle_sweep() {
  static IdleSweep* sweep = new IdleSweep;  // See Note [Idle blocking streams]
  return *sweep;
}
}  // namespace

Endpoint::Endpoint(const std::string& target, const Tls& tls) {
  keep_grpc_initialized();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  // A dead peer is noticed by the transport at once: its kernel closes the
  // connection, on this host or another. Keepalive pings are for a silent
  // one (a host down, a cable out): noticed within ~25 s. The ack of a ping
  // waits behind the peer's other work, so the timeout is gRPC's default:
  // 2 s closed healthy connections of four busy workers on two loaded cores
  // (fault_test under --config=tsan, "keepalive watchdog timeout"), 5 s
  // still did now and then.
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 5000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 20000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  // One connection per peer channel, not shared with other channels.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  set_bulk_args([&](const char* k, int v) { args.SetInt(k, v); });
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (tls.enabled()) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = tls.root_certs;
    ssl.pem_private_key = tls.private_key;
    ssl.pem_cert_chain = tls.cert_chain;
    credentials = grpc::SslCredentials(ssl);
    if (!tls.server_name.empty()) {
      args.SetSslTargetNameOverride(tls.server_name);
    }
  }
  channel_ = grpc::CreateCustomChannel(target, credentials, args);
  // Registered once per channel: a call then skips the method lookup.
  method_ = std::make_unique<grpc::internal::RpcMethod>(
      kMethod, grpc::internal::RpcMethod::NORMAL_RPC, channel_);
  stream_method_ = std::make_unique<grpc::internal::RpcMethod>(
      kStreamMethod, grpc::internal::RpcMethod::BIDI_STREAMING, channel_);
  stub_ = std::make_unique<grpc::GenericStub>(channel_);
  // Blocking callers' streams on a connection of their own (each channel
  // has its own: the local subchannel pool above). See Note [Poll strategy]
  // in transport.cc.
  blocking_channel_ = grpc::CreateCustomChannel(target, credentials, args);
  blocking_stub_ = std::make_shared<grpc::GenericStub>(blocking_channel_);
  idle_sweep().add(this);
}

void Endpoint::service_idle() {
  // In place, under the pool's lock (a few microseconds): a stream taken
  // out would make a caller meanwhile open another, and the pool grow.
  std::vector<std::unique_ptr<SyncStream>> ended;
  {
    std::lock_guard<Mutex> g(mutex_);
    for (auto& s : idle_) {
      if (!s->service()) ended.push_back(std::move(s));
    }
    idle_.erase(std::remove(idle_.begin(), idle_.end(), nullptr), idle_.end());
  }
  ended.clear();  // their calls are over: each waits only for gRPC's end
}

void Endpoint::close_blocking() {
  std::vector<std::unique_ptr<SyncStream>> idle;
  std::shared_ptr<grpc::GenericStub> stub;
  std::shared_ptr<grpc::Channel> channel;
  {
    std::lock_guard<Mutex> g(mutex_);
    idle.swap(idle_);
    stub.swap(blocking_stub_);
    channel.swap(blocking_channel_);
  }
  idle.clear();  // each cancels its call and waits for it to end
  // The connection closes with the last call on it (a caller's, now ending).
}

std::shared_ptr<grpc::GenericStub> Endpoint::blocking_stub() {
  std::lock_guard<Mutex> g(mutex_);
  return blocking_stub_;
}

// Note [Streams end before their channel]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A callback stream's gRPC call holds a reference to the completion queue
// that gRPC shares between channels and servers, which the last grpc::Channel
// or grpc::Server to go shuts down; a call released after that (by its
// OnDone on gRPC's thread, as a unary call never outlived its channel)
// failed gRPC's assertion "prior > 0" in grpc_cq_internal_unref. So the
// Endpoint holds every stream it opened, cancels them when it goes, waits
// for their OnDone, and destroys them itself before the channel; replaced
// streams that are done are destroyed when the next one opens.
Endpoint::~Endpoint() {
  idle_sweep().remove(this);
  std::vector<std::shared_ptr<ClientStream>> streams;
  std::vector<std::unique_ptr<SyncStream>> idle;
  {
    std::lock_guard<Mutex> g(mutex_);
    streams.swap(retired_);
    if (stream_ != nullptr) streams.push_back(std::move(stream_));
    idle.swap(idle_);
  }
  for (auto& s : streams) s->cancel();
  // No call waits on them by now: OnDone comes at once after the cancel.
  // Bounded all the same; a stream still referenced elsewhere (a timer
  // entry being processed) is let go after it.
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (auto& s : streams) {
    while ((!s->done() || s.use_count() > 1) && std::chrono::steady_clock::now() < limit) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  streams.clear();
  idle.clear();  // each cancels its call and waits for it to end
}

std::shared_ptr<ClientStream> Endpoint::stream() {
  std::lock_guard<Mutex> g(mutex_);
  if (stream_ == nullptr || stream_->broken()) {
    if (stream_ != nullptr) retired_.push_back(std::move(stream_));
    // See Note [Streams end before their channel].
    retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                  [](const std::shared_ptr<ClientStream>& r) {
                                    return r->done() && r.use_count() == 1;
                                  }),
                   retired_.end());
    stream_ = ClientStream::open(channel_.get(), *stream_method_);
  }
  return stream_;
}

void ClientCall::set_timeout(double seconds) {
  if (seconds <= 0) return;
  context_.set_deadline(deadline_after(seconds));
  has_deadline_ = true;
  deadline_ = std::chrono::steady_clock::now() +
              std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
}

void ClientCall::set_wait_for_ready() {
  wait_for_ready_ = true;
  context_.set_wait_for_ready(true);
}

void ClientCall::cancel() {
  std::shared_ptr<ClientStream> s;
  uint64_t id = 0;
  {
    std::lock_guard<Mutex> g(mutex_);
    cancelled_ = true;
    s = stream_;
    id = id_;
    // A blocking caller's stream: the caller wakes with CANCELLED and drops it.
    if (sync_ != nullptr) sync_->cancel();
  }
  // On the stream: failed by the timer thread, now (the caller may hold
  // the lock its completion takes). A unary call: by gRPC.
  if (s != nullptr) timers().cancel(id, s);
  context_.TryCancel();
}

bool ClientCall::on_stream() const {
  return !wait_for_ready_ && request.Length() <= kStreamMaxBytes;
}

// Runs once per call, by whoever took it out of its stream.
void ClientCall::finish(grpc::Status status) {
  if (has_timer_) timers().remove({deadline_, id_});
  done_(done_a_, done_b_, std::move(status));
}

// Sends the call on the peer's stream, opening a new one if it broke. A
// fresh stream that broke at once (the peer is unreachable) is answered
// with its failure here. No member is touched after send(): the call may be
// finished and freed by then (ClientStream::send applies an earlier cancel).
bool ClientCall::send_on(Endpoint& to) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::shared_ptr<ClientStream> s = to.stream();
    if (s->send(this)) return true;
  }
  return false;
}

ClientCall::ClientCall() = default;
ClientCall::~ClientCall() = default;

std::unique_ptr<SyncStream> Endpoint::take_sync() {
  {
    std::lock_guard<Mutex> g(mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<SyncStream> s = std::move(idle_.back());
      idle_.pop_back();
      return s;
    }
  }
  return new_sync();
}

std::unique_ptr<SyncStream> Endpoint::new_sync() {
  // The stream's call is started outside the lock (See Note [One stream
  // per peer] in transport.cc); it holds the channel itself from then on.
  std::shared_ptr<grpc::GenericStub> stub = blocking_stub();
  if (stub == nullptr) return nullptr;
  return std::make_unique<SyncStream>(stub.get());
}

void Endpoint::give_back(std::unique_ptr<SyncStream> s) {
  std::unique_ptr<SyncStream> closed;  // ends outside the lock
  std::lock_guard<Mutex> g(mutex_);
  if (blocking_stub_ == nullptr) {
    closed = std::move(s);
  } else {
    idle_.push_back(std::move(s));
  }
}

namespace {
grpc::Status blocking_closed() {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      "rpc: this worker's RPC client is shut down");
}
}  // namespace

grpc::Status send_raw_stream_message(Endpoint& to, const grpc::ByteBuffer& message,
                                     double timeout_s) {
  std::unique_ptr<SyncStream> s = to.new_sync();
  if (s == nullptr) return blocking_closed();
  return s->send_raw(message, deadline_after(timeout_s));
}

grpc::Status call_blocking(Endpoint& to, ClientCall* call) {
  if (!call->on_stream()) {
    return grpc::internal::BlockingUnaryCall(to.channel_.get(), *to.method_, &call->context_,
                                             call->request, &call->response);
  }
  // A pooled stream may have died while idle (its connection closed, the
  // peer is back on a new one): a request it never delivered goes once
  // more, on a new stream.
  for (int attempt = 0;; ++attempt) {
    std::unique_ptr<SyncStream> s = attempt == 0 ? to.take_sync() : to.new_sync();
    if (s == nullptr) return blocking_closed();
    {
      std::lock_guard<Mutex> g(call->mutex_);
      if (call->cancelled_) {
        to.give_back(std::move(s));
        return grpc::Status(grpc::StatusCode::CANCELLED, "Cancelled");
      }
      call->sync_ = s.get();
    }
    grpc::Status status = s->roundtrip(call);
    {
      std::lock_guard<Mutex> g(call->mutex_);
      call->sync_ = nullptr;
    }
    if (s->healthy()) {
      to.give_back(std::move(s));
    } else if (attempt == 0 && s->unsent()) {
      continue;
    }
    return status;
  }
}

void call_async(Endpoint& to, ClientCall* call, Done done, void* a, void* b) {
  call->done_ = done;
  call->done_a_ = a;
  call->done_b_ = b;
  if (call->on_stream()) {
    if (!call->send_on(to)) done(a, b, unreachable());
    return;
  }
  // The completion's closure holds one pointer, so std::function keeps it
  // inline (no heap block per call).
  grpc::internal::CallbackUnaryCall(to.channel_.get(), *to.method_, &call->context_, &call->request,
                                    &call->response, [call](grpc::Status status) {
                                      call->done_(call->done_a_, call->done_b_, std::move(status));
                                    });
}

}  // namespace transport
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
