// <torch/data.h> — torch::data: datasets (MNIST, CIFAR10, TensorDataset),
// transforms, samplers and the DataLoader (nn/data/data.h; see docs/data.md).
#pragma once

#include "nn/data/data.h"  // IWYU pragma: export
