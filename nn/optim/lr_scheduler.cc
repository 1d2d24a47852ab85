#include "nn/optim/lr_scheduler.h"

#include <cmath>

#include "c10/util/Exception.h"
#include "nn/optim/cosine_annealing_lr.h"
#include "nn/optim/step_lr.h"

namespace torch {
namespace optim {

LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {}

void LRScheduler::step() {
  set_optimizer_lrs(get_lrs());
  ++step_count_;
}

std::vector<double> LRScheduler::get_current_lrs() const {
  std::vector<double> lrs;
  lrs.reserve(optimizer_.param_groups().size());
  for (const auto& group : optimizer_.param_groups()) lrs.push_back(group.options().get_lr());
  return lrs;
}

void LRScheduler::set_optimizer_lrs(const std::vector<double>& learning_rates) {
  auto& groups = optimizer_.param_groups();
  TORCH_CHECK(learning_rates.size() == groups.size(), "LRScheduler.step: the scheduler computed ",
              learning_rates.size(), " learning rates but the optimizer has ", groups.size(),
              " param groups; make the scheduler after the last add_param_group.");
  for (size_t g = 0; g < groups.size(); ++g) groups[g].options().set_lr(learning_rates[g]);
}

StepLR::StepLR(Optimizer& optimizer, const unsigned step_size, const double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  TORCH_CHECK(step_size > 0,
              "StepLR: step_size must be > 0, got 0; pass the number of steps "
              "between two decays.");
}

std::vector<double> StepLR::get_lrs() {
  std::vector<double> lrs = get_current_lrs();
  if (step_count_ != 0 && step_count_ % step_size_ == 0) {
    for (double& lr : lrs) lr *= gamma_;
  }
  return lrs;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, const int64_t T_max,
                                     const double eta_min)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min), base_lrs_(get_current_lrs()) {
  TORCH_CHECK(T_max > 0, "CosineAnnealingLR: T_max must be > 0, got ", T_max,
              "; pass the number of steps of the half cosine.");
  TORCH_CHECK(eta_min >= 0, "CosineAnnealingLR: eta_min must be >= 0, got ", eta_min, ".");
}

std::vector<double> CosineAnnealingLR::get_lrs() {
  const double t = static_cast<double>(step_count_) + 1;  // this step's count
  const double pi = std::acos(-1.0);
  const double factor = (1 + std::cos(pi * t / static_cast<double>(T_max_))) / 2;
  std::vector<double> lrs;
  lrs.reserve(base_lrs_.size());
  for (double base : base_lrs_) lrs.push_back(eta_min_ + (base - eta_min_) * factor);
  return lrs;
}

}  // namespace optim
}  // namespace torch
