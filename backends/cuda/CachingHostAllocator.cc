// backends/cuda/CachingHostAllocator.cc — See CachingHostAllocator.h.
#include "backends/cuda/CachingHostAllocator.h"

#include <algorithm>
#include <utility>

#include "c10/util/Exception.h"

namespace ember {
namespace cuda {

size_t CachingHostAllocator::roundSize(size_t size) {
  TORCH_CHECK(size <= (size_t{1} << 62), "CachingHostAllocator: a request of ", size,
              " bytes is larger than any host can pin; expected at most 2^62.");
  size_t rounded = kMinBlockSize;
  while (rounded < size) rounded <<= 1;
  return rounded;
}

CachingHostAllocator::CachingHostAllocator(HostMemoryApi* host, DeviceMemoryApi* events)
    : host_(host), events_api_(events) {
  TORCH_CHECK(host != nullptr && events != nullptr,
              "CachingHostAllocator: expected host memory and event interfaces, got null.");
}

CachingHostAllocator::~CachingHostAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  collectEvents();
  releaseFreeBlocks();
}

CachingHostAllocator::Block* CachingHostAllocator::findContaining(const void* ptr) const {
  const auto address = reinterpret_cast<uintptr_t>(ptr);
  auto it = blocks_.upper_bound(address);
  if (it == blocks_.begin()) return nullptr;
  --it;
  Block* b = it->second.get();
  return address < it->first + b->size ? b : nullptr;
}

// Completed events release their share of a freed block; the last one puts
// it back in its size class.
void CachingHostAllocator::collectEvents() {
  auto done = std::remove_if(pending_.begin(), pending_.end(), [this](const PendingEvent& p) {
    if (!events_api_->queryEvent(p.event)) return false;
    events_api_->destroyEvent(p.event);
    if (--p.block->pending_events == 0) free_[p.block->size].push_back(p.block);
    return true;
  });
  pending_.erase(done, pending_.end());
}

void CachingHostAllocator::releaseFreeBlocks() {
  for (auto& entry : free_) {
    for (Block* b : entry.second) {
      host_->releaseHost(b->ptr);
      ++stats_.num_host_free;
      stats_.segment.decrease(1);
      stats_.reserved_bytes.decrease(static_cast<int64_t>(b->size));
      blocks_.erase(reinterpret_cast<uintptr_t>(b->ptr));
    }
  }
  free_.clear();
}

void* CachingHostAllocator::malloc(size_t size) {
  if (size == 0) return nullptr;
  const size_t rounded = roundSize(size);
  std::lock_guard<std::mutex> lock(mutex_);
  collectEvents();
  Block* block = nullptr;
  auto cls = free_.find(rounded);
  if (cls != free_.end() && !cls->second.empty()) {
    block = cls->second.back();
    cls->second.pop_back();
  } else {
    ++stats_.num_host_alloc;
    void* ptr = host_->allocateHost(rounded);
    if (ptr == nullptr) {
      // Out of page-locked memory: give the cache back and try once more.
      releaseFreeBlocks();
      ++stats_.num_alloc_retries;
      ++stats_.num_host_alloc;
      ptr = host_->allocateHost(rounded);
    }
    if (ptr == nullptr) {
      ++stats_.num_ooms;
      C10_THROW_ERROR(OutOfMemoryError, "CUDA out of memory. Tried to allocate ",
                      formatSize(rounded), " of pinned host memory; ",
                      formatSize(static_cast<uint64_t>(stats_.allocated_bytes.current)),
                      " of pinned memory is in use by Ember. Free pinned tensors that are no "
                      "longer needed, pin smaller batches, or raise the locked-memory limit "
                      "(ulimit -l).");
    }
    auto owned = std::make_unique<Block>();
    owned->ptr = ptr;
    owned->size = rounded;
    block = owned.get();
    blocks_[reinterpret_cast<uintptr_t>(ptr)] = std::move(owned);
    stats_.segment.increase(1);
    stats_.reserved_bytes.increase(static_cast<int64_t>(rounded));
  }
  block->allocated = true;
  stats_.allocation.increase(1);
  stats_.allocated_bytes.increase(static_cast<int64_t>(block->size));
  return block->ptr;
}

void CachingHostAllocator::free(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
  TORCH_CHECK(it != blocks_.end(), "CachingHostAllocator: free of ", ptr,
              ", which is not the start of a pinned block this allocator handed out.");
  Block* b = it->second.get();
  TORCH_CHECK(b->allocated, "CachingHostAllocator: ", ptr,
              " was freed twice; free each pinned block once.");
  b->allocated = false;
  stats_.allocation.decrease(1);
  stats_.allocated_bytes.decrease(static_cast<int64_t>(b->size));
  if (b->streams.empty()) {
    free_[b->size].push_back(b);
    return;
  }
  // Copies queued on these streams may still read or write the block: it
  // is reusable once each stream has passed an event recorded now.
  for (const auto& s : b->streams) {
    pending_.push_back(PendingEvent{events_api_->recordEvent(s.first, s.second), b});
    ++b->pending_events;
  }
  b->streams.clear();
}

bool CachingHostAllocator::recordEvent(const void* ptr, c10::DeviceIndex device,
                                       c10::StreamId stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  Block* b = findContaining(ptr);
  if (b == nullptr || !b->allocated) return false;
  const auto use = std::make_pair(device, stream);
  if (std::find(b->streams.begin(), b->streams.end(), use) == b->streams.end()) {
    b->streams.push_back(use);
  }
  return true;
}

bool CachingHostAllocator::isPinned(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const Block* b = findContaining(ptr);
  return b != nullptr && b->allocated;
}

std::pair<void*, size_t> CachingHostAllocator::blockOf(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const Block* b = findContaining(ptr);
  if (b == nullptr || !b->allocated) return {nullptr, 0};
  return {b->ptr, b->size};
}

void CachingHostAllocator::emptyCache() {
  std::lock_guard<std::mutex> lock(mutex_);
  collectEvents();
  releaseFreeBlocks();
}

HostStats CachingHostAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void CachingHostAllocator::resetPeakStats() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.allocation.reset_peak();
  stats_.segment.reset_peak();
  stats_.allocated_bytes.reset_peak();
  stats_.reserved_bytes.reset_peak();
}

}  // namespace cuda
}  // namespace ember
