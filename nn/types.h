// nn/types.h — the tensor-level names the nn package uses unqualified
// (torch::nn::Tensor is at::Tensor, ...), so that nn headers need not
// include <torch/torch.h>, which will include them.
#pragma once

#include "aten/Functions.h"
#include "aten/Tensor.h"
#include "aten/TensorOperators.h"
#include "autograd/grad_mode.h"
#include "c10/core/Device.h"
#include "c10/core/ScalarType.h"

namespace torch {
namespace nn {
using at::Tensor;
using c10::Device;
using c10::ScalarType;
}  // namespace nn
}  // namespace torch
