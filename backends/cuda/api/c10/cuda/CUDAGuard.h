// <c10/cuda/CUDAGuard.h> — RAII guards that set the current CUDA device or
// stream for a scope and restore the previous one, as in libtorch.
//
//   {
//     c10::cuda::CUDAGuard device_guard(1);                 // device 1
//     c10::cuda::CUDAStreamGuard stream_guard(my_stream);   // and its stream
//     ...
//   }                                                        // both restored
//
// They are the core's c10::DeviceGuard / StreamGuard on DeviceType::CUDA
// (the CUDA plugin's runtime, loaded on first use). Constructing one throws
// "no CUDA device: ..." where there is none. Not thread-safe: a guard
// belongs to the thread that made it.
#pragma once

#include <optional>

#include "backends/cuda/CUDARuntime.h"
#include "c10/core/DeviceGuard.h"
#include "c10/core/StreamGuard.h"
#include "c10/cuda/CUDAStream.h"

namespace c10 {
namespace cuda {
namespace detail {
inline Device cudaDevice(DeviceIndex index) {
  (void)impl::cudaRuntime();  // load the plugin before the core's guard
  return Device(kCUDA, index);
}
inline Device cudaDevice(Device device) {
  TORCH_CHECK(device.type() == kCUDA,
              "CUDAGuard: expected a CUDA device, got ", device,
              "; use c10::DeviceGuard for other device types.");
  return cudaDevice(device.index());
}
}  // namespace detail

// c10::cuda::CUDAGuard — makes a device current until the end of scope.
class CUDAGuard {
 public:
  explicit CUDAGuard(DeviceIndex device_index)
      : guard_(detail::cudaDevice(device_index)) {}
  explicit CUDAGuard(Device device) : guard_(detail::cudaDevice(device)) {}
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;

  void set_device(Device device) { guard_.set_device(detail::cudaDevice(device)); }
  void set_index(DeviceIndex index) { guard_.set_index(index); }
  Device original_device() const noexcept { return guard_.original_device(); }
  Device current_device() const noexcept { return guard_.current_device(); }

 private:
  DeviceGuard guard_;
};

// c10::cuda::OptionalCUDAGuard — a CUDAGuard that may hold no device
// (nullopt: does nothing).
class OptionalCUDAGuard {
 public:
  OptionalCUDAGuard() = default;
  explicit OptionalCUDAGuard(std::optional<Device> device) {
    if (device.has_value()) set_device(*device);
  }
  explicit OptionalCUDAGuard(std::optional<DeviceIndex> index) {
    if (index.has_value()) set_index(*index);
  }
  OptionalCUDAGuard(const OptionalCUDAGuard&) = delete;
  OptionalCUDAGuard& operator=(const OptionalCUDAGuard&) = delete;

  void set_device(Device device) {
    guard_.set_device(detail::cudaDevice(device));
  }
  void set_index(DeviceIndex index) {
    guard_.set_device(detail::cudaDevice(index));
  }
  std::optional<Device> original_device() const {
    return guard_.original_device();
  }
  std::optional<Device> current_device() const {
    return guard_.current_device();
  }
  void reset() { guard_.reset(); }

 private:
  OptionalDeviceGuard guard_;
};

// c10::cuda::CUDAStreamGuard — makes a stream current on its device, and
// its device current, until the end of scope.
class CUDAStreamGuard {
 public:
  explicit CUDAStreamGuard(Stream stream)
      : guard_((detail::cudaDevice(stream.device()), stream)) {}
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;

  CUDAStream current_stream() const {
    return CUDAStream(CUDAStream::UNCHECKED, guard_.current_stream());
  }
  Device original_device() const noexcept { return guard_.original_device(); }
  Device current_device() const noexcept { return guard_.current_device(); }

 private:
  StreamGuard guard_;
};

}  // namespace cuda
}  // namespace c10
