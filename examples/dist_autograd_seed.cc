// Seed 001's two distributed autograd examples on two workers. Start it with
// the launcher (docs/distributed.md):
//
//   ./bazelw build //examples:dist_autograd_seed //tools:launch
//   bazel-bin/tools/launch --nproc=2 bazel-bin/examples/dist_autograd_seed
//
// 1. Worker 0 sends t1, t2 to worker 1 for an add, multiplies the result by
//    t4 locally, and runs the backward pass of the sum from a distributed
//    autograd context; the gradients of t1, t2, t4 are checked to equal,
//    bit for bit, those of the same computation in one process.
// 2. Every worker makes two random 3x3 tensors that require grad on its
//    peer with remote(), fetches them with to_here(), and differentiates
//    the sum of their sum: the gradients (all ones) accumulate in the
//    context on the owner, which reports their total (18); then a
//    DistributedOptimizer (SGD, lr 0.05) steps them on the owner.
#include <torch/distributed.h>
#include <torch/library.h>
#include <torch/torch.h>

#include "distributed/optim/optimizer.h"

#include <cstdlib>
#include <iostream>
#include <string>

namespace rpc = torch::distributed::rpc;
namespace dist_autograd = torch::distributed::autograd;

namespace {

// The seed's random_tensor(): a leaf that requires grad, kept by the owner.
at::Tensor random_tensor() { return torch::rand({3, 3}).requires_grad_(true); }

// The sum of every gradient accumulated on this worker in a context.
double gradient_total(int64_t context_id) {
  double total = 0;
  for (const auto& entry : dist_autograd::get_gradients(context_id)) {
    total += entry.second.sum().item<double>();
  }
  return total;
}

bool same(const at::Tensor& a, const at::Tensor& b) {
  return a.defined() && b.defined() && at::equal(a, b);
}

}  // namespace

TORCH_LIBRARY(dist_autograd_seed, m) {
  m.def("random_tensor", &random_tensor);
  m.def("gradient_total", &gradient_total);
}

int main() {
  const char* rank_env = std::getenv("RANK");
  const int rank = rank_env ? std::atoi(rank_env) : 0;
  rpc::init_rpc("worker" + std::to_string(rank));  // RANK, WORLD_SIZE from env
  const int world = static_cast<int>(rpc::get_all_worker_infos().size());
  const std::string me = "worker" + std::to_string(rank);
  const std::string peer = "worker" + std::to_string((rank + 1) % world);
  bool ok = true;

  if (rank == 0) {
    at::Tensor t1 = torch::rand({3, 3}).requires_grad_(true);
    at::Tensor t2 = torch::rand({3, 3}).requires_grad_(true);
    at::Tensor t4 = torch::rand({3, 3}).requires_grad_(true);
    dist_autograd::GradientMap grads;
    {
      dist_autograd::context ctx;
      at::Tensor t3 = rpc::rpc_sync(peer, "aten::add.Tensor", {t1, t2}).toTensor();
      at::Tensor t5 = torch::mul(t3, t4);
      at::Tensor loss = t5.sum();
      dist_autograd::backward(ctx.id(), {loss});
      grads = dist_autograd::get_gradients(ctx.id());
    }
    // The same computation in one process, on copies of the leaves.
    at::Tensor l1 = t1.detach().clone().requires_grad_(true);
    at::Tensor l2 = t2.detach().clone().requires_grad_(true);
    at::Tensor l4 = t4.detach().clone().requires_grad_(true);
    torch::mul(torch::add(l1, l2), l4).sum().backward();
    const bool exact = same(grads.at(t1), l1.grad()) &&
                       same(grads.at(t2), l2.grad()) &&
                       same(grads.at(t4), l4.grad()) && !t1.grad().defined();
    std::cout << me << ": example 1: gradients of t1, t2, t4 "
              << (exact ? "equal" : "DIFFER FROM") << " the local ones" << std::endl;
    ok = ok && exact;
  }

  {
    dist_autograd::context ctx;
    rpc::RRef rref1 = rpc::remote(peer, "dist_autograd_seed::random_tensor");
    rpc::RRef rref2 = rpc::remote(peer, "dist_autograd_seed::random_tensor");
    at::Tensor loss = rref1.to_here().toTensor() + rref2.to_here().toTensor();
    dist_autograd::backward(ctx.id(), {loss.sum()});
    // (After backward: in a context every to_here() records a send/recv
    // pair, and FAST mode waits for gradients at every one.)
    at::Tensor before = rref1.to_here().toTensor().detach();
    torch::distributed::optim::DistributedOptimizer<torch::optim::SGD> dist_optim(
        {rref1, rref2}, torch::optim::SGDOptions(0.05));
    dist_optim.step(ctx.id());
    const bool stepped = at::allclose(rref1.to_here().toTensor(), before - 0.05);
    std::cout << me << ": example 2: DistributedOptimizer step on " << peer
              << (stepped ? " moved" : " did NOT move") << " the parameters by -0.05"
              << std::endl;
    ok = ok && stepped;
    const double total =
        rpc::rpc_sync(peer, "dist_autograd_seed::gradient_total", {ctx.id()}).toDouble();
    std::cout << me << ": example 2: gradients on " << peer << " sum to " << total
              << " (expected 18)" << std::endl;
    ok = ok && total == 18.0;
  }

  rpc::shutdown();
  std::cout << me << ": live distributed autograd contexts after shutdown: "
            << dist_autograd::debug::live_contexts() << std::endl;
  return ok && dist_autograd::debug::live_contexts() == 0 ? 0 : 1;
}
