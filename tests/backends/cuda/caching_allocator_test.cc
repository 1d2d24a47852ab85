// The CUDA caching allocator's policy on a host-memory fake device
// (fake_device.h): rounding, the two pools, splitting and merging, per-stream
// ownership, record_stream, retry after releasing the cache, the OOM
// message, empty_cache, stats and summary, and many threads at once (run
// under --config=tsan in CI). No CUDA needed: this suite runs everywhere.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "backends/cuda/CachingAllocator.h"
#include "tests/backends/cuda/fake_device.h"
#include "tests/support/error_of.h"

namespace {

using ember::cuda::CachingAllocator;
using ember::cuda::kAggregate;
using ember::cuda::kLargePool;
using ember::cuda::kSmallPool;
using ember_test::FakeDevice;
using ::testing::HasSubstr;

constexpr size_t kMiB = 1 << 20;

char* as_bytes(void* p) { return static_cast<char*>(p); }

TEST(CachingAllocator, RoundsRequestsTo512Bytes) {
  FakeDevice dev(64 * kMiB);
  CachingAllocator alloc(&dev);
  void* a = alloc.malloc(0, 1, 0);
  void* b = alloc.malloc(0, 513, 0);
  void* c = alloc.malloc(0, 1024, 0);
  EXPECT_EQ(alloc.blockSize(a), 512u);
  EXPECT_EQ(alloc.blockSize(b), 1024u);
  EXPECT_EQ(alloc.blockSize(c), 1024u);
  const auto stats = alloc.getStats(0);
  EXPECT_EQ(stats.allocated_bytes[kAggregate].current, 512 + 1024 + 1024);
  EXPECT_EQ(stats.requested_bytes[kAggregate].current, 1 + 513 + 1024);
  for (void* p : {a, b, c}) alloc.free(p);
}

TEST(CachingAllocator, SmallAndLargePoolsUseTheirSegmentSizes) {
  FakeDevice dev(256 * kMiB);
  CachingAllocator alloc(&dev);
  void* small = alloc.malloc(0, kMiB, 0);          // largest small request
  EXPECT_EQ(dev.used(), 2 * kMiB);                 // one 2 MiB segment
  void* big = alloc.malloc(0, 11 * kMiB, 0);       // segment rounded to 2 MiB
  EXPECT_EQ(dev.used(), 14 * kMiB);                // plus 12 MiB
  EXPECT_EQ(alloc.blockSize(big), 12 * kMiB);      // 1 MiB left: not split
  void* medium = alloc.malloc(0, kMiB + 1, 0);     // large pool, < 10 MiB
  EXPECT_EQ(dev.used(), 34 * kMiB);                // plus a 20 MiB segment
  void* medium2 = alloc.malloc(0, 5 * kMiB, 0);    // split from that segment
  EXPECT_EQ(as_bytes(medium2), as_bytes(medium) + kMiB + 512);
  EXPECT_EQ(dev.used(), 34 * kMiB);
  const auto stats = alloc.getStats(0);
  EXPECT_EQ(stats.segment[kSmallPool].current, 1);
  EXPECT_EQ(stats.segment[kLargePool].current, 2);
  EXPECT_EQ(stats.reserved_bytes[kLargePool].current, 32 * static_cast<int64_t>(kMiB));
  for (void* p : {small, medium, medium2, big}) alloc.free(p);
}

TEST(CachingAllocator, SplitsASegmentAndMergesFreedNeighbours) {
  FakeDevice dev(64 * kMiB);
  CachingAllocator alloc(&dev);
  void* a = alloc.malloc(0, 1000, 0);
  void* b = alloc.malloc(0, 1000, 0);
  void* c = alloc.malloc(0, 1000, 0);
  EXPECT_EQ(dev.segments(), 1u);  // all three cut from one small segment
  EXPECT_EQ(as_bytes(b), as_bytes(a) + 1024);
  EXPECT_EQ(as_bytes(c), as_bytes(b) + 1024);

  // Free the outer blocks first, then the middle: all merge back into one.
  alloc.free(a);
  alloc.free(c);
  EXPECT_GT(alloc.getStats(0).inactive_split_bytes[kAggregate].current, 0);
  alloc.free(b);
  EXPECT_EQ(alloc.getStats(0).inactive_split_bytes[kAggregate].current, 0);
  // The whole segment is one free block again: a 1 MiB request fits at its
  // start, and empty_cache can release it.
  void* whole = alloc.malloc(0, kMiB, 0);
  EXPECT_EQ(whole, a);
  EXPECT_EQ(dev.segments(), 1u);
  alloc.free(whole);
  alloc.emptyCache();
  EXPECT_EQ(dev.segments(), 0u);
  EXPECT_EQ(alloc.getStats(0).reserved_bytes[kAggregate].current, 0);
}

TEST(CachingAllocator, ReusesAFreedBlockOnlyOnItsOwnStream) {
  FakeDevice dev(64 * kMiB);
  CachingAllocator alloc(&dev);
  void* on1 = alloc.malloc(0, 4096, /*stream=*/1);
  alloc.free(on1);
  void* on2 = alloc.malloc(0, 4096, /*stream=*/2);
  EXPECT_NE(on2, on1);
  EXPECT_EQ(dev.segments(), 2u);  // stream 2 got a segment of its own
  void* again = alloc.malloc(0, 4096, /*stream=*/1);
  EXPECT_EQ(again, on1);
  alloc.free(on2);
  alloc.free(again);
}

TEST(CachingAllocator, RecordStreamDelaysReuseUntilTheStreamCatchesUp) {
  FakeDevice dev(64 * kMiB);
  CachingAllocator alloc(&dev);
  void* p = alloc.malloc(0, 4096, /*stream=*/0);
  alloc.recordStream(p, /*stream=*/7);
  alloc.recordStream(p, /*stream=*/0);  // its own stream: ignored
  alloc.free(p);
  EXPECT_EQ(dev.liveEvents(), 1);
  EXPECT_EQ(alloc.getStats(0).active[kAggregate].current, 1);

  // Stream 7 may still use it: not handed out again.
  void* q = alloc.malloc(0, 4096, 0);
  EXPECT_NE(q, p);
  alloc.free(q);

  dev.completeStream(7);
  void* r = alloc.malloc(0, 4096, 0);
  EXPECT_EQ(r, p);
  EXPECT_EQ(dev.liveEvents(), 0);
  alloc.free(r);
  EXPECT_EQ(alloc.getStats(0).active[kAggregate].current, 0);
}

TEST(CachingAllocator, RetriesAfterReleasingTheCache) {
  FakeDevice dev(40 * kMiB);
  CachingAllocator alloc(&dev);
  void* p = alloc.malloc(0, 2 * kMiB, 0);  // a 20 MiB segment
  alloc.free(p);                          // cached, not released
  EXPECT_EQ(dev.used(), 20 * kMiB);
  void* big = alloc.malloc(0, 30 * kMiB, 0);  // needs the cached 20 MiB back
  EXPECT_EQ(alloc.getStats(0).num_alloc_retries, 1);
  EXPECT_EQ(alloc.getStats(0).num_ooms, 0);
  EXPECT_EQ(dev.used(), 30 * kMiB);
  alloc.free(big);
}

TEST(CachingAllocator, OutOfMemoryErrorInPyTorchsWords) {
  FakeDevice dev(40 * kMiB);
  CachingAllocator alloc(&dev);
  void* held = alloc.malloc(0, 2 * kMiB, 0);  // 2 MiB used of a 20 MiB segment
  EXPECT_EQ(ember_test::errorOf([&] { alloc.malloc(0, 30 * kMiB, 0); }),
            "CUDA out of memory. Tried to allocate 30.00 MiB. GPU 0 has a total "
            "capacity of 40.00 MiB of which 20.00 MiB is free. Of the allocated "
            "memory 2.00 MiB is allocated by Ember, and 18.00 MiB is reserved by "
            "Ember but unallocated. Free tensors that are no longer needed, or "
            "use smaller batches.");
  // A program catches the type (PyTorch's c10::OutOfMemoryError, a
  // c10::Error), frees memory and goes on.
  EXPECT_THROW(alloc.malloc(0, 30 * kMiB, 0), c10::OutOfMemoryError);
  const auto stats = alloc.getStats(0);
  EXPECT_EQ(stats.num_ooms, 2);
  EXPECT_EQ(stats.num_alloc_retries, 2);
  alloc.free(held);
  void* fits = alloc.malloc(0, 30 * kMiB, 0);
  EXPECT_NE(fits, nullptr);
  alloc.free(fits);
}

TEST(CachingAllocator, StatsTrackCurrentAndPeak) {
  FakeDevice dev(64 * kMiB);
  CachingAllocator alloc(&dev);
  void* a = alloc.malloc(0, 3000, 0);
  void* b = alloc.malloc(0, 5000, 0);
  alloc.free(a);
  auto stats = alloc.memoryStats(0);
  EXPECT_EQ(stats["allocated_bytes.all.current"], 5120);
  EXPECT_EQ(stats["allocated_bytes.all.peak"], 3072 + 5120);
  EXPECT_EQ(stats["allocated_bytes.all.allocated"], 3072 + 5120);
  EXPECT_EQ(stats["allocated_bytes.all.freed"], 3072);
  EXPECT_EQ(stats["allocation.small_pool.current"], 1);
  EXPECT_EQ(stats["reserved_bytes.all.current"], 2 * static_cast<int64_t>(kMiB));
  EXPECT_EQ(stats["reserved_bytes.large_pool.current"], 0);
  EXPECT_EQ(stats["num_ooms"], 0);
  alloc.resetPeakStats(0);
  EXPECT_EQ(alloc.memoryStats(0)["allocated_bytes.all.peak"], 5120);

  const std::string summary = alloc.memorySummary(0);
  EXPECT_THAT(summary, HasSubstr("memory summary, device ID 0"));
  EXPECT_THAT(summary, HasSubstr("allocated_bytes (all)"));
  EXPECT_THAT(summary, HasSubstr("5.00 KiB"));
  alloc.free(b);
}

// The statistics in the structure the CPU allocator uses too (Issue 21:
// one memory_summary for every device), and the profiler's memory events.
namespace {
std::vector<std::pair<int64_t, c10::Device>>* g_reported = nullptr;
void record_report(void*, int64_t bytes, c10::Device device) {
  if (g_reported != nullptr) g_reported->emplace_back(bytes, device);
}
}  // namespace

TEST(CachingAllocator, SharedStatsStructureAndProfilerEvents) {
  FakeDevice dev(64 * kMiB);
  CachingAllocator alloc(&dev);
  std::vector<std::pair<int64_t, c10::Device>> reported;
  g_reported = &reported;
  c10::SetMemoryReporter(&record_report);
  void* a = alloc.malloc(0, 3000, 0);
  void* b = alloc.malloc(0, 5000, 0);
  alloc.free(a);
  c10::SetMemoryReporter(nullptr);
  g_reported = nullptr;
  const c10::Device cuda0(c10::kCUDA, 0);
  EXPECT_EQ(reported, (std::vector<std::pair<int64_t, c10::Device>>{
                          {3072, cuda0}, {5120, cuda0}, {-3072, cuda0}}));
  const c10::AllocatorStats s = alloc.allocatorStats(0);
  EXPECT_EQ(s.bytes_in_use, 5120);
  EXPECT_EQ(s.peak_bytes, 3072 + 5120);
  EXPECT_EQ(s.allocation_count, 2);
  EXPECT_EQ(s.free_count, 1);
  EXPECT_EQ(s.allocated_bytes_total, 3072 + 5120);
  EXPECT_EQ(s.reserved_bytes(), 2 * static_cast<int64_t>(kMiB));  // one small segment
  EXPECT_EQ(s.cached_blocks, 2);  // a's block and the segment's free rest
  EXPECT_THAT(c10::memory_summary(s, "CUDA:0"), HasSubstr("Ember CUDA:0 memory summary"));
  alloc.free(b);
}

TEST(CachingAllocator, RefusesPointersItDidNotHandOut) {
  FakeDevice dev(64 * kMiB);
  CachingAllocator alloc(&dev);
  int x = 0;
  EXPECT_THAT(ember_test::errorOf([&] { alloc.free(&x); }),
              HasSubstr("CUDA caching allocator: free: pointer "));
  EXPECT_THAT(ember_test::errorOf([&] { alloc.free(&x); }),
              HasSubstr("was not allocated by this allocator (or was already freed)."));
  void* p = alloc.malloc(0, 100, 0);
  alloc.free(p);
  EXPECT_THAT(ember_test::errorOf([&] { alloc.recordStream(p, 3); }),
              HasSubstr("record_stream: pointer"));
  EXPECT_THAT(ember_test::errorOf([&] { alloc.malloc(0, 0, 0); }),
              HasSubstr("malloc of 0 bytes"));
}

TEST(CachingAllocator, ManyThreadsAllocateFreeAndRecordStreams) {
  FakeDevice dev(512 * kMiB);
  CachingAllocator alloc(&dev);
  constexpr int kThreads = 4;
  constexpr int kIters = 1500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<void*> held;
      for (int i = 0; i < kIters; ++i) {
        const size_t size = rng() % 3 == 0 ? (rng() % (4 * kMiB)) + 1
                                           : (rng() % 65536) + 1;
        void* p = alloc.malloc(static_cast<c10::DeviceIndex>(t % 2), size, t);
        static_cast<char*>(p)[0] = static_cast<char>(i);  // the memory is ours
        if (rng() % 4 == 0) alloc.recordStream(p, 100 + t);
        held.push_back(p);
        if (held.size() > 8) {
          alloc.free(held.front());
          held.erase(held.begin());
        }
        if (i % 100 == 0) dev.completeStream(100 + t);
        if (i % 500 == 0) alloc.emptyCache();
      }
      for (void* p : held) alloc.free(p);
    });
  }
  for (auto& th : threads) th.join();
  alloc.emptyCache();  // waits for the outstanding events, releases all
  for (c10::DeviceIndex d : {0, 1}) {
    const auto stats = alloc.getStats(d);
    EXPECT_EQ(stats.allocated_bytes[kAggregate].current, 0);
    EXPECT_EQ(stats.reserved_bytes[kAggregate].current, 0);
    EXPECT_EQ(stats.allocation[kAggregate].allocated,
              stats.allocation[kAggregate].freed);
  }
  EXPECT_EQ(dev.segments(), 0u);
  EXPECT_EQ(dev.liveEvents(), 0);
}

}  // namespace
