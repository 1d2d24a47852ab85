// distributed/optim/optimizer.h — torch::distributed::optim::
// DistributedOptimizer: one local optimizer per owner of the parameters,
// stepped on the gradients of a distributed autograd context (seed 001).
//
//   namespace dist_optim = torch::distributed::optim;
//   std::vector<rpc::RRef> params = {rref1, rref2};   // owned by any workers
//   dist_optim::DistributedOptimizer<torch::optim::SGD> opt(
//       params, torch::optim::SGDOptions(0.05));
//   {
//     dist_autograd::context ctx;
//     ... forward, dist_autograd::backward(ctx.id(), {loss});
//     opt.step(ctx.id());      // every owner's optimizer, concurrently
//   }
//
// The constructor creates, by RPC, one local optimizer (torch::optim::SGD or
// Adam, with the options given, checked there as the local ones) on each
// owner over the parameters it owns; step(context_id) has each of them set
// its parameters' .grad to the context's gradients on that worker and step,
// under a lock per worker (concurrent DistributedOptimizers updating the
// same parameters are serialized, as in PyTorch). The destructor releases
// them. Every worker links //distributed/optim (its operators run there).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "distributed/rpc/rpc.h"
#include "nn/optim/adam.h"
#include "nn/optim/sgd.h"

namespace torch {
namespace distributed {
namespace optim {

// torch::distributed::optim::local_step_mutex
//
// The lock every DistributedOptimizer step on this worker holds while it
// sets its parameters' gradients and updates them (PyTorch's
// _LocalOptimizer.global_lock). Hold it to read parameters that remote
// optimizers step, e.g. to serve a consistent copy of them to other workers
// (examples/parameter_server.cc); do not call into RPC while holding it.
std::mutex& local_step_mutex();

// The untyped part: `kind` ("sgd", "adam") and its options as numbers.
class DistributedOptimizerBase {
 public:
  DistributedOptimizerBase(const std::vector<rpc::RRef>& params, std::string kind,
                           std::vector<double> options);
  ~DistributedOptimizerBase();
  DistributedOptimizerBase(const DistributedOptimizerBase&) = delete;
  DistributedOptimizerBase& operator=(const DistributedOptimizerBase&) = delete;

  // torch::distributed::optim::DistributedOptimizer::step
  //
  // Steps every owner's optimizer on the gradients of `context_id` (RPCs in
  // parallel); rethrows the first error ("Error on Node <rank>: ...").
  void step(int64_t context_id);

 private:
  struct Remote {
    std::string owner;
    int64_t id;
  };
  std::vector<Remote> remotes_;
};

template <class Optimizer>
class DistributedOptimizer;

template <>
class DistributedOptimizer<torch::optim::SGD> : public DistributedOptimizerBase {
 public:
  DistributedOptimizer(const std::vector<rpc::RRef>& params,
                       const torch::optim::SGDOptions& o)
      : DistributedOptimizerBase(params, "sgd",
                                 {o.lr(), o.momentum(), o.dampening(),
                                  o.weight_decay(), o.nesterov() ? 1.0 : 0.0}) {}
};

template <>
class DistributedOptimizer<torch::optim::Adam> : public DistributedOptimizerBase {
 public:
  DistributedOptimizer(const std::vector<rpc::RRef>& params,
                       const torch::optim::AdamOptions& o)
      : DistributedOptimizerBase(
            params, "adam",
            {o.lr(), std::get<0>(o.betas()), std::get<1>(o.betas()), o.eps(),
             o.weight_decay(), o.amsgrad() ? 1.0 : 0.0}) {}
};

}  // namespace optim
}  // namespace distributed
}  // namespace torch
