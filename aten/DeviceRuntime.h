// aten/DeviceRuntime.h — how many devices of a type this process can use,
// asked of the c10 device runtime registry (Note [Device runtime registry]
// in c10/core/impl/DeviceGuardImplInterface.h), loading the type's backend
// plugin first when no runtime is registered yet. torch::cuda::is_available
// and device_count (<torch/cuda.h>) and Tensor::cuda() are built on it.
//
//   if (at::device_count(c10::kCUDA) > 0) x = x.cuda();
#pragma once

#include "c10/core/Device.h"
#include "c10/core/DeviceType.h"

namespace at {

// at::device_count
//
// The device count the runtime registered for `type` reports; 1 for the
// CPU. With no runtime registered, tries once to load libember_<type>.so
// (c10::impl::autoload_backend_plugin) and asks again; 0 when there is
// still none. A plugin that is found but fails to load is reported with
// TORCH_WARN and counts as 0, as libtorch's is_available() does not throw.
// Thread-safe.
c10::DeviceIndex device_count(c10::DeviceType type);

}  // namespace at
