// A host-memory fake of DeviceMemoryApi for the caching allocator's tests:
// a device of fixed capacity, and streams whose recorded events complete
// only when the test says the stream has caught up (completeStream). Every
// allocation is checked on release. Thread-safe.
#pragma once

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include "backends/cuda/CachingAllocator.h"
#include "backends/cuda/CachingHostAllocator.h"
#include "c10/util/Exception.h"

namespace ember_test {

// Host memory of a fixed capacity standing in for device or page-locked
// memory: nullptr when full, every block checked on release. Thread-safe.
class BoundedHeap {
 public:
  explicit BoundedHeap(size_t capacity) : capacity_(capacity) {}
  ~BoundedHeap() {
    for (auto& a : live_) std::free(a.first);
  }
  void* allocate(size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++calls_;
    if (used_ + size > capacity_) return nullptr;
    void* p = std::malloc(size);
    TORCH_INTERNAL_ASSERT(p != nullptr);
    used_ += size;
    live_[p] = size;
    return p;
  }
  void release(void* ptr) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(ptr);
    TORCH_INTERNAL_ASSERT(it != live_.end(), "release of an unknown block");
    used_ -= it->second;
    live_.erase(it);
    std::free(ptr);
  }
  size_t capacity() const { return capacity_; }
  size_t used() {
    std::lock_guard<std::mutex> lock(mutex_);
    return used_;
  }
  size_t blocks() {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_.size();
  }
  int calls() {
    std::lock_guard<std::mutex> lock(mutex_);
    return calls_;
  }

 private:
  std::mutex mutex_;
  const size_t capacity_;
  size_t used_ = 0;
  int calls_ = 0;
  std::map<void*, size_t> live_;
};

class FakeDevice final : public ember::cuda::DeviceMemoryApi {
 public:
  explicit FakeDevice(size_t capacity) : heap_(capacity) {}

  void* allocate(c10::DeviceIndex, size_t size) override { return heap_.allocate(size); }
  void release(c10::DeviceIndex, void* ptr) override { heap_.release(ptr); }
  void memoryInfo(c10::DeviceIndex, size_t* free_bytes, size_t* total) override {
    *free_bytes = heap_.capacity() - heap_.used();
    *total = heap_.capacity();
  }

  void* recordEvent(c10::DeviceIndex, c10::StreamId stream) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto* e = new Event{stream, ++submitted_[stream]};
    ++live_events_;
    return e;
  }
  bool queryEvent(void* event) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto* e = static_cast<Event*>(event);
    return completed_[e->stream] >= e->seq;
  }
  void synchronizeEvent(void* event) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto* e = static_cast<Event*>(event);
    completed_[e->stream] = std::max(completed_[e->stream], e->seq);
  }
  void destroyEvent(void* event) noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    --live_events_;
    delete static_cast<Event*>(event);
  }

  // The stream has finished all the work queued on it so far.
  void completeStream(c10::StreamId stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    completed_[stream] = submitted_[stream];
  }

  size_t used() { return heap_.used(); }
  size_t segments() { return heap_.blocks(); }
  int allocateCalls() { return heap_.calls(); }
  int liveEvents() {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_events_;
  }

 private:
  struct Event {
    c10::StreamId stream;
    uint64_t seq;
  };
  BoundedHeap heap_;
  std::mutex mutex_;  // the events
  int live_events_ = 0;
  std::map<c10::StreamId, uint64_t> submitted_;
  std::map<c10::StreamId, uint64_t> completed_;
};

// A host-memory fake of HostMemoryApi: page-locked memory of a fixed
// capacity (the locked-memory limit).
class FakeHost final : public ember::cuda::HostMemoryApi {
 public:
  explicit FakeHost(size_t capacity) : heap_(capacity) {}
  void* allocateHost(size_t size) override { return heap_.allocate(size); }
  void releaseHost(void* ptr) override { heap_.release(ptr); }
  size_t used() { return heap_.used(); }
  int calls() { return heap_.calls(); }

 private:
  BoundedHeap heap_;
};

}  // namespace ember_test
