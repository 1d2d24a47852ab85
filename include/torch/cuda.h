// <torch/cuda.h> — torch::cuda::is_available / device_count / synchronize /
// manual_seed(_all), as in libtorch.
// Ember asks the c10 device runtime registry whether a CUDA runtime is
// registered, loading libember_cuda.so from the plugin search path first if
// none is (at::device_count, aten/DeviceRuntime.h). Without a CUDA plugin:
// false and 0.
//
//   torch::Device device = torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>

#include "aten/DeviceRuntime.h"
#include "c10/core/DefaultGenerators.h"
#include "c10/core/Device.h"
#include "c10/core/DeviceType.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "registration/Dispatcher.h"

namespace torch {
namespace cuda {

// torch::cuda::device_count — the CUDA devices this process can use.
inline size_t device_count() {
  return static_cast<size_t>(at::device_count(c10::kCUDA));
}

// torch::cuda::is_available — whether at least one CUDA device is usable.
inline bool is_available() { return device_count() > 0; }

// torch::cuda::synchronize — waits for all work on CUDA device
// `device_index` (-1: the current device). Throws c10::Error "no CUDA
// device: <reason>" where there is none.
inline void synchronize(int64_t device_index = -1) {
  (void)device_count();  // loads the CUDA plugin if it can
  const auto* impl = c10::impl::getDeviceGuardImpl(c10::kCUDA);
  impl->synchronizeDevice(device_index < 0
                              ? impl->getDevice().index()
                              : static_cast<c10::DeviceIndex>(device_index));
}

// torch::cuda::manual_seed — seeds the current CUDA device's default
// generator; manual_seed_all seeds every device's. Without a device they do
// nothing, as in libtorch.
inline void manual_seed(uint64_t seed) {
  if (!is_available()) return;
  const c10::DeviceIndex index =
      c10::impl::getDeviceGuardImpl(c10::kCUDA)->getDevice().index();
  at::Generator gen =
      at::detail::getDefaultGenerator(c10::Device(c10::kCUDA, index));
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_current_seed(seed);
}

inline void manual_seed_all(uint64_t seed) {
  const size_t n = device_count();
  for (size_t i = 0; i < n; ++i) {
    at::Generator gen = at::detail::getDefaultGenerator(
        c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(i)));
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_current_seed(seed);
  }
}

// torch::cuda::cudnn_is_available — whether CUDA convolutions go through
// cuDNN: a device, and the CUDA plugin found a usable cuDNN 9 (it loads it at
// run time; docs/cuda.md, "Convolutions and cuDNN"). The plugin answers
// through its op ember_cuda::cudnn_is_available.
inline bool cudnn_is_available() {
  if (!is_available()) return false;
  const std::optional<c10::OperatorHandle> op =
      c10::Dispatcher::singleton().findSchema(c10::OperatorName{"ember_cuda::cudnn_is_available", ""});
  return op.has_value() && op->typed<bool()>().call();
}

}  // namespace cuda
}  // namespace torch
