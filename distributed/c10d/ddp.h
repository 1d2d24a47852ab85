// distributed/c10d/ddp.h — torch::nn::parallel::DistributedDataParallel:
// data-parallel training over a process group (PyTorch's DDP, in C++).
//
//   torch::distributed::init_process_group("gloo");
//   torch::nn::Sequential model(...);
//   torch::nn::parallel::DistributedDataParallel ddp(model);   // rank 0's weights everywhere
//   torch::optim::SGD opt(model->parameters(), 0.1);
//   for (auto& batch : *loader) {                               // each rank its shard
//     opt.zero_grad();
//     auto loss = F::cross_entropy(ddp.forward(batch.data), batch.target);
//     loss.backward();      // gradients averaged over the ranks, bucket by bucket,
//     opt.step();           // while backward still runs
//   }
//
// Construction broadcasts rank 0's parameters and buffers. Gradients are
// gathered into buckets (bucket_cap_mb, 25 MiB by default, filled with the
// parameters in reverse order, as backward produces them); a hook on each
// parameter's AccumulateGrad notes its gradient, and when a bucket is
// complete its allreduce starts at once, so communication overlaps the rest
// of backward (Note [DDP buckets] in ddp.cc). At the end of backward the
// averaged gradients are written back into each parameter's .grad.
//
// A parameter that gets no gradient is an error naming it (PyTorch's
// find_unused_parameters message) unless options.find_unused_parameters:
// then its share counts as zero. no_sync() turns the synchronization off for
// gradient accumulation. Every rank must build the same model and run the
// same number of backward passes.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "distributed/c10d/ProcessGroup.h"
#include "nn/module.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {
namespace parallel {

struct DistributedDataParallelOptions {
  // Null: the default group (torch::distributed::init_process_group).
  c10::intrusive_ptr<c10d::ProcessGroup> process_group;
  double bucket_cap_mb = 25.0;
  bool find_unused_parameters = false;
  // Broadcast rank 0's buffers (BatchNorm's running statistics) before each
  // forward.
  bool broadcast_buffers = true;
};

class DistributedDataParallel {
 public:
  using Options = DistributedDataParallelOptions;

  template <typename ModuleType>
  explicit DistributedDataParallel(const ModuleHolder<ModuleType>& module,
                                   Options options = Options())
      : DistributedDataParallel(
            module.ptr(),
            [m = module.ptr()](const at::Tensor& x) -> at::Tensor { return m->forward(x); },
            std::move(options)) {}

  // Any module, with the function that runs its forward.
  DistributedDataParallel(std::shared_ptr<Module> module,
                          std::function<at::Tensor(const at::Tensor&)> forward,
                          Options options = Options());
  ~DistributedDataParallel();
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  // Broadcasts the buffers (broadcast_buffers) and runs the module.
  at::Tensor forward(const at::Tensor& input);
  at::Tensor operator()(const at::Tensor& input) { return forward(input); }

  const std::shared_ptr<Module>& module() const;
  const c10::intrusive_ptr<c10d::ProcessGroup>& process_group() const;

  // While the guard lives, backward passes do not synchronize: gradients
  // accumulate locally; the first backward after it averages the sums.
  class NoSyncGuard {
   public:
    explicit NoSyncGuard(DistributedDataParallel& ddp);
    ~NoSyncGuard();
    NoSyncGuard(const NoSyncGuard&) = delete;
    NoSyncGuard& operator=(const NoSyncGuard&) = delete;

   private:
    DistributedDataParallel& ddp_;
    bool previous_;
  };
  NoSyncGuard no_sync() { return NoSyncGuard(*this); }

  // The buckets: indices into module()->parameters(), in launch order.
  std::vector<std::vector<size_t>> bucket_indices() const;
  // Called on the backward thread when bucket `index`'s allreduce starts
  // (for tests and tracing).
  void set_bucket_launch_callback(std::function<void(size_t index)> callback);

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace parallel
}  // namespace nn
}  // namespace torch
