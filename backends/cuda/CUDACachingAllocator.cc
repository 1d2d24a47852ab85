// backends/cuda/CUDACachingAllocator.cc — CachingAllocator's DeviceMemoryApi
// on cudart, and the c10::Allocator of DeviceType::CUDA built on it: an
// allocation belongs to the calling thread's current device and stream.
// Also CachingHostAllocator's HostMemoryApi on cudaHostAlloc, registered as
// CUDA's pinned-memory allocator (Note [Pinned memory] in
// aten/ops/conversion.cc).
#include "backends/cuda/CUDACachingAllocator.h"

#include <cuda_runtime_api.h>

#include "backends/cuda/CUDAGuardImpl.h"
#include "backends/cuda/CUDARuntime.h"
#include "backends/cuda/CachingAllocator.h"
#include "backends/cuda/CachingHostAllocator.h"
#include "c10/core/Allocator.h"
#include "c10/cuda/CUDAException.h"

namespace ember {
namespace cuda {
namespace {

// Makes `device` current for a scope (allocator calls may come from any
// thread with any current device).
class DeviceScope {
 public:
  explicit DeviceScope(c10::DeviceIndex device) {
    C10_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) C10_CUDA_CHECK(cudaSetDevice(device));
  }
  ~DeviceScope() { (void)cudaSetDevice(previous_); }

 private:
  int previous_ = 0;
};

cudaStream_t nativeStream(c10::DeviceIndex device, c10::StreamId id) {
  const auto& rt = c10::cuda::impl::cudaRuntime();
  return static_cast<cudaStream_t>(rt.nativeStream(
      c10::Stream(c10::Stream::UNSAFE, c10::Device(c10::kCUDA, device), id)));
}

class CudaDeviceMemory final : public DeviceMemoryApi {
 public:
  void* allocate(c10::DeviceIndex device, size_t size) override {
    DeviceScope scope(device);
    void* ptr = nullptr;
    const cudaError_t err = cudaMalloc(&ptr, size);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky: the retry may succeed
      return nullptr;
    }
    C10_CUDA_CHECK(err);
    return ptr;
  }
  void release(c10::DeviceIndex device, void* ptr) override {
    DeviceScope scope(device);
    C10_CUDA_CHECK(cudaFree(ptr));
  }
  void memoryInfo(c10::DeviceIndex device, size_t* free_bytes,
                  size_t* total_bytes) override {
    DeviceScope scope(device);
    C10_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
  }
  void* recordEvent(c10::DeviceIndex device, c10::StreamId stream) override {
    DeviceScope scope(device);
    cudaEvent_t event = nullptr;
    C10_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    C10_CUDA_CHECK(cudaEventRecord(event, nativeStream(device, stream)));
    return event;
  }
  bool queryEvent(void* event) override {
    const cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(event));
    if (err == cudaErrorNotReady) {
      (void)cudaGetLastError();
      return false;
    }
    C10_CUDA_CHECK(err);
    return true;
  }
  void synchronizeEvent(void* event) override {
    C10_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(event)));
  }
  void destroyEvent(void* event) noexcept override {
    (void)cudaEventDestroy(static_cast<cudaEvent_t>(event));
  }
};

// Created on first use and never destroyed: blocks may be freed by tensors
// that outlive static destruction.
CachingAllocator& policy() {
  static CachingAllocator* alloc = new CachingAllocator(new CudaDeviceMemory());
  return *alloc;
}

void deleteBlock(void* ptr) { policy().free(ptr); }

class CUDAAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) override {
    requireDevice("CUDA allocation");
    const c10::DeviceIndex device = currentDevice();
    const c10::Device where(c10::kCUDA, device);
    if (n == 0) return c10::DataPtr(nullptr, where);
    const c10::StreamId stream =
        c10::cuda::impl::cudaRuntime().getStream(where).id();
    void* ptr = policy().malloc(device, n, stream);
    return c10::DataPtr(ptr, ptr, &deleteBlock, where);
  }
  c10::DeleterFnPtr raw_deleter() const override { return &deleteBlock; }
  // Both pointers are device memory (PyTorch's CUDA allocator does the same).
  void copy_data(void* dest, const void* src, size_t count) const override {
    if (count == 0) return;
    requireDevice("CUDA copy");
    C10_CUDA_CHECK(cudaMemcpy(dest, src, count, cudaMemcpyDeviceToDevice));
  }
};

CUDAAllocator g_cuda_allocator;

class CudaHostMemory final : public HostMemoryApi {
 public:
  void* allocateHost(size_t size) override {
    void* ptr = nullptr;
    // Portable: any device may copy from and to it.
    const cudaError_t err = cudaHostAlloc(&ptr, size, cudaHostAllocPortable);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky: the retry may succeed
      return nullptr;
    }
    C10_CUDA_CHECK(err);
    return ptr;
  }
  void releaseHost(void* ptr) override { C10_CUDA_CHECK(cudaFreeHost(ptr)); }
};

// As policy(): never destroyed.
CachingHostAllocator& hostPolicy() {
  static CachingHostAllocator* alloc =
      new CachingHostAllocator(new CudaHostMemory(), new CudaDeviceMemory());
  return *alloc;
}

void deletePinned(void* ptr) { hostPolicy().free(ptr); }

// Page-locked host memory: CPU tensors that CUDA copies from and to
// asynchronously.
class PinnedAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t n) override {
    const c10::Device cpu(c10::kCPU);
    if (n == 0) return c10::DataPtr(nullptr, nullptr, &deletePinned, cpu);
    requireDevice("pin_memory");
    void* ptr = hostPolicy().malloc(n);
    return c10::DataPtr(ptr, ptr, &deletePinned, cpu);
  }
  c10::DeleterFnPtr raw_deleter() const override { return &deletePinned; }
  void copy_data(void* dest, const void* src, size_t count) const override {
    default_copy_data(dest, src, count);
  }
};

PinnedAllocator g_pinned_allocator;

// Registered when the plugin loads; c10's registry keeps the pointers.
const bool g_registered = [] {
  c10::SetAllocator(c10::kCUDA, &g_cuda_allocator);
  c10::SetPinnedMemoryAllocator(c10::kCUDA, &g_pinned_allocator);
  return true;
}();

}  // namespace

void emptyCache() {
  if (deviceCount() == 0) return;  // nothing was ever allocated
  policy().emptyCache();
}

std::map<std::string, int64_t> memoryStats(c10::DeviceIndex device) {
  checkDeviceIndex(device, "memory_stats");
  return policy().memoryStats(device);
}

std::string memorySummary(c10::DeviceIndex device) {
  checkDeviceIndex(device, "memory_summary");
  return policy().memorySummary(device);
}

void resetPeakMemoryStats(c10::DeviceIndex device) {
  checkDeviceIndex(device, "reset_peak_memory_stats");
  policy().resetPeakStats(device);
}

void recordStream(void* ptr, const c10::Stream& stream) {
  requireDevice("record_stream");
  if (ptr == nullptr) return;  // empty storage
  policy().recordStream(ptr, stream.id());
}

bool recordPinnedUse(const void* host_ptr, const c10::Stream& stream) {
  if (host_ptr == nullptr) return false;
  return hostPolicy().recordEvent(host_ptr, stream.device_index(), stream.id());
}

void emptyHostCache() { hostPolicy().emptyCache(); }

std::map<std::string, int64_t> hostMemoryStats() {
  const HostStats s = hostPolicy().stats();
  std::map<std::string, int64_t> out;
  const auto put = [&out](const std::string& name, const Stat& stat) {
    out[name + ".current"] = stat.current;
    out[name + ".peak"] = stat.peak;
    out[name + ".allocated"] = stat.allocated;
    out[name + ".freed"] = stat.freed;
  };
  put("allocation", s.allocation);
  put("segment", s.segment);
  put("allocated_bytes", s.allocated_bytes);
  put("reserved_bytes", s.reserved_bytes);
  out["num_host_alloc"] = s.num_host_alloc;
  out["num_host_free"] = s.num_host_free;
  out["num_alloc_retries"] = s.num_alloc_retries;
  out["num_ooms"] = s.num_ooms;
  return out;
}

}  // namespace cuda
}  // namespace ember
