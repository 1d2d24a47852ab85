// <ATen/cuda/CUDAEvent.h> — at::cuda::CUDAEvent, as in libtorch: a CUDA event
// created lazily on first record, used to order streams and to time work.
//
//   at::cuda::CUDAEvent done;                     // no timing (the default)
//   done.record(producer_stream);
//   done.block(consumer_stream);                  // consumer waits, host does not
//
//   at::cuda::CUDAEvent start(cudaEventDefault), end(cudaEventDefault);
//   start.record(); ...; end.record(); end.synchronize();
//   float ms = start.elapsed_time(end);
//
// Built on the core's c10::Event and the CUDA plugin's runtime. Move-only;
// one thread uses an event at a time. Throws "no CUDA device: ..." where
// there is none.
#pragma once

#include <cuda_runtime_api.h>

#include "c10/core/Event.h"
#include "c10/cuda/CUDAStream.h"

namespace at {
namespace cuda {

// at::cuda::CUDAEvent
class CUDAEvent {
 public:
  // `flags`: cudaEventDisableTiming (default, the cheapest) or
  // cudaEventDefault (timed: elapsed_time works). Other flags are refused.
  explicit CUDAEvent(unsigned int flags = cudaEventDisableTiming)
      : event_(checked(flags)) {}

  bool isCreated() const noexcept { return event_.eventId() != nullptr; }
  c10::DeviceIndex device_index() const noexcept {
    return event_.device_index();
  }
  cudaEvent_t event() const noexcept {
    return static_cast<cudaEvent_t>(event_.eventId());
  }
  operator cudaEvent_t() const noexcept { return event(); }

  // Records on the current stream of the current device, or on `stream`.
  void record() { record(c10::cuda::getCurrentCUDAStream()); }
  void record(const c10::cuda::CUDAStream& stream) {
    event_.record(stream.unwrap());
  }
  void recordOnce(const c10::cuda::CUDAStream& stream) {
    event_.recordOnce(stream.unwrap());
  }
  // Work queued on `stream` from now on waits for this event.
  void block(const c10::cuda::CUDAStream& stream) {
    if (isCreated()) event_.block(stream.unwrap());
  }
  bool query() const { return !isCreated() || event_.query(); }
  void synchronize() const {
    if (isCreated()) event_.synchronize();
  }
  // Milliseconds from this event to `other`; both timed and completed.
  float elapsed_time(const CUDAEvent& other) const {
    return static_cast<float>(event_.elapsedTime(other.event_));
  }

 private:
  static c10::Event checked(unsigned int flags) {
    (void)c10::cuda::impl::cudaRuntime();  // load the plugin
    TORCH_CHECK(flags == cudaEventDisableTiming || flags == cudaEventDefault,
                "CUDAEvent: flags ", flags,
                " are not supported; use cudaEventDisableTiming (",
                static_cast<unsigned>(cudaEventDisableTiming),
                ") or cudaEventDefault (0).");
    return c10::Event(c10::kCUDA, flags == cudaEventDefault
                                      ? c10::EventFlag::BACKEND_DEFAULT
                                      : c10::EventFlag::PYTORCH_DEFAULT);
  }

  c10::Event event_;
};

}  // namespace cuda
}  // namespace at
