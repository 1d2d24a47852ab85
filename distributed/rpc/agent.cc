// The gRPC agent: its server, the requests it serves and the operators it
// runs (outgoing calls are in agent_calls.cc, rendezvous and the shutdown
// barrier in agent_lifecycle.cc). See Note [Agent threads] in agent.h.
#include "distributed/rpc/agent.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "registration/Dispatcher.h"

namespace torch {
namespace distributed {
namespace rpc {

namespace detail {

std::string status_text(const grpc::Status& s) {
  static const char* const kNames[] = {
      "OK",          "CANCELLED",           "UNKNOWN",
      "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION", "ABORTED",     "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL",          "UNAVAILABLE",
      "DATA_LOSS",   "UNAUTHENTICATED"};
  int code = static_cast<int>(s.error_code());
  std::string name = code >= 0 && code <= 16 ? kNames[code] : "code " +
                                                   std::to_string(code);
  return "gRPC " + name + ": " + s.error_message();
}

// Constant-time comparison, so a wrong token's timing says nothing about
// the right one.
bool same_secret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return diff == 0;
}

std::string random_hex(size_t bytes) {
  std::random_device rd;
  std::string out;
  static const char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < bytes; ++i) {
    unsigned v = rd() & 0xff;
    out += kHex[v >> 4];
    out += kHex[v & 15];
  }
  return out;
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

}  // namespace detail

using detail::env_or;
using detail::random_hex;
using detail::same_secret;
using detail::status_text;

namespace {

// The local address of the route to `host` (the interface servers bind
// to): a UDP "connect" sends nothing but picks the source address.
std::string route_address(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  int rc = getaddrinfo(host.c_str(), "9", &hints, &res);
  TORCH_CHECK(rc == 0 && res != nullptr, "init_rpc: cannot resolve MASTER_ADDR '",
              host, "': ", gai_strerror(rc), ". Set MASTER_ADDR to rank 0's "
              "address.");
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  std::string out = "127.0.0.1";
  if (fd >= 0) {
    if (connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
      sockaddr_in local{};
      socklen_t len = sizeof(local);
      if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0) {
        char buf[INET_ADDRSTRLEN];
        if (inet_ntop(AF_INET, &local.sin_addr, buf, sizeof(buf))) out = buf;
      }
    }
    close(fd);
  }
  freeaddrinfo(res);
  return out;
}

std::string read_pem(const std::string& path, const char* option) {
  std::ifstream in(path, std::ios::binary);
  TORCH_CHECK(in.good(), "init_rpc: cannot read RpcBackendOptions::", option,
              " '", path, "'; pass the path of a PEM file.");
  std::ostringstream s;
  s << in.rdbuf();
  TORCH_CHECK(s.str().find("-----BEGIN") != std::string::npos,
              "init_rpc: RpcBackendOptions::", option, " '", path,
              "' is not a PEM file (no -----BEGIN line).");
  return s.str();
}


}  // namespace

namespace {
// Set once when libember_distributed.so loads (See Note [Distributed
// autograd hooks] in agent.h); acquire/release so a reader sees the object.
std::atomic<AutogradHooks*> g_autograd_hooks{nullptr};
}  // namespace

void set_autograd_hooks(AutogradHooks* hooks) {
  g_autograd_hooks.store(hooks, std::memory_order_release);
}

AutogradHooks* autograd_hooks() {
  return g_autograd_hooks.load(std::memory_order_acquire);
}

c10::Error make_error(const std::string& message) {
  return c10::Error(c10::SourceLocation{"rpc", __FILE__, __LINE__}, message);
}

// ---------------------------------------------------------------------------
// Server.

void Agent::on_request(void* self, const grpc::ByteBuffer& request,
                       transport::ServerCall call) {
  static_cast<Agent*>(self)->handle(request, call);
}

Agent::Agent(std::string name, int rank, int world_size,
             RpcBackendOptions options)
    : name_(std::move(name)),
      rank_(rank),
      world_size_(world_size),
      options_(std::move(options)) {
  TORCH_CHECK(!name_.empty() && name_.size() <= 128,
              "init_rpc: a worker name must have 1 to 128 characters, got '",
              name_, "'.");
  TORCH_CHECK(world_size_ >= 1 && world_size_ <= 65536,
              "init_rpc: world_size must be in [1, 65536], got ", world_size_,
              ". Set WORLD_SIZE or pass world_size.");
  TORCH_CHECK(rank_ >= 0 && rank_ < world_size_, "init_rpc: rank ", rank_,
              " is outside [0, world_size=", world_size_,
              "). Set RANK or pass rank.");
  TORCH_CHECK(options_.rpc_timeout >= 0, "init_rpc: rpc_timeout must be >= 0 "
              "(0: no timeout), got ", options_.rpc_timeout, ".");
  std::string init = options_.init_method;
  if (init.empty()) {
    const char* addr = std::getenv("MASTER_ADDR");
    const char* port = std::getenv("MASTER_PORT");
    TORCH_CHECK(world_size_ == 1 || (addr && *addr && port && *port),
                "init_rpc: MASTER_ADDR and MASTER_PORT must be set (rank 0's "
                "address and a free port), or pass "
                "RpcBackendOptions::init_method = \"tcp://host:port\".");
    init = std::string("tcp://") + (addr && *addr ? addr : "127.0.0.1") +
           ":" + (port && *port ? port : "0");
  }
  const std::string prefix = "tcp://";
  TORCH_CHECK(init.compare(0, prefix.size(), prefix) == 0,
              "init_rpc: init_method must be \"tcp://host:port\", got '",
              init, "'.");
  std::string hostport = init.substr(prefix.size());
  size_t colon = hostport.rfind(':');
  TORCH_CHECK(colon != std::string::npos && colon > 0,
              "init_rpc: init_method '", init, "' has no port.");
  master_host_ = hostport.substr(0, colon);
  if (master_host_.size() > 2 && master_host_.front() == '[') {
    master_host_ = master_host_.substr(1, master_host_.size() - 2);
  }
  char* end = nullptr;
  long port = std::strtol(hostport.c_str() + colon + 1, &end, 10);
  TORCH_CHECK(end && *end == '\0' && port >= 0 && port <= 65535,
              "init_rpc: bad port in init_method '", init, "'.");
  master_port_ = static_cast<int>(port);
  token_ = options_.token.empty() ? env_or("EMBER_RPC_TOKEN", "")
                                  : options_.token;
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  hostname_ = host;
  share_memory_ = peer_memory::enabled();
  const bool any_tls = !options_.tls_cert_chain.empty() ||
                       !options_.tls_private_key.empty() ||
                       !options_.tls_root_certs.empty();
  if (any_tls) {
    TORCH_CHECK(!options_.tls_cert_chain.empty() &&
                    !options_.tls_private_key.empty() &&
                    !options_.tls_root_certs.empty(),
                "init_rpc: TLS needs all of tls_cert_chain, tls_private_key "
                "and tls_root_certs; got only some of them.");
    tls_.cert_chain = read_pem(options_.tls_cert_chain, "tls_cert_chain");
    tls_.private_key = read_pem(options_.tls_private_key, "tls_private_key");
    tls_.root_certs = read_pem(options_.tls_root_certs, "tls_root_certs");
    tls_.server_name = options_.tls_server_name;
  }
}

Agent::~Agent() {
  {
    std::lock_guard<std::mutex> g(pool_mutex_);
    pool_stop_ = true;
  }
  pool_cv_.notify_all();
  for (auto& t : pool_) {
    if (t.joinable()) t.join();
  }
}

void Agent::post(std::function<void()> task) {
  // Notified under the lock: ~Agent takes it before destroying pool_cv_, so
  // a handler still returning from post() on a gRPC thread is ordered before
  // the destruction in a way TSan sees (the server's shutdown orders it too,
  // but inside libgrpc).
  std::lock_guard<std::mutex> g(pool_mutex_);
  pool_tasks_.push_back(std::move(task));
  pool_cv_.notify_one();
}

void Agent::start() {
  TORCH_CHECK(options_.num_worker_threads >= 1 &&
                  options_.num_worker_threads <= 1024,
              "init_rpc: num_worker_threads must be in [1, 1024], got ",
              options_.num_worker_threads, ".");
  for (int i = 0; i < options_.num_worker_threads; ++i) {
    pool_.emplace_back([this] {
      for (;;) {
        std::function<void()> task;
        {
          std::unique_lock<std::mutex> l(pool_mutex_);
          pool_cv_.wait(l, [this] { return pool_stop_ || !pool_tasks_.empty(); });
          if (pool_tasks_.empty()) return;
          task = std::move(pool_tasks_.front());
          pool_tasks_.pop_front();
        }
        task();
      }
    });
  }
  // Rank 0 listens at the rendezvous address; the others on the interface
  // of the route to it, on a port the system picks.
  int tcp_port = 0;
  std::string bind_host =
      rank_ == 0 ? master_host_ : route_address(master_host_);
  std::string bind = (bind_host.find(':') != std::string::npos
                          ? "[" + bind_host + "]"
                          : bind_host) +
                     ":" + std::to_string(rank_ == 0 ? master_port_ : 0);
  std::vector<std::string> addresses{bind};
  if (options_.use_unix_sockets) {
    unix_address_ = "unix-abstract:ember-rpc-" + std::to_string(getpid()) +
                    "-" + random_hex(8);
    addresses.push_back(unix_address_);
  }
  // What gRPC's threads read in handle() is published under mutex_ before
  // they can run (See Note [TSan and gRPC] in transport.h).
  { std::lock_guard<std::mutex> g(mutex_); }
  server_ = transport::Server::start(addresses, tls_, &Agent::on_request,
                                     this, &tcp_port);
  TORCH_CHECK(server_ != nullptr && tcp_port != 0, "init_rpc: worker '",
              name_, "' (rank ", rank_, ") could not listen on ", bind,
              rank_ == 0 ? " (MASTER_ADDR:MASTER_PORT; is the port in use?)"
                         : "",
              ".");
  tcp_address_ = (bind_host.find(':') != std::string::npos
                      ? "[" + bind_host + "]"
                      : bind_host) +
                 ":" + std::to_string(tcp_port);
  if (rank_ == 0) master_port_ = tcp_port;
  try {
    rendezvous();
  } catch (...) {
    {
      std::lock_guard<std::mutex> g(mutex_);
      stopping_ = true;
    }
    admit_deferred();  // refused: not ready
    server_->shutdown(0.5);
    throw;
  }
}

// ---------------------------------------------------------------------------
// Requests.

void Agent::reply(transport::ServerCall call, ember::rpc::Envelope& env,
                  wire::Encoder* enc, int to) {
  env.set_from_rank(rank_);
  // Everything of the peer is read under pins_mutex_, which shutdown takes
  // after the server stopped: that orders these reads on gRPC's threads
  // before the agent goes, for TSan too (Note [TSan and gRPC]).
  bool share = false;
  uint64_t id = 0;
  if (to >= 0 && to < world_size_) {
    std::lock_guard<std::mutex> g(pins_mutex_);
    Peer& p = *peers_[to];
    env.set_reads_your_memory(p.i_read);
    share = enc != nullptr && enc->has_shareable() &&
            may_share_with_locked(p);
    if (share) id = next_pin_++;
  }
  if (!share) {
    transport::finish(call, enc ? enc->finish(env) : wire::encode_plain(env));
    return;
  }
  // The results stay readable until the caller releases pin_id (See Note
  // [Shared tensors] in peer_memory.h); kept before the reply can arrive.
  env.set_pin_id(id);
  std::vector<at::TensorBase> shared;
  grpc::ByteBuffer frame = enc->finish_sharing(env, &shared);
  pin(to, id, std::move(shared));
  transport::finish(call, frame);
}

void Agent::reply_error(transport::ServerCall call,
                        ember::rpc::MessageKind kind,
                        const std::string& error) {
  ember::rpc::Envelope env;
  env.set_kind(kind);
  env.set_error(error);
  reply(call, env);
}

void Agent::handle(const grpc::ByteBuffer& request, transport::ServerCall call) {
  // The values are decoded once the token is checked (admit), so that a
  // frame from outside the group allocates nothing and reads no memory.
  wire::Decoded msg;
  try {
    msg = wire::decode_header(request);
    if (msg.envelope.kind() == ember::rpc::JOIN_CALL) {
      wire::decode_values(msg, nullptr);
    }
  } catch (const c10::Error& e) {
    transport::fail(call, grpc::StatusCode::INVALID_ARGUMENT,
                    e.what_without_backtrace());
    return;
  }
  if (msg.envelope.kind() == ember::rpc::JOIN_CALL) {
    handle_join(msg, call);
    return;
  }
  std::unique_lock<std::mutex> l(mutex_);
  if (!ready_ && !stopping_ && deferred_.size() < kMaxDeferred) {
    // A peer that finished rendezvous first may call before this worker has
    // the table (and the token): the request waits for it (See Note
    // [Requests before rendezvous]).
    deferred_.push_back(Deferred{std::move(msg), call});
    return;
  }
  l.unlock();
  admit(std::move(msg), call);
}

// Note [Requests before rendezvous]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Rank 0 answers every join at once, so one worker may finish init_rpc and
// call another that has not yet read rank 0's answer. Such a request is
// kept (unchecked: the token is not known yet) and admitted when the table
// arrives, or refused if rendezvous fails; at most kMaxDeferred wait.
void Agent::admit(wire::Decoded msg, transport::ServerCall call) {
  wire::RemoteSource source;
  bool has_source = false;
  {
    std::lock_guard<std::mutex> g(mutex_);
    if (!ready_ || token_.empty() ||
        !same_secret(msg.envelope.token(), token_)) {
      transport::fail(call, grpc::StatusCode::PERMISSION_DENIED,
                      ready_ ? "the call does not carry this group's token"
                             : "this worker is not serving (init_rpc failed "
                               "or RPC is shutting down)");
      return;
    }
    if (msg.envelope.from_rank() < 0 ||
        msg.envelope.from_rank() >= world_size_) {
      transport::fail(call, grpc::StatusCode::INVALID_ARGUMENT,
                      "rpc: bad message: from_rank out of range");
      return;
    }
    // Under the lock, which orders these reads of the peer before shutdown
    // (Note [TSan and gRPC]).
    learn_reader(msg.envelope.from_rank(), msg.envelope);
    has_source = source_of(msg.envelope.from_rank(), &source) != nullptr;
  }
  try {
    wire::decode_values(msg, has_source ? &source : nullptr);
  } catch (const c10::Error& e) {
    transport::fail(call, grpc::StatusCode::INVALID_ARGUMENT,
                    e.what_without_backtrace());
    return;
  }
  dispatch(std::move(msg), call);
}

void Agent::admit_deferred() {
  std::vector<Deferred> waiting;
  {
    std::lock_guard<std::mutex> g(mutex_);
    waiting.swap(deferred_);
  }
  for (auto& d : waiting) admit(std::move(d.msg), d.call);
}

// See Note [Agent threads] in agent.h: a built-in (aten::) operator on
// small arguments with no RRef among them neither blocks nor takes long, so
// it runs on the gRPC thread that decoded the request: the handoff to the
// pool (a wake-up and a context switch on each side) cost more than the op.
bool Agent::runs_inline(const wire::Decoded& msg) const {
  if (msg.envelope.op().compare(0, 6, "aten::") != 0) return false;
  size_t bytes = 0;
  for (const auto& v : msg.envelope.values()) {
    if (v.has_rref()) return false;
    if (v.has_tensor()) bytes += v.tensor().nbytes();
    if (v.has_tensor_list()) {
      for (const auto& t : v.tensor_list().tensors()) bytes += t.nbytes();
    }
    if (v.has_optional_tensor_list()) {
      for (const auto& t : v.optional_tensor_list().tensors()) {
        bytes += t.tensor().nbytes();
      }
    }
  }
  return bytes <= kInlineMaxBytes;
}

void Agent::dispatch(wire::Decoded msg, transport::ServerCall call) {
  using ember::rpc::Envelope;
  const int from = msg.envelope.from_rank();
  const std::string node = "Error on Node " + std::to_string(rank_) + ": ";
  switch (msg.envelope.kind()) {
    case ember::rpc::OP_CALL: {
      auto run = [this, node, call, from](wire::Decoded m) {
        Envelope env;
        env.set_kind(ember::rpc::OP_RESPONSE);
        wire::Encoder enc;
        try {
          // See Note [Distributed autograd hooks].
          AutogradHooks* hooks =
              m.envelope.has_autograd() ? autograd_hooks() : nullptr;
          std::shared_ptr<void> scope =
              hooks ? hooks->enter(m.envelope) : nullptr;
          std::vector<std::shared_ptr<detail::RRefState>> held;
          std::vector<c10::IValue> args =
              resolve_args(m, options_.rpc_timeout, &held);
          c10::IValue result = run_operator(m.envelope.op(), std::move(args));
          for (auto& h : held) release(*h, /*wait=*/true);
          enc.add_value(env.add_values(), result);
          if (hooks) hooks->wrap_response(m.envelope, &env, result);
        } catch (const c10::Error& e) {
          env.clear_values();
          enc = wire::Encoder();
          env.set_error(node + e.what_without_backtrace());
        } catch (const std::exception& e) {
          env.clear_values();
          enc = wire::Encoder();
          env.set_error(node + e.what());
        }
        reply(call, env, &enc, from);
      };
      if (runs_inline(msg)) {
        run(std::move(msg));
        return;
      }
      auto shared = std::make_shared<wire::Decoded>(std::move(msg));
      post([run, shared] { run(std::move(*shared)); });
      return;
    }
    case ember::rpc::REMOTE_CALL:
      handle_remote(std::move(msg), call);
      return;
    case ember::rpc::RREF_FETCH_CALL:
      handle_fetch(msg, call);
      return;
    case ember::rpc::RREF_USER_DELETE: {
      GloballyUniqueId rid{msg.envelope.rref_id().worker(),
                           msg.envelope.rref_id().local_id()};
      GloballyUniqueId fid{msg.envelope.fork_id().worker(),
                           msg.envelope.fork_id().local_id()};
      remove_fork(rid, fid);
      Envelope env;
      env.set_kind(ember::rpc::RREF_ACK);
      reply(call, env);
      return;
    }
    case ember::rpc::RREF_FORK_REQUEST: {
      GloballyUniqueId rid{msg.envelope.rref_id().worker(),
                           msg.envelope.rref_id().local_id()};
      GloballyUniqueId fid{msg.envelope.fork_id().worker(),
                           msg.envelope.fork_id().local_id()};
      add_fork(rid, fid);
      Envelope env;
      env.set_kind(ember::rpc::RREF_ACK);
      reply(call, env);
      return;
    }
    case ember::rpc::RREF_CHILD_ACCEPT: {
      GloballyUniqueId fid{msg.envelope.fork_id().worker(),
                           msg.envelope.fork_id().local_id()};
      std::shared_ptr<detail::RRefState> child;
      {
        std::lock_guard<std::mutex> g(mutex_);
        auto it = children_.find(fid);
        if (it != children_.end()) {
          child = std::move(it->second);
          children_.erase(it);
        }
      }
      Envelope env;
      env.set_kind(ember::rpc::RREF_ACK);
      reply(call, env);
      // `child` may be the last handle of the parent's user: releasing it
      // sends a delete, outside the lock and after the reply.
      return;
    }
    case ember::rpc::SHUTDOWN_BARRIER_CALL:
      handle_barrier(msg, call);
      return;
    case ember::rpc::PING: {
      Envelope env;
      env.set_kind(ember::rpc::PONG);
      reply(call, env);
      return;
    }
    case ember::rpc::TENSOR_RELEASE: {
      unpin(from, msg.envelope.pin_id());
      Envelope env;
      env.set_kind(ember::rpc::TENSOR_RELEASE_ACK);
      reply(call, env);
      return;
    }
    // Distributed autograd (See Note [Distributed autograd hooks]).
    case ember::rpc::FORWARD_AUTOGRAD_REQ:
    case ember::rpc::BACKWARD_AUTOGRAD_REQ:
    case ember::rpc::CLEANUP_AUTOGRAD_CONTEXT_REQ: {
      const auto kind = msg.envelope.kind();
      const auto answer = static_cast<ember::rpc::MessageKind>(kind + 1);
      AutogradHooks* hooks = autograd_hooks();
      if (hooks == nullptr) {
        reply_error(call, answer,
                    node + "distributed autograd is not linked into this "
                           "worker");
        return;
      }
      if (kind == ember::rpc::FORWARD_AUTOGRAD_REQ) {
        try {
          hooks->unwrap_request(&msg);
        } catch (const c10::Error& e) {
          reply_error(call, ember::rpc::FORWARD_AUTOGRAD_RESP,
                      node + e.what_without_backtrace());
          return;
        }
        dispatch(std::move(msg), call);  // as the wrapped kind
        return;
      }
      c10::intrusive_ptr<Future> done;
      try {
        done = hooks->handle(std::move(msg),
                             [this](std::function<void()> f) { post(std::move(f)); });
      } catch (const c10::Error& e) {
        reply_error(call, answer, node + e.what_without_backtrace());
        return;
      }
      done->addCallback([this, call, answer, node](Future& f) {
        if (!f.hasError()) {
          Envelope env;
          env.set_kind(answer);
          reply(call, env);
          return;
        }
        // An error from a worker further along already names its node.
        std::string error = f.tryRetrieveErrorMessage();
        if (error.compare(0, 14, "Error on Node ") != 0) error = node + error;
        reply_error(call, answer, error);
      });
      return;
    }
    default:
      transport::fail(
          call, grpc::StatusCode::INVALID_ARGUMENT,
          "rpc: bad message: kind " + std::to_string(msg.envelope.kind()) +
              " from rank " + std::to_string(from) + " is not a request");
      return;
  }
}

// ---------------------------------------------------------------------------
// Operators.

c10::IValue run_operator(const std::string& qualified,
                         std::vector<c10::IValue> args) {
  auto& dispatcher = c10::Dispatcher::singleton();
  c10::OperatorName name;
  size_t sep = qualified.find("::");
  TORCH_CHECK(sep != std::string::npos,
              "rpc: operator name '", qualified,
              "' has no namespace; write it as \"ns::name.overload\" (e.g. "
              "\"aten::add.Tensor\").");
  size_t dot = qualified.find('.', sep);
  name.name = qualified.substr(0, dot);
  if (dot != std::string::npos) name.overload_name = qualified.substr(dot + 1);
  std::optional<c10::OperatorHandle> op = dispatcher.findSchema(name);
  if (!op && dot == std::string::npos) {
    std::vector<c10::OperatorName> matches;
    for (const auto& n : dispatcher.getAllOpNames()) {
      if (n.name == name.name && dispatcher.findSchema(n)) matches.push_back(n);
    }
    if (matches.size() == 1) {
      op = dispatcher.findSchema(matches[0]);
    } else if (matches.size() > 1) {
      std::ostringstream s;
      for (const auto& m : matches) s << " " << m.str();
      TORCH_CHECK(false, "rpc: operator '", qualified,
                  "' has several overloads; name one:", s.str(), ".");
    }
  }
  TORCH_CHECK(op.has_value(), "rpc: no operator '", qualified,
              "' in this worker's registry; is the library that defines it "
              "loaded here?");
  const c10::FunctionSchema& schema = op->schema();
  const auto& formals = schema.arguments();
  TORCH_CHECK(args.size() <= formals.size(), "rpc: ", qualified, " takes ",
              formals.size(), " arguments but got ", args.size(), ".");
  for (size_t i = args.size(); i < formals.size(); ++i) {
    const auto& d = formals[i].default_value();
    TORCH_CHECK(d.has_value(), "rpc: ", qualified, ": argument '",
                formals[i].name(), "' (", i,
                ") has no default; pass it explicitly.");
    using K = c10::DefaultValue::Kind;
    switch (d->kind) {
      case K::None:
        args.emplace_back();
        break;
      case K::Int:
        args.emplace_back(d->i);
        break;
      case K::Float:
        args.emplace_back(d->f);
        break;
      case K::Bool:
        args.emplace_back(d->b);
        break;
      case K::Str:
        TORCH_CHECK(!d->identifier, "rpc: ", qualified, ": the default of '",
                    formals[i].name(), "' (", d->s,
                    ") cannot be filled in remotely; pass it explicitly.");
        args.emplace_back(d->s);
        break;
      case K::IntList:
        args.emplace_back(d->ints);
        break;
      case K::FloatList:
        args.emplace_back(d->floats);
        break;
      case K::BoolList:
        args.emplace_back(d->bools);
        break;
    }
  }
  c10::Stack stack(std::move(args));
  op->callBoxed(stack);
  if (stack.empty()) return c10::IValue();
  if (stack.size() == 1) return std::move(stack[0]);
  std::vector<at::TensorBase> tensors;
  for (auto& v : stack) {
    TORCH_CHECK(v.isTensor(), "rpc: ", qualified, " returns ", stack.size(),
                " values, not all tensors; Ember's IValue has no tuple, so "
                "only several tensors can come back (as a Tensor list).");
    tensors.push_back(std::move(v).toTensorBase());
  }
  return c10::IValue(std::move(tensors));
}

}  // namespace rpc
}  // namespace distributed
}  // namespace torch
