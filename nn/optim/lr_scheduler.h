// nn/optim/lr_scheduler.h — torch::optim::LRScheduler, the base of the
// learning-rate schedulers (StepLR, CosineAnnealingLR).
//
//   torch::optim::StepLR sched(opt, /*step_size=*/2, /*gamma=*/0.5);
//   for (int epoch = 0; epoch < n; ++epoch) {
//     train_one_epoch(opt);
//     sched.step();
//   }
//
// A scheduler holds a reference to its optimizer, which must outlive it.
// step() asks the subclass for one learning rate per param group and writes
// them through OptimizerOptions::set_lr().
#pragma once

#include <vector>

#include "nn/optim/optimizer.h"

namespace torch {
namespace optim {

// torch::optim::LRScheduler
class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;

  // Sets every group's learning rate to get_lrs(), then counts the step.
  void step();

 protected:
  // One learning rate per param group, for the step about to be counted
  // (step_count_ steps have been taken before it).
  virtual std::vector<double> get_lrs() = 0;
  // The optimizer's current learning rates, one per param group.
  std::vector<double> get_current_lrs() const;

  unsigned step_count_{};

 private:
  void set_optimizer_lrs(const std::vector<double>& learning_rates);

  Optimizer& optimizer_;
};

}  // namespace optim
}  // namespace torch
