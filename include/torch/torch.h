// <torch/torch.h> — the umbrella header of libtorch's C++ API: ATen, the
// operator registry, autograd, nn, optim, data and serialization (see
// docs/compat.md).
#pragma once

#include <ATen/ATen.h>
#include <torch/autograd.h>
#include <torch/cuda.h>
#include <torch/data.h>
#include <torch/detail/TensorDataContainer.h>
#include <torch/library.h>
#include <torch/nn.h>
#include <torch/optim.h>
#include <torch/serialize.h>
#include <torch/types.h>
#include <torch/utils.h>
