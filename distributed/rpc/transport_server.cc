// The transport's server: unary calls and the server's end of each peer's
// stream (See Note [One stream per peer] in transport.cc). Compiled without
// -fsanitize=thread under --config=tsan: See Note [TSan and gRPC] in
// transport.h.
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "distributed/rpc/rpc.grpc.pb.h"
#include "distributed/rpc/transport.h"
#include "distributed/rpc/transport_internal.h"

namespace torch {
namespace distributed {
namespace rpc {
namespace transport {

namespace {
class ServerStream;
}  // namespace

struct Server::Impl {
  std::unique_ptr<grpc::Service> service;
  std::unique_ptr<grpc::Server> server;
  // The open streams (See Note [One stream per peer] in transport.cc);
  // each is in the set from its start until OnDone.
  detail::Mutex mutex;
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

using namespace detail;  // NOLINT: the transport's own helpers

// The server's end of one peer's stream. Alive while gRPC holds it (until
// OnDone) or a call it delivered is unfinished: refs_ counts both.
class ServerStream final : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  ServerStream(Server::Impl* server, Handler handler, void* arg)
      : server_(server), handler_(handler), arg_(arg) {
    bool stopping;
    {
      std::lock_guard<Mutex> g(server_->mutex);
      server_->streams.insert(this);
      stopping = server_->stopping;
    }
    if (stopping) {
      {
        std::lock_guard<Mutex> g(mutex_);
        finished_ = true;  // once: OnCancel must not finish it again
      }
      Finish(
          grpc::Status(grpc::StatusCode::UNAVAILABLE, "the worker's RPC server is shutting down"));
      return;
    }
    StartRead(&read_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      {
        std::lock_guard<Mutex> g(mutex_);
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
        std::lock_guard<Mutex> g(mutex_);
        reads_done_ = true;
        status_ = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                               "rpc: bad message: not an RPC stream message");
      }
      maybe_finish();
      return;
    }
    {
      std::lock_guard<Mutex> g(mutex_);
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
      std::lock_guard<Mutex> g(mutex_);
      read = !finished_;
    }
    if (read) StartRead(&read_);
    {
      std::lock_guard<Mutex> g(mutex_);
      delivering_ = false;
    }
    maybe_finish();
  }

  void OnWriteDone(bool ok) override {
    grpc::ByteBuffer* next = nullptr;
    {
      std::lock_guard<Mutex> g(mutex_);
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
      std::lock_guard<Mutex> g(mutex_);
      broken_ = true;
    }
    maybe_finish();
  }

  void OnDone() override {
    {
      std::lock_guard<Mutex> g(server_->mutex);
      server_->streams.erase(this);
    }
    release();
  }

  // One delivered call's reply (or error), from any thread, once.
  void reply(uint64_t id, uint32_t code, const grpc::ByteBuffer* body, const std::string& message) {
    grpc::ByteBuffer* first = nullptr;
    {
      std::lock_guard<Mutex> g(mutex_);
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
      std::lock_guard<Mutex> g(mutex_);
      closing_ = true;
    }
    maybe_finish();
  }

  void add_ref() {
    std::lock_guard<Mutex> g(mutex_);
    ++refs_;
  }

  void release() {
    bool last;
    {
      std::lock_guard<Mutex> g(mutex_);
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
      std::lock_guard<Mutex> g(mutex_);
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
  Mutex mutex_;
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

class Service final
    : public ember::rpc::RpcAgent::WithRawCallbackMethod_Call<
          ember::rpc::RpcAgent::WithRawCallbackMethod_Stream<ember::rpc::RpcAgent::Service>> {
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
    state->stream->reply(state->id,
                         code == grpc::StatusCode::OK
                             ? static_cast<uint32_t>(grpc::StatusCode::UNKNOWN)
                             : static_cast<uint32_t>(code),
                         nullptr, message);
    return;
  }
  state->reactor->Finish(grpc::Status(code, message));
}

std::unique_ptr<Server> Server::start(const std::vector<std::string>& addresses, const Tls& tls,
                                      Handler handler, void* arg, int* first_port) {
  detail::keep_grpc_initialized();
  auto impl = std::make_unique<Impl>();
  impl->service = std::make_unique<Service>(impl.get(), handler, arg);
  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(-1);
  builder.SetMaxSendMessageSize(-1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  detail::set_bulk_args([&](const char* k, int v) { builder.AddChannelArgument(k, v); });
  *first_port = 0;
  for (size_t i = 0; i < addresses.size(); ++i) {
    builder.AddListeningPort(addresses[i], server_credentials(tls), i == 0 ? first_port : nullptr);
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
  // per peer] in transport.cc); gRPC's Shutdown waits for them as for unary
  // calls.
  std::vector<ServerStream*> open;
  {
    std::lock_guard<Mutex> g(impl_->mutex);
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
  impl_->server->Shutdown(detail::deadline_after(grace_s));
  impl_->server->Wait();
}

}  // namespace transport
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
