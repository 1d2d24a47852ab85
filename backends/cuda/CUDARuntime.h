// backends/cuda/CUDARuntime.h — what the CUDA plugin offers beyond the core's
// device runtime interface, and how the CUDA runtime API headers
// (<c10/cuda/*.h>, <ATen/cuda/*.h>) find it.
//
// The plugin registers one c10::cuda::impl::CUDARuntimeInterface as the
// runtime of DeviceType::CUDA (c10/core/impl/DeviceGuardImplInterface.h).
// Device-agnostic code uses it through the core's interface; CUDA code that
// needs a native handle (a cudaStream_t) or the reason there is no device
// reaches it with cudaRuntime():
//
//   const auto& rt = c10::cuda::impl::cudaRuntime();   // loads the plugin
//   cudaStream_t s = static_cast<cudaStream_t>(rt.nativeStream(stream));
//
// Programs do not call this directly; they use CUDAStream, CUDAGuard and
// torch::cuda::*, which are built on it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "aten/DeviceRuntime.h"
#include "c10/core/DeviceType.h"
#include "c10/core/Stream.h"
#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "c10/util/Exception.h"

namespace c10 {
namespace cuda {
namespace impl {

// c10::cuda::impl::CUDARuntimeInterface
//
// The CUDA plugin's runtime. Every method is thread-safe. Where the process
// has no usable device (no driver, no GPU), deviceCount() is 0 and every
// method that needs a device throws c10::Error "no CUDA device: <cudart's
// reason>".
struct CUDARuntimeInterface : c10::impl::DeviceGuardImplInterface {
  // The cudaStream_t behind `stream` (a stream of this runtime), as void*
  // so that this header does not need the toolkit. The default stream is
  // cudaStreamLegacy's null handle.
  virtual void* nativeStream(const Stream& stream) const = 0;

  // Why there is no device ("" when there is one): cudart's message for
  // cudaGetDeviceCount's error, or that it found no device.
  virtual std::string unavailableReason() const = 0;

  // The caching allocator (backends/cuda/CachingAllocator.h); what
  // <c10/cuda/CUDACachingAllocator.h> calls.
  virtual void emptyCache() const = 0;
  virtual std::map<std::string, int64_t> memoryStats(DeviceIndex device) const = 0;
  virtual std::string memorySummary(DeviceIndex device) const = 0;
  virtual void resetPeakMemoryStats(DeviceIndex device) const = 0;
  virtual void recordStream(void* ptr, const Stream& stream) const = 0;
  // The pinned host allocator (backends/cuda/CachingHostAllocator.h); what
  // <ATen/cuda/CachingHostAllocator.h> calls. Neither needs a device.
  virtual void emptyHostCache() const = 0;
  virtual std::map<std::string, int64_t> hostMemoryStats() const = 0;
};

// c10::cuda::impl::cudaRuntime
//
// The registered CUDA runtime, loading libember_cuda.so from the plugin
// search path first if none is registered. Throws c10::Error "no CUDA
// device: ..." if no CUDA plugin can be found.
inline const CUDARuntimeInterface& cudaRuntime() {
  if (!c10::impl::hasDeviceGuardImpl(c10::kCUDA)) {
    (void)at::device_count(c10::kCUDA);  // loads the plugin if it can
  }
  TORCH_CHECK(c10::impl::hasDeviceGuardImpl(c10::kCUDA),
              "no CUDA device: the CUDA plugin (libember_cuda.so) is not loaded "
              "and was not found on the plugin search path. Add "
              "//backends/cuda:libember_cuda.so to the program's data, set "
              "EMBER_PLUGIN_PATH, or call torch::load_library with its path.");
  // Only the CUDA plugin registers a runtime for DeviceType::CUDA; its
  // object is a CUDARuntimeInterface (backends/cuda/CUDAGuardImpl.cc).
  return static_cast<const CUDARuntimeInterface&>(
      *c10::impl::getDeviceGuardImpl(c10::kCUDA));
}

}  // namespace impl
}  // namespace cuda
}  // namespace c10
