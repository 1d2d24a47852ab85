// tools/train/checkpoint.h — //tools:train's checkpoints (--save, --resume).
//
// One safetensors file: the model's parameters and buffers as "model.<name>",
// the optimizer's state as "optimizer.<name>", the default generator's state
// as "rng", all as CPU tensors, and in the metadata the settings that must
// match on resume (format, model, optimizer, schedule, the data's kind) and
// the figures of the epochs done (so that --metrics and --plot cover them
// all). Loading validates every tensor and figure and names the first that
// is wrong (the file may be damaged or hostile).
#pragma once

#include <string>
#include <vector>

#include <torch/torch.h>

#include "tools/train/trainer.h"

namespace tools {
namespace train {

// Writes `path` (data_kind: "mnist" or "cifar10").
void save_checkpoint(const std::string& path, const Config& config, const std::string& data_kind,
                     torch::nn::Sequential& model, torch::optim::Optimizer& optimizer,
                     const std::vector<EpochStats>& history);

// Loads `path` into the model (its parameters' device), the optimizer and
// the default generator; returns the history of the epochs done. Throws
// c10::Error naming the problem when the file does not fit this run.
std::vector<EpochStats> load_checkpoint(const std::string& path, const Config& config,
                                        const std::string& data_kind,
                                        torch::nn::Sequential& model,
                                        torch::optim::Optimizer& optimizer);

}  // namespace train
}  // namespace tools
