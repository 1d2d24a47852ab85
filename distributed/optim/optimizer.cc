// DistributedOptimizer (optimizer.h): the caller's side, and the operators
// that run each owner's local optimizer.
#include "distributed/optim/optimizer.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include <torch/library.h>

#include "autograd/grad_mode.h"
#include "distributed/autograd/autograd.h"

namespace torch {
namespace distributed {
namespace optim {

std::mutex& local_step_mutex() {
  static std::mutex m;  // constructed on first use, from whichever thread
  return m;
}

namespace {

// This worker's local optimizers, by the id their DistributedOptimizer
// chose (its rank << 40 | a counter).
struct Local {
  std::vector<at::Tensor> params;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
};
std::mutex g_mutex;                       // guards g_locals
std::map<int64_t, std::shared_ptr<Local>> g_locals;

std::shared_ptr<Local> find_local(int64_t id, const char* what) {
  std::lock_guard<std::mutex> g(g_mutex);
  auto it = g_locals.find(id);
  TORCH_CHECK(it != g_locals.end(), "DistributedOptimizer::", what,
              ": no local optimizer ", id, " on this worker (released?).");
  return it->second;
}

int64_t add_param(int64_t id, at::Tensor param) {
  std::lock_guard<std::mutex> g(g_mutex);
  auto& local = g_locals[id];
  if (!local) local = std::make_shared<Local>();
  TORCH_CHECK(!local->optimizer, "DistributedOptimizer: optimizer ", id,
              " already built.");
  local->params.push_back(std::move(param));
  return 0;
}

int64_t create(int64_t id, std::string kind, std::vector<double> o) {
  std::shared_ptr<Local> local = find_local(id, "DistributedOptimizer");
  std::unique_ptr<torch::optim::Optimizer> opt;
  if (kind == "sgd" && o.size() == 5) {
    opt = std::make_unique<torch::optim::SGD>(
        local->params, torch::optim::SGDOptions(o[0]).momentum(o[1]).dampening(o[2])
                           .weight_decay(o[3]).nesterov(o[4] != 0));
  } else if (kind == "adam" && o.size() == 6) {
    opt = std::make_unique<torch::optim::Adam>(
        local->params, torch::optim::AdamOptions(o[0])
                           .betas(std::make_tuple(o[1], o[2]))
                           .eps(o[3])
                           .weight_decay(o[4])
                           .amsgrad(o[5] != 0));
  } else {
    TORCH_CHECK(false, "DistributedOptimizer: unknown optimizer '", kind, "' with ",
                o.size(), " options; SGD and Adam are supported.");
  }
  std::lock_guard<std::mutex> g(g_mutex);
  local->optimizer = std::move(opt);
  return 0;
}

int64_t step(int64_t id, int64_t context_id) {
  std::shared_ptr<Local> local = find_local(id, "step");
  TORCH_CHECK(local->optimizer, "DistributedOptimizer::step: optimizer ", id,
              " was not built.");
  auto grads = torch::distributed::autograd::get_gradients(context_id);
  std::lock_guard<std::mutex> g(local_step_mutex());
  for (auto& p : local->params) {
    auto it = grads.find(p);
    p.mutable_grad() = it == grads.end() ? at::Tensor() : it->second;
  }
  local->optimizer->step();
  return 0;
}

int64_t release(int64_t id) {
  std::shared_ptr<Local> gone;  // freed outside the lock
  std::lock_guard<std::mutex> g(g_mutex);
  auto it = g_locals.find(id);
  if (it != g_locals.end()) {
    gone = std::move(it->second);
    g_locals.erase(it);
  }
  return 0;
}

}  // namespace

DistributedOptimizerBase::DistributedOptimizerBase(
    const std::vector<rpc::RRef>& params, std::string kind,
    std::vector<double> options) {
  TORCH_CHECK(!params.empty(), "DistributedOptimizer: no parameters; pass the "
              "RRefs of the parameters to optimize.");
  static std::atomic<int64_t> counter{0};
  const int64_t rank = rpc::get_worker_info().id;
  std::map<std::string, int64_t> ids;
  for (const auto& p : params) {
    const std::string owner = p.owner_name();
    auto it = ids.find(owner);
    if (it == ids.end()) {
      it = ids.emplace(owner, (rank << 40) | counter.fetch_add(1)).first;
      remotes_.push_back(Remote{owner, it->second});
    }
    rpc::rpc_sync(owner, "dist_optim::add_param", {it->second, p});
  }
  std::vector<c10::intrusive_ptr<rpc::Future>> futs;
  for (const auto& r : remotes_) {
    futs.push_back(rpc::rpc_async(r.owner, "dist_optim::create",
                                  {r.id, kind, options}));
  }
  for (auto& f : futs) f->wait();
  for (auto& f : futs) {
    if (f->hasError()) {
      for (const auto& r : remotes_) {
        rpc::rpc_async(r.owner, "dist_optim::release", {r.id})->wait();
      }
      remotes_.clear();
      std::rethrow_exception(f->exception_ptr());
    }
  }
}

DistributedOptimizerBase::~DistributedOptimizerBase() {
  if (!rpc::is_initialized()) return;
  for (const auto& r : remotes_) {
    try {
      rpc::rpc_async(r.owner, "dist_optim::release", {r.id})->wait();
    } catch (const std::exception&) {
      // RPC is going down: the optimizers go with their processes.
    }
  }
}

void DistributedOptimizerBase::step(int64_t context_id) {
  std::vector<c10::intrusive_ptr<rpc::Future>> futs;
  for (const auto& r : remotes_) {
    futs.push_back(rpc::rpc_async(r.owner, "dist_optim::step", {r.id, context_id}));
  }
  for (auto& f : futs) f->wait();
  for (auto& f : futs) {
    if (f->hasError()) std::rethrow_exception(f->exception_ptr());
  }
}

}  // namespace optim
}  // namespace distributed
}  // namespace torch

TORCH_LIBRARY(dist_optim, m) {
  m.def("add_param", &torch::distributed::optim::add_param);
  m.def("create", &torch::distributed::optim::create);
  m.def("step", &torch::distributed::optim::step);
  m.def("release", &torch::distributed::optim::release);
}
