// c10/core/CPUAllocator.cc — aligned host allocation with exact counters.
#include "c10/core/CPUAllocator.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "c10/util/Exception.h"

namespace c10 {
namespace {

// Note [CPU block layout]
// ~~~~~~~~~~~~~~~~~~~~~~~
// posix_memalign is several times slower than malloc in glibc (it carves an
// aligned chunk out of a larger one), and free_cpu needs the block's size
// for the counters. So alloc_cpu mallocs nbytes + kCPUAlignment and rounds
// the pointer up, leaving a header just below the user pointer:
//
//   raw           user - 16        user - 8       user (64-byte aligned)
//   | padding ... | raw pointer    | nbytes       | nbytes of user data ...
//
// malloc returns at least 16-byte aligned memory, so rounding raw + 16 up to
// 64 moves it by at most 16 + 48 = 64 bytes: the header always fits and the
// data always ends inside the malloc'ed block.
struct BlockHeader {
  void* raw;
  size_t nbytes;
};
constexpr size_t kHeaderBytes = sizeof(BlockHeader);
static_assert(kHeaderBytes == 16, "BlockHeader must be two words");
static_assert(alignof(std::max_align_t) >= 16,
              "alloc_cpu relies on malloc returning 16-byte aligned memory");
static_assert(kHeaderBytes + kCPUAlignment - alignof(std::max_align_t) <=
                  kCPUAlignment,
              "the header must fit in the padding alloc_cpu adds");

BlockHeader* header_of(void* user) {
  return reinterpret_cast<BlockHeader*>(static_cast<char*>(user) -
                                        kHeaderBytes);
}

// Note [CPU allocator counters]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A global atomic read-modify-write costs ~6-8 ns, as much as half of a small
// malloc/free, and creating a tensor would pay two of them (bytes on
// allocate, bytes on free) on top of the count. So every thread counts in its
// own slot with plain loads and stores (relaxed atomics, written only by the
// owner):
//   count        allocations made on this thread, ever;
//   pending      bytes allocated minus bytes freed on this thread since the
//                slot last flushed (a block freed on another thread than it
//                was allocated on is subtracted there: sums stay exact);
//   pending_max  the highest `pending` since the last flush (or reset).
// When |pending| reaches kFlushBytes (64 KiB; at once for a large block), the
// slot flushes, under g_slots_mutex: one fetch_add moves `pending` into
// g_flushed, and g_peak is raised to the total of everything else (g_flushed
// before, plus the other slots' pending) plus pending_max, the slot's
// high-water mark on top of it. Flushes are rare (one per 64 KiB of net
// allocation, or per large block, whose malloc costs far more).
//
// Reading (under g_slots_mutex): bytes_in_use = g_flushed + sum(pending),
// exact. peak_bytes = the largest of g_peak and, for each slot, the current
// total with that slot at its pending_max instead of its pending. That is
// exact while one thread at a time allocates (the tests' case, and a
// training loop's); with several threads allocating at once a peak may be
// misjudged by at most the other threads' unflushed bytes, under 64 KiB per
// thread. cpu_allocator_stats() documents this.
//
// Slots are never freed: a thread gives its slot back at exit, keeping its
// totals, and a later thread reuses it. Ownership passes through
// g_slots_mutex, which orders the previous owner's last store before the new
// owner's first load.
constexpr int64_t kFlushBytes = int64_t{64} << 10;

std::atomic<int64_t> g_flushed{0};
std::atomic<int64_t> g_peak{0};

// Note [Small CPU blocks]
// ~~~~~~~~~~~~~~~~~~~~~~~
// Tiny tensors (scalars, 0-dim results, per-element autograd work) make and
// free a block on every op, and malloc+free of one is a sixth of what a
// whole tensor costs. So every request of at most kSmallBytes gets a raw
// block of the one size kSmallRaw (enough for kSmallBytes after the
// alignment padding of Note [CPU block layout]), and a freed one goes on a
// list in the freeing thread's counter slot (up to kSmallCapacity blocks;
// beyond that, back to free). The slot is reached through the same
// thread-local pointer as the counters, so the list costs no extra TLS
// access. A block freed on another thread than the one that allocated it
// simply joins that thread's list: blocks are plain memory. Lists live as
// long as their slots (for ever, reused by later threads: at most
// kSmallCapacity * kSmallRaw = 32 KiB per slot). The header's nbytes is the
// requested size, so the counters stay exact. Off under AddressSanitizer,
// whose use-after-free checks need every block to go back to malloc.
struct SmallBlock {
  SmallBlock* next;
};
constexpr size_t kSmallBytes = 64;
constexpr size_t kSmallRaw = kSmallBytes + kCPUAlignment;
constexpr unsigned kSmallCapacity = 256;
constexpr bool kSmallCacheEnabled = !C10_ASAN_ENABLED;

// Note [Large CPU blocks]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// glibc gives a freed block back to the kernel when it was mmapped, or when
// it lies at the top of the heap and the free space there passes the trim
// threshold. A loop that allocates and frees the same large buffers (a
// training step's activations, an op's output) can then pay a page fault
// per 4 KiB on every iteration: seen on conv2d of a 64x1x28x28 batch, whose
// 5.5 MB output cost two brk calls and 1.2 ms of page faults per call (2.7x
// the convolution itself), depending only on where the heap's top happened
// to be. So requests of kLargeMin to kLargeMax bytes are rounded up to a size
// class (8 per power of two: at most 12.5% more memory), and a freed one is
// kept on one list shared by all threads (at most kLargeCapacity blocks and
// kLargeCacheBytes in all; beyond that, back to free) for the next request
// of its class, newest first. The list is shared, under g_large_mutex (a lock
// costs tens of nanoseconds; a large block's first touch costs microseconds),
// because large tensors often die on another thread than the one that makes
// the next: an RPC server decodes a request's tensors on one gRPC thread and
// frees them on whichever sends the reply, and per-thread lists never
// returned those blocks to the decoding thread: a 2 x 4 MiB rpc_sync add
// spent half its time zeroing fresh huge pages. The counters still count
// requested bytes. Off under AddressSanitizer.
struct LargeBlock {
  LargeBlock* next;
  size_t capacity;
};
constexpr size_t kLargeMin = size_t{64} << 10;
constexpr size_t kLargeMax = size_t{64} << 20;
constexpr size_t kLargeCacheBytes = size_t{128} << 20;
constexpr unsigned kLargeCapacity = 64;
constexpr bool kLargeCacheEnabled = !C10_ASAN_ENABLED;

// The capacity a request of kLargeMin..kLargeMax bytes gets: rounded up to
// a multiple of an eighth of its power of two.
size_t large_class(size_t nbytes) {
  size_t power = kLargeMin;
  while (power * 2 <= nbytes) power *= 2;
  const size_t step = power / 8;
  return (nbytes + step - 1) / step * step;
}

bool is_large(size_t nbytes) { return nbytes >= kLargeMin && nbytes <= kLargeMax; }

// Note [Huge pages for large blocks]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A kernel that streams through a tensor much larger than the caches touches
// a new 4 KiB page every 64 cache lines: each costs a TLB miss, and the
// hardware prefetchers, which do not cross a 4 KiB boundary, start again on
// it. Linux backs memory with 2 MiB pages (transparent huge pages) where a
// mapping asks for them with madvise(MADV_HUGEPAGE), the default setting of
// /sys/kernel/mm/transparent_hugepage/enabled ("madvise"); glibc's malloc
// does not ask. So a raw block of at least kHugeMin bytes is a mapping of its
// own that starts on a 2 MiB boundary and is advised for huge pages; its
// length is rounded up to the base page only, so the kernel backs the 2 MiB
// stretches inside it with huge pages and the rest with base pages: no more
// memory than malloc would use. Measured on a Zen 4 VM, 1 thread, 16M floats
// (a stand-alone loop): sum 4.7-6.7 ms -> 3.4-3.8 ms, add into a new output
// that faults its pages in 49-51 ms -> 16-17 ms. Freed huge blocks in the
// large-block range are cached like any other (Note [Large CPU blocks]).
// EMBER_CPU_HUGE_PAGES=0 in the environment turns this off (read once); it
// is off under AddressSanitizer, whose checks need malloc's blocks.
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeMin = kHugePage;
constexpr bool kHugeBuildEnabled = !C10_ASAN_ENABLED;

bool huge_pages_enabled() {
  static const bool enabled = [] {
    if (!kHugeBuildEnabled) return false;
    const char* value = std::getenv("EMBER_CPU_HUGE_PAGES");
    return value == nullptr || std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

size_t base_page() {
  static const size_t page = [] {
    const long value = sysconf(_SC_PAGESIZE);
    return value > 0 ? static_cast<size_t>(value) : size_t{4096};
  }();
  return page;
}

// The length of the mapping behind a huge raw block of `bytes` bytes.
size_t huge_length(size_t bytes) {
  const size_t page = base_page();
  return (bytes + page - 1) / page * page;
}

bool is_huge(size_t raw_bytes) { return raw_bytes >= kHugeMin && huge_pages_enabled(); }

[[noreturn]] C10_NOINLINE void fail_allocation(size_t nbytes);

// munmap fails only for a range that is not a mapping of ours (a double
// free or a corrupted pointer). free_cpu is a deleter and cannot throw, and
// the address space is not what the allocator thinks: stop here.
[[noreturn]] C10_NOINLINE void fail_unmap(const void* address, size_t length, int error,
                                          const char* what) {
  std::fprintf(stderr, "DefaultCPUAllocator: munmap(%p, %zu) %s failed: %s\n", address, length,
               what, std::strerror(error));
  std::abort();
}

// `raw_bytes` (>= kHugeMin) of fresh memory starting on a 2 MiB boundary,
// advised for huge pages. See Note [Huge pages for large blocks].
void* map_huge(size_t raw_bytes, size_t nbytes) {
  const size_t length = huge_length(raw_bytes);
  if (C10_UNLIKELY(length > std::numeric_limits<size_t>::max() - kHugePage)) {
    fail_allocation(nbytes);
  }
  const size_t span = length + kHugePage;  // room to choose an aligned start
  void* mapped = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) fail_allocation(nbytes);
  const uintptr_t first = reinterpret_cast<uintptr_t>(mapped);
  const uintptr_t start = (first + kHugePage - 1) & ~static_cast<uintptr_t>(kHugePage - 1);
  const size_t head = start - first;
  const size_t tail = span - head - length;
  if (head > 0 && munmap(mapped, head) != 0) fail_unmap(mapped, head, errno, "of a slack head");
  if (tail > 0 && munmap(reinterpret_cast<void*>(start + length), tail) != 0) {
    fail_unmap(reinterpret_cast<void*>(start + length), tail, errno, "of a slack tail");
  }
  void* block = reinterpret_cast<void*>(start);
  // A hint: where the kernel has no huge pages (EINVAL) the block keeps base
  // pages and works the same.
  (void)madvise(block, length, MADV_HUGEPAGE);
  return block;
}

// A raw block of `raw_bytes` (the request plus alignment padding): mapped
// for huge pages from kHugeMin on, else malloc'ed; nullptr when malloc fails
// (a failed mapping throws).
void* raw_alloc(size_t raw_bytes, size_t nbytes) {
  if (is_huge(raw_bytes)) return map_huge(raw_bytes, nbytes);
  return std::malloc(raw_bytes);
}

// Gives back a raw block of `raw_bytes` from raw_alloc.
void raw_free(void* raw, size_t raw_bytes) {
  if (is_huge(raw_bytes)) {
    const size_t length = huge_length(raw_bytes);
    if (munmap(raw, length) != 0) fail_unmap(raw, length, errno, "freeing a huge-page block");
    return;
  }
  std::free(raw);
}

// Adds `delta` to a counter only its owner thread writes: a plain load and
// store (relaxed atomics so that readers on other threads are race-free).
template <typename T>
inline void owner_add(std::atomic<T>& counter, T delta) {
  counter.store(counter.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
}

struct alignas(64) CountSlot {  // own cache line: no false sharing
  std::atomic<int64_t> count{0};
  std::atomic<int64_t> pending{0};
  std::atomic<int64_t> pending_max{0};
  std::atomic<int64_t> frees{0};        // frees made on this thread, ever
  std::atomic<int64_t> bytes_total{0};  // bytes allocated on this thread, ever
  bool in_use = false;        // guarded by g_slots_mutex
  CountSlot* next = nullptr;  // guarded by g_slots_mutex
  // Freed small blocks kept for reuse by the slot's owner; See Note [Small
  // CPU blocks]. The lists are touched only by the owning thread (or, for a
  // slot no thread owns, under g_slots_mutex); the counts are atomics so
  // that cpu_allocator_stats() can read them.
  SmallBlock* small_head = nullptr;
  std::atomic<unsigned> small_count{0};
  // The g_empty_epoch this slot's cache last honoured; owner only. See Note
  // [Emptying the CPU cache].
  uint64_t empty_epoch = 0;
};

// Note [Emptying the CPU cache]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The large blocks are on the shared list, which cpu_allocator_empty_cache()
// frees at once. A running thread's small blocks are its own (no lock on the
// fast path), so it cannot take them from another thread: it frees its own
// thread's and those of slots no thread owns (under g_slots_mutex, which a
// thread must hold to take a slot), and bumps g_empty_epoch; every other
// thread compares the epoch on its large-block paths (which take a lock
// anyway) and frees its small blocks when it changed. Small blocks are at
// most 32 KiB per thread.
std::atomic<uint64_t> g_empty_epoch{0};

// Frees every cached small block of `slot` (its owner, or under
// g_slots_mutex for a slot no thread owns).
void release_cache(CountSlot* slot) {
  while (slot->small_head != nullptr) {
    SmallBlock* block = slot->small_head;
    slot->small_head = block->next;
    std::free(block);
  }
  slot->small_count.store(0, std::memory_order_relaxed);
}

// Owner only: frees the slot's small blocks if an empty_cache() asked since
// the last look.
inline void honour_empty_cache(CountSlot* slot) {
  const uint64_t epoch = g_empty_epoch.load(std::memory_order_relaxed);
  if (C10_UNLIKELY(slot->empty_epoch != epoch)) {
    slot->empty_epoch = epoch;
    release_cache(slot);
  }
}

// The shared list of freed large blocks; See Note [Large CPU blocks]. The
// counts are atomics so that cpu_allocator_stats() reads them without the
// lock; they change only under it.
std::mutex g_large_mutex;
LargeBlock* g_large_head = nullptr;  // guarded by g_large_mutex
std::atomic<unsigned> g_large_count{0};
std::atomic<size_t> g_large_bytes{0};  // their capacities

// A cached block of exactly `capacity` bytes, or nullptr.
void* take_large(size_t capacity) {
  std::lock_guard<std::mutex> lock(g_large_mutex);
  for (LargeBlock** link = &g_large_head; *link != nullptr; link = &(*link)->next) {
    LargeBlock* block = *link;
    if (block->capacity == capacity) {
      *link = block->next;
      g_large_count.store(g_large_count.load(std::memory_order_relaxed) - 1,
                          std::memory_order_relaxed);
      g_large_bytes.store(g_large_bytes.load(std::memory_order_relaxed) - capacity,
                          std::memory_order_relaxed);
      return block;
    }
  }
  return nullptr;
}

// Keeps `raw` (of `capacity` bytes) on the list if there is room.
bool keep_large(void* raw, size_t capacity) {
  std::lock_guard<std::mutex> lock(g_large_mutex);
  const unsigned count = g_large_count.load(std::memory_order_relaxed);
  const size_t bytes = g_large_bytes.load(std::memory_order_relaxed);
  if (count >= kLargeCapacity || bytes + capacity > kLargeCacheBytes) return false;
  auto* block = static_cast<LargeBlock*>(raw);
  block->next = g_large_head;
  block->capacity = capacity;
  g_large_head = block;
  g_large_count.store(count + 1, std::memory_order_relaxed);
  g_large_bytes.store(bytes + capacity, std::memory_order_relaxed);
  return true;
}

// Frees every block of the shared list.
void release_large_cache() {
  LargeBlock* head = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_large_mutex);
    head = g_large_head;
    g_large_head = nullptr;
    g_large_count.store(0, std::memory_order_relaxed);
    g_large_bytes.store(0, std::memory_order_relaxed);
  }
  while (head != nullptr) {  // munmap outside the lock
    LargeBlock* block = head;
    head = block->next;
    raw_free(block, block->capacity + kCPUAlignment);
  }
}

std::mutex g_slots_mutex;
CountSlot* g_slots_head = nullptr;  // guarded by g_slots_mutex
// Trivially constructible and destructible, so reading it needs no TLS
// guard. (Default TLS model: See Note [TLS model of the key sets].)
thread_local CountSlot* tls_slot = nullptr;

struct SlotReleaser {
  ~SlotReleaser() {
    std::lock_guard<std::mutex> lock(g_slots_mutex);
    if (tls_slot != nullptr) tls_slot->in_use = false;
    tls_slot = nullptr;
  }
};

C10_NOINLINE CountSlot* acquire_slot() {
  // Constructed once per thread on first use; its destructor returns the
  // slot at thread exit. (An allocation after that, from another
  // thread_local's destructor, takes a slot that is simply never returned.)
  static thread_local SlotReleaser releaser;
  (void)releaser;
  std::lock_guard<std::mutex> lock(g_slots_mutex);
  CountSlot* slot = g_slots_head;
  while (slot != nullptr && slot->in_use) slot = slot->next;
  if (slot == nullptr) {
    slot = new CountSlot();
    slot->next = g_slots_head;
    g_slots_head = slot;
  }
  slot->in_use = true;
  slot->empty_epoch = g_empty_epoch.load(std::memory_order_relaxed);
  tls_slot = slot;
  return slot;
}

inline CountSlot* my_slot() {
  CountSlot* slot = tls_slot;
  return C10_LIKELY(slot != nullptr) ? slot : acquire_slot();
}

void raise_peak(int64_t candidate) {
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (candidate > peak && !g_peak.compare_exchange_weak(
                                 peak, candidate, std::memory_order_relaxed)) {
  }
}

// Relaxed throughout: See Note [CPU allocator counters].
C10_NOINLINE void flush(CountSlot* slot, int64_t pending) {
  const int64_t high = std::max(pending, slot->pending_max.load(std::memory_order_relaxed));
  std::lock_guard<std::mutex> lock(g_slots_mutex);
  int64_t others = 0;
  for (CountSlot* s = g_slots_head; s != nullptr; s = s->next) {
    if (s != slot) others += s->pending.load(std::memory_order_relaxed);
  }
  const int64_t before = g_flushed.fetch_add(pending, std::memory_order_relaxed);
  raise_peak(before + others + high);
  slot->pending.store(0, std::memory_order_relaxed);
  slot->pending_max.store(0, std::memory_order_relaxed);
}

void count_allocation(CountSlot* slot, int64_t nbytes) {
  owner_add(slot->count, int64_t{1});
  owner_add(slot->bytes_total, nbytes);
  const int64_t pending = slot->pending.load(std::memory_order_relaxed) + nbytes;
  if (C10_UNLIKELY(pending >= kFlushBytes)) {
    flush(slot, pending);
    return;
  }
  slot->pending.store(pending, std::memory_order_relaxed);
  if (pending > slot->pending_max.load(std::memory_order_relaxed)) {
    slot->pending_max.store(pending, std::memory_order_relaxed);
  }
}

void count_free(CountSlot* slot, int64_t nbytes) {
  owner_add(slot->frees, int64_t{1});
  const int64_t pending = slot->pending.load(std::memory_order_relaxed) - nbytes;
  if (C10_UNLIKELY(pending <= -kFlushBytes)) {
    flush(slot, pending);
    return;
  }
  slot->pending.store(pending, std::memory_order_relaxed);
}

C10_NOINLINE void report_to_profiler_slow(void* ptr, int64_t bytes) {
  reportMemoryUsageToProfiler(ptr, bytes, Device(DeviceType::CPU));
}

// One relaxed load when no profiler records memory.
inline void report_to_profiler(void* ptr, int64_t bytes) {
  if (C10_UNLIKELY(detail::memory_reporter.load(std::memory_order_relaxed) != nullptr)) {
    report_to_profiler_slow(ptr, bytes);
  }
}

[[noreturn]] C10_NOINLINE void fail_allocation(size_t nbytes) {
  TORCH_CHECK(false, "DefaultCPUAllocator: cannot allocate ", nbytes,
              " bytes: out of memory. Free some memory (drop unused tensors) "
              "or allocate less.");
  std::abort();  // unreachable: TORCH_CHECK(false) always throws
}

class DefaultCPUAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    void* data = alloc_cpu(nbytes);
    return DataPtr(data, data, &free_cpu, device_);
  }
  void copy_data(void* dest, const void* src, size_t count) const override {
    default_copy_data(dest, src, count);
  }
  DeleterFnPtr raw_deleter() const override { return &free_cpu; }

 private:
  // Built once: copying it is cheaper than re-validating a new Device on
  // every allocation.
  const Device device_{DeviceType::CPU};
};

}  // namespace

void* alloc_cpu(size_t nbytes) {
  if (nbytes == 0) return nullptr;
  if (C10_UNLIKELY(nbytes > static_cast<size_t>(
                                std::numeric_limits<int64_t>::max()) -
                                kCPUAlignment)) {
    fail_allocation(nbytes);
  }
  CountSlot* slot = my_slot();
  void* raw = nullptr;
  if (nbytes <= kSmallBytes) {  // See Note [Small CPU blocks].
    SmallBlock* block = slot->small_head;
    if (kSmallCacheEnabled && block != nullptr) {
      slot->small_head = block->next;
      owner_add(slot->small_count, -1u);
      raw = block;
    } else {
      raw = std::malloc(kSmallRaw);
    }
  } else if (kLargeCacheEnabled && is_large(nbytes)) {  // See Note [Large CPU blocks].
    const size_t capacity = large_class(nbytes);
    honour_empty_cache(slot);
    raw = take_large(capacity);
    if (raw == nullptr) raw = raw_alloc(capacity + kCPUAlignment, nbytes);
  } else {
    raw = raw_alloc(nbytes + kCPUAlignment, nbytes);
  }
  if (C10_UNLIKELY(raw == nullptr)) fail_allocation(nbytes);
  // See Note [CPU block layout].
  const uintptr_t user_address =
      (reinterpret_cast<uintptr_t>(raw) + kHeaderBytes + kCPUAlignment - 1) &
      ~static_cast<uintptr_t>(kCPUAlignment - 1);
  void* user = reinterpret_cast<void*>(user_address);
  *header_of(user) = BlockHeader{raw, nbytes};
  count_allocation(slot, static_cast<int64_t>(nbytes));
  report_to_profiler(user, static_cast<int64_t>(nbytes));
  return user;
}

void free_cpu(void* data) {
  if (data == nullptr) return;
  const BlockHeader header = *header_of(data);
  CountSlot* slot = my_slot();
  count_free(slot, static_cast<int64_t>(header.nbytes));
  report_to_profiler(data, -static_cast<int64_t>(header.nbytes));
  if (kSmallCacheEnabled && header.nbytes <= kSmallBytes &&
      slot->small_count.load(std::memory_order_relaxed) < kSmallCapacity) {
    auto* block = static_cast<SmallBlock*>(header.raw);
    block->next = slot->small_head;
    slot->small_head = block;
    owner_add(slot->small_count, 1u);
    return;
  }
  if (kLargeCacheEnabled && is_large(header.nbytes)) {
    honour_empty_cache(slot);
    const size_t capacity = large_class(header.nbytes);
    if (keep_large(header.raw, capacity)) return;
    raw_free(header.raw, capacity + kCPUAlignment);
    return;
  }
  raw_free(header.raw, header.nbytes + kCPUAlignment);
}

Allocator* GetDefaultCPUAllocator() {
  // Leaked on purpose: see the header.
  static Allocator* const allocator = new DefaultCPUAllocator();
  return allocator;
}

Allocator* GetCPUAllocator() { return GetAllocator(DeviceType::CPU); }

void SetCPUAllocator(Allocator* alloc, uint8_t priority) {
  SetAllocator(DeviceType::CPU, alloc, priority);
}

CPUAllocatorStats cpu_allocator_stats() {
  // Relaxed: a snapshot of statistics; See Note [CPU allocator counters].
  CPUAllocatorStats stats{};
  std::lock_guard<std::mutex> lock(g_slots_mutex);
  int64_t total = g_flushed.load(std::memory_order_relaxed);
  for (CountSlot* slot = g_slots_head; slot != nullptr; slot = slot->next) {
    stats.allocation_count += slot->count.load(std::memory_order_relaxed);
    stats.free_count += slot->frees.load(std::memory_order_relaxed);
    stats.allocated_bytes_total += slot->bytes_total.load(std::memory_order_relaxed);
    total += slot->pending.load(std::memory_order_relaxed);
    // What the cached blocks hold from malloc (Note [Small CPU blocks],
    // Note [Large CPU blocks]: the alignment padding is part of the raw
    // block).
    const int64_t small = slot->small_count.load(std::memory_order_relaxed);
    stats.cached_blocks += small;
    stats.cached_bytes += small * static_cast<int64_t>(kSmallRaw);
  }
  const int64_t large = g_large_count.load(std::memory_order_relaxed);
  stats.cached_blocks += large;
  stats.cached_bytes += static_cast<int64_t>(g_large_bytes.load(std::memory_order_relaxed)) +
                        large * static_cast<int64_t>(kCPUAlignment);
  int64_t peak = std::max(total, g_peak.load(std::memory_order_relaxed));
  for (CountSlot* slot = g_slots_head; slot != nullptr; slot = slot->next) {
    const int64_t pending = slot->pending.load(std::memory_order_relaxed);
    const int64_t high = slot->pending_max.load(std::memory_order_relaxed);
    peak = std::max(peak, total - pending + std::max(high, pending));
  }
  stats.bytes_in_use = total;
  stats.peak_bytes = peak;
  return stats;
}

void reset_cpu_allocator_peak() {
  // Relaxed: statistics only; see the header for the race with allocations.
  std::lock_guard<std::mutex> lock(g_slots_mutex);
  int64_t total = g_flushed.load(std::memory_order_relaxed);
  for (CountSlot* slot = g_slots_head; slot != nullptr; slot = slot->next) {
    const int64_t pending = slot->pending.load(std::memory_order_relaxed);
    total += pending;
    slot->pending_max.store(pending, std::memory_order_relaxed);
  }
  g_peak.store(total, std::memory_order_relaxed);
}

void cpu_allocator_empty_cache() {
  // See Note [Emptying the CPU cache].
  release_large_cache();
  CountSlot* mine = my_slot();
  std::lock_guard<std::mutex> lock(g_slots_mutex);
  const uint64_t epoch = g_empty_epoch.fetch_add(1, std::memory_order_relaxed) + 1;
  mine->empty_epoch = epoch;
  for (CountSlot* slot = g_slots_head; slot != nullptr; slot = slot->next) {
    if (slot == mine || !slot->in_use) release_cache(slot);
  }
}

namespace {

// A size as the summary prints it: whole units, the largest unit that
// keeps at least 4 digits' worth below it (as PyTorch's tables: 1536 KiB,
// then 2 MiB from 10 MiB).
std::string format_size(int64_t bytes) {
  static const char* const units[] = {"B  ", "KiB", "MiB", "GiB", "TiB"};
  int64_t value = bytes;
  size_t unit = 0;
  while (unit + 1 < sizeof(units) / sizeof(units[0]) && (value >= 10240 || value <= -10240)) {
    value /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%7lld %s", static_cast<long long>(value), units[unit]);
  return buf;
}

std::string format_count(int64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%11lld", static_cast<long long>(n));
  return buf;
}

}  // namespace

std::string memory_summary(const AllocatorStats& stats, const std::string& title) {
  const std::string none = "          -";
  const size_t width = 79;  // a row: "| " metric(22) "|" then 4 x " value(11) |"
  const std::string bar = "|" + std::string(width, '=') + "|\n";
  const std::string rule = "|" + std::string(width, '-') + "|\n";
  auto centered = [&](const std::string& text) {
    const size_t pad = text.size() < width ? width - text.size() : 0;
    return "|" + std::string(pad / 2, ' ') + text + std::string(pad - pad / 2, ' ') + "|\n";
  };
  auto row = [](const char* metric, const std::string& cur, const std::string& peak,
                const std::string& alloc, const std::string& freed) {
    char buf[160];
    std::snprintf(buf, sizeof(buf), "| %-22s| %s | %s | %s | %s |\n", metric, cur.c_str(),
                  peak.c_str(), alloc.c_str(), freed.c_str());
    return std::string(buf);
  };
  std::string out;
  out += bar;
  out += centered("Ember " + title + " memory summary");
  out += bar;
  out += row("Metric", "  Cur Usage", " Peak Usage", "  Tot Alloc", "  Tot Freed");
  out += rule;
  out += row("Allocated memory", format_size(stats.bytes_in_use), format_size(stats.peak_bytes),
             format_size(stats.allocated_bytes_total), format_size(stats.freed_bytes_total()));
  out += row("Cached free memory", format_size(stats.cached_bytes), none, none, none);
  out += row("Reserved memory", format_size(stats.reserved_bytes()), none, none, none);
  out += rule;
  out += row("Active allocations", format_count(stats.active_blocks()), none,
             format_count(stats.allocation_count), format_count(stats.free_count));
  out += row("Cached free blocks", format_count(stats.cached_blocks), none, none, none);
  out += bar;
  return out;
}

std::string cpu_memory_summary() { return memory_summary(cpu_allocator_stats(), "CPU"); }

namespace {
// Registers the default allocator for DeviceType::CPU, priority 0, when the
// core library is loaded. See Note [Allocator registry] in Allocator.cc.
const bool g_cpu_allocator_registered = [] {
  SetAllocator(DeviceType::CPU, GetDefaultCPUAllocator(), 0);
  return true;
}();
}  // namespace

}  // namespace c10
