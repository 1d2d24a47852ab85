// <torch/script.h> — what libtorch tutorials include for custom operators
// and loading TorchScript: here the tensor API, the operator registry
// (TORCH_LIBRARY, torch::Library, c10::Dispatcher, boxed kernels) and
// AT_DISPATCH_*. Ember has no TorchScript: torch::jit::load and
// torch::jit::script::Module do not exist (docs/compat.md).
#pragma once

#include <ATen/ATen.h>       // IWYU pragma: export
#include <ATen/Dispatch.h>   // IWYU pragma: export
#include <torch/library.h>   // IWYU pragma: export
#include <torch/torch.h>     // IWYU pragma: export
