// <torch/cuda.h> — torch::cuda::is_available / device_count, as in libtorch.
// Ember asks the c10 device runtime registry whether a CUDA runtime is
// registered, loading libember_cuda.so from the plugin search path first if
// none is (at::device_count, aten/DeviceRuntime.h). Without a CUDA plugin:
// false and 0.
//
//   torch::Device device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
#pragma once

#include <cstddef>

#include "aten/DeviceRuntime.h"
#include "c10/core/DeviceType.h"

namespace torch {
namespace cuda {

// torch::cuda::device_count — the CUDA devices this process can use.
inline size_t device_count() {
  return static_cast<size_t>(at::device_count(c10::kCUDA));
}

// torch::cuda::is_available — whether at least one CUDA device is usable.
inline bool is_available() { return device_count() > 0; }

// torch::cuda::cudnn_is_available — Ember binds no cuDNN: always false.
inline bool cudnn_is_available() { return false; }

}  // namespace cuda
}  // namespace torch
