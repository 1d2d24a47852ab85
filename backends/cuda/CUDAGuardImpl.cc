// backends/cuda/CUDAGuardImpl.cc — the CUDA device runtime: current device
// and per-thread current streams, the stream pools, events, synchronization;
// registered as DeviceType::CUDA's runtime when the plugin loads.
//
// Without a driver or device the plugin still loads: deviceCount() is 0 and
// every request that needs a device throws "no CUDA device: <reason>".
#include "backends/cuda/CUDAGuardImpl.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "backends/cuda/CUDACachingAllocator.h"
#include "backends/cuda/CUDARuntime.h"
#include "backends/cuda/stream_ids.h"
#include "c10/cuda/CUDAException.h"

namespace ember {
namespace cuda {
namespace {

struct DeviceCount {
  int count = 0;
  std::string reason;
};

const DeviceCount& probe() noexcept {
  static const DeviceCount state = [] {
    DeviceCount s;
    int n = 0;
    const cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      s.reason = std::string(cudaGetErrorString(err)) + " (" +
                 cudaGetErrorName(err) + " from cudaGetDeviceCount)";
    } else if (n == 0) {
      s.reason = "cudaGetDeviceCount found no CUDA device";
    } else {
      s.count = std::min(n, kMaxCudaDevices);
    }
    return s;
  }();
  return state;
}

// One device's stream pool (See Note [CUDA stream ids]), created on first
// use.
struct StreamPool {
  std::once_flag created;
  cudaStream_t low[kStreamsPerPool] = {};
  cudaStream_t high[kStreamsPerPool] = {};
  // Round-robin counters; relaxed is enough: they only spread requests over
  // the slots, and the streams are published by `created`.
  std::atomic<uint32_t> next_low{0};
  std::atomic<uint32_t> next_high{0};
};

StreamPool g_pools[kMaxCudaDevices];

// The calling thread's current stream per device; 0 (the default stream)
// until a guard or setCurrentCUDAStream changes it.
thread_local c10::StreamId t_current_stream[kMaxCudaDevices] = {};

void createPool(c10::DeviceIndex device) {
  StreamPool& pool = g_pools[device];
  std::call_once(pool.created, [&] {
    int previous = 0;
    C10_CUDA_CHECK(cudaGetDevice(&previous));
    C10_CUDA_CHECK(cudaSetDevice(device));
    int least = 0, greatest = 0;
    C10_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    for (int i = 0; i < kStreamsPerPool; ++i) {
      C10_CUDA_CHECK(cudaStreamCreateWithPriority(
          &pool.low[i], cudaStreamNonBlocking, least));
      C10_CUDA_CHECK(cudaStreamCreateWithPriority(
          &pool.high[i], cudaStreamNonBlocking, greatest));
    }
    C10_CUDA_CHECK(cudaSetDevice(previous));
  });
}

cudaStream_t native(const c10::Stream& stream) {
  checkDeviceIndex(stream.device_index(), "CUDA stream");
  const c10::StreamId id = stream.id();
  switch (streamKind(id)) {
    case StreamKind::kDefault:
      return nullptr;
    case StreamKind::kLowPriority:
      createPool(stream.device_index());
      return g_pools[stream.device_index()].low[streamSlot(id)];
    case StreamKind::kHighPriority:
      createPool(stream.device_index());
      return g_pools[stream.device_index()].high[streamSlot(id)];
    case StreamKind::kInvalid:
      break;
  }
  TORCH_CHECK(false, "CUDA stream: stream id ", id,
              " does not name a CUDA stream (0, or 1..", 2 * kStreamsPerPool,
              " for the pool); make streams with getStreamFromPool.");
}

class CUDAGuardImpl final : public c10::cuda::impl::CUDARuntimeInterface {
 public:
  c10::DeviceType type() const override { return c10::kCUDA; }

  c10::Device exchangeDevice(c10::Device device) const override {
    const c10::Device previous = getDevice();
    if (previous.index() != device.index()) setDevice(device);
    return previous;
  }

  c10::Device getDevice() const override {
    return c10::Device(c10::kCUDA, currentDevice());
  }

  void setDevice(c10::Device device) const override {
    checkDeviceIndex(device.index(), "set_device");
    C10_CUDA_CHECK(cudaSetDevice(device.index()));
  }

  void uncheckedSetDevice(c10::Device device) const noexcept override {
    const cudaError_t err = cudaSetDevice(device.index());
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      TORCH_WARN("CUDA: restoring device ", static_cast<int>(device.index()),
                 " failed: ", cudaGetErrorString(err));
    }
  }

  c10::Stream getStream(c10::Device device) const noexcept override {
    const c10::DeviceIndex index = device.index();
    const c10::StreamId id =
        index >= 0 && index < kMaxCudaDevices ? t_current_stream[index] : 0;
    return c10::Stream(c10::Stream::UNSAFE, device, id);
  }

  c10::Stream getDefaultStream(c10::Device device) const override {
    checkDeviceIndex(device.index(), "getDefaultCUDAStream");
    return c10::Stream(c10::Stream::DEFAULT, device);
  }

  c10::Stream getStreamFromGlobalPool(c10::Device device,
                                      bool high_priority) const override {
    checkDeviceIndex(device.index(), "getStreamFromPool");
    createPool(device.index());
    StreamPool& pool = g_pools[device.index()];
    auto& counter = high_priority ? pool.next_high : pool.next_low;
    const int slot = static_cast<int>(
        counter.fetch_add(1, std::memory_order_relaxed) % kStreamsPerPool);
    return c10::Stream(c10::Stream::UNSAFE, device,
                       poolStreamId(high_priority, slot));
  }

  c10::Stream exchangeStream(c10::Stream stream) const noexcept override {
    const c10::Stream previous = getStream(stream.device());
    const c10::DeviceIndex index = stream.device_index();
    if (index >= 0 && index < kMaxCudaDevices) {
      t_current_stream[index] = stream.id();
    }
    return previous;
  }

  void record(void** event, const c10::Stream& stream,
              c10::DeviceIndex device_index,
              c10::EventFlag flag) const override {
    cudaStream_t s = native(stream);
    TORCH_CHECK(device_index == stream.device_index(),
                "CUDAEvent::record: the event belongs to device ",
                static_cast<int>(device_index), " but the stream to device ",
                static_cast<int>(stream.device_index()),
                "; record it on a stream of its own device.");
    DeviceSwitch on(stream.device_index());
    if (*event == nullptr) {
      cudaEvent_t created = nullptr;
      C10_CUDA_CHECK(cudaEventCreateWithFlags(
          &created, flag == c10::EventFlag::PYTORCH_DEFAULT
                        ? cudaEventDisableTiming
                        : cudaEventDefault));
      *event = created;
    }
    C10_CUDA_CHECK(cudaEventRecord(static_cast<cudaEvent_t>(*event), s));
  }

  void block(void* event, const c10::Stream& stream) const override {
    cudaStream_t s = native(stream);
    DeviceSwitch on(stream.device_index());
    C10_CUDA_CHECK(cudaStreamWaitEvent(s, static_cast<cudaEvent_t>(event), 0));
  }

  bool queryEvent(void* event) const override {
    requireDevice("CUDAEvent::query");
    if (event == nullptr) return true;
    const cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    C10_CUDA_CHECK(err);
    return true;
  }

  void destroyEvent(void* event,
                    c10::DeviceIndex /*device_index*/) const noexcept override {
    if (event != nullptr) {
      (void)cudaEventDestroy(static_cast<cudaEvent_t>(event));
    }
  }

  void synchronizeEvent(void* event) const override {
    requireDevice("CUDAEvent::synchronize");
    if (event != nullptr) {
      C10_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event)));
    }
  }

  double elapsedTime(void* start, void* end,
                     c10::DeviceIndex /*device_index*/) const override {
    requireDevice("CUDAEvent::elapsed_time");
    TORCH_CHECK(start != nullptr && end != nullptr,
                "CUDAEvent::elapsed_time: both events must be recorded first.");
    float ms = 0;
    C10_CUDA_CHECK(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start),
                                        static_cast<cudaEvent_t>(end)));
    return ms;
  }

  bool queryStream(const c10::Stream& stream) const override {
    cudaStream_t s = native(stream);
    const cudaError_t err = cudaStreamQuery(s);
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    C10_CUDA_CHECK(err);
    return true;
  }

  void synchronizeStream(const c10::Stream& stream) const override {
    cudaStream_t s = native(stream);
    C10_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  void synchronizeDevice(c10::DeviceIndex device_index) const override {
    checkDeviceIndex(device_index, "synchronize");
    DeviceSwitch on(device_index);
    C10_CUDA_CHECK(cudaDeviceSynchronize());
  }

  c10::DeviceIndex deviceCount() const noexcept override {
    return static_cast<c10::DeviceIndex>(cuda::deviceCount());
  }

  void* nativeStream(const c10::Stream& stream) const override {
    return native(stream);
  }

  std::string unavailableReason() const override {
    return cuda::unavailableReason();
  }

  void emptyCache() const override { cuda::emptyCache(); }
  std::map<std::string, int64_t> memoryStats(
      c10::DeviceIndex device) const override {
    return cuda::memoryStats(device);
  }
  std::string memorySummary(c10::DeviceIndex device) const override {
    return cuda::memorySummary(device);
  }
  void resetPeakMemoryStats(c10::DeviceIndex device) const override {
    cuda::resetPeakMemoryStats(device);
  }
  void recordStream(void* ptr, const c10::Stream& stream) const override {
    cuda::recordStream(ptr, stream);
  }
  void emptyHostCache() const override { cuda::emptyHostCache(); }
  std::map<std::string, int64_t> hostMemoryStats() const override {
    return cuda::hostMemoryStats();
  }

 private:
  // Makes `index` current for a scope and restores the previous device.
  struct DeviceSwitch {
    explicit DeviceSwitch(c10::DeviceIndex index) {
      C10_CUDA_CHECK(cudaGetDevice(&previous));
      if (previous != index) C10_CUDA_CHECK(cudaSetDevice(index));
      switched = previous != index;
    }
    ~DeviceSwitch() {
      if (switched) (void)cudaSetDevice(previous);
    }
    int previous = 0;
    bool switched = false;
  };
};

}  // namespace

int deviceCount() noexcept { return probe().count; }

const std::string& unavailableReason() noexcept { return probe().reason; }

void requireDevice(const char* where) {
  const DeviceCount& state = probe();
  TORCH_CHECK(state.count > 0, "no CUDA device: ", state.reason, " (", where,
              "). Check torch::cuda::is_available() before using CUDA, or "
              "run on a machine with an NVIDIA driver and GPU.");
}

void checkDeviceIndex(c10::DeviceIndex index, const char* where) {
  requireDevice(where);
  TORCH_CHECK(index >= 0 && index < probe().count, where,
              ": CUDA device index ", static_cast<int>(index),
              " is out of range; this process has ", probe().count,
              " CUDA device(s), indices 0 to ", probe().count - 1, ".");
}

c10::DeviceIndex currentDevice() {
  requireDevice("current_device");
  int device = 0;
  C10_CUDA_CHECK(cudaGetDevice(&device));
  return static_cast<c10::DeviceIndex>(device);
}

C10_REGISTER_GUARD_IMPL(CUDA, CUDAGuardImpl);

}  // namespace cuda
}  // namespace ember
