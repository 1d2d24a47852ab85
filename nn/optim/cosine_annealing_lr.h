// nn/optim/cosine_annealing_lr.h — torch::optim::CosineAnnealingLR, an Ember
// extension (libtorch 1.13's C++ API has no such class; Python's does).
//
//   torch::optim::CosineAnnealingLR sched(opt, /*T_max=*/epochs, /*eta_min=*/1e-4);
//   sched.step();  // once per epoch
//
// Python's closed form: after t calls of step(), each group's learning rate
// is eta_min + (base_lr - eta_min) * (1 + cos(pi * t / T_max)) / 2, where
// base_lr is the group's learning rate when the scheduler was made. Past
// T_max the cosine keeps going (it rises back to base_lr at 2 * T_max).
#pragma once

#include <cstdint>
#include <vector>

#include "nn/optim/lr_scheduler.h"

namespace torch {
namespace optim {

// torch::optim::CosineAnnealingLR
class CosineAnnealingLR : public LRScheduler {
 public:
  // T_max must be > 0 and eta_min >= 0. The optimizer's param groups are
  // fixed from here on: step() refuses a changed number of groups.
  CosineAnnealingLR(Optimizer& optimizer, const int64_t T_max, const double eta_min = 0);

 private:
  std::vector<double> get_lrs() override;

  const int64_t T_max_;
  const double eta_min_;
  const std::vector<double> base_lrs_;
};

}  // namespace optim
}  // namespace torch
