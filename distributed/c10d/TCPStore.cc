// distributed/c10d/TCPStore.cc — the store's server and client over the RPC
// package's gRPC transport (distributed/rpc/transport.h) and frame format
// (wire.h): one STORE_CALL per operation, answered by a STORE_RESPONSE.
#include "distributed/c10d/TCPStore.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "c10/util/Exception.h"
#include "distributed/rpc/transport.h"
#include "distributed/rpc/wire.h"
#include "rpc.pb.h"

namespace c10d {

namespace transport = torch::distributed::rpc::transport;
namespace wire = torch::distributed::rpc::wire;
using ember::rpc::StoreRequest;

namespace {

// Keys the store keeps for itself (the count of connected clients); not
// counted by getNumKeys.
const std::string kInternalPrefix = "\x01" "ember.tcpstore/";
const std::string kJoinedKey = kInternalPrefix + "joined";
const std::string kAllJoinedKey = kInternalPrefix + "all_joined";

std::string as_string(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }
std::vector<uint8_t> as_bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// A key as messages show it: printable ASCII as is, other bytes as \xNN
// (messages travel in proto3 strings, which must be UTF-8).
std::string printable(const std::string& key) {
  const std::string& k =
      key.rfind(kInternalPrefix, 0) == 0 ? key.substr(kInternalPrefix.size()) : key;
  std::string out;
  for (const char c : k) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      static const char* const hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out;
}

std::string keys_text(const std::vector<std::string>& keys) {
  std::string out = "[";
  for (size_t i = 0; i < keys.size(); ++i) {
    out += (i > 0 ? ", '" : "'");
    out += printable(keys[i]);
    out += "'";
  }
  return out + "]";
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

std::string bracketed(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

}  // namespace

// Note [The TCPStore server]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// Requests run on gRPC's threads under one mutex. A GET or WAIT whose keys
// are missing parks its call (gRPC lets a call be finished later, from any
// thread); every operation that creates a key finishes the parked calls it
// satisfies, after releasing the mutex. A client gives up at its deadline
// (its call fails with DEADLINE_EXCEEDED there); the parked call is then
// finished later into the void, or failed when the server shuts down.
struct TCPStore::Server {
  struct Waiter {
    std::vector<std::string> keys;
    transport::ServerCall call;
    bool is_get = false;
  };

  std::mutex mutex;
  std::map<std::string, std::string> data;  // under mutex
  std::vector<Waiter> waiters;              // under mutex
  bool stopped = false;                     // under mutex
  std::unique_ptr<transport::Server> server;

  // Note [Handing a server to gRPC's threads]
  // ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  // gRPC's threads outlive servers: a thread started for an earlier store
  // may run this server's first request, and what orders the server's
  // construction before that request is inside gRPC, which ThreadSanitizer
  // does not see (Note [TSan and gRPC] in distributed/rpc/transport.h). So
  // the constructing thread locks and unlocks g_handoff after building the
  // server, and every request locks it before touching the server: an
  // uncontended lock per request that makes the order visible.
  static std::mutex& handoff() {
    static std::mutex* m = new std::mutex();  // never destroyed
    return *m;
  }

  static void on_request(void* self, const grpc::ByteBuffer& request, transport::ServerCall call) {
    { std::lock_guard<std::mutex> visible(handoff()); }
    static_cast<Server*>(self)->handle(request, call);
  }

  static ember::rpc::Envelope reply() {
    ember::rpc::Envelope env;
    env.set_kind(ember::rpc::STORE_RESPONSE);
    return env;
  }

  bool present(const std::vector<std::string>& keys) const {
    return std::all_of(keys.begin(), keys.end(),
                       [this](const std::string& k) { return data.count(k) != 0; });
  }

  // Under `mutex`: moves the waiters whose keys all exist into `ready`.
  void wake(std::vector<std::pair<transport::ServerCall, ember::rpc::Envelope>>& ready) {
    for (auto it = waiters.begin(); it != waiters.end();) {
      if (!present(it->keys)) {
        ++it;
        continue;
      }
      ember::rpc::Envelope env = reply();
      if (it->is_get) env.mutable_store_reply()->set_value(data[it->keys[0]]);
      ready.emplace_back(it->call, std::move(env));
      it = waiters.erase(it);
    }
  }

  void handle(const grpc::ByteBuffer& request, transport::ServerCall call) {
    wire::Decoded msg;
    try {
      msg = wire::decode(request);
    } catch (const c10::Error& e) {
      transport::fail(call, grpc::StatusCode::INVALID_ARGUMENT, e.what_without_backtrace());
      return;
    }
    if (msg.envelope.kind() != ember::rpc::STORE_CALL) {
      transport::fail(call, grpc::StatusCode::INVALID_ARGUMENT,
                      "TCPStore: expected a store request; is this port an RPC agent's?");
      return;
    }
    const StoreRequest& req = msg.envelope.store();
    std::vector<std::string> keys(req.keys().begin(), req.keys().end());
    std::vector<std::pair<transport::ServerCall, ember::rpc::Envelope>> ready;
    ember::rpc::Envelope out = reply();
    bool parked = false;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (stopped) {
        out.set_error("the store's server shut down");
      } else if (req.op() != StoreRequest::NUM_KEYS && keys.empty()) {
        out.set_error("a store request without a key");
      } else {
        ember::rpc::StoreReply* r = out.mutable_store_reply();
        switch (req.op()) {
          case StoreRequest::SET:
            data[keys[0]] = req.value();
            wake(ready);
            break;
          case StoreRequest::GET:
          case StoreRequest::WAIT:
            if (present(keys)) {
              if (req.op() == StoreRequest::GET) r->set_value(data[keys[0]]);
            } else {
              waiters.push_back(Waiter{keys, call, req.op() == StoreRequest::GET});
              parked = true;
            }
            break;
          case StoreRequest::ADD: {
            auto it = data.find(keys[0]);
            int64_t value = 0;
            if (it != data.end()) {
              if (!detail::parse_counter(it->second, &value)) {
                out.set_error("the value of '" + printable(keys[0]) +
                              "' is not an integer; add() works on keys only add() wrote");
                break;
              }
            }
            value += req.delta();
            data[keys[0]] = std::to_string(value);
            r->set_number(value);
            wake(ready);
            break;
          }
          case StoreRequest::COMPARE_SET: {
            auto it = data.find(keys[0]);
            if (it == data.end()) {
              if (req.expected().empty()) {
                data[keys[0]] = req.value();
                r->set_value(req.value());
                wake(ready);
              } else {
                r->set_value(req.expected());  // PyTorch returns `expected` here
              }
            } else if (it->second == req.expected()) {
              it->second = req.value();
              r->set_value(req.value());
            } else {
              r->set_value(it->second);
            }
            break;
          }
          case StoreRequest::CHECK:
            r->set_number(present(keys) ? 1 : 0);
            break;
          case StoreRequest::DELETE_KEY:
            r->set_number(data.erase(keys[0]) != 0 ? 1 : 0);
            break;
          case StoreRequest::NUM_KEYS:
            r->set_number(static_cast<int64_t>(std::count_if(
                data.begin(), data.end(), [](const std::pair<const std::string, std::string>& kv) {
                  return kv.first.rfind(kInternalPrefix, 0) != 0;
                })));
            break;
          default:
            out.set_error("unknown store operation " + std::to_string(req.op()));
        }
      }
    }
    if (!parked) transport::finish(call, wire::encode_plain(out));
    for (auto& [c, env] : ready) transport::finish(c, wire::encode_plain(env));
  }

  // Fails the parked calls, then stops gRPC's server (which waits for the
  // calls still running). Idempotent.
  void stop() {
    std::vector<Waiter> pending;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (stopped) return;
      stopped = true;
      pending.swap(waiters);
    }
    for (Waiter& w : pending) {
      ember::rpc::Envelope env = reply();
      env.set_error("the store's server shut down while this call waited for " +
                    keys_text(w.keys));
      transport::finish(w.call, wire::encode_plain(env));
    }
    if (server) server->shutdown(/*grace_s=*/1.0);
  }

  ~Server() { stop(); }
};

struct TCPStore::Client {
  std::string target;
  transport::Endpoint endpoint;

  explicit Client(std::string to) : target(std::move(to)), endpoint(target, transport::Tls{}) {}

  ember::rpc::StoreReply call(StoreRequest::Op op, const std::vector<std::string>& keys,
                              std::chrono::milliseconds timeout, const char* what,
                              const std::string& value = std::string(),
                              const std::string& expected = std::string(), int64_t delta = 0) {
    ember::rpc::Envelope env;
    env.set_kind(ember::rpc::STORE_CALL);
    StoreRequest* req = env.mutable_store();
    req->set_op(op);
    for (const std::string& k : keys) req->add_keys(k);
    req->set_value(value);
    req->set_expected(expected);
    req->set_delta(delta);
    transport::ClientCall c;
    c.request = wire::encode_plain(env);
    c.set_wait_for_ready();  // a client may start before the server
    if (timeout.count() > 0) c.set_timeout(static_cast<double>(timeout.count()) / 1000.0);
    const grpc::Status status = transport::call_blocking(endpoint, &c);
    if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
      TORCH_CHECK(false, "TCPStore: ", what, " of ", keys_text(keys), " timed out after ",
                  timeout.count(), " ms (store server ", target,
                  "). Check that every process of the group runs and reaches this point, "
                  "that the server (rank 0) is up at that address, or raise the timeout.");
    }
    TORCH_CHECK(status.ok(), "TCPStore: ", what, " of ", keys_text(keys),
                " failed: the store server at ", target, " answered ", status.error_message());
    wire::Decoded reply = wire::decode(c.response);
    TORCH_CHECK(reply.envelope.error().empty(), "TCPStore: ", what, " of ", keys_text(keys),
                ": ", reply.envelope.error());
    TORCH_CHECK(reply.envelope.kind() == ember::rpc::STORE_RESPONSE,
                "TCPStore: the server at ", target, " answered with something else than a "
                "store reply; is it an Ember TCPStore?");
    return reply.envelope.store_reply();
  }
};

TCPStore::TCPStore(std::string host, const TCPStoreOptions& options)
    : Store(options.timeout), host_(std::move(host)), port_(options.port) {
  TORCH_CHECK(!host_.empty(), "TCPStore: expected the server's host name or address, got ''.");
  if (options.isServer) {
    server_ = std::make_unique<Server>();
    { std::lock_guard<std::mutex> visible(Server::handoff()); }  // See the Note in Server.
    // Loopback hosts listen on loopback only; any other name on every
    // interface (the clients on other machines reach one of them).
    const std::string listen = (is_loopback(host_) ? bracketed(host_) : std::string("0.0.0.0")) +
                               ":" + std::to_string(options.port);
    int port = 0;
    server_->server =
        transport::Server::start({listen}, transport::Tls{}, &Server::on_request, server_.get(),
                                 &port);
    TORCH_CHECK(server_->server != nullptr, "TCPStore: cannot listen on ", listen,
                ": the port may be taken (by another job or a previous run); pick another "
                "MASTER_PORT or 0 for a free one.");
    port_ = static_cast<uint16_t>(port);
  }
  client_ = std::make_unique<Client>(bracketed(host_) + ":" + std::to_string(port_));
  if (options.numWorkers.has_value()) join(options);
}

void TCPStore::join(const TCPStoreOptions& options) {
  try {
    const int64_t joined =
        client_->call(StoreRequest::ADD, {kJoinedKey}, timeout_, "join", "", "", 1).number();
    if (joined == static_cast<int64_t>(*options.numWorkers)) {
      client_->call(StoreRequest::SET, {kAllJoinedKey}, timeout_, "join", "1");
    }
    if (options.isServer && options.waitWorkers) {
      client_->call(StoreRequest::WAIT, {kAllJoinedKey}, timeout_,
                    "waiting for all workers to connect: wait");
    }
  } catch (...) {
    // The destructor does not run for a constructor that throws.
    client_.reset();
    if (server_) server_->stop();
    throw;
  }
}

TCPStore::~TCPStore() {
  client_.reset();
  if (server_) server_->stop();
}

void TCPStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  client_->call(StoreRequest::SET, {key}, timeout_, "set", as_string(value));
}

std::vector<uint8_t> TCPStore::get(const std::string& key) {
  return as_bytes(client_->call(StoreRequest::GET, {key}, timeout_, "get").value());
}

int64_t TCPStore::add(const std::string& key, int64_t value) {
  return client_->call(StoreRequest::ADD, {key}, timeout_, "add", "", "", value).number();
}

std::vector<uint8_t> TCPStore::compareSet(const std::string& key,
                                          const std::vector<uint8_t>& expected,
                                          const std::vector<uint8_t>& desired) {
  return as_bytes(client_
                      ->call(StoreRequest::COMPARE_SET, {key}, timeout_, "compareSet",
                             as_string(desired), as_string(expected))
                      .value());
}

bool TCPStore::deleteKey(const std::string& key) {
  return client_->call(StoreRequest::DELETE_KEY, {key}, timeout_, "deleteKey").number() != 0;
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  TORCH_CHECK(!keys.empty(), "TCPStore: check needs at least one key.");
  return client_->call(StoreRequest::CHECK, keys, timeout_, "check").number() != 0;
}

int64_t TCPStore::getNumKeys() {
  return client_->call(StoreRequest::NUM_KEYS, {}, timeout_, "getNumKeys").number();
}

void TCPStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void TCPStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  TORCH_CHECK(!keys.empty(), "TCPStore: wait needs at least one key.");
  client_->call(StoreRequest::WAIT, keys, timeout, "wait");
}

}  // namespace c10d
