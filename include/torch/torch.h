// <torch/torch.h> — the umbrella header of libtorch's C++ API. Today it
// brings in ATen and the operator registry; autograd, nn and optim join as
// they land (see docs/compat.md).
#pragma once

#include <ATen/ATen.h>
#include <torch/library.h>

namespace torch {
using namespace at;  // NOLINT: libtorch exposes at:: names under torch::
}  // namespace torch
