// <torch/optim.h> — torch::optim: SGD, Adam, AdamW and the learning-rate
// schedulers (nn/optim/optim.h; see docs/optim.md).
#pragma once

#include "nn/optim/optim.h"  // IWYU pragma: export
