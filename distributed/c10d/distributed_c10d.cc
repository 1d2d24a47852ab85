// distributed/c10d/distributed_c10d.cc — the default group: its rendezvous
// from the environment, and the functional collectives over it.
#include "distributed/c10d/distributed_c10d.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

#include "c10/util/Exception.h"
#include "distributed/c10d/ProcessGroupGloo.h"
#include "distributed/c10d/TCPStore.h"

namespace torch {
namespace distributed {

namespace {

struct DefaultGroup {
  std::mutex mutex;
  c10::intrusive_ptr<c10d::TCPStore> store;     // under mutex
  c10::intrusive_ptr<c10d::Store> prefixed;     // under mutex
  c10::intrusive_ptr<c10d::ProcessGroup> group;  // under mutex
};

DefaultGroup& state() {
  static DefaultGroup* s = new DefaultGroup();  // used until exit: never destroyed
  return *s;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

int env_int(const char* name, const char* what) {
  const std::string text = env(name);
  TORCH_CHECK(!text.empty(), "init_process_group: ", name, " is not set; expected ", what,
              ". Start the program with //tools:launch (which sets RANK, WORLD_SIZE, "
              "MASTER_ADDR and MASTER_PORT) or pass them in the options.");
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  TORCH_CHECK(*end == '\0' && value >= 0 && value <= INT_MAX, "init_process_group: ", name,
              "='", text, "' is not ", what, ".");
  return static_cast<int>(value);
}

struct Backends {
  std::mutex mutex;
  std::map<std::string, ProcessGroupFactory> factories;  // under mutex
};

Backends& backends() {
  static Backends* b = new Backends();  // registered at load, used until exit
  return *b;
}

ProcessGroupFactory registered_backend(const std::string& name) {
  Backends& b = backends();
  std::lock_guard<std::mutex> lock(b.mutex);
  const auto it = b.factories.find(name);
  return it == b.factories.end() ? ProcessGroupFactory() : it->second;
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

}  // namespace

void init_process_group(const std::string& backend, const InitProcessGroupOptions& options) {
  ProcessGroupFactory factory;
  if (backend != "gloo") {
    factory = registered_backend(backend);
    TORCH_CHECK(factory || backend != "nccl",
                "init_process_group: the \"nccl\" backend is not in this program: link "
                "//distributed/c10d:nccl (it needs the CUDA toolkit), or use \"gloo\" for CPU "
                "tensors.");
    TORCH_CHECK(factory, "init_process_group: unknown backend '", backend,
                "'; expected \"gloo\" (CPU), \"nccl\" (CUDA) or one registered with "
                "register_process_group_backend.");
  }
  DefaultGroup& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  TORCH_CHECK(!s.group, "init_process_group: the default process group is already initialized; "
              "call destroy_process_group() first.");
  const int world_size =
      options.world_size >= 0 ? options.world_size : env_int("WORLD_SIZE", "a group size");
  const int rank = options.rank >= 0 ? options.rank : env_int("RANK", "a rank");
  TORCH_CHECK(world_size >= 1 && rank < world_size, "init_process_group: rank ", rank,
              " is outside the group of size ", world_size, "; expected 0 <= rank < world_size.");
  std::string host;
  int port = 0;
  if (options.init_method == "env://") {
    host = env("MASTER_ADDR");
    TORCH_CHECK(!host.empty(), "init_process_group: MASTER_ADDR is not set; expected rank 0's "
                "address (e.g. 127.0.0.1 on one machine).");
    port = env_int("MASTER_PORT", "a port number");
  } else if (options.init_method.rfind("tcp://", 0) == 0) {
    const std::string rest = options.init_method.substr(6);
    const size_t colon = rest.rfind(':');
    TORCH_CHECK(colon != std::string::npos && colon > 0 && colon + 1 < rest.size(),
                "init_process_group: init_method '", options.init_method,
                "' is not tcp://host:port.");
    host = rest.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    char* end = nullptr;
    const long p = std::strtol(rest.c_str() + colon + 1, &end, 10);
    TORCH_CHECK(*end == '\0' && p >= 0 && p <= 65535, "init_process_group: init_method '",
                options.init_method, "' has a bad port.");
    port = static_cast<int>(p);
  } else {
    TORCH_CHECK(false, "init_process_group: init_method '", options.init_method,
                "' is not supported; use \"env://\" or \"tcp://host:port\".");
  }
  TORCH_CHECK(port <= 65535, "init_process_group: port ", port, " is out of range.");
  c10d::TCPStoreOptions store_options;
  store_options.port = static_cast<uint16_t>(port);
  store_options.isServer = rank == 0;
  store_options.numWorkers = static_cast<size_t>(world_size);
  store_options.timeout = options.timeout;
  auto store = c10::make_intrusive<c10d::TCPStore>(host, store_options);
  auto prefixed = c10::make_intrusive<c10d::PrefixStore>("default_pg", store);
  if (factory) {
    c10::intrusive_ptr<c10d::ProcessGroup> group =
        factory(c10::intrusive_ptr<c10d::Store>(prefixed), rank, world_size, options.timeout);
    TORCH_CHECK(group, "init_process_group: backend '", backend, "' made no group.");
    s.store = store;
    s.prefixed = prefixed;
    s.group = group;
    return;
  }
  c10d::ProcessGroupGloo::Options gloo;
  gloo.timeout = options.timeout;
  gloo.iface = env("GLOO_SOCKET_IFNAME");
  if (is_loopback(host)) {
    gloo.hostname = host == "::1" ? "::1" : "127.0.0.1";
  } else {
    char name[256] = {};
    TORCH_CHECK(::gethostname(name, sizeof(name) - 1) == 0,
                "init_process_group: cannot read this machine's host name; set "
                "GLOO_SOCKET_IFNAME to the network interface to use.");
    gloo.hostname = name;
  }
  auto group = c10::make_intrusive<c10d::ProcessGroupGloo>(
      c10::intrusive_ptr<c10d::Store>(prefixed), rank, world_size, gloo);
  s.store = store;
  s.prefixed = prefixed;
  s.group = group;
}

void register_process_group_backend(const std::string& name, ProcessGroupFactory factory) {
  TORCH_CHECK(!name.empty() && name != "gloo", "register_process_group_backend: the name '", name,
              "' cannot be registered (\"gloo\" is built in; a name is not empty).");
  TORCH_CHECK(factory, "register_process_group_backend: the factory for '", name, "' is empty.");
  Backends& b = backends();
  std::lock_guard<std::mutex> lock(b.mutex);
  b.factories[name] = std::move(factory);
}

bool is_backend_available(const std::string& name) {
  return name == "gloo" || static_cast<bool>(registered_backend(name));
}

bool is_initialized() {
  DefaultGroup& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return static_cast<bool>(s.group);
}

void destroy_process_group() {
  DefaultGroup& s = state();
  c10::intrusive_ptr<c10d::ProcessGroup> group;
  c10::intrusive_ptr<c10d::Store> prefixed;
  c10::intrusive_ptr<c10d::TCPStore> store;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    TORCH_CHECK(s.group, "destroy_process_group: no process group is initialized.");
    group = std::move(s.group);
    prefixed = std::move(s.prefixed);
    store = std::move(s.store);
  }
  // The group first (it finishes its queued collectives), then the store.
  group.reset();
  prefixed.reset();
  store.reset();
}

c10::intrusive_ptr<c10d::ProcessGroup> default_pg() {
  DefaultGroup& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  TORCH_CHECK(s.group, "torch::distributed: the default process group is not initialized; call "
              "init_process_group() first.");
  return s.group;
}

c10::intrusive_ptr<c10d::Store> default_store() {
  default_pg();  // the check and its message
  DefaultGroup& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.prefixed;
}

int get_rank() { return default_pg()->getRank(); }
int get_world_size() { return default_pg()->getSize(); }

namespace {
c10::intrusive_ptr<c10d::Work> finish(c10::intrusive_ptr<c10d::Work> work, bool async_op) {
  if (!async_op) work->wait();
  return work;
}
}  // namespace

c10::intrusive_ptr<c10d::Work> all_reduce(at::Tensor& tensor, c10d::ReduceOp op, bool async_op) {
  std::vector<at::Tensor> tensors = {tensor};
  c10d::AllreduceOptions opts;
  opts.reduceOp = op;
  return finish(default_pg()->allreduce(tensors, opts), async_op);
}

c10::intrusive_ptr<c10d::Work> broadcast(at::Tensor& tensor, int src, bool async_op) {
  std::vector<at::Tensor> tensors = {tensor};
  c10d::BroadcastOptions opts;
  opts.rootRank = src;
  return finish(default_pg()->broadcast(tensors, opts), async_op);
}

c10::intrusive_ptr<c10d::Work> all_gather(std::vector<at::Tensor>& tensor_list,
                                          const at::Tensor& tensor, bool async_op) {
  std::vector<std::vector<at::Tensor>> outputs = {tensor_list};
  std::vector<at::Tensor> inputs = {tensor};
  return finish(default_pg()->allgather(outputs, inputs), async_op);
}

c10::intrusive_ptr<c10d::Work> reduce_scatter(at::Tensor& output,
                                              std::vector<at::Tensor>& input_list,
                                              c10d::ReduceOp op, bool async_op) {
  std::vector<at::Tensor> outputs = {output};
  std::vector<std::vector<at::Tensor>> inputs = {input_list};
  c10d::ReduceScatterOptions opts;
  opts.reduceOp = op;
  return finish(default_pg()->reduce_scatter(outputs, inputs, opts), async_op);
}

c10::intrusive_ptr<c10d::Work> barrier(bool async_op) {
  return finish(default_pg()->barrier(), async_op);
}

c10::intrusive_ptr<c10d::Work> send(const at::Tensor& tensor, int dst, int tag) {
  std::vector<at::Tensor> tensors = {tensor};
  return finish(default_pg()->send(tensors, dst, tag), /*async_op=*/false);
}

c10::intrusive_ptr<c10d::Work> recv(at::Tensor& tensor, int src, int tag) {
  std::vector<at::Tensor> tensors = {tensor};
  return finish(default_pg()->recv(tensors, src, tag), /*async_op=*/false);
}

}  // namespace distributed
}  // namespace torch
