// tests/c10/allocator_test.cc — DataPtr ownership, the allocator registry and
// the default CPU allocator (alignment, counters, errors).
#include "c10/core/Allocator.h"
#include "c10/core/CPUAllocator.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <condition_variable>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

// HugeRequestThrowsNamingTheByteCount needs malloc to fail by returning
// null; ASan and TSan abort on such requests unless told otherwise. These
// hooks set the sanitizers' defaults and are unused in normal builds.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1";
}
extern "C" const char* __tsan_default_options() {
  return "allocator_may_return_null=1";
}

namespace {

using c10::DataPtr;
using c10::DeviceType;
using testing::HasSubstr;

int g_deleted = 0;
void counting_deleter(void*) { ++g_deleted; }
void other_deleter(void*) {}

// The allocator's block caches are off under AddressSanitizer.
constexpr bool kCachesOn = !C10_ASAN_ENABLED;

bool is_aligned(const void* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

TEST(DataPtr, MoveTransfersOwnershipAndDeletesExactlyOnce) {
  g_deleted = 0;
  int storage = 0;
  {
    DataPtr a(&storage, &storage, &counting_deleter, c10::Device(c10::kCPU));
    DataPtr b(std::move(a));
    EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(a.get(), nullptr);
    EXPECT_EQ(b.get(), &storage);
    EXPECT_EQ(b.get_context(), &storage);
    DataPtr c;
    c = std::move(b);
    EXPECT_TRUE(b == nullptr);  // NOLINT(bugprone-use-after-move)
    EXPECT_TRUE(c != nullptr);
    EXPECT_EQ(c.get_deleter(), &counting_deleter);
    EXPECT_EQ(g_deleted, 0);
  }
  EXPECT_EQ(g_deleted, 1);
}

TEST(DataPtr, MoveAssignmentFreesThePreviousContext) {
  g_deleted = 0;
  int x = 0, y = 0;
  DataPtr a(&x, &x, &counting_deleter, c10::kCPU);
  a = DataPtr(&y, &y, &counting_deleter, c10::kCPU);
  EXPECT_EQ(g_deleted, 1);
  EXPECT_EQ(a.get(), &y);
  a.clear();
  EXPECT_EQ(g_deleted, 2);
  EXPECT_FALSE(a);
  a.clear();  // nothing left to free
  EXPECT_EQ(g_deleted, 2);
}

TEST(DataPtr, ReleasedOrNonOwningContextIsNeverDeleted) {
  g_deleted = 0;
  int x = 0;
  {
    DataPtr borrowed(&x, c10::Device(c10::kCPU));
    EXPECT_TRUE(borrowed);
    EXPECT_EQ(borrowed.get_context(), nullptr);
    DataPtr owned(&x, &x, &counting_deleter, c10::kCPU);
    EXPECT_EQ(owned.release_context(), &x);
    EXPECT_EQ(owned.get(), &x);  // data stays readable
  }
  EXPECT_EQ(g_deleted, 0);
  {
    DataPtr owned(&x, &x, &counting_deleter, c10::kCPU);
    auto ctx = owned.move_context();
    EXPECT_EQ(owned.get_context(), nullptr);
  }
  EXPECT_EQ(g_deleted, 1);
}

TEST(DataPtr, CompareExchangeDeleterSwapsOnlyOnMatch) {
  g_deleted = 0;
  int x = 0;
  {
    DataPtr p(&x, &x, &other_deleter, c10::kCPU);
    EXPECT_FALSE(p.compare_exchange_deleter(&counting_deleter, &other_deleter));
    EXPECT_EQ(p.cast_context<int>(&counting_deleter), nullptr);
    EXPECT_EQ(p.cast_context<int>(&other_deleter), &x);
    EXPECT_TRUE(p.compare_exchange_deleter(&other_deleter, &counting_deleter));
    EXPECT_EQ(p.get_deleter(), &counting_deleter);
  }
  EXPECT_EQ(g_deleted, 1);
}

TEST(DataPtr, KeepsAndOverridesItsDevice) {
  DataPtr p(nullptr, c10::Device(c10::kCUDA, 1));
  EXPECT_EQ(p.device().type(), c10::kCUDA);
  EXPECT_EQ(p.device().index(), 1);
  p.unsafe_set_device(c10::Device(c10::kCPU));
  EXPECT_TRUE(p.device().is_cpu());
  EXPECT_TRUE(DataPtr().device().is_cpu());
}

TEST(DataPtr, StdFunctionContextCallsItsDeleterOnce) {
  int calls = 0;
  int x = 0;
  {
    DataPtr p = c10::InefficientStdFunctionContext::makeDataPtr(
        &x, [&calls, &x](void* ptr) { calls += (ptr == &x); }, c10::kCPU);
    EXPECT_EQ(p.get(), &x);
    DataPtr q = std::move(p);
  }
  EXPECT_EQ(calls, 1);
}

TEST(CPUAllocator, RegisteredForCpuAtStartup) {
  EXPECT_EQ(c10::GetAllocator(c10::kCPU), c10::GetDefaultCPUAllocator());
  EXPECT_EQ(c10::GetCPUAllocator(), c10::GetDefaultCPUAllocator());
  EXPECT_EQ(c10::GetDefaultCPUAllocator()->raw_deleter(), &c10::free_cpu);
}

TEST(CPUAllocator, AlignsEveryBlockTo64Bytes) {
  c10::Allocator* alloc = c10::GetCPUAllocator();
  std::vector<DataPtr> blocks;
  for (size_t n = 1; n <= 1024; n += (n < 130 ? 1 : 97)) {
    blocks.push_back(alloc->allocate(n));
    DataPtr& block = blocks.back();
    ASSERT_NE(block.get(), nullptr) << n;
    EXPECT_TRUE(is_aligned(block.get(), 64)) << n << " bytes at "
                                             << block.get();
    EXPECT_TRUE(block.device().is_cpu());
    std::memset(block.get(), 0xAB, n);  // the whole range is writable
  }
  DataPtr big = alloc->allocate(size_t(3) << 20);
  EXPECT_TRUE(is_aligned(big.get(), c10::kCPUAlignment));
}

TEST(CPUAllocator, ZeroByteRequestGivesNullDataThatIsSafeToDestroy) {
  const c10::CPUAllocatorStats before = c10::cpu_allocator_stats();
  {
    DataPtr empty = c10::GetCPUAllocator()->allocate(0);
    EXPECT_EQ(empty.get(), nullptr);
    EXPECT_FALSE(empty);
    EXPECT_TRUE(empty.device().is_cpu());
    EXPECT_EQ(c10::alloc_cpu(0), nullptr);
    c10::free_cpu(nullptr);
  }
  const c10::CPUAllocatorStats after = c10::cpu_allocator_stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.allocation_count, before.allocation_count);
}

TEST(CPUAllocator, StatsTrackBytesPeakAndCountExactly) {
  c10::Allocator* alloc = c10::GetCPUAllocator();
  c10::reset_cpu_allocator_peak();
  const c10::CPUAllocatorStats base = c10::cpu_allocator_stats();
  EXPECT_EQ(base.peak_bytes, base.bytes_in_use);
  {
    DataPtr a = alloc->allocate(100);
    DataPtr b = alloc->allocate(1000);
    c10::CPUAllocatorStats s = c10::cpu_allocator_stats();
    EXPECT_EQ(s.bytes_in_use, base.bytes_in_use + 1100);
    EXPECT_EQ(s.peak_bytes, base.bytes_in_use + 1100);
    EXPECT_EQ(s.allocation_count, base.allocation_count + 2);
    b.clear();
    DataPtr c = alloc->allocate(10);
    s = c10::cpu_allocator_stats();
    EXPECT_EQ(s.bytes_in_use, base.bytes_in_use + 110);
    EXPECT_EQ(s.peak_bytes, base.bytes_in_use + 1100);  // peak stays
    EXPECT_EQ(s.allocation_count, base.allocation_count + 3);
  }
  c10::CPUAllocatorStats s = c10::cpu_allocator_stats();
  EXPECT_EQ(s.bytes_in_use, base.bytes_in_use);
  EXPECT_EQ(s.peak_bytes, base.bytes_in_use + 1100);
  c10::reset_cpu_allocator_peak();
  EXPECT_EQ(c10::cpu_allocator_stats().peak_bytes, base.bytes_in_use);
}

TEST(CPUAllocator, StatsStayExactAcrossThreads) {
  constexpr int kThreads = 4;
  constexpr int kAllocations = 1000;
  const c10::CPUAllocatorStats base = c10::cpu_allocator_stats();
  for (int wave = 0; wave < 3; ++wave) {  // later waves reuse count slots
    std::vector<DataPtr> handed_over(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([t, &handed_over] {
        for (int i = 0; i < kAllocations - 1; ++i) {
          DataPtr p = c10::GetCPUAllocator()->allocate(8 + i % 64);
        }
        handed_over[t] = c10::GetCPUAllocator()->allocate(64);
      });
    }
    for (auto& thread : threads) thread.join();
    c10::CPUAllocatorStats s = c10::cpu_allocator_stats();
    EXPECT_EQ(s.bytes_in_use, base.bytes_in_use + kThreads * 64);
    handed_over.clear();  // freed on another thread than allocated them
  }
  const c10::CPUAllocatorStats s = c10::cpu_allocator_stats();
  EXPECT_EQ(s.bytes_in_use, base.bytes_in_use);
  EXPECT_EQ(s.allocation_count,
            base.allocation_count + 3 * kThreads * kAllocations);
}

// Freed blocks of <= 64 bytes are kept per thread and handed out again
// (Note [Small CPU blocks]): reused blocks must be aligned, must not overlap
// live ones, and must keep the counters exact, also past the list's capacity
// and when the sizes of the requests change.
TEST(CPUAllocator, ReusedSmallBlocksAreAlignedDisjointAndCounted) {
  c10::Allocator* alloc = c10::GetCPUAllocator();
  const c10::CPUAllocatorStats base = c10::cpu_allocator_stats();
  int64_t expected_bytes = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<DataPtr> live;
    for (int i = 0; i < 600; ++i) {  // more than the per-thread list keeps
      const size_t n = 1 + static_cast<size_t>((i * 7 + round) % 64);
      live.push_back(alloc->allocate(n));
      ASSERT_TRUE(is_aligned(live.back().get(), 64)) << n;
      std::memset(live.back().get(), i & 0xFF, n);
      expected_bytes += static_cast<int64_t>(n);
    }
    for (int i = 0; i < 600; ++i) {  // no block was handed out twice
      const size_t n = 1 + static_cast<size_t>((i * 7 + round) % 64);
      const auto* bytes = static_cast<const unsigned char*>(live[i].get());
      for (size_t k = 0; k < n; ++k) ASSERT_EQ(bytes[k], i & 0xFF) << i;
    }
    EXPECT_EQ(c10::cpu_allocator_stats().bytes_in_use,
              base.bytes_in_use + expected_bytes);
    live.clear();
    expected_bytes = 0;
    EXPECT_EQ(c10::cpu_allocator_stats().bytes_in_use, base.bytes_in_use);
  }
  EXPECT_EQ(c10::cpu_allocator_stats().allocation_count,
            base.allocation_count + 3 * 600);
}

// Freed blocks of 64 KiB to 64 MiB are kept by size class
// (Note [Large CPU blocks]): a block of the same class comes back, blocks in
// use never overlap, every byte of a request is usable, the counters count
// requested bytes, and blocks freed on another thread are fine to reuse.
TEST(CPUAllocator, ReusedLargeBlocksAreDisjointWritableAndCounted) {
  c10::Allocator* alloc = c10::GetCPUAllocator();
  const c10::CPUAllocatorStats base = c10::cpu_allocator_stats();
  const std::vector<size_t> sizes = {size_t{64} << 10, 100000, 5537792, 5537792 - 4096,
                                     (size_t{64} << 20)};
  void* first = nullptr;
  for (int round = 0; round < 3; ++round) {
    std::vector<DataPtr> live;
    int64_t expected = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      live.push_back(alloc->allocate(sizes[i]));
      ASSERT_TRUE(is_aligned(live.back().get(), 64));
      std::memset(live.back().get(), static_cast<int>(i + 1), sizes[i]);
      expected += static_cast<int64_t>(sizes[i]);
    }
    if (round == 0) first = live[2].get();
    if (kCachesOn && round > 0) {
      // 5537792 and 5537792 - 4096 share a class: one of the two blocks
      // freed last round is handed out again.
      EXPECT_TRUE(live[2].get() == first || live[3].get() == first);
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
      const auto* bytes = static_cast<const unsigned char*>(live[i].get());
      ASSERT_EQ(bytes[0], i + 1);
      ASSERT_EQ(bytes[sizes[i] - 1], i + 1);  // no other live block overlaps
    }
    EXPECT_EQ(c10::cpu_allocator_stats().bytes_in_use, base.bytes_in_use + expected);
  }
  EXPECT_EQ(c10::cpu_allocator_stats().bytes_in_use, base.bytes_in_use);
  EXPECT_EQ(c10::cpu_allocator_stats().allocation_count,
            base.allocation_count + 3 * static_cast<int64_t>(sizes.size()));
  // A block made here and freed on another thread comes back here (an RPC
  // server decodes on one thread and frees on another).
  DataPtr moved = alloc->allocate(1 << 20);
  std::memset(moved.get(), 7, 1 << 20);
  void* moved_address = moved.get();
  std::thread([&moved] { DataPtr gone = std::move(moved); }).join();
  DataPtr again = alloc->allocate(1 << 20);
  if (kCachesOn) {
    EXPECT_EQ(again.get(), moved_address);
  }
  std::memset(again.get(), 9, 1 << 20);
  again.clear();
  EXPECT_EQ(c10::cpu_allocator_stats().bytes_in_use, base.bytes_in_use);
  // Sizes outside the range are not affected.
  DataPtr huge = alloc->allocate((size_t{64} << 20) + 1);
  std::memset(huge.get(), 1, (size_t{64} << 20) + 1);
}

// The kernel's transparent-huge-page mode ("always", "madvise" or "never",
// the bracketed word of /sys/kernel/mm/transparent_hugepage/enabled), or ""
// when the kernel has none.
std::string thp_mode() {
  std::ifstream file("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(file, text);
  const size_t open = text.find('[');
  const size_t close = text.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return text.substr(open + 1, close - open - 1);
}

// /proc/self/smaps's THPeligible (0 or 1) for the mapping that holds `p`; -1
// when no mapping holds it or the kernel does not report the field.
int thp_eligible(const void* p) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= address && address < end;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) {
      return std::atoi(line.c_str() + std::strlen("THPeligible:"));
    }
  }
  return -1;
}

// Blocks of 2 MiB and more are mappings advised for huge pages (Note [Huge
// pages for large blocks]), smaller ones are malloc's; EMBER_CPU_HUGE_PAGES=0
// (the suite's second target, allocator_no_huge_pages_test) turns it off.
// Every byte stays usable, in and out of the large-block cache.
TEST(CPUAllocator, BlocksOfTwoMiBAndMoreAskForHugePages) {
  if (C10_ASAN_ENABLED) GTEST_SKIP() << "huge-page blocks are off under AddressSanitizer";
  const std::string mode = thp_mode();
  if (mode != "madvise") {
    GTEST_SKIP() << "this kernel's transparent huge pages are '" << mode
                 << "' (/sys/kernel/mm/transparent_hugepage/enabled); the test needs "
                    "'madvise', where only advised mappings are eligible";
  }
  {
    DataPtr probe = c10::GetCPUAllocator()->allocate(size_t{4} << 20);
    if (thp_eligible(probe.get()) < 0) {
      GTEST_SKIP() << "this kernel's /proc/self/smaps has no THPeligible field (Linux >= 5.0)";
    }
  }
  const char* setting = std::getenv("EMBER_CPU_HUGE_PAGES");
  const int expected = setting != nullptr && std::string(setting) == "0" ? 0 : 1;
  c10::Allocator* alloc = c10::GetCPUAllocator();
  const c10::CPUAllocatorStats base = c10::cpu_allocator_stats();
  // 1966081 bytes is the first request whose size class (2 MiB) with the
  // alignment padding reaches 2 MiB; 1966080 (1.875 MiB, a class) the last
  // that does not.
  constexpr size_t kLastMalloced = 1966080;
  const std::vector<size_t> sizes = {kLastMalloced + 1, 5537792,
                                     size_t{64} << 20, (size_t{64} << 20) + 1,
                                     (size_t{96} << 20) + 12345};
  for (int round = 0; round < 2; ++round) {  // the second round reuses cached blocks
    std::vector<DataPtr> live;
    for (size_t i = 0; i < sizes.size(); ++i) {
      live.push_back(alloc->allocate(sizes[i]));
      ASSERT_TRUE(is_aligned(live.back().get(), 64));
      std::memset(live.back().get(), static_cast<int>(i + 1), sizes[i]);
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
      SCOPED_TRACE(std::to_string(sizes[i]) + " bytes, round " + std::to_string(round));
      const auto* bytes = static_cast<const unsigned char*>(live[i].get());
      ASSERT_EQ(bytes[0], i + 1);
      ASSERT_EQ(bytes[sizes[i] - 1], i + 1);
      EXPECT_EQ(thp_eligible(bytes), expected);
      EXPECT_EQ(thp_eligible(bytes + sizes[i] - 1), expected);
    }
  }
  DataPtr below = alloc->allocate(kLastMalloced);  // malloc's: not advised
  std::memset(below.get(), 3, kLastMalloced);
  EXPECT_EQ(thp_eligible(below.get()), 0);
  below.clear();
  EXPECT_EQ(c10::cpu_allocator_stats().bytes_in_use, base.bytes_in_use);
  c10::cpu_allocator_empty_cache();  // unmaps the cached ones
  EXPECT_EQ(c10::cpu_allocator_stats().cached_bytes, 0);
}

TEST(CPUAllocator, PeakSeesALargeBlockOfAnotherThread) {
  c10::reset_cpu_allocator_peak();
  const c10::CPUAllocatorStats base = c10::cpu_allocator_stats();
  std::thread([] {
    DataPtr small = c10::GetCPUAllocator()->allocate(100);
    DataPtr big = c10::GetCPUAllocator()->allocate(1 << 20);
  }).join();
  const c10::CPUAllocatorStats s = c10::cpu_allocator_stats();
  EXPECT_EQ(s.bytes_in_use, base.bytes_in_use);
  EXPECT_EQ(s.peak_bytes, base.bytes_in_use + 100 + (1 << 20));
}

TEST(CPUAllocator, HugeRequestThrowsNamingTheByteCount) {
  const c10::CPUAllocatorStats before = c10::cpu_allocator_stats();
  for (size_t n : {size_t(1) << 62, std::numeric_limits<size_t>::max()}) {
    try {
      DataPtr p = c10::GetCPUAllocator()->allocate(n);
      FAIL() << "allocating " << n << " bytes succeeded";
    } catch (const c10::Error& e) {
      EXPECT_THAT(e.msg(), HasSubstr("DefaultCPUAllocator: cannot allocate " +
                                     std::to_string(n) + " bytes"));
      EXPECT_THAT(e.msg(), HasSubstr("out of memory"));
    }
  }
  const c10::CPUAllocatorStats after = c10::cpu_allocator_stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.allocation_count, before.allocation_count);
}

TEST(CPUAllocator, RawAllocateRoundTripsThroughRawDeallocate) {
  c10::Allocator* alloc = c10::GetCPUAllocator();
  const int64_t in_use = c10::cpu_allocator_stats().bytes_in_use;
  void* p = alloc->raw_allocate(256);
  EXPECT_TRUE(is_aligned(p, 64));
  EXPECT_EQ(c10::cpu_allocator_stats().bytes_in_use, in_use + 256);
  alloc->raw_deallocate(p);
  EXPECT_EQ(c10::cpu_allocator_stats().bytes_in_use, in_use);
}

// An allocator whose DataPtrs carry a separate context and no raw deleter.
struct ContextAllocator final : c10::Allocator {
  static void free_int(void* ctx) { delete static_cast<int*>(ctx); }
  DataPtr allocate(size_t) override {
    int* ctx = new int(0);
    return DataPtr(nullptr, ctx, &free_int, c10::Device(c10::kPrivateUse1));
  }
  void copy_data(void*, const void*, size_t) const override {}
};

TEST(Allocator, RawDeallocateWithoutRawDeleterIsRejected) {
  ContextAllocator alloc;
  try {
    alloc.raw_deallocate(nullptr);
    FAIL() << "raw_deallocate accepted an allocator without raw_deleter";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.msg(), HasSubstr("Allocator::raw_deallocate: this allocator "
                                   "has no raw_deleter()"));
  }
  try {
    alloc.raw_allocate(4);
    FAIL() << "raw_allocate accepted a DataPtr with a separate context";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.msg(), HasSubstr("Allocator::raw_allocate"));
  }
}

TEST(AllocatorRegistry, HigherOrEqualPriorityReplacesLowerDoesNot) {
  ContextAllocator first, second, third;
  c10::SetAllocator(c10::kPrivateUse1, &first, 1);
  EXPECT_EQ(c10::GetAllocator(c10::kPrivateUse1), &first);
  c10::SetAllocator(c10::kPrivateUse1, &second, 0);  // lower: ignored
  EXPECT_EQ(c10::GetAllocator(c10::kPrivateUse1), &first);
  c10::SetAllocator(c10::kPrivateUse1, &second, 1);  // equal: replaces
  EXPECT_EQ(c10::GetAllocator(c10::kPrivateUse1), &second);
  c10::SetAllocator(c10::kPrivateUse1, &third, 5);  // higher: replaces
  EXPECT_EQ(c10::GetAllocator(c10::kPrivateUse1), &third);
  DataPtr p = c10::GetAllocator(c10::kPrivateUse1)->allocate(1);
  EXPECT_EQ(p.device().type(), c10::kPrivateUse1);
  c10::SetAllocator(c10::kPrivateUse1, nullptr, 5);  // unregister
  EXPECT_THROW(c10::GetAllocator(c10::kPrivateUse1), c10::Error);
  c10::SetAllocator(c10::kPrivateUse1, &first, 0);  // priority was reset
  EXPECT_EQ(c10::GetAllocator(c10::kPrivateUse1), &first);
  c10::SetAllocator(c10::kPrivateUse1, nullptr, 0);
}

TEST(AllocatorRegistry, MissingAllocatorErrorNamesTheDeviceType) {
  try {
    c10::GetAllocator(c10::kCUDA);
    FAIL() << "GetAllocator(CUDA) succeeded without a CUDA allocator";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.msg(),
                HasSubstr("GetAllocator: no allocator is registered for "
                          "device type CUDA. Load the backend plugin for CUDA "
                          "before allocating on it."));
  }
}

TEST(AllocatorRegistry, OutOfRangeDeviceTypeIsRejected) {
  try {
    c10::GetAllocator(static_cast<DeviceType>(-3));
    FAIL() << "GetAllocator accepted device type -3";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.msg(), HasSubstr("GetAllocator: device type value -3 is "
                                   "out of range"));
  }
}

TEST(AllocatorRegistry, LookupsRaceSafelyWithRegistration) {
  ContextAllocator a, b;
  c10::SetAllocator(c10::kPrivateUse1, &a, 0);
  std::thread writer([&] {
    for (int i = 0; i < 2000; ++i) {
      c10::SetAllocator(c10::kPrivateUse1, i % 2 ? &a : &b, 0);
    }
  });
  for (int i = 0; i < 2000; ++i) {
    c10::Allocator* got = c10::GetAllocator(c10::kPrivateUse1);
    EXPECT_TRUE(got == &a || got == &b);
  }
  writer.join();
  c10::SetAllocator(c10::kPrivateUse1, nullptr, 0);
}

}  // namespace

// PyTorch's interface: allocate() is not const, copy_data() copies between
// two of the allocator's blocks and clone() duplicates one.
TEST(Allocator, CloneCopiesTheBytesIntoAFreshBlock) {
  c10::Allocator* alloc = c10::GetAllocator(c10::kCPU);
  DataPtr original = alloc->allocate(16);
  for (int i = 0; i < 16; ++i) static_cast<unsigned char*>(original.get())[i] = i * 3;
  DataPtr copy = alloc->clone(original.get(), 16);
  ASSERT_NE(copy.get(), original.get());
  EXPECT_EQ(std::memcmp(copy.get(), original.get(), 16), 0);
  EXPECT_EQ(copy.device(), c10::Device(c10::kCPU));
  alloc->copy_data(original.get(), copy.get(), 0);  // 0 bytes: nothing to copy
  DataPtr empty = alloc->clone(nullptr, 0);
  EXPECT_EQ(empty.device(), c10::Device(c10::kCPU));
}

// The totals behind memory_summary(): allocations, frees and bytes ever.
TEST(CPUAllocator, StatsCountFreesAndTotalBytes) {
  c10::Allocator* alloc = c10::GetCPUAllocator();
  const c10::CPUAllocatorStats base = c10::cpu_allocator_stats();
  {
    DataPtr a = alloc->allocate(100);
    DataPtr b = alloc->allocate(size_t{200} << 10);
    const c10::CPUAllocatorStats s = c10::cpu_allocator_stats();
    EXPECT_EQ(s.active_blocks(), base.active_blocks() + 2);
    EXPECT_EQ(s.free_count, base.free_count);
  }
  const c10::CPUAllocatorStats s = c10::cpu_allocator_stats();
  EXPECT_EQ(s.allocation_count, base.allocation_count + 2);
  EXPECT_EQ(s.free_count, base.free_count + 2);
  EXPECT_EQ(s.allocated_bytes_total, base.allocated_bytes_total + 100 + (200 << 10));
  EXPECT_EQ(s.freed_bytes_total(), base.freed_bytes_total() + 100 + (200 << 10));
  EXPECT_EQ(s.active_blocks(), base.active_blocks());
  EXPECT_EQ(s.reserved_bytes(), s.bytes_in_use + s.cached_bytes);
}

// A freed large block stays cached (counted in cached_bytes, not in
// bytes_in_use) until cpu_allocator_empty_cache() gives it back, whichever
// thread freed it (Note [Emptying the CPU cache]).
TEST(CPUAllocator, EmptyCacheReleasesCachedBlocksOfThisAndOtherThreads) {
  if (!kCachesOn) GTEST_SKIP() << "the block caches are off under AddressSanitizer";
  c10::Allocator* alloc = c10::GetCPUAllocator();
  constexpr size_t kBlock = size_t{1} << 20;  // a size class of its own
  c10::cpu_allocator_empty_cache();
  const c10::CPUAllocatorStats empty = c10::cpu_allocator_stats();
  EXPECT_EQ(empty.cached_bytes, 0);  // no other thread runs in this test
  EXPECT_EQ(empty.cached_blocks, 0);
  alloc->allocate(kBlock).clear();
  c10::CPUAllocatorStats s = c10::cpu_allocator_stats();
  EXPECT_EQ(s.cached_blocks, 1);
  EXPECT_EQ(s.cached_bytes, static_cast<int64_t>(kBlock + c10::kCPUAlignment));
  EXPECT_EQ(s.bytes_in_use, empty.bytes_in_use);
  EXPECT_THAT(c10::cpu_memory_summary(), HasSubstr("| Cached free blocks    |           1 |"));
  c10::cpu_allocator_empty_cache();
  EXPECT_EQ(c10::cpu_allocator_stats().cached_bytes, 0);

  // Another thread frees a large block and a small one and waits while this
  // one empties the cache: the large block goes at once, the small one at
  // that thread's next large-block operation.
  std::mutex mutex;
  std::condition_variable cv;
  int stage = 0;
  std::thread other([&] {
    c10::GetCPUAllocator()->allocate(kBlock).clear();
    c10::GetCPUAllocator()->allocate(16).clear();
    std::unique_lock<std::mutex> lock(mutex);
    stage = 1;
    cv.notify_all();
    cv.wait(lock, [&] { return stage == 2; });
    lock.unlock();
    c10::GetCPUAllocator()->allocate(kBlock).clear();  // frees the small one
    lock.lock();
    stage = 3;
    cv.notify_all();
    cv.wait(lock, [&] { return stage == 4; });
  });
  std::unique_lock<std::mutex> lock(mutex);
  cv.wait(lock, [&] { return stage == 1; });
  s = c10::cpu_allocator_stats();
  EXPECT_EQ(s.cached_blocks, 2);
  EXPECT_EQ(s.cached_bytes,
            static_cast<int64_t>(kBlock + c10::kCPUAlignment + 64 + c10::kCPUAlignment));
  c10::cpu_allocator_empty_cache();
  s = c10::cpu_allocator_stats();
  EXPECT_EQ(s.cached_blocks, 1);  // the small block of a running thread stays
  EXPECT_EQ(s.cached_bytes, static_cast<int64_t>(64 + c10::kCPUAlignment));
  stage = 2;
  cv.notify_all();
  cv.wait(lock, [&] { return stage == 3; });
  s = c10::cpu_allocator_stats();
  EXPECT_EQ(s.cached_blocks, 1);  // the large block it freed again
  EXPECT_EQ(s.cached_bytes, static_cast<int64_t>(kBlock + c10::kCPUAlignment));
  stage = 4;
  cv.notify_all();
  lock.unlock();
  other.join();
  c10::cpu_allocator_empty_cache();
  EXPECT_EQ(c10::cpu_allocator_stats().cached_bytes, 0);
}

TEST(CPUAllocator, MemorySummaryPrintsEveryRowInWholeUnits) {
  c10::AllocatorStats stats;
  stats.bytes_in_use = 1536;
  stats.peak_bytes = 20 << 10;
  stats.allocation_count = 7;
  stats.free_count = 5;
  stats.allocated_bytes_total = int64_t{300} << 20;
  stats.cached_bytes = int64_t{5} << 30;
  stats.cached_blocks = 3;
  const std::string text = c10::memory_summary(stats, "CPU");
  EXPECT_THAT(text, HasSubstr("Ember CPU memory summary"));
  EXPECT_THAT(text, HasSubstr("| Metric                |   Cur Usage |  Peak Usage |"
                              "   Tot Alloc |   Tot Freed |"));
  EXPECT_THAT(text, HasSubstr("| Allocated memory      |    1536 B   |      20 KiB |"
                              "     300 MiB |     299 MiB |"));
  EXPECT_THAT(text, HasSubstr("| Cached free memory    |    5120 MiB |"));
  EXPECT_THAT(text, HasSubstr("| Reserved memory       |    5120 MiB |"));
  EXPECT_THAT(text, HasSubstr("| Active allocations    |           2 |           - |"
                              "           7 |           5 |"));
  EXPECT_THAT(text, HasSubstr("| Cached free blocks    |           3 |"));
}

namespace {
struct Reported {
  void* ptr;
  int64_t bytes;
  c10::Device device;
};
std::vector<Reported>* g_reported = nullptr;
void record_report(void* ptr, int64_t bytes, c10::Device device) {
  if (g_reported != nullptr) g_reported->push_back({ptr, bytes, device});
}
}  // namespace

// The profiler's memory hook sees each allocation and free with its size.
TEST(CPUAllocator, MemoryReporterSeesAllocationsAndFrees) {
  std::vector<Reported> reported;
  g_reported = &reported;
  c10::SetMemoryReporter(&record_report);
  void* data = nullptr;
  {
    DataPtr a = c10::GetCPUAllocator()->allocate(100);
    data = a.get();
  }
  c10::SetMemoryReporter(nullptr);
  DataPtr unseen = c10::GetCPUAllocator()->allocate(100);
  g_reported = nullptr;
  ASSERT_EQ(reported.size(), 2u);
  EXPECT_EQ(reported[0].ptr, data);
  EXPECT_EQ(reported[0].bytes, 100);
  EXPECT_EQ(reported[0].device, c10::Device(c10::kCPU));
  EXPECT_EQ(reported[1].ptr, data);
  EXPECT_EQ(reported[1].bytes, -100);
}
