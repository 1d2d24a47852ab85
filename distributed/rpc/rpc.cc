// The functions of rpc.h over the process's one Agent.
#include "distributed/rpc/rpc.h"

#include <cerrno>
#include <cstdlib>
#include <mutex>

#include "distributed/rpc/agent.h"

namespace torch {
namespace distributed {
namespace rpc {

namespace {

std::mutex g_mutex;
std::shared_ptr<Agent> g_agent;  // guarded by g_mutex

int64_t env_int(const char* name, const char* api) {
  const char* v = std::getenv(name);
  TORCH_CHECK(v != nullptr && *v != '\0', api, ": ", name,
              " is not set; pass it as an argument or set the environment "
              "variable (a launcher such as //tools:launch or torchrun sets "
              "it).");
  errno = 0;
  char* end = nullptr;
  long long x = std::strtoll(v, &end, 10);
  TORCH_CHECK(errno == 0 && end && *end == '\0', api, ": ", name, "='", v,
              "' is not an integer.");
  return x;
}

}  // namespace

std::shared_ptr<Agent> current_agent(const char* api) {
  std::lock_guard<std::mutex> g(g_mutex);
  TORCH_CHECK(g_agent != nullptr, api,
              ": RPC is not initialized on this process; call "
              "rpc::init_rpc(name, rank, world_size) first.");
  return g_agent;
}

void init_rpc(const std::string& name, int64_t rank, int64_t world_size,
              const RpcBackendOptions& options) {
  if (rank < 0) rank = env_int("RANK", "init_rpc");
  if (world_size < 0) world_size = env_int("WORLD_SIZE", "init_rpc");
  TORCH_CHECK(world_size >= 1 && world_size <= 65536,
              "init_rpc: world_size must be in [1, 65536], got ", world_size,
              ".");
  TORCH_CHECK(rank >= 0 && rank < world_size, "init_rpc: rank ", rank,
              " is outside [0, world_size=", world_size, ").");
  std::lock_guard<std::mutex> g(g_mutex);
  TORCH_CHECK(g_agent == nullptr, "init_rpc: RPC is already initialized on "
              "this process as '", g_agent ? g_agent->name() : "",
              "'; call shutdown() first.");
  auto agent = std::make_shared<Agent>(name, static_cast<int>(rank),
                                       static_cast<int>(world_size), options);
  agent->start();
  g_agent = std::move(agent);
}

bool is_initialized() {
  std::lock_guard<std::mutex> g(g_mutex);
  return g_agent != nullptr;
}

namespace {

c10::intrusive_ptr<Future> call_op(const char* api, const std::string& to,
                                   const std::string& op,
                                   const std::vector<RpcArg>& args,
                                   double timeout, bool blocking) {
  auto agent = current_agent(api);
  TORCH_CHECK(timeout >= 0 || timeout == kUnsetRpcTimeout, api,
              ": timeout must be >= 0 (0: none), got ", timeout, ".");
  const int dst = agent->rank_of(to);
  ember::rpc::Envelope env;
  env.set_kind(ember::rpc::OP_CALL);
  env.set_op(op);
  wire::Encoder enc;
  agent->encode_args(dst, args, &env, &enc);
  if (AutogradHooks* hooks = autograd_hooks()) {
    // See Note [Distributed autograd hooks] in agent.h.
    std::vector<c10::IValue> values;
    for (const auto& a : args) values.push_back(a.is_rref() ? c10::IValue() : a.value());
    hooks->wrap_request(dst, &env, values, /*force=*/false);
  }
  // The RRef arguments stay alive until the reply: the callee may resolve
  // them against this worker's references (See Note [RRef protocol]).
  std::vector<std::shared_ptr<detail::RRefState>> held;
  for (const auto& a : args) {
    if (a.is_rref()) held.push_back(detail::RRefAccess::state(a.rref()));
  }
  return agent->send(dst, env, enc, agent->resolve_timeout(timeout),
                     "rpc(" + op + ")",
                     [held](wire::Decoded& d) -> c10::IValue {
                       TORCH_CHECK(d.values.size() == 1,
                                   "rpc: bad message: a response with ",
                                   d.values.size(), " values instead of 1");
                       return std::move(d.values[0]);
                     },
                     blocking);
}

}  // namespace

c10::intrusive_ptr<Future> rpc_async(const std::string& to,
                                     const std::string& op,
                                     std::vector<RpcArg> args,
                                     double timeout) {
  return call_op("rpc_async", to, op, args, timeout, /*blocking=*/false);
}

c10::IValue rpc_sync(const std::string& to, const std::string& op,
                     std::vector<RpcArg> args, double timeout) {
  auto fut = call_op("rpc_sync", to, op, args, timeout, /*blocking=*/true);
  fut->waitAndThrow();
  return fut->value();
}

RRef remote(const std::string& to, const std::string& op,
            std::vector<RpcArg> args, double timeout) {
  auto agent = current_agent("remote");
  TORCH_CHECK(timeout >= 0 || timeout == kUnsetRpcTimeout,
              "remote: timeout must be >= 0 (0: none), got ", timeout, ".");
  return agent->remote(agent->rank_of(to), op, args,
                       agent->resolve_timeout(timeout));
}

WorkerInfo get_worker_info() {
  auto agent = current_agent("get_worker_info");
  return agent->info(agent->rank());
}

WorkerInfo get_worker_info(const std::string& name) {
  auto agent = current_agent("get_worker_info");
  return agent->info(agent->rank_of(name));
}

std::vector<WorkerInfo> get_all_worker_infos() {
  auto agent = current_agent("get_all_worker_infos");
  std::vector<WorkerInfo> out;
  for (int r = 0; r < agent->world_size(); ++r) out.push_back(agent->info(r));
  return out;
}

void shutdown(bool graceful) {
  std::shared_ptr<Agent> agent;
  {
    std::lock_guard<std::mutex> g(g_mutex);
    TORCH_CHECK(g_agent != nullptr,
                "shutdown: RPC is not initialized on this process.");
    agent = g_agent;
  }
  // The agent is forgotten whether or not shutdown reports dead workers.
  struct Forget {
    ~Forget() {
      std::lock_guard<std::mutex> g(g_mutex);
      g_agent.reset();
    }
  } forget;
  agent->shutdown(graceful);
}

}  // namespace rpc
}  // namespace distributed
}  // namespace torch
