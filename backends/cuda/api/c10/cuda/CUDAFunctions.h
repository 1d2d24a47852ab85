// <c10/cuda/CUDAFunctions.h> — device count, current device and device
// synchronization, as in libtorch, through the CUDA plugin's runtime
// (backends/cuda/CUDARuntime.h).
//
//   if (c10::cuda::device_count() > 1) c10::cuda::set_device(1);
//   c10::cuda::device_synchronize();
#pragma once

#include "backends/cuda/CUDARuntime.h"
#include "c10/core/Device.h"

namespace c10 {
namespace cuda {

// c10::cuda::device_count — CUDA devices this process can use; 0 where there
// is no driver, no GPU or no CUDA plugin. Never throws.
inline DeviceIndex device_count() noexcept {
  try {
    return static_cast<DeviceIndex>(at::device_count(c10::kCUDA));
  } catch (...) {
    return 0;
  }
}

// c10::cuda::current_device / set_device — the calling thread's current
// device. Throw "no CUDA device: ..." where there is none.
inline DeviceIndex current_device() {
  return impl::cudaRuntime().getDevice().index();
}
inline void set_device(DeviceIndex device) {
  impl::cudaRuntime().setDevice(Device(kCUDA, device));
}

// c10::cuda::device_synchronize — waits for all work on the current device.
inline void device_synchronize() {
  const auto& rt = impl::cudaRuntime();
  rt.synchronizeDevice(rt.getDevice().index());
}

}  // namespace cuda
}  // namespace c10
