// <torch/utils.h> — torch::manual_seed, as in libtorch's torch/utils.h.
#pragma once

#include <cstdint>

#include <ATen/ATen.h>

namespace torch {
// torch::manual_seed — seeds the default generators of the CPU and of every
// device of every loaded backend (at::manual_seed), as libtorch does.
inline void manual_seed(uint64_t seed) { at::manual_seed(seed); }
}  // namespace torch
