// <torch/library.h> — registering operators and kernels, as in libtorch:
// TORCH_LIBRARY, TORCH_LIBRARY_FRAGMENT, TORCH_LIBRARY_IMPL, torch::Library,
// torch::CppFunction, torch::dispatch, c10::Dispatcher, c10::OperatorHandle,
// torch::jit::Stack and torch::load_library. See docs/registration.md.
#pragma once

#include "registration/Dispatcher.h"
#include "registration/Stack.h"
#include "registration/library.h"
#include "registration/plugin_loader.h"
#include "c10/util/Optional.h"

namespace torch {
// torch::Dispatcher / torch::OperatorHandle — libtorch's names for the c10
// dispatcher and its operator handles.
using c10::Dispatcher;
using c10::OperatorHandle;
}  // namespace torch
