// nn/optim/step_lr.h — torch::optim::StepLR: multiplies every learning rate
// by gamma every step_size steps.
//
//   torch::optim::StepLR sched(opt, /*step_size=*/2, /*gamma=*/0.5);
//   sched.step();  // once per epoch
//
// As libtorch 1.13 (not Python): the k-th call of step() (k from 1) decays
// when k - 1 is a positive multiple of step_size, i.e. on calls
// step_size + 1, 2 * step_size + 1, … (docs/optim.md).
#pragma once

#include <vector>

#include "nn/optim/lr_scheduler.h"

namespace torch {
namespace optim {

// torch::optim::StepLR
class StepLR : public LRScheduler {
 public:
  // step_size must be > 0.
  StepLR(Optimizer& optimizer, const unsigned step_size, const double gamma = 0.1);

 private:
  std::vector<double> get_lrs() override;

  const unsigned step_size_;
  const double gamma_;
};

}  // namespace optim
}  // namespace torch
