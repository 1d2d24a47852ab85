// tools/train/data_parallel.h — //tools:train across processes
// (--nproc, --nnodes): the process's place in the job, read from the
// launcher's environment, and the sampler that gives each rank its part of
// every global batch. See Note [Data-parallel training] in data_parallel.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

namespace tools {
namespace train {

struct DataParallel {
  int world = 1;        // WORLD_SIZE
  int rank = 0;         // RANK
  int local_world = 1;  // LOCAL_WORLD_SIZE: processes on this machine
  int local_rank = 0;   // LOCAL_RANK: this process's place on this machine
  // The process group's backend: "gloo" (CPU), or "nccl" with --device=cuda
  // (the trainer sets it; See Note [Data-parallel training]).
  std::string backend = "gloo";
  bool active() const { return world > 1; }
  bool main() const { return rank == 0; }
};

// From WORLD_SIZE, RANK and LOCAL_WORLD_SIZE (one process when unset).
// Throws c10::Error for values that are not a rank of a group.
DataParallel data_parallel_from_env();

// Joins the job's process group (dp.backend, rendezvous at
// MASTER_ADDR:MASTER_PORT) when active; leave() waits for every rank and
// leaves it.
void join(const DataParallel& dp);
void leave(const DataParallel& dp);

// Sums `values` over the ranks (in place) when active (through a tensor on
// `device`: NCCL takes CUDA tensors only).
void sum_over_ranks(const DataParallel& dp, std::vector<double>& values, c10::Device device);

// torch::data sampler: the permutation of a RandomSampler (drawn from the
// global generator, so the same on every rank), cut into global batches of
// the size the loader asks for; each rank gets its contiguous part of every
// global batch (the first size % world ranks one more). A global batch
// smaller than the group is dropped: some rank would have nothing.
class GlobalBatchShardSampler : public torch::data::samplers::Sampler<> {
 public:
  GlobalBatchShardSampler(int64_t size, int rank, int world);
  void reset(std::optional<size_t> new_size = std::nullopt) override;
  std::optional<std::vector<size_t>> next(size_t batch_size) override;

 private:
  torch::data::samplers::RandomSampler inner_;
  int rank_;
  int world_;
};

// The factor that makes the mean loss of a shard of `shard` samples weigh
// as those samples do in the mean over the global batch of `global`:
// averaging the ranks' gradients then gives the global batch's gradient.
double shard_loss_scale(int64_t shard, int64_t global, int world);

}  // namespace train
}  // namespace tools
