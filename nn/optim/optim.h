// nn/optim/optim.h — everything public of nn/optim: libtorch's
// torch::optim (Optimizer, SGD, Adam, AdamW, LRScheduler, StepLR) and
// Ember's CosineAnnealingLR. <torch/optim.h> includes this header.
//
//   torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1).momentum(0.9));
//   torch::optim::StepLR sched(opt, /*step_size=*/2, /*gamma=*/0.5);
//
// See docs/optim.md.
#pragma once

#include "nn/optim/adam.h"
#include "nn/optim/adamw.h"
#include "nn/optim/cosine_annealing_lr.h"
#include "nn/optim/lr_scheduler.h"
#include "nn/optim/optimizer.h"
#include "nn/optim/sgd.h"
#include "nn/optim/step_lr.h"
