// backends/cuda/CachingAllocator.cc — the caching allocator's policy; see
// CachingAllocator.h. No CUDA here: device calls go through DeviceMemoryApi.
#include "backends/cuda/CachingAllocator.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <deque>
#include <iomanip>
#include <sstream>

#include "c10/util/Exception.h"

namespace ember {
namespace cuda {

void Stat::increase(int64_t amount) {
  current += amount;
  allocated += amount;
  peak = std::max(peak, current);
}

void Stat::decrease(int64_t amount) {
  current -= amount;
  freed += amount;
}

std::string formatSize(uint64_t bytes) {
  char buf[64];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof(buf), "%" PRIu64 " bytes", bytes);
  } else if (bytes < (1ull << 20)) {
    std::snprintf(buf, sizeof(buf), "%.2f KiB", bytes / 1024.0);
  } else if (bytes < (1ull << 30)) {
    std::snprintf(buf, sizeof(buf), "%.2f MiB", bytes / 1048576.0);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f GiB", bytes / 1073741824.0);
  }
  return buf;
}

size_t roundSize(size_t size) {
  if (size < kMinBlockSize) return kMinBlockSize;
  return kMinBlockSize * ((size + kMinBlockSize - 1) / kMinBlockSize);
}

namespace {

size_t allocationSize(size_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((rounded + kRoundLarge - 1) / kRoundLarge);
}

}  // namespace

// Note [Caching allocator blocks]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A segment is one device allocation; it is cut into Blocks chained by
// prev/next in address order. A Block is in exactly one of three states:
// allocated (in DeviceState::allocated), waiting for the events of its
// record_stream uses (event_count > 0), or free (in its pool's set). Only
// free neighbours are merged, so a block waiting on events is never reused
// or merged early. A segment is released to the device only when it is one
// free block (no prev, no next).
struct CachingAllocator::Block {
  Block(c10::DeviceIndex device_, c10::StreamId stream_, size_t size_,
        char* ptr_, bool small_)
      : device(device_), stream(stream_), size(size_), ptr(ptr_), small(small_) {}

  c10::DeviceIndex device;
  c10::StreamId stream;
  size_t size;
  size_t requested = 0;
  char* ptr;
  bool small;
  bool allocated = false;
  int event_count = 0;
  Block* prev = nullptr;
  Block* next = nullptr;
  std::set<c10::StreamId> stream_uses;

  bool isSplit() const { return prev != nullptr || next != nullptr; }
};

namespace {

// Pools order blocks by stream, then size, then address: the best fit on a
// stream is the lower_bound of (stream, size).
struct BlockOrder {
  bool operator()(const CachingAllocator::Block* a,
                  const CachingAllocator::Block* b) const {
    if (a->stream != b->stream) return a->stream < b->stream;
    if (a->size != b->size) return a->size < b->size;
    return a->ptr < b->ptr;
  }
};

}  // namespace

struct CachingAllocator::DeviceState {
  explicit DeviceState(c10::DeviceIndex index) : device(index) {}
  const c10::DeviceIndex device;
  std::mutex mutex;
  std::set<Block*, BlockOrder> small_pool;
  std::set<Block*, BlockOrder> large_pool;
  std::unordered_map<void*, Block*> allocated;
  std::deque<std::pair<void*, Block*>> events;  // record_stream events
  DeviceStats stats;

  std::set<Block*, BlockOrder>& pool(const Block* b) {
    return b->small ? small_pool : large_pool;
  }
};

namespace {

using Block = CachingAllocator::Block;

void updateStat(StatArray& stats, bool small, int64_t amount) {
  for (size_t t : {static_cast<size_t>(kAggregate),
                   static_cast<size_t>(small ? kSmallPool : kLargePool)}) {
    if (amount >= 0) {
      stats[t].increase(amount);
    } else {
      stats[t].decrease(-amount);
    }
  }
}

}  // namespace

CachingAllocator::CachingAllocator(DeviceMemoryApi* api) : api_(api) {}

CachingAllocator::~CachingAllocator() {
  // Cached segments go back to the device; blocks still allocated (tensors
  // that outlive the allocator) are left alone.
  try {
    emptyCache();
  } catch (...) {
  }
  for (auto& s : devices_) {
    for (auto& e : s->events) api_->destroyEvent(e.first);
    for (auto* pool : {&s->small_pool, &s->large_pool}) {
      for (Block* b : *pool) delete b;
    }
  }
}

CachingAllocator::DeviceState& CachingAllocator::state(
    c10::DeviceIndex device) {
  TORCH_CHECK(device >= 0, "CUDA caching allocator: device index ",
              static_cast<int>(device), " is negative; pass a device index.");
  std::lock_guard<std::mutex> lock(devices_mutex_);
  if (devices_.size() <= static_cast<size_t>(device)) {
    devices_.resize(device + 1);
  }
  if (!devices_[device]) devices_[device] = std::make_unique<DeviceState>(device);
  return *devices_[device];
}

namespace {

// Returns `block` (free, not in a pool) to its pool, merged with free
// neighbours. Caller holds the device's mutex.
void freeBlock(CachingAllocator::DeviceState& s, Block* block) {
  auto& pool = s.pool(block);
  for (Block* other : {block->prev, block->next}) {
    if (other == nullptr || other->allocated || other->event_count > 0) continue;
    pool.erase(other);
    if (other == block->prev) {
      block->ptr = other->ptr;
      block->prev = other->prev;
      if (block->prev) block->prev->next = block;
    } else {
      block->next = other->next;
      if (block->next) block->next->prev = block;
    }
    block->size += other->size;
    updateStat(s.stats.inactive_split_bytes, block->small,
               -static_cast<int64_t>(other->size));
    delete other;
  }
  if (block->isSplit()) {
    updateStat(s.stats.inactive_split_bytes, block->small,
               static_cast<int64_t>(block->size));
  }
  updateStat(s.stats.active, block->small, -1);
  pool.insert(block);
}

// Frees the blocks whose record_stream events all completed; with `wait`,
// waits for every event first. Caller holds the device's mutex.
void processEvents(CachingAllocator::DeviceState& s, DeviceMemoryApi* api,
                   bool wait) {
  for (auto it = s.events.begin(); it != s.events.end();) {
    if (wait) {
      api->synchronizeEvent(it->first);
    } else if (!api->queryEvent(it->first)) {
      ++it;
      continue;
    }
    api->destroyEvent(it->first);
    Block* block = it->second;
    it = s.events.erase(it);
    if (--block->event_count == 0) freeBlock(s, block);
  }
}

// Releases every wholly free segment in the pools. Caller holds the mutex.
void releaseCachedBlocks(CachingAllocator::DeviceState& s, DeviceMemoryApi* api) {
  processEvents(s, api, /*wait=*/true);
  for (auto* pool : {&s.small_pool, &s.large_pool}) {
    for (auto it = pool->begin(); it != pool->end();) {
      Block* b = *it;
      if (b->isSplit()) {
        ++it;
        continue;
      }
      api->release(s.device, b->ptr);
      updateStat(s.stats.reserved_bytes, b->small, -static_cast<int64_t>(b->size));
      updateStat(s.stats.segment, b->small, -1);
      it = pool->erase(it);
      delete b;
    }
  }
}

}  // namespace

void* CachingAllocator::malloc(c10::DeviceIndex device, size_t size,
                               c10::StreamId stream) {
  TORCH_CHECK(size > 0, "CUDA caching allocator: malloc of 0 bytes; callers "
              "represent empty storage with a null pointer instead.");
  DeviceState& s = state(device);
  std::lock_guard<std::mutex> lock(s.mutex);
  processEvents(s, api_, /*wait=*/false);

  const size_t rounded = roundSize(size);
  const bool small = rounded <= kSmallSize;
  auto& pool = small ? s.small_pool : s.large_pool;

  // The best fit among this stream's free blocks.
  Block key(device, stream, rounded, nullptr, small);
  Block* block = nullptr;
  auto it = pool.lower_bound(&key);
  if (it != pool.end() && (*it)->stream == stream) {
    block = *it;
    pool.erase(it);
    if (block->isSplit()) {
      updateStat(s.stats.inactive_split_bytes, small,
                 -static_cast<int64_t>(block->size));
    }
  } else {
    const size_t segment = allocationSize(rounded);
    void* ptr = api_->allocate(device, segment);
    if (ptr == nullptr) {
      // Out of memory: give the cache back and try once more.
      releaseCachedBlocks(s, api_);
      ++s.stats.num_alloc_retries;
      ptr = api_->allocate(device, segment);
    }
    if (ptr == nullptr) {
      ++s.stats.num_ooms;
      size_t free_bytes = 0, total_bytes = 0;
      api_->memoryInfo(device, &free_bytes, &total_bytes);
      const int64_t allocated = s.stats.allocated_bytes[kAggregate].current;
      const int64_t reserved = s.stats.reserved_bytes[kAggregate].current;
      C10_THROW_ERROR(OutOfMemoryError, "CUDA out of memory. Tried to allocate ",
                      formatSize(segment), ". GPU ", static_cast<int>(device),
                      " has a total capacity of ", formatSize(total_bytes), " of which ",
                      formatSize(free_bytes), " is free. Of the allocated memory ",
                      formatSize(allocated), " is allocated by Ember, and ",
                      formatSize(reserved - allocated),
                      " is reserved by Ember but unallocated. Free tensors that "
                      "are no longer needed, or use smaller batches.");
    }
    block = new Block(device, stream, segment, static_cast<char*>(ptr), small);
    updateStat(s.stats.reserved_bytes, small, static_cast<int64_t>(segment));
    updateStat(s.stats.segment, small, 1);
  }

  // Split off the rest when it is worth keeping: any 512 bytes in the small
  // pool, more than a small block's worth in the large one.
  const size_t remaining = block->size - rounded;
  if (small ? remaining >= kMinBlockSize : remaining > kSmallSize) {
    Block* rest = new Block(device, stream, remaining, block->ptr + rounded, small);
    rest->prev = block;
    rest->next = block->next;
    if (rest->next) rest->next->prev = rest;
    block->next = rest;
    block->size = rounded;
    pool.insert(rest);
    updateStat(s.stats.inactive_split_bytes, small, static_cast<int64_t>(remaining));
  }

  block->allocated = true;
  block->requested = size;
  s.allocated.emplace(block->ptr, block);
  updateStat(s.stats.allocation, small, 1);
  updateStat(s.stats.active, small, 1);
  updateStat(s.stats.allocated_bytes, small, static_cast<int64_t>(block->size));
  updateStat(s.stats.requested_bytes, small, static_cast<int64_t>(size));
  // The profiler's memory events (profile_memory) count the block's size,
  // as the statistics do.
  c10::reportMemoryUsageToProfiler(block->ptr, static_cast<int64_t>(block->size),
                                   c10::Device(c10::kCUDA, device));
  return block->ptr;
}

std::pair<CachingAllocator::DeviceState*, Block*>
CachingAllocator::findAllocated(void* ptr, const char* where) {
  std::vector<DeviceState*> states;
  {
    std::lock_guard<std::mutex> lock(devices_mutex_);
    for (auto& s : devices_) {
      if (s) states.push_back(s.get());
    }
  }
  for (DeviceState* s : states) {
    s->mutex.lock();
    auto it = s->allocated.find(ptr);
    if (it != s->allocated.end()) return {s, it->second};  // still locked
    s->mutex.unlock();
  }
  TORCH_CHECK(false, "CUDA caching allocator: ", where, ": pointer ", ptr,
              " was not allocated by this allocator (or was already freed).");
  return {nullptr, nullptr};
}

void CachingAllocator::free(void* ptr) {
  auto found = findAllocated(ptr, "free");
  DeviceState& s = *found.first;
  std::lock_guard<std::mutex> lock(s.mutex, std::adopt_lock);
  Block* block = found.second;
  s.allocated.erase(ptr);
  block->allocated = false;
  updateStat(s.stats.allocation, block->small, -1);
  updateStat(s.stats.allocated_bytes, block->small,
             -static_cast<int64_t>(block->size));
  updateStat(s.stats.requested_bytes, block->small,
             -static_cast<int64_t>(block->requested));
  c10::reportMemoryUsageToProfiler(ptr, -static_cast<int64_t>(block->size),
                                   c10::Device(c10::kCUDA, s.device));
  if (!block->stream_uses.empty()) {
    // Other streams may still read or write the block: it waits for an
    // event on each of them.
    for (c10::StreamId use : block->stream_uses) {
      s.events.emplace_back(api_->recordEvent(s.device, use), block);
      ++block->event_count;
    }
    block->stream_uses.clear();
    return;
  }
  freeBlock(s, block);
}

void CachingAllocator::recordStream(void* ptr, c10::StreamId stream) {
  auto found = findAllocated(ptr, "record_stream");
  std::lock_guard<std::mutex> lock(found.first->mutex, std::adopt_lock);
  Block* block = found.second;
  if (stream != block->stream) block->stream_uses.insert(stream);
}

size_t CachingAllocator::blockSize(void* ptr) {
  auto found = findAllocated(ptr, "block_size");
  std::lock_guard<std::mutex> lock(found.first->mutex, std::adopt_lock);
  return found.second->size;
}

void CachingAllocator::emptyCache() {
  std::vector<DeviceState*> states;
  {
    std::lock_guard<std::mutex> lock(devices_mutex_);
    for (auto& s : devices_) {
      if (s) states.push_back(s.get());
    }
  }
  for (DeviceState* s : states) {
    std::lock_guard<std::mutex> lock(s->mutex);
    releaseCachedBlocks(*s, api_);
  }
}

DeviceStats CachingAllocator::getStats(c10::DeviceIndex device) {
  DeviceState& s = state(device);
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.stats;
}

c10::AllocatorStats CachingAllocator::allocatorStats(c10::DeviceIndex device) {
  DeviceState& s = state(device);
  std::lock_guard<std::mutex> lock(s.mutex);
  const Stat& bytes = s.stats.allocated_bytes[kAggregate];
  const Stat& blocks = s.stats.allocation[kAggregate];
  c10::AllocatorStats out;
  out.bytes_in_use = bytes.current;
  out.peak_bytes = bytes.peak;
  out.allocation_count = blocks.allocated;
  out.free_count = blocks.freed;
  out.allocated_bytes_total = bytes.allocated;
  out.cached_bytes = s.stats.reserved_bytes[kAggregate].current - bytes.current;
  out.cached_blocks = static_cast<int64_t>(s.small_pool.size() + s.large_pool.size());
  return out;
}

void CachingAllocator::resetPeakStats(c10::DeviceIndex device) {
  DeviceState& s = state(device);
  std::lock_guard<std::mutex> lock(s.mutex);
  for (StatArray* a : {&s.stats.allocation, &s.stats.segment, &s.stats.active,
                       &s.stats.allocated_bytes, &s.stats.reserved_bytes,
                       &s.stats.requested_bytes, &s.stats.inactive_split_bytes}) {
    for (Stat& st : *a) st.reset_peak();
  }
}

namespace {

struct NamedStat {
  const char* name;
  StatArray DeviceStats::*member;
  bool bytes;
};

constexpr NamedStat kNamedStats[] = {
    {"allocation", &DeviceStats::allocation, false},
    {"segment", &DeviceStats::segment, false},
    {"active", &DeviceStats::active, false},
    {"allocated_bytes", &DeviceStats::allocated_bytes, true},
    {"reserved_bytes", &DeviceStats::reserved_bytes, true},
    {"requested_bytes", &DeviceStats::requested_bytes, true},
    {"inactive_split_bytes", &DeviceStats::inactive_split_bytes, true},
};

constexpr const char* kPoolNames[] = {"all", "small_pool", "large_pool"};

}  // namespace

std::map<std::string, int64_t> CachingAllocator::memoryStats(
    c10::DeviceIndex device) {
  const DeviceStats stats = getStats(device);
  std::map<std::string, int64_t> out;
  for (const NamedStat& n : kNamedStats) {
    for (size_t t = 0; t < 3; ++t) {
      const Stat& st = (stats.*n.member)[t];
      const std::string prefix = std::string(n.name) + "." + kPoolNames[t] + ".";
      out[prefix + "current"] = st.current;
      out[prefix + "peak"] = st.peak;
      out[prefix + "allocated"] = st.allocated;
      out[prefix + "freed"] = st.freed;
    }
  }
  out["num_alloc_retries"] = stats.num_alloc_retries;
  out["num_ooms"] = stats.num_ooms;
  return out;
}

std::string CachingAllocator::memorySummary(c10::DeviceIndex device) {
  const DeviceStats stats = getStats(device);
  std::ostringstream out;
  out << "|  Ember CUDA memory summary, device ID " << static_cast<int>(device)
      << "\n|  CUDA OOMs: " << stats.num_ooms
      << "  |  cudaMalloc retries: " << stats.num_alloc_retries << "\n";
  out << std::left << std::setw(34) << "|  Metric" << std::setw(14) << "Cur Usage"
      << std::setw(14) << "Peak Usage" << std::setw(14) << "Tot Alloc"
      << std::setw(14) << "Tot Freed" << "\n";
  for (const NamedStat& n : kNamedStats) {
    for (size_t t = 0; t < 3; ++t) {
      const Stat& st = (stats.*n.member)[t];
      auto fmt = [&](int64_t v) {
        return n.bytes ? formatSize(static_cast<uint64_t>(v)) : std::to_string(v);
      };
      out << std::setw(34)
          << ("|  " + std::string(n.name) + " (" + kPoolNames[t] + ")")
          << std::setw(14) << fmt(st.current) << std::setw(14) << fmt(st.peak)
          << std::setw(14) << fmt(st.allocated) << std::setw(14) << fmt(st.freed)
          << "\n";
    }
  }
  return out.str();
}

}  // namespace cuda
}  // namespace ember
