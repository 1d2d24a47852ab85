// tools/train/data_parallel.cc — See data_parallel.h.
#include "tools/train/data_parallel.h"

#include <climits>
#include <cstdlib>
#include <string>

#include <torch/distributed.h>

namespace tools {
namespace train {

// Note [Data-parallel training]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// `--nproc=N` makes //tools:train its own launcher (tools/launch): N copies
// of the program with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set.
// Each copy seeds the generator alike, so it builds the same model and
// draws the same permutation of the training set every epoch; it trains on
// its part of every global batch (--batch_size stays the global batch) and
// DistributedDataParallel averages the gradients. Each shard's mean loss is
// scaled by shard_loss_scale, so the averaged gradient is the global
// batch's even when the batch does not split evenly: one process with the
// same global batch computes the same steps, to float rounding. Rank 0 alone
// prints, evaluates, and writes checkpoints and the other outputs. With
// --device=cuda the group is NCCL's (where //distributed/c10d:nccl is linked:
// builds with the CUDA toolkit) and each process takes the GPU of its
// LOCAL_RANK, one per process; on the CPU it is Gloo's.

namespace {

int env_int(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  TORCH_CHECK(*end == '\0' && v >= 0 && v <= INT_MAX, "train: ", name, "='", text,
              "' is not a non-negative integer.");
  return static_cast<int>(v);
}

}  // namespace

DataParallel data_parallel_from_env() {
  DataParallel dp;
  dp.world = env_int("WORLD_SIZE", 1);
  dp.rank = env_int("RANK", 0);
  dp.local_world = env_int("LOCAL_WORLD_SIZE", dp.world);
  dp.local_rank = env_int("LOCAL_RANK", dp.local_world > 0 ? dp.rank % dp.local_world : 0);
  TORCH_CHECK(dp.world >= 1 && dp.rank < dp.world, "train: RANK=", dp.rank,
              " is not a rank of WORLD_SIZE=", dp.world, ".");
  TORCH_CHECK(dp.local_world >= 1, "train: LOCAL_WORLD_SIZE must be at least 1.");
  return dp;
}

void join(const DataParallel& dp) {
  if (!dp.active()) return;
  torch::distributed::InitProcessGroupOptions o;
  o.rank = dp.rank;
  o.world_size = dp.world;
  torch::distributed::init_process_group(dp.backend, o);
}

void leave(const DataParallel& dp) {
  if (!dp.active()) return;
  torch::distributed::barrier();
  torch::distributed::destroy_process_group();
}

void sum_over_ranks(const DataParallel& dp, std::vector<double>& values, c10::Device device) {
  if (!dp.active()) return;
  at::Tensor t = at::tensor(values, at::kDouble).to(device);
  torch::distributed::all_reduce(t);
  t = t.cpu();
  for (size_t i = 0; i < values.size(); ++i) values[i] = t[static_cast<int64_t>(i)].item<double>();
}

GlobalBatchShardSampler::GlobalBatchShardSampler(int64_t size, int rank, int world)
    : inner_(size), rank_(rank), world_(world) {}

void GlobalBatchShardSampler::reset(std::optional<size_t> new_size) { inner_.reset(new_size); }

std::optional<std::vector<size_t>> GlobalBatchShardSampler::next(size_t batch_size) {
  for (;;) {
    std::optional<std::vector<size_t>> global = inner_.next(batch_size);
    if (!global.has_value()) return std::nullopt;
    const size_t n = global->size();
    if (n < static_cast<size_t>(world_)) continue;  // too small to split: dropped
    const size_t base = n / static_cast<size_t>(world_);
    const size_t extra = n % static_cast<size_t>(world_);
    const size_t r = static_cast<size_t>(rank_);
    const size_t begin = r * base + std::min(r, extra);
    const size_t count = base + (r < extra ? 1 : 0);
    return std::vector<size_t>(global->begin() + static_cast<std::ptrdiff_t>(begin),
                               global->begin() + static_cast<std::ptrdiff_t>(begin + count));
  }
}

double shard_loss_scale(int64_t shard, int64_t global, int world) {
  return static_cast<double>(shard) * world / static_cast<double>(global);
}

}  // namespace train
}  // namespace tools
