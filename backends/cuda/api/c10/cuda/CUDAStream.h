// <c10/cuda/CUDAStream.h> — c10::cuda::CUDAStream and the per-thread current
// stream, as in libtorch.
//
//   c10::cuda::CUDAStream s = c10::cuda::getStreamFromPool();
//   {
//     c10::cuda::CUDAStreamGuard guard(s);      // <c10/cuda/CUDAGuard.h>
//     y = x.mul(2);                              // queued on s
//   }
//   my_kernel<<<g, b, 0, s.stream()>>>(...);
//   s.synchronize();
//
// A CUDAStream is a c10::Stream of DeviceType::CUDA: cheap to copy, never
// owning. Streams come from each device's pool (32 low- and 32
// high-priority, round-robin, never destroyed) or are the default stream.
// Each thread has one current stream per device, the default stream until
// changed. All functions throw "no CUDA device: ..." where there is none.
#pragma once

#include <cuda_runtime_api.h>

#include <ostream>

#include "backends/cuda/CUDARuntime.h"
#include "c10/core/Stream.h"
#include "c10/cuda/CUDAException.h"

namespace c10 {
namespace cuda {

// c10::cuda::CUDAStream
class CUDAStream {
 public:
  enum Unchecked { UNCHECKED };

  // Wraps `stream`; throws c10::Error unless it is a CUDA stream.
  explicit CUDAStream(Stream stream) : stream_(stream) {
    TORCH_CHECK(stream.device_type() == kCUDA,
                "CUDAStream: expected a stream of a CUDA device, got one of ",
                stream.device(), ".");
  }
  CUDAStream(Unchecked, Stream stream) : stream_(stream) {}

  bool operator==(const CUDAStream& other) const noexcept {
    return stream_ == other.stream_;
  }
  bool operator!=(const CUDAStream& other) const noexcept {
    return !(*this == other);
  }

  // The native handle (nullptr for the default, legacy stream).
  cudaStream_t stream() const {
    return static_cast<cudaStream_t>(impl::cudaRuntime().nativeStream(stream_));
  }
  operator cudaStream_t() const { return stream(); }
  operator Stream() const noexcept { return stream_; }
  Stream unwrap() const noexcept { return stream_; }

  Device device() const noexcept { return stream_.device(); }
  DeviceIndex device_index() const noexcept { return stream_.device_index(); }
  StreamId id() const noexcept { return stream_.id(); }

  // Whether all work queued so far has completed; waits for it.
  bool query() const { return impl::cudaRuntime().queryStream(stream_); }
  void synchronize() const { impl::cudaRuntime().synchronizeStream(stream_); }

 private:
  Stream stream_;
};

inline std::ostream& operator<<(std::ostream& out, const CUDAStream& s) {
  return out << s.unwrap();
}

namespace detail {
inline DeviceIndex resolve(DeviceIndex device_index) {
  return device_index < 0 ? impl::cudaRuntime().getDevice().index()
                          : device_index;
}
}  // namespace detail

// c10::cuda::getStreamFromPool — a pool stream of `device_index` (-1: the
// current device), round-robin.
inline CUDAStream getStreamFromPool(bool isHighPriority = false,
                                    DeviceIndex device_index = -1) {
  const auto& rt = impl::cudaRuntime();
  return CUDAStream(CUDAStream::UNCHECKED,
                    rt.getStreamFromGlobalPool(
                        Device(kCUDA, detail::resolve(device_index)),
                        isHighPriority));
}

// c10::cuda::getDefaultCUDAStream — the default stream of `device_index`.
inline CUDAStream getDefaultCUDAStream(DeviceIndex device_index = -1) {
  const auto& rt = impl::cudaRuntime();
  return CUDAStream(
      CUDAStream::UNCHECKED,
      rt.getDefaultStream(Device(kCUDA, detail::resolve(device_index))));
}

// c10::cuda::getCurrentCUDAStream — the calling thread's current stream on
// `device_index`.
inline CUDAStream getCurrentCUDAStream(DeviceIndex device_index = -1) {
  const auto& rt = impl::cudaRuntime();
  return CUDAStream(CUDAStream::UNCHECKED,
                    rt.getStream(Device(kCUDA, detail::resolve(device_index))));
}

// c10::cuda::setCurrentCUDAStream — makes `stream` the calling thread's
// current stream on its device (the current device does not change).
inline void setCurrentCUDAStream(CUDAStream stream) {
  (void)impl::cudaRuntime().exchangeStream(stream.unwrap());
}

}  // namespace cuda
}  // namespace c10
