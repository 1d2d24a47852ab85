// <torch/nn.h> — torch::nn: Module, the layers, containers, losses, init and
// torch::nn::functional (nn/nn.h; see docs/nn.md).
#pragma once

#include "nn/nn.h"  // IWYU pragma: export
