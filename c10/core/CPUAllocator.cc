// c10/core/CPUAllocator.cc — aligned host allocation with exact counters.
#include "c10/core/CPUAllocator.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <mutex>

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
// bytes_in_use and peak are global atomics, updated with relaxed operations:
// they are statistics, not synchronization, and every fetch_add result is a
// value the counter really took in its modification order, so taking the max
// of those results gives the exact peak. The peak is updated with a CAS loop
// only when exceeded, so steady-state code pays one relaxed load for it.
//
// The allocation count would be a third read-modify-write on every
// allocation (~8 ns each, where malloc+free of a small block is ~13 ns), so
// each thread counts in its own slot instead, with a plain load + store. Slots
// are never freed; a thread gives its slot back at exit and a later thread
// reuses it, keeping the running total, so the sum of all slots is the exact
// count. Ownership of a slot passes through g_slots_mutex, which orders the
// previous owner's last store before the new owner's first load.
std::atomic<int64_t> g_bytes_in_use{0};
std::atomic<int64_t> g_peak_bytes{0};

struct alignas(64) CountSlot {  // own cache line: no false sharing
  std::atomic<int64_t> count{0};
  bool in_use = false;       // guarded by g_slots_mutex
  CountSlot* next = nullptr;  // guarded by g_slots_mutex
};

std::mutex g_slots_mutex;
CountSlot* g_slots_head = nullptr;  // guarded by g_slots_mutex
// Trivially constructible and destructible, so reading it needs no TLS
// guard. initial-exec makes it one %fs-relative load instead of a call to
// __tls_get_addr from the shared core; the 8 bytes fit in the static TLS
// space glibc reserves even if the core is dlopen'ed.
#if defined(__GNUC__)
__attribute__((tls_model("initial-exec")))
#endif
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
  tls_slot = slot;
  return slot;
}

void count_allocation(int64_t nbytes) {
  // Relaxed: See Note [CPU allocator counters].
  const int64_t now =
      g_bytes_in_use.fetch_add(nbytes, std::memory_order_relaxed) + nbytes;
  int64_t peak = g_peak_bytes.load(std::memory_order_relaxed);
  while (now > peak && !g_peak_bytes.compare_exchange_weak(
                           peak, now, std::memory_order_relaxed)) {
  }
  CountSlot* slot = tls_slot;
  if (C10_UNLIKELY(slot == nullptr)) slot = acquire_slot();
  // Only this thread writes the slot; relaxed, as the other counters.
  slot->count.store(slot->count.load(std::memory_order_relaxed) + 1,
                    std::memory_order_relaxed);
}

[[noreturn]] C10_NOINLINE void fail_allocation(size_t nbytes) {
  TORCH_CHECK(false, "DefaultCPUAllocator: cannot allocate ", nbytes,
              " bytes: out of memory. Free some memory (drop unused tensors) "
              "or allocate less.");
  std::abort();  // unreachable: TORCH_CHECK(false) always throws
}

class DefaultCPUAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) const override {
    void* data = alloc_cpu(nbytes);
    return DataPtr(data, data, &free_cpu, device_);
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
  void* raw = std::malloc(nbytes + kCPUAlignment);
  if (C10_UNLIKELY(raw == nullptr)) fail_allocation(nbytes);
  // See Note [CPU block layout].
  const uintptr_t user_address =
      (reinterpret_cast<uintptr_t>(raw) + kHeaderBytes + kCPUAlignment - 1) &
      ~static_cast<uintptr_t>(kCPUAlignment - 1);
  void* user = reinterpret_cast<void*>(user_address);
  *header_of(user) = BlockHeader{raw, nbytes};
  count_allocation(static_cast<int64_t>(nbytes));
  return user;
}

void free_cpu(void* data) {
  if (data == nullptr) return;
  const BlockHeader header = *header_of(data);
  // Relaxed: See Note [CPU allocator counters].
  g_bytes_in_use.fetch_sub(static_cast<int64_t>(header.nbytes),
                           std::memory_order_relaxed);
  std::free(header.raw);
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
  CPUAllocatorStats stats{};
  // Relaxed: a snapshot of statistics; see the header's caveat.
  stats.bytes_in_use = g_bytes_in_use.load(std::memory_order_relaxed);
  stats.peak_bytes = g_peak_bytes.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(g_slots_mutex);
  for (CountSlot* slot = g_slots_head; slot != nullptr; slot = slot->next) {
    stats.allocation_count += slot->count.load(std::memory_order_relaxed);
  }
  return stats;
}

void reset_cpu_allocator_peak() {
  // Relaxed: statistics only; see the header for the race with allocations.
  g_peak_bytes.store(g_bytes_in_use.load(std::memory_order_relaxed),
                     std::memory_order_relaxed);
}

namespace {
// Registers the default allocator for DeviceType::CPU, priority 0, when the
// core library is loaded. See Note [Allocator registry] in Allocator.cc.
const bool g_cpu_allocator_registered = [] {
  SetAllocator(DeviceType::CPU, GetDefaultCPUAllocator(), 0);
  return true;
}();
}  // namespace

}  // namespace c10
