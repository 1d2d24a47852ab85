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

// torch::manual_seed — seeds the default generators of the CPU and of every
// device of every loaded backend (at::manual_seed), as libtorch does.
inline void manual_seed(uint64_t seed) { at::manual_seed(seed); }
}  // namespace torch
