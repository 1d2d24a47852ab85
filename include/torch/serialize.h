// <torch/serialize.h> — torch::save / torch::load of a module's parameters and
// buffers, of a tensor, a vector of tensors or an optimizer's state, and
// torch::safetensors for named tensors; files are in the
// safetensors format (see docs/serialize.md).
#pragma once

#include "nn/checkpoint/checkpoint.h"  // IWYU pragma: export
#include "nn/serialize/module.h"       // IWYU pragma: export
#include "nn/serialize/safetensors.h"  // IWYU pragma: export
