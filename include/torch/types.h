// <torch/types.h> — libtorch's names for ATen under torch:: (torch::Tensor,
// torch::ones, torch::kFloat32, ...) without the rest of <torch/torch.h>:
// a source that needs tensors and autograd but not nn, optim or data can
// include this and <torch/autograd.h> and compile in about two thirds of
// the time.
#pragma once

#include <ATen/ATen.h>

namespace torch {
using namespace at;  // NOLINT: libtorch exposes at:: names under torch::

// torch's dtype spellings (torch/types.h in libtorch).
constexpr auto kUInt8 = at::kByte;
constexpr auto kInt8 = at::kChar;
constexpr auto kInt16 = at::kShort;
constexpr auto kInt32 = at::kInt;
constexpr auto kInt64 = at::kLong;
constexpr auto kFloat16 = at::kHalf;
constexpr auto kFloat32 = at::kFloat;
constexpr auto kFloat64 = at::kDouble;
}  // namespace torch
