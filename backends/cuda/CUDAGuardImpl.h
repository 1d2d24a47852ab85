// backends/cuda/CUDAGuardImpl.h — the plugin's side of the device runtime:
// whether there is a device, and the error every request gets when there is
// none. Internal to the plugin.
#pragma once

#include <string>

#include "c10/core/Device.h"

namespace ember {
namespace cuda {

// ember::cuda::deviceCount / unavailableReason
//
// cudaGetDeviceCount, asked once per process: the count (0 without driver
// or device) and cudart's reason when it is 0. Thread-safe.
int deviceCount() noexcept;
const std::string& unavailableReason() noexcept;

// ember::cuda::requireDevice
//
// Throws c10::Error "no CUDA device: <reason>" when the process has no CUDA
// device; `where` names the request (e.g. "empty", "CUDAStream").
void requireDevice(const char* where);

// ember::cuda::checkDeviceIndex
//
// requireDevice, then throws c10::Error unless 0 <= index < deviceCount().
void checkDeviceIndex(c10::DeviceIndex index, const char* where);

// ember::cuda::currentDevice
//
// The calling thread's current CUDA device index (cudaGetDevice).
c10::DeviceIndex currentDevice();

}  // namespace cuda
}  // namespace ember
