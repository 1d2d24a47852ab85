// The pinned host allocator's policy (CachingHostAllocator.h) on host memory
// with fake streams (fake_device.h): size classes, reuse, blocks used by
// queued copies held until their streams pass the events recorded at free,
// interior pointers, retry after giving the cache back, the out-of-memory
// error, emptyCache, stats, misuse, and many threads at once (run under
// --config=tsan in CI). No CUDA needed: this suite runs everywhere.
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "backends/cuda/CachingHostAllocator.h"
#include "tests/backends/cuda/fake_device.h"
#include "tests/support/error_of.h"

namespace {

using ember::cuda::CachingHostAllocator;
using ember_test::FakeDevice;
using ember_test::FakeHost;

constexpr size_t kMiB = 1 << 20;
constexpr c10::StreamId kCopyStream = 3;
constexpr c10::StreamId kOtherStream = 5;

TEST(CachingHostAllocator, RoundsToPowersOfTwoOfAtLeast512Bytes) {
  EXPECT_EQ(CachingHostAllocator::roundSize(1), 512u);
  EXPECT_EQ(CachingHostAllocator::roundSize(512), 512u);
  EXPECT_EQ(CachingHostAllocator::roundSize(513), 1024u);
  EXPECT_EQ(CachingHostAllocator::roundSize(3 * kMiB), 4 * kMiB);
  EXPECT_EQ(CachingHostAllocator::roundSize(size_t{1} << 40), size_t{1} << 40);
  EXPECT_EQ(ember_test::errorOf([] { CachingHostAllocator::roundSize(~size_t{0}); }),
            "CachingHostAllocator: a request of 18446744073709551615 bytes is larger than any "
            "host can pin; expected at most 2^62.");
}

TEST(CachingHostAllocator, FreedBlocksAreReusedBySizeClass) {
  FakeHost host(64 * kMiB);
  FakeDevice dev(0);
  CachingHostAllocator pinned(&host, &dev);
  EXPECT_EQ(pinned.malloc(0), nullptr);
  void* a = pinned.malloc(3000);  // the 4 KiB class
  EXPECT_EQ(host.used(), 4096u);
  pinned.free(a);
  EXPECT_EQ(host.used(), 4096u);  // cached, not given back
  void* b = pinned.malloc(2049);  // same class: the cached block
  EXPECT_EQ(b, a);
  EXPECT_EQ(host.calls(), 1);
  void* c = pinned.malloc(5000);  // another class: a new block
  EXPECT_NE(c, a);
  EXPECT_EQ(host.calls(), 2);
  EXPECT_EQ(host.used(), 4096u + 8192u);
  pinned.free(b);
  pinned.free(c);
  const auto s = pinned.stats();
  EXPECT_EQ(s.allocation.current, 0);
  EXPECT_EQ(s.allocation.peak, 2);
  EXPECT_EQ(s.allocated_bytes.peak, 4096 + 8192);
  EXPECT_EQ(s.reserved_bytes.current, 4096 + 8192);
  EXPECT_EQ(s.segment.current, 2);
  EXPECT_EQ(s.num_host_alloc, 2);
  EXPECT_EQ(s.num_host_free, 0);
}

// A non_blocking copy queued on a stream still reads the block after the
// tensor is gone: the block waits for that stream (and only it).
TEST(CachingHostAllocator, BlocksUsedByQueuedCopiesWaitForTheirStreams) {
  FakeHost host(64 * kMiB);
  FakeDevice dev(0);
  CachingHostAllocator pinned(&host, &dev);
  void* a = pinned.malloc(kMiB);
  EXPECT_TRUE(pinned.recordEvent(static_cast<char*>(a) + 100, 0, kCopyStream));
  EXPECT_TRUE(pinned.recordEvent(a, 0, kCopyStream));  // recorded once per stream
  EXPECT_TRUE(pinned.recordEvent(a, 0, kOtherStream));
  pinned.free(a);
  EXPECT_EQ(dev.liveEvents(), 2);
  EXPECT_FALSE(pinned.isPinned(a));
  void* b = pinned.malloc(kMiB);  // a is still in use by the streams
  EXPECT_NE(b, a);
  dev.completeStream(kCopyStream);
  void* c = pinned.malloc(kMiB);  // kOtherStream has not passed its event
  EXPECT_NE(c, a);
  dev.completeStream(kOtherStream);
  void* d = pinned.malloc(kMiB);
  EXPECT_EQ(d, a);
  EXPECT_EQ(dev.liveEvents(), 0);
  EXPECT_EQ(host.calls(), 3);
  // The reused block starts with no streams: freeing it needs no event.
  pinned.free(d);
  EXPECT_EQ(dev.liveEvents(), 0);
  EXPECT_EQ(pinned.malloc(kMiB), a);
  pinned.free(a);
  pinned.free(b);
  pinned.free(c);
}

TEST(CachingHostAllocator, IsPinnedSeesInteriorPointersOfLiveBlocks) {
  FakeHost host(64 * kMiB);
  FakeDevice dev(0);
  CachingHostAllocator pinned(&host, &dev);
  char* a = static_cast<char*>(pinned.malloc(1000));  // 1024 bytes
  int on_stack = 0;
  EXPECT_TRUE(pinned.isPinned(a));
  EXPECT_TRUE(pinned.isPinned(a + 1023));
  EXPECT_FALSE(pinned.isPinned(a + 1024));
  EXPECT_FALSE(pinned.isPinned(a - 1));
  EXPECT_FALSE(pinned.isPinned(&on_stack));
  EXPECT_FALSE(pinned.isPinned(nullptr));
  EXPECT_EQ(pinned.blockOf(a + 10), std::make_pair(static_cast<void*>(a), size_t{1024}));
  EXPECT_EQ(pinned.blockOf(&on_stack), std::make_pair(static_cast<void*>(nullptr), size_t{0}));
  // Pageable memory: no event, and the caller copies synchronously.
  EXPECT_FALSE(pinned.recordEvent(&on_stack, 0, kCopyStream));
  pinned.free(a);
  EXPECT_FALSE(pinned.isPinned(a));
  EXPECT_FALSE(pinned.recordEvent(a, 0, kCopyStream));  // freed: not in use
  EXPECT_EQ(dev.liveEvents(), 0);
}

TEST(CachingHostAllocator, OutOfPinnedMemoryGivesTheCacheBackThenThrows) {
  FakeHost host(8 * kMiB);
  FakeDevice dev(0);
  CachingHostAllocator pinned(&host, &dev);
  void* small = pinned.malloc(kMiB);
  pinned.free(small);                    // cached: 1 MiB of the 8
  void* big = pinned.malloc(7 * kMiB + 1);  // 8 MiB: needs the cache back
  EXPECT_EQ(host.used(), 8 * kMiB);
  EXPECT_EQ(pinned.stats().num_alloc_retries, 1);
  EXPECT_EQ(pinned.stats().num_host_free, 1);
  EXPECT_EQ(ember_test::errorOf([&] { pinned.malloc(1); }),
            "CUDA out of memory. Tried to allocate 512 bytes of pinned host memory; 8.00 MiB "
            "of pinned memory is in use by Ember. Free pinned tensors that are no longer "
            "needed, pin smaller batches, or raise the locked-memory limit (ulimit -l).");
  EXPECT_THROW(pinned.malloc(1), c10::OutOfMemoryError);
  EXPECT_EQ(pinned.stats().num_ooms, 2);
  pinned.free(big);
  void* again = pinned.malloc(1);  // the 8 MiB block is given back for it
  EXPECT_NE(again, nullptr);
  EXPECT_EQ(host.used(), 512u);
  pinned.free(again);
}

TEST(CachingHostAllocator, EmptyCacheGivesBackFreeBlocksOnly) {
  FakeHost host(64 * kMiB);
  FakeDevice dev(0);
  CachingHostAllocator pinned(&host, &dev);
  void* kept = pinned.malloc(kMiB);
  void* cached = pinned.malloc(2 * kMiB);
  void* waiting = pinned.malloc(4 * kMiB);
  pinned.free(cached);
  ASSERT_TRUE(pinned.recordEvent(waiting, 0, kCopyStream));
  pinned.free(waiting);
  pinned.emptyCache();
  EXPECT_EQ(host.used(), 5 * kMiB);  // the in-use and the waiting block
  dev.completeStream(kCopyStream);
  pinned.emptyCache();
  EXPECT_EQ(host.used(), kMiB);
  EXPECT_EQ(pinned.stats().reserved_bytes.current, static_cast<int64_t>(kMiB));
  EXPECT_EQ(pinned.stats().segment.current, 1);
  EXPECT_TRUE(pinned.isPinned(kept));
  pinned.resetPeakStats();
  EXPECT_EQ(pinned.stats().reserved_bytes.peak, static_cast<int64_t>(kMiB));
  pinned.free(kept);
}

TEST(CachingHostAllocator, MisuseIsRefusedWithAMessage) {
  FakeHost host(64 * kMiB);
  FakeDevice dev(0);
  CachingHostAllocator pinned(&host, &dev);
  char* a = static_cast<char*>(pinned.malloc(4096));
  int on_stack = 0;
  EXPECT_NE(ember_test::errorOf([&] { pinned.free(&on_stack); })
                .find("is not the start of a pinned block this allocator handed out."),
            std::string::npos);
  EXPECT_NE(ember_test::errorOf([&] { pinned.free(a + 8); })
                .find("is not the start of a pinned block this allocator handed out."),
            std::string::npos);
  pinned.free(a);
  EXPECT_NE(ember_test::errorOf([&] { pinned.free(a); })
                .find(" was freed twice; free each pinned block once."),
            std::string::npos);
  pinned.free(nullptr);  // as std::free
  EXPECT_EQ(ember_test::errorOf([] { CachingHostAllocator bad(nullptr, nullptr); }),
            "CachingHostAllocator: expected host memory and event interfaces, got null.");
}

// Blocks are given back when the allocator goes, except those still handed
// out (the program's) — FakeHost frees those itself.
TEST(CachingHostAllocator, DestructionGivesBackTheCache) {
  FakeHost host(64 * kMiB);
  FakeDevice dev(0);
  void* held = nullptr;
  {
    CachingHostAllocator pinned(&host, &dev);
    pinned.free(pinned.malloc(kMiB));
    held = pinned.malloc(2 * kMiB);
  }
  EXPECT_NE(held, nullptr);
  EXPECT_EQ(host.used(), 2 * kMiB);
}

TEST(CachingHostAllocator, ManyThreadsAllocateRecordAndFree) {
  FakeHost host(256 * kMiB);
  FakeDevice dev(0);
  CachingHostAllocator pinned(&host, &dev);
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(t));
      std::vector<void*> mine;
      for (int i = 0; i < 400; ++i) {
        void* p = pinned.malloc(1 + rng() % (64 << 10));
        static_cast<char*>(p)[0] = static_cast<char>(t);  // the block is the thread's
        if (rng() % 3 == 0) pinned.recordEvent(p, 0, static_cast<c10::StreamId>(rng() % 4));
        mine.push_back(p);
        if (mine.size() > 8) {
          EXPECT_TRUE(pinned.isPinned(mine.front()));
          EXPECT_EQ(static_cast<char*>(mine.front())[0], static_cast<char>(t));
          pinned.free(mine.front());
          mine.erase(mine.begin());
        }
        if (i % 50 == 0) dev.completeStream(static_cast<c10::StreamId>(rng() % 4));
      }
      for (void* p : mine) pinned.free(p);
    });
  }
  for (auto& th : threads) th.join();
  for (c10::StreamId s = 0; s < 4; ++s) dev.completeStream(s);
  pinned.emptyCache();
  EXPECT_EQ(host.used(), 0u);
  EXPECT_EQ(dev.liveEvents(), 0);
  EXPECT_EQ(pinned.stats().allocation.current, 0);
}

}  // namespace
