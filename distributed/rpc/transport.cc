// gRPC behind transport.h. Compiled without -fsanitize=thread under
// --config=tsan: See Note [TSan and gRPC] in transport.h.
#include "distributed/rpc/transport.h"

#include <grpc/grpc.h>
#include <grpcpp/impl/codegen/client_callback.h>
#include <grpcpp/impl/codegen/client_unary_call.h>

#include <chrono>
#include <cstdint>

#include "distributed/rpc/rpc.grpc.pb.h"

namespace torch {
namespace distributed {
namespace rpc {
namespace transport {

namespace {

constexpr char kMethod[] = "/ember.rpc.RpcAgent/Call";

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

class Service final : public ember::rpc::RpcAgent::WithRawCallbackMethod_Call<
                          ember::rpc::RpcAgent::Service> {
 public:
  Service(Handler handler, void* arg) : handler_(handler), arg_(arg) {}
  grpc::ServerUnaryReactor* Call(grpc::CallbackServerContext* context,
                                 const grpc::ByteBuffer* request,
                                 grpc::ByteBuffer* response) override {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    handler_(arg_, *request, ServerCall{response, reactor});
    return reactor;
  }

 private:
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
  *call.response = std::move(reply);
  call.reactor->Finish(grpc::Status::OK);
}

void fail(ServerCall call, grpc::StatusCode code, const std::string& message) {
  call.reactor->Finish(grpc::Status(code, message));
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

struct Server::Impl {
  std::unique_ptr<Service> service;
  std::unique_ptr<grpc::Server> server;
};

std::unique_ptr<Server> Server::start(const std::vector<std::string>& addresses,
                                      const Tls& tls, Handler handler,
                                      void* arg, int* first_port) {
  keep_grpc_initialized();
  auto impl = std::make_unique<Impl>();
  impl->service = std::make_unique<Service>(handler, arg);
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
  impl_->server->Shutdown(deadline_after(grace_s));
  impl_->server->Wait();
}

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
}

Endpoint::~Endpoint() = default;

void ClientCall::set_timeout(double seconds) {
  if (seconds > 0) context_.set_deadline(deadline_after(seconds));
}

void ClientCall::set_wait_for_ready() { context_.set_wait_for_ready(true); }

void ClientCall::cancel() { context_.TryCancel(); }

grpc::Status call_blocking(Endpoint& to, ClientCall* call) {
  return grpc::internal::BlockingUnaryCall(to.channel_.get(), *to.method_,
                                           &call->context_, call->request,
                                           &call->response);
}

void call_async(Endpoint& to, ClientCall* call, Done done, void* a, void* b) {
  // The completion's closure holds one pointer, so std::function keeps it
  // inline (no heap block per call).
  call->done_ = done;
  call->done_a_ = a;
  call->done_b_ = b;
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
