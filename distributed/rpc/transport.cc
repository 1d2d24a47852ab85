// gRPC behind transport.h. Compiled without -fsanitize=thread under
// --config=tsan: See Note [TSan and gRPC] in transport.h.
#include "distributed/rpc/transport.h"

#include <grpc/grpc.h>
#include <grpcpp/impl/codegen/client_callback.h>
#include <grpcpp/impl/codegen/client_unary_call.h>
#include <grpcpp/generic/generic_stub.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <atomic>
#include <deque>
#include <map>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "distributed/rpc/rpc.grpc.pb.h"

namespace torch {
namespace distributed {
namespace rpc {
namespace transport {

namespace {

constexpr char kMethod[] = "/ember.rpc.RpcAgent/Call";
constexpr char kStreamMethod[] = "/ember.rpc.RpcAgent/Stream";
// Requests up to this size take the peer's stream; larger ones a unary call
// of their own (See Note [One stream per peer]).
constexpr size_t kStreamMaxBytes = 64 << 10;

std::chrono::system_clock::time_point deadline_after(double seconds) {
  return std::chrono::system_clock::now() +
         std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
}

// Channel arguments for tensors of megabytes, on both ends of a
// connection: HTTP/2 frames and socket reads of up to 4 MiB instead of
// 16 KiB frames and reads that start at 8 KiB, and a 16 MiB window so that
// a large message is not held up by flow-control round trips. Small calls
// are unaffected.
template <class Set>
void set_bulk_args(Set&& set) {
  set(GRPC_ARG_HTTP2_MAX_FRAME_SIZE, 4 << 20);
  set(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 16 << 20);
  set(GRPC_ARG_HTTP2_WRITE_BUFFER_SIZE, 16 << 20);
  set(GRPC_ARG_TCP_MIN_READ_CHUNK_SIZE, 256 << 10);
  set(GRPC_ARG_TCP_MAX_READ_CHUNK_SIZE, 4 << 20);
  // The window is fixed (above), so no BDP probing: its pings shared
  // gRPC 1.51's ping state with keepalive's and, under load, left the
  // keepalive watchdog running after its ack ("keepalive_ping_end state
  // error"), which closed healthy connections.
  set(GRPC_ARG_HTTP2_BDP_PROBE, 0);
}

// Note [One stream per peer]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A unary gRPC call opens and closes an HTTP/2 stream, with its headers,
// trailers and a call object on both ends, for every request. A worker
// instead keeps one long RpcAgent.Stream call to each peer (opened on the
// first request, reopened on the next request after it breaks) and sends
// its small requests on it; the peer's server answers each on the same
// stream. Every message there is
//
//   [u64 LE call id][u32 LE status code][u32 0][body]
//
// where a request has status 0 and its body is the frame; a reply names the
// request's id, and its body is the reply frame (status 0) or the error
// message (a grpc::StatusCode). Replies come in any order. Requests larger
// than kStreamMaxBytes take a unary call of their own, so a large tensor
// does not hold up the small calls queued behind it on the stream (HTTP/2
// interleaves streams, not the messages of one), and the rendezvous (which
// waits for the server to come up: wait_for_ready) is unary too.
//
// What gRPC did per call, the transport now does per stream message:
// - Deadlines: a blocking caller waits for its reply until its deadline; an
//   asynchronous call's deadline is kept by the timer thread (Timers).
// - Cancel: the timer thread fails the call at once (never on the
//   cancelling thread, which may hold the agent's mutex).
// - A broken stream (the peer died, the connection closed, the server shut
//   down) fails every call waiting on it with the stream's status, as a
//   unary call to that peer would have failed; the next request opens a
//   new stream, which fails fast if the peer is gone.
// Exactly one of the reply, the deadline, a cancel or the break finishes a
// call: whichever takes its id out of the stream's table.
//
// The server reads the next message before it hands one to the agent, so a
// request that runs on the gRPC thread does not hold up those behind it.
// Writes on either end go through a queue (gRPC allows one write in flight
// per stream). gRPC's operations are never started under the transport's
// own mutexes: a callback may run inside them.

// The 16-byte stream header.
constexpr size_t kHeaderBytes = 16;

grpc::ByteBuffer with_header(uint64_t id, uint32_t code,
                             const grpc::ByteBuffer* body,
                             const std::string& message) {
  uint8_t h[kHeaderBytes] = {};
  for (int i = 0; i < 8; ++i) h[i] = static_cast<uint8_t>(id >> (8 * i));
  for (int i = 0; i < 4; ++i) h[8 + i] = static_cast<uint8_t>(code >> (8 * i));
  std::vector<grpc::Slice> slices;
  slices.emplace_back(h, kHeaderBytes);
  if (body != nullptr) {
    std::vector<grpc::Slice> rest;
    (void)body->Dump(&rest);
    for (auto& r : rest) slices.push_back(std::move(r));
  } else if (!message.empty()) {
    slices.emplace_back(message);
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

// Splits a stream message into its header fields and body (the same
// slices, no copy). False when it is shorter than a header or the header's
// reserved word is not 0.
bool split_header(const grpc::ByteBuffer& message, uint64_t* id,
                  uint32_t* code, grpc::ByteBuffer* body) {
  std::vector<grpc::Slice> slices;
  if (!message.Dump(&slices).ok()) return false;
  uint8_t h[kHeaderBytes];
  size_t got = 0;
  size_t i = 0;
  size_t offset = 0;  // into slices[i]
  while (got < kHeaderBytes && i < slices.size()) {
    const size_t n = std::min(kHeaderBytes - got, slices[i].size() - offset);
    std::memcpy(h + got, slices[i].begin() + offset, n);
    got += n;
    offset += n;
    if (offset == slices[i].size()) {
      ++i;
      offset = 0;
    }
  }
  if (got < kHeaderBytes) return false;
  *id = 0;
  *code = 0;
  uint32_t reserved = 0;
  for (int k = 0; k < 8; ++k) *id |= static_cast<uint64_t>(h[k]) << (8 * k);
  for (int k = 0; k < 4; ++k) *code |= static_cast<uint32_t>(h[8 + k]) << (8 * k);
  for (int k = 0; k < 4; ++k) reserved |= static_cast<uint32_t>(h[12 + k]) << (8 * k);
  if (reserved != 0) return false;
  std::vector<grpc::Slice> rest;
  for (; i < slices.size(); ++i) {
    if (offset == 0) {
      rest.push_back(std::move(slices[i]));
    } else {
      rest.push_back(slices[i].sub(offset, slices[i].size()));
      offset = 0;
    }
  }
  *body = grpc::ByteBuffer(rest.data(), rest.size());
  return true;
}

std::string body_text(const grpc::ByteBuffer& body) {
  std::vector<grpc::Slice> slices;
  std::string text;
  if (!body.Dump(&slices).ok()) return text;
  for (auto& sl : slices) {
    text.append(reinterpret_cast<const char*>(sl.begin()), sl.size());
  }
  return text;
}

class ServerStream;

}  // namespace

struct Server::Impl {
  std::unique_ptr<grpc::Service> service;
  std::unique_ptr<grpc::Server> server;
  // The open streams (See Note [One stream per peer]); each is in the set
  // from its start until OnDone.
  std::mutex mutex;
  std::set<ServerStream*> streams;
  bool stopping = false;
};

struct ServerCall::State {
  // A unary call's.
  grpc::ByteBuffer* response = nullptr;
  grpc::ServerUnaryReactor* reactor = nullptr;
  // A stream message's.
  ServerStream* stream = nullptr;
  uint64_t id = 0;
  grpc::ByteBuffer request;
};

namespace {

// The server's end of one peer's stream. Alive while gRPC holds it (until
// OnDone) or a call it delivered is unfinished: refs_ counts both.
class ServerStream final
    : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  ServerStream(Server::Impl* server, Handler handler, void* arg)
      : server_(server), handler_(handler), arg_(arg) {
    bool stopping;
    {
      std::lock_guard<std::mutex> g(server_->mutex);
      server_->streams.insert(this);
      stopping = server_->stopping;
    }
    if (stopping) {
      Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "the worker's RPC server is shutting down"));
      return;
    }
    StartRead(&read_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      {
        std::lock_guard<std::mutex> g(mutex_);
        reads_done_ = true;
      }
      maybe_finish();
      return;
    }
    auto* state = new ServerCall::State;
    state->stream = this;
    uint32_t code = 0;
    const bool good = split_header(read_, &state->id, &code, &state->request);
    read_.Clear();
    if (!good || code != 0) {
      delete state;
      {
        std::lock_guard<std::mutex> g(mutex_);
        reads_done_ = true;
        status_ = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                               "rpc: bad message: not an RPC stream message");
      }
      maybe_finish();
      return;
    }
    {
      std::lock_guard<std::mutex> g(mutex_);
      ++refs_;
      ++calls_;
      delivering_ = true;
    }
    // The next read starts after the handler: a reply it writes at once
    // goes out first (~10 us less per call than the other order), and the
    // handlers that run here are short (the agent hands long ones on).
    handler_(arg_, state->request, ServerCall{state});
    bool read;
    {
      std::lock_guard<std::mutex> g(mutex_);
      read = !finished_;
    }
    if (read) StartRead(&read_);
    {
      std::lock_guard<std::mutex> g(mutex_);
      delivering_ = false;
    }
    maybe_finish();
  }

  void OnWriteDone(bool ok) override {
    grpc::ByteBuffer* next = nullptr;
    {
      std::lock_guard<std::mutex> g(mutex_);
      writes_.pop_front();
      if (!ok) broken_ = true;
      if (broken_) writes_.clear();
      if (writes_.empty()) {
        writing_ = false;
      } else {
        next = &writes_.front();
      }
    }
    if (next != nullptr) {
      StartWrite(next);
    } else {
      maybe_finish();
    }
  }

  void OnCancel() override {
    {
      std::lock_guard<std::mutex> g(mutex_);
      broken_ = true;
    }
    maybe_finish();
  }

  void OnDone() override {
    {
      std::lock_guard<std::mutex> g(server_->mutex);
      server_->streams.erase(this);
    }
    release();
  }

  // One delivered call's reply (or error), from any thread, once.
  void reply(uint64_t id, uint32_t code, const grpc::ByteBuffer* body,
             const std::string& message) {
    grpc::ByteBuffer* first = nullptr;
    {
      std::lock_guard<std::mutex> g(mutex_);
      --calls_;
      if (!broken_ && !finished_) {
        writes_.push_back(with_header(id, code, body, message));
        if (!writing_) {
          writing_ = true;
          first = &writes_.front();
        }
      }
    }
    if (first != nullptr) StartWrite(first);
    maybe_finish();
    release();
  }

  // Server::shutdown: finish once the delivered calls are answered.
  void close() {
    {
      std::lock_guard<std::mutex> g(mutex_);
      closing_ = true;
    }
    maybe_finish();
  }

  void add_ref() {
    std::lock_guard<std::mutex> g(mutex_);
    ++refs_;
  }

  void release() {
    bool last;
    {
      std::lock_guard<std::mutex> g(mutex_);
      last = --refs_ == 0;
    }
    if (last) delete this;
  }

 private:
  // Finishes the stream when the peer is done (or the server closes, or
  // the stream broke) and no reply is owed or being written.
  void maybe_finish() {
    grpc::Status status;
    {
      std::lock_guard<std::mutex> g(mutex_);
      if (finished_ || writing_ || delivering_) return;
      if (!(reads_done_ || closing_ || broken_)) return;
      if (calls_ > 0 && !broken_) return;
      finished_ = true;
      status = status_;
    }
    Finish(status);
  }

  Server::Impl* server_;
  Handler handler_;
  void* arg_;
  grpc::ByteBuffer read_;  // gRPC's only while a read is in flight
  std::mutex mutex_;
  std::deque<grpc::ByteBuffer> writes_;  // front: in flight when writing_
  grpc::Status status_;
  int refs_ = 1;   // gRPC's, until OnDone, + one per undelivered reply
  int calls_ = 0;  // delivered, not yet answered
  bool writing_ = false;
  bool delivering_ = false;  // in OnReadDone: it starts the next read
  bool reads_done_ = false;
  bool closing_ = false;
  bool broken_ = false;
  bool finished_ = false;
};

class Service final : public ember::rpc::RpcAgent::WithRawCallbackMethod_Call<
                          ember::rpc::RpcAgent::WithRawCallbackMethod_Stream<
                              ember::rpc::RpcAgent::Service>> {
 public:
  Service(Server::Impl* server, Handler handler, void* arg)
      : server_(server), handler_(handler), arg_(arg) {}
  grpc::ServerUnaryReactor* Call(grpc::CallbackServerContext* context,
                                 const grpc::ByteBuffer* request,
                                 grpc::ByteBuffer* response) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    auto* state = new ServerCall::State;
    state->response = response;
    state->reactor = reactor;
    handler_(arg_, *request, ServerCall{state});
    return reactor;
  }
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* Stream(
      grpc::CallbackServerContext* /*context*/) override {
    return new ServerStream(server_, handler_, arg_);
  }

 private:
  Server::Impl* server_;
  Handler handler_;
  void* arg_;
};

std::shared_ptr<grpc::ServerCredentials> server_credentials(const Tls& tls) {
  if (!tls.enabled()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions options(
      GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = tls.root_certs;
  options.pem_key_cert_pairs.push_back({tls.private_key, tls.cert_chain});
  return grpc::SslServerCredentials(options);
}

}  // namespace

void finish(ServerCall call, grpc::ByteBuffer reply) {
  std::unique_ptr<ServerCall::State> state(call.state);
  if (state->stream != nullptr) {
    state->stream->reply(state->id, 0, &reply, std::string());
    return;
  }
  *state->response = std::move(reply);
  state->reactor->Finish(grpc::Status::OK);
}

void fail(ServerCall call, grpc::StatusCode code, const std::string& message) {
  std::unique_ptr<ServerCall::State> state(call.state);
  if (state->stream != nullptr) {
    // A stream reply's status is never 0 (that is OK, a frame).
    state->stream->reply(state->id, code == grpc::StatusCode::OK
                                        ? static_cast<uint32_t>(grpc::StatusCode::UNKNOWN)
                                        : static_cast<uint32_t>(code),
                         nullptr, message);
    return;
  }
  state->reactor->Finish(grpc::Status(code, message));
}

// Note [gRPC stays initialized]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The last grpc_shutdown() of a process (run by ~grpc::Server once nothing
// else holds gRPC) joins gRPC's executor threads, and one parked in
// epoll_wait is not woken: the join waited out its ~10 s poll timeout (seen
// as a 10 s rpc::shutdown() of a parameter-server trainer, one run in four).
// One grpc_init() taken on first use and never released keeps that teardown
// out of shutdown(); the process's exit reclaims gRPC's threads and memory,
// and a later init_rpc in the same process reuses them.
static void keep_grpc_initialized() {
  static const bool kept = (grpc_init(), true);
  (void)kept;
}

std::unique_ptr<Server> Server::start(const std::vector<std::string>& addresses,
                                      const Tls& tls, Handler handler,
                                      void* arg, int* first_port) {
  keep_grpc_initialized();
  auto impl = std::make_unique<Impl>();
  impl->service = std::make_unique<Service>(impl.get(), handler, arg);
  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(-1);
  builder.SetMaxSendMessageSize(-1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  set_bulk_args([&](const char* k, int v) { builder.AddChannelArgument(k, v); });
  *first_port = 0;
  for (size_t i = 0; i < addresses.size(); ++i) {
    builder.AddListeningPort(addresses[i], server_credentials(tls),
                             i == 0 ? first_port : nullptr);
  }
  builder.RegisterService(impl->service.get());
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr) return nullptr;
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() = default;

void Server::shutdown(double grace_s) {
  // Open streams finish once their calls are answered (See Note [One stream
  // per peer]); gRPC's Shutdown waits for them as for unary calls.
  std::vector<ServerStream*> open;
  {
    std::lock_guard<std::mutex> g(impl_->mutex);
    impl_->stopping = true;
    for (ServerStream* s : impl_->streams) {
      s->add_ref();
      open.push_back(s);
    }
  }
  for (ServerStream* s : open) {
    s->close();
    s->release();
  }
  impl_->server->Shutdown(deadline_after(grace_s));
  impl_->server->Wait();
}

// ---------------------------------------------------------------------------
// The client's end of the stream (See Note [One stream per peer]).

namespace {
std::atomic<uint64_t> g_next_call_id{1};

grpc::Status unreachable() {
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      "the RPC stream to the peer closed as it opened");
}
}  // namespace

// Deadlines of asynchronous stream calls, and cancels: one thread for the
// process, started on first use, that fails a call when its time comes by
// taking it out of its stream. Never destroyed (a worker may call until
// exit).
struct Timers {
  using Key = std::pair<std::chrono::steady_clock::time_point, uint64_t>;
  struct Entry {
    std::weak_ptr<ClientStream> stream;
    grpc::StatusCode code;
  };

  void add(Key key, std::weak_ptr<ClientStream> stream, grpc::StatusCode code) {
    std::lock_guard<std::mutex> g(mutex_);
    if (!started_) {
      started_ = true;
      std::thread([this] { run(); }).detach();
    }
    const bool first = entries_.empty() || key < entries_.begin()->first;
    entries_.emplace(key, Entry{std::move(stream), code});
    if (first) cv_.notify_one();
  }

  void remove(Key key) {
    std::lock_guard<std::mutex> g(mutex_);
    entries_.erase(key);
  }

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<Key, Entry> entries_;
  bool started_ = false;
};

Timers& timers() {
  static Timers* const kTimers = new Timers;
  return *kTimers;
}

class ClientStream final
    : public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  // Starts the call; the stream holds itself until OnDone.
  static std::shared_ptr<ClientStream> open(grpc::ChannelInterface* channel,
                                            const grpc::internal::RpcMethod& method) {
    std::shared_ptr<ClientStream> s(new ClientStream);
    s->self_ = s;
    grpc::internal::ClientCallbackReaderWriterFactory<
        grpc::ByteBuffer, grpc::ByteBuffer>::Create(channel, method,
                                                    &s->context_, s.get());
    // Writes start outside the reactions: the hold keeps the call until
    // the last of them is done (removed once the stream broke).
    s->AddHold();
    s->StartRead(&s->read_);
    s->StartCall();
    return s;
  }

  bool broken() {
    std::lock_guard<std::mutex> g(mutex_);
    return broken_;
  }

  // Registers `call` under a new id and queues its request. False when the
  // stream broke (the caller opens another).
  bool send(ClientCall* call) {
    const uint64_t id = g_next_call_id.fetch_add(1, std::memory_order_relaxed);
    grpc::ByteBuffer* first = nullptr;
    {
      std::lock_guard<std::mutex> g(mutex_);
      if (broken_) return false;
      {
        std::lock_guard<std::mutex> c(call->mutex_);
        call->stream_ = self_;
        call->id_ = id;
      }
      pending_.emplace(id, call);
      if (call->has_deadline_) {
        // Before the write: the reply cannot finish the call first.
        call->has_timer_ = true;
        timers().add({call->deadline_, id}, self_,
                     grpc::StatusCode::DEADLINE_EXCEEDED);
      }
      writes_.push_back(with_header(id, 0, &call->request, std::string()));
      if (!writing_) {
        writing_ = true;
        first = &writes_.front();
      }
    }
    if (first != nullptr) StartWrite(first);
    return true;
  }

  // The call waiting under `id`, now the caller's to finish; null when it
  // is finished or being finished already.
  ClientCall* take(uint64_t id) {
    std::lock_guard<std::mutex> g(mutex_);
    auto it = pending_.find(id);
    if (it == pending_.end()) return nullptr;
    ClientCall* call = it->second;
    pending_.erase(it);
    return call;
  }

  void cancel() { context_.TryCancel(); }

  void OnReadDone(bool ok) override {
    if (!ok) {
      stop_writing();
      return;
    }
    uint64_t id = 0;
    uint32_t code = 0;
    grpc::ByteBuffer body;
    const bool good = split_header(read_, &id, &code, &body);
    read_.Clear();
    if (!good) {
      {
        std::lock_guard<std::mutex> g(mutex_);
        bad_reply_ = true;
      }
      context_.TryCancel();
      stop_writing();  // no read follows: OnDone fails the waiting calls
      return;
    }
    StartRead(&read_);
    ClientCall* call = take(id);
    if (call == nullptr) return;  // a late reply: its call timed out
    if (code == 0) {
      call->response = std::move(body);
      call->finish(grpc::Status::OK);
    } else {
      call->finish(grpc::Status(static_cast<grpc::StatusCode>(code),
                                body_text(body)));
    }
  }

  void OnWriteDone(bool ok) override {
    grpc::ByteBuffer* next = nullptr;
    bool last = false;
    {
      std::lock_guard<std::mutex> g(mutex_);
      writes_.pop_front();
      if (!ok) broken_ = true;
      if (broken_) writes_.clear();
      if (!writes_.empty()) {
        next = &writes_.front();
      } else {
        writing_ = false;
        last = broken_ && !hold_removed_;
        if (last) hold_removed_ = true;
      }
    }
    if (next != nullptr) StartWrite(next);
    if (last) RemoveHold();
  }

  void OnDone(const grpc::Status& status) override {
    std::unordered_map<uint64_t, ClientCall*> waiting;
    std::shared_ptr<ClientStream> self;
    bool bad;
    {
      std::lock_guard<std::mutex> g(mutex_);
      broken_ = true;
      waiting.swap(pending_);
      self = std::move(self_);
      bad = bad_reply_;
    }
    grpc::Status why = status;
    if (bad) {
      why = grpc::Status(grpc::StatusCode::INTERNAL,
                         "rpc: bad message: not an RPC stream message");
    } else if (status.ok()) {
      why = grpc::Status(grpc::StatusCode::UNAVAILABLE,
                         "the peer closed the RPC stream (its server shut down)");
    }
    for (auto& w : waiting) w.second->finish(why);
    // `self` goes last: it may destroy this stream.
  }

 private:
  ClientStream() = default;

  // No more writes start once the stream broke; the hold goes with the
  // last one in flight.
  void stop_writing() {
    bool last;
    {
      std::lock_guard<std::mutex> g(mutex_);
      broken_ = true;
      last = !writing_ && !hold_removed_;
      if (last) hold_removed_ = true;
    }
    if (last) RemoveHold();
  }

  grpc::ClientContext context_;
  grpc::ByteBuffer read_;  // gRPC's only while a read is in flight
  std::mutex mutex_;
  std::shared_ptr<ClientStream> self_;  // until OnDone
  std::unordered_map<uint64_t, ClientCall*> pending_;
  std::deque<grpc::ByteBuffer> writes_;  // front: in flight when writing_
  bool writing_ = false;
  bool broken_ = false;
  bool hold_removed_ = false;
  bool bad_reply_ = false;
};

void Timers::run() {
  std::unique_lock<std::mutex> l(mutex_);
  for (;;) {
    if (entries_.empty()) {
      cv_.wait(l);
      continue;
    }
    auto first = entries_.begin();
    if (first->first.first > std::chrono::steady_clock::now()) {
      cv_.wait_until(l, first->first.first);
      continue;
    }
    const uint64_t id = first->first.second;
    Entry entry = std::move(first->second);
    entries_.erase(first);
    l.unlock();
    if (auto stream = entry.stream.lock()) {
      if (ClientCall* call = stream->take(id)) {
        call->finish(grpc::Status(entry.code,
                                  entry.code == grpc::StatusCode::CANCELLED
                                      ? "Cancelled"
                                      : "Deadline Exceeded"));
      }
    }
    l.lock();
  }
}

// A blocking caller's stream: one request at a time, whose reply the
// caller reads itself by driving the stream's completion queue (no gRPC
// callback thread between the reply and the caller: See Note [One stream
// per peer]). Owned by one caller while it makes a call, else idle in its
// Endpoint's pool.
class SyncStream {
 public:
  explicit SyncStream(grpc::GenericStub* stub)
      : call_(nullptr) {
    // The call's headers go out with its first message (no operation of
    // their own: the async stream's start and writes share one op set).
    context_.set_initial_metadata_corked(true);
    call_ = stub->PrepareCall(&context_, kStreamMethod, &cq_);
    call_->StartCall(nullptr);
  }

  ~SyncStream() {
    if (!finished_) {
      context_.TryCancel();
      (void)finish_call();
    }
    cq_.Shutdown();
    void* t;
    bool ok;
    while (cq_.Next(&t, &ok)) {
    }
  }

  bool healthy() const { return !finished_; }
  // The last request never left: the call was over before its write (an
  // idle stream whose connection closed), so it may be sent again.
  bool unsent() const { return unsent_; }
  void cancel() { context_.TryCancel(); }

  // Sends the call's request and waits for its reply until the call's
  // deadline. A timed-out call leaves the stream usable (a late reply is
  // read and dropped by the next call); a broken one is not reused.
  // send_raw_stream_message's: `message` as it is, then the first reply
  // (OK) or the end of the stream.
  grpc::Status send_raw(const grpc::ByteBuffer& message,
                        std::chrono::system_clock::time_point deadline) {
    call_->Write(message, tag(kWrite));
    pending_[kWrite] = true;
    start_read();
    want_ = 0;
    accept_any_ = true;
    while (!got_reply_) {
      if (!step(deadline, true)) return failure();
      if (timed_out_) return timeout();
    }
    return grpc::Status::OK;
  }

  grpc::Status roundtrip(ClientCall* call) {
    const uint64_t id = g_next_call_id.fetch_add(1, std::memory_order_relaxed);
    const auto deadline =
        call->has_deadline_
            ? std::chrono::system_clock::now() +
                  std::chrono::duration_cast<std::chrono::system_clock::duration>(
                      call->deadline_ - std::chrono::steady_clock::now())
            : std::chrono::system_clock::time_point::max();
    unsent_ = false;
    // The previous call's write, when it timed out before its end.
    while (pending_[kWrite]) {
      if (!step(deadline, call->has_deadline_)) {
        unsent_ = true;  // this request was not written
        return failure();
      }
      if (timed_out_) return timeout();
    }
    const grpc::ByteBuffer message =
        with_header(id, 0, &call->request, std::string());
    call_->Write(message, tag(kWrite));
    pending_[kWrite] = true;
    if (!pending_[kRead]) start_read();
    got_reply_ = false;
    want_ = id;
    while (!got_reply_ || pending_[kWrite]) {
      if (!step(deadline, call->has_deadline_)) return failure();
      if (timed_out_) return timeout();
    }
    uint64_t got = 0;
    uint32_t code = 0;
    (void)split_header(reply_, &got, &code, &call->response);
    reply_.Clear();
    if (code != 0) {
      const std::string text = body_text(call->response);
      call->response.Clear();
      return grpc::Status(static_cast<grpc::StatusCode>(code), text);
    }
    return grpc::Status::OK;
  }

 private:
  enum Op { kStart = 0, kWrite = 1, kRead = 2, kFinish = 3, kOps = 4 };
  static void* tag(Op op) { return reinterpret_cast<void*>(static_cast<intptr_t>(op) + 1); }

  void completed(int op, bool ok) {
    pending_[op] = false;
    if (op == kWrite && !ok) unsent_ = true;
  }

  void start_read() {
    call_->Read(&read_, tag(kRead));
    pending_[kRead] = true;
  }

  // Takes one completion. False when the stream broke; timed_out_ when
  // the deadline passed first.
  bool step(std::chrono::system_clock::time_point deadline, bool bounded) {
    timed_out_ = false;
    void* t = nullptr;
    bool ok = false;
    grpc::CompletionQueue::NextStatus r;
    if (bounded) {
      r = cq_.AsyncNext(&t, &ok, deadline);
    } else {
      r = cq_.Next(&t, &ok) ? grpc::CompletionQueue::GOT_EVENT
                            : grpc::CompletionQueue::SHUTDOWN;
    }
    if (r == grpc::CompletionQueue::TIMEOUT) {
      timed_out_ = true;
      return true;
    }
    if (r != grpc::CompletionQueue::GOT_EVENT) return false;
    const int op = static_cast<int>(reinterpret_cast<intptr_t>(t) - 1);
    if (op < 0 || op >= kOps) return false;
    completed(op, ok);
    if (!ok) return false;
    if (op == kRead) {
      uint64_t id = 0;
      uint32_t code = 0;
      grpc::ByteBuffer body;
      if (!split_header(read_, &id, &code, &body)) {
        bad_reply_ = true;
        return false;
      }
      if (id == want_ || accept_any_) {
        reply_ = std::move(read_);
        got_reply_ = true;
      }
      read_.Clear();
      start_read();  // the next call's reply, or this one's after a late one
    }
    return true;
  }

  grpc::Status timeout() {
    return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded");
  }

  // The stream broke: the status the call ended with.
  grpc::Status failure() {
    if (bad_reply_) context_.TryCancel();  // the call itself is still up
    grpc::Status status = finish_call();
    if (bad_reply_) {
      return grpc::Status(grpc::StatusCode::INTERNAL,
                          "rpc: bad message: not an RPC stream message");
    }
    if (status.ok()) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "the peer closed the RPC stream (its server shut down)");
    }
    return status;
  }

  // Waits out the operations in flight (they fail once the call is over;
  // cancelled if they have not after 5 s), then takes the call's status.
  grpc::Status finish_call() {
    finished_ = true;
    const auto limit = std::chrono::system_clock::now() + std::chrono::seconds(5);
    bool cancelled = false;
    const auto drain = [&] {
      for (;;) {
        bool any = false;
        for (bool p : pending_) any = any || p;
        if (!any) return;
        void* t = nullptr;
        bool ok = false;
        const auto r = cq_.AsyncNext(&t, &ok, cancelled ? std::chrono::system_clock::time_point::max() : limit);
        if (r == grpc::CompletionQueue::SHUTDOWN) return;
        if (r == grpc::CompletionQueue::TIMEOUT) {
          context_.TryCancel();
          cancelled = true;
          continue;
        }
        const int op = static_cast<int>(reinterpret_cast<intptr_t>(t) - 1);
        if (op >= 0 && op < kOps) completed(op, ok);
      }
    };
    drain();
    grpc::Status status;
    call_->Finish(&status, tag(kFinish));
    pending_[kFinish] = true;
    drain();
    return status;
  }

  grpc::ClientContext context_;
  grpc::CompletionQueue cq_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call_;
  bool pending_[kOps] = {};
  grpc::ByteBuffer read_;
  grpc::ByteBuffer reply_;
  uint64_t want_ = 0;
  bool got_reply_ = false;
  bool accept_any_ = false;
  bool timed_out_ = false;
  bool bad_reply_ = false;
  bool finished_ = false;
  bool unsent_ = false;
};

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
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      grpc::InsecureChannelCredentials();
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
}

Endpoint::~Endpoint() {
  // The stream ends by itself once cancelled (the peer's server sees it
  // go); no call is waiting on it by now.
  std::shared_ptr<ClientStream> s;
  std::vector<std::unique_ptr<SyncStream>> idle;
  {
    std::lock_guard<std::mutex> g(mutex_);
    s = std::move(stream_);
    idle.swap(idle_);
  }
  if (s != nullptr) s->cancel();
  idle.clear();  // each cancels its call and waits for it to end
}

std::shared_ptr<ClientStream> Endpoint::stream() {
  std::lock_guard<std::mutex> g(mutex_);
  if (stream_ == nullptr || stream_->broken()) {
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
    std::lock_guard<std::mutex> g(mutex_);
    cancelled_ = true;
    s = stream_;
    id = id_;
    // A blocking caller's stream: the caller wakes with CANCELLED and drops it.
    if (sync_ != nullptr) sync_->cancel();
  }
  // On the stream: failed by the timer thread, now (the caller may hold
  // the lock its completion takes). A unary call: by gRPC.
  if (s != nullptr) {
    timers().add({std::chrono::steady_clock::time_point{}, id}, s,
                 grpc::StatusCode::CANCELLED);
  }
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
// with its failure here; a cancel that came before the call is applied now.
bool ClientCall::send_on(Endpoint& to) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::shared_ptr<ClientStream> s = to.stream();
    if (s->send(this)) {
      bool cancel;
      {
        std::lock_guard<std::mutex> g(mutex_);
        cancel = cancelled_;
      }
      if (cancel) this->cancel();
      return true;
    }
  }
  return false;
}

ClientCall::ClientCall() = default;
ClientCall::~ClientCall() = default;

std::unique_ptr<SyncStream> Endpoint::take_sync() {
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (!idle_.empty()) {
      std::unique_ptr<SyncStream> s = std::move(idle_.back());
      idle_.pop_back();
      return s;
    }
  }
  return std::make_unique<SyncStream>(stub_.get());
}

void Endpoint::give_back(std::unique_ptr<SyncStream> s) {
  std::lock_guard<std::mutex> g(mutex_);
  idle_.push_back(std::move(s));
}

grpc::Status send_raw_stream_message(Endpoint& to, const grpc::ByteBuffer& message,
                                     double timeout_s) {
  SyncStream s(to.stub_.get());
  return s.send_raw(message, deadline_after(timeout_s));
}

grpc::Status call_blocking(Endpoint& to, ClientCall* call) {
  if (!call->on_stream()) {
    return grpc::internal::BlockingUnaryCall(to.channel_.get(), *to.method_,
                                             &call->context_, call->request,
                                             &call->response);
  }
  // A pooled stream may have died while idle (its connection closed, the
  // peer is back on a new one): a request it never sent goes once more, on
  // a new stream.
  for (int attempt = 0;; ++attempt) {
    std::unique_ptr<SyncStream> s =
        attempt == 0 ? to.take_sync() : std::make_unique<SyncStream>(to.stub_.get());
    {
      std::lock_guard<std::mutex> g(call->mutex_);
      if (call->cancelled_) {
        to.give_back(std::move(s));
        return grpc::Status(grpc::StatusCode::CANCELLED, "Cancelled");
      }
      call->sync_ = s.get();
    }
    grpc::Status status = s->roundtrip(call);
    {
      std::lock_guard<std::mutex> g(call->mutex_);
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
  grpc::internal::CallbackUnaryCall(
      to.channel_.get(), *to.method_, &call->context_, &call->request,
      &call->response, [call](grpc::Status status) {
        call->done_(call->done_a_, call->done_b_, std::move(status));
      });
}

}  // namespace transport
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
