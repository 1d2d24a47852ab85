// tests/c10/intrusive_ptr_test.cc — counts, ownership transfer, weak pointers
// and concurrent use of c10::intrusive_ptr.
#include "c10/util/intrusive_ptr.h"

#include <atomic>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace {

using c10::intrusive_ptr;
using c10::make_intrusive;
using c10::weak_intrusive_ptr;

// Records its destruction and release_resources() calls into an event log.
struct Tracked : c10::intrusive_ptr_target {
  explicit Tracked(std::vector<std::string>* log, int value = 0)
      : log_(log), value_(value) {}
  ~Tracked() override { log_->push_back("destroyed"); }
  void release_resources() override { log_->push_back("released"); }
  int value() const { return value_; }

  std::vector<std::string>* log_;
  int value_;
};

struct Base : c10::intrusive_ptr_target {
  virtual int id() const { return 1; }
};
struct Derived : Base {
  int id() const override { return 2; }
};

TEST(IntrusivePtr, MakeIntrusiveStartsWithOneStrongAndOneWeakUnit) {
  std::vector<std::string> log;
  auto p = make_intrusive<Tracked>(&log, 7);
  EXPECT_TRUE(p.defined());
  EXPECT_TRUE(static_cast<bool>(p));
  EXPECT_EQ(p->value(), 7);
  EXPECT_EQ((*p).value(), 7);
  EXPECT_EQ(p.use_count(), 1u);
  EXPECT_EQ(p.weak_use_count(), 1u);  // the strong side's unit
  EXPECT_TRUE(p.unique());
}

TEST(IntrusivePtr, NullPointerHasZeroCounts) {
  intrusive_ptr<Base> p;
  intrusive_ptr<Base> q = nullptr;
  EXPECT_FALSE(p.defined());
  EXPECT_FALSE(static_cast<bool>(q));
  EXPECT_EQ(p.get(), nullptr);
  EXPECT_EQ(p.use_count(), 0u);
  EXPECT_EQ(p.weak_use_count(), 0u);
  EXPECT_FALSE(p.unique());
  EXPECT_TRUE(p == nullptr);
  EXPECT_TRUE(nullptr == q);
  EXPECT_TRUE(p == q);
}

TEST(IntrusivePtr, CopiesShareOwnershipAndDestroyOnce) {
  std::vector<std::string> log;
  {
    auto a = make_intrusive<Tracked>(&log);
    intrusive_ptr<Tracked> b = a;
    EXPECT_EQ(a.use_count(), 2u);
    EXPECT_EQ(a, b);
    intrusive_ptr<Tracked> c;
    c = b;
    EXPECT_EQ(a.use_count(), 3u);
    intrusive_ptr<Tracked>& alias = c;
    c = alias;  // self-assignment keeps the count
    EXPECT_EQ(a.use_count(), 3u);
    b.reset();
    EXPECT_FALSE(b.defined());
    EXPECT_EQ(a.use_count(), 2u);
    EXPECT_TRUE(log.empty());
  }
  EXPECT_THAT(log, testing::ElementsAre("destroyed"));
}

TEST(IntrusivePtr, MoveTransfersOwnershipWithoutCounting) {
  std::vector<std::string> log;
  auto a = make_intrusive<Tracked>(&log);
  Tracked* raw = a.get();
  intrusive_ptr<Tracked> b = std::move(a);
  EXPECT_FALSE(a.defined());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(b.get(), raw);
  EXPECT_EQ(b.use_count(), 1u);
  intrusive_ptr<Tracked> c;
  c = std::move(b);
  EXPECT_FALSE(b.defined());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(c.use_count(), 1u);
  intrusive_ptr<Tracked>& alias = c;
  c = std::move(alias);  // self-move keeps the object
  EXPECT_EQ(c.use_count(), 1u);
  EXPECT_TRUE(log.empty());
  c.reset();
  EXPECT_THAT(log, testing::ElementsAre("destroyed"));
}

TEST(IntrusivePtr, ConvertsFromDerivedToBase) {
  intrusive_ptr<Derived> d = make_intrusive<Derived>();
  intrusive_ptr<Base> b = d;
  EXPECT_EQ(b->id(), 2);
  EXPECT_EQ(d.use_count(), 2u);
  EXPECT_TRUE(b == d);
  intrusive_ptr<Base> moved = std::move(d);
  EXPECT_FALSE(d.defined());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(moved.use_count(), 2u);
  intrusive_ptr<Base> assigned;
  assigned = make_intrusive<Derived>();
  EXPECT_EQ(assigned->id(), 2);
  static_assert(!std::is_convertible<intrusive_ptr<Base>,
                                     intrusive_ptr<Derived>>::value,
                "no implicit downcast");
}

TEST(IntrusivePtr, ReleaseAndReclaimRoundTripKeepsTheCount) {
  std::vector<std::string> log;
  auto a = make_intrusive<Tracked>(&log);
  Tracked* raw = a.release();
  EXPECT_FALSE(a.defined());
  EXPECT_TRUE(log.empty());
  auto back = intrusive_ptr<Tracked>::reclaim(raw);
  EXPECT_EQ(back.use_count(), 1u);
  auto extra = intrusive_ptr<Tracked>::reclaim_copy(raw);
  EXPECT_EQ(back.use_count(), 2u);
  auto from_this = intrusive_ptr<Tracked>::unsafe_reclaim_from_nonowning(raw);
  EXPECT_EQ(back.use_count(), 3u);
  back.reset();
  extra.reset();
  from_this.reset();
  EXPECT_THAT(log, testing::ElementsAre("destroyed"));
}

TEST(IntrusivePtr, ReclaimOfUnownedObjectIsRejected) {
  Base on_stack;
  try {
    intrusive_ptr<Base>::reclaim(&on_stack);
    FAIL() << "reclaim accepted an object that no intrusive_ptr owns";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.msg(), testing::HasSubstr("intrusive_ptr::reclaim"));
    EXPECT_THAT(e.msg(), testing::HasSubstr("make_intrusive"));
  }
}

TEST(IntrusivePtr, SwapComparisonAndHash) {
  auto a = make_intrusive<Base>();
  auto b = make_intrusive<Base>();
  Base* ra = a.get();
  Base* rb = b.get();
  swap(a, b);
  EXPECT_EQ(a.get(), rb);
  EXPECT_EQ(b.get(), ra);
  EXPECT_NE(a, b);
  EXPECT_TRUE((a < b) != (b < a));
  std::unordered_set<intrusive_ptr<Base>> set{a, b, a};
  EXPECT_EQ(set.size(), 2u);
  EXPECT_EQ(std::hash<intrusive_ptr<Base>>()(a), std::hash<Base*>()(rb));
}

TEST(WeakIntrusivePtr, LockSucceedsWhileStrongReferencesExist) {
  std::vector<std::string> log;
  auto strong = make_intrusive<Tracked>(&log, 3);
  weak_intrusive_ptr<Tracked> weak(strong);
  EXPECT_EQ(strong.weak_use_count(), 2u);
  EXPECT_EQ(weak.use_count(), 1u);
  EXPECT_FALSE(weak.expired());
  intrusive_ptr<Tracked> locked = weak.lock();
  ASSERT_TRUE(locked.defined());
  EXPECT_EQ(locked->value(), 3);
  EXPECT_EQ(strong.use_count(), 2u);
}

TEST(WeakIntrusivePtr, ExpiresAndNeverRevivesAfterLastStrongReference) {
  std::vector<std::string> log;
  auto strong = make_intrusive<Tracked>(&log);
  weak_intrusive_ptr<Tracked> weak(strong);
  weak_intrusive_ptr<Tracked> weak_copy = weak;
  EXPECT_EQ(weak.weak_use_count(), 3u);
  strong.reset();
  EXPECT_TRUE(weak.expired());
  EXPECT_EQ(weak.use_count(), 0u);
  EXPECT_FALSE(weak.lock().defined());
  EXPECT_FALSE(weak_copy.lock().defined());
  EXPECT_EQ(weak.use_count(), 0u);  // the failed lock left the count at 0
}

TEST(WeakIntrusivePtr, ReleaseResourcesRunsAtLastStrongDestructorAtLastWeak) {
  std::vector<std::string> log;
  auto strong = make_intrusive<Tracked>(&log);
  weak_intrusive_ptr<Tracked> weak(strong);
  strong.reset();
  EXPECT_THAT(log, testing::ElementsAre("released"));
  weak.reset();
  EXPECT_THAT(log, testing::ElementsAre("released", "destroyed"));
}

TEST(WeakIntrusivePtr, WithoutWeakReferencesOnlyTheDestructorRuns) {
  // See Note [Intrusive counts]: the destructor must free everything.
  std::vector<std::string> log;
  auto strong = make_intrusive<Tracked>(&log);
  { weak_intrusive_ptr<Tracked> gone(strong); }
  strong.reset();
  EXPECT_THAT(log, testing::ElementsAre("destroyed"));
}

TEST(WeakIntrusivePtr, MovesConvertsAndNullBehave) {
  auto d = make_intrusive<Derived>();
  weak_intrusive_ptr<Derived> wd(d);
  weak_intrusive_ptr<Base> wb = wd;
  EXPECT_EQ(d.weak_use_count(), 3u);
  weak_intrusive_ptr<Base> moved = std::move(wb);
  EXPECT_EQ(d.weak_use_count(), 3u);
  EXPECT_EQ(moved.lock()->id(), 2);
  EXPECT_TRUE(moved == weak_intrusive_ptr<Base>(wd));
  weak_intrusive_ptr<Base> null;
  EXPECT_TRUE(null.expired());
  EXPECT_FALSE(null.lock().defined());
  EXPECT_EQ(null.weak_use_count(), 0u);
  null = moved;
  EXPECT_EQ(null.lock().get(), d.get());
}

// Note [Intrusive stress test]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each round, kThreads threads start together holding a strong and a weak
// reference to one fresh object. They copy and drop strong and weak
// pointers, lock weak ones and read the object through what they locked, then
// drop their strong reference at a thread-dependent point and keep locking
// until the end. So the last strong drop races with lock() and with weak
// drops. Checks: the destructor runs exactly once per object,
// release_resources() at most once and before it, and a successful lock()
// never sees a released object. The payload is a plain int the destructor
// overwrites, so under -fsanitize=thread a missing happens-before between a
// reader and the deleting thread is reported as a data race.
struct StressObject : c10::intrusive_ptr_target {
  explicit StressObject(std::atomic<int>* destroyed) : destroyed_(destroyed) {}
  ~StressObject() override {
    payload_ = -1;
    destroyed_->fetch_add(1, std::memory_order_relaxed);
  }
  void release_resources() override {
    released_.fetch_add(1, std::memory_order_relaxed);
  }
  int payload_ = 42;
  std::atomic<int> released_{0};
  std::atomic<int>* destroyed_;
};

TEST(IntrusivePtrStress, ConcurrentCopiesDropsAndLocksDestroyExactlyOnce) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 300;
  constexpr int kStepsPerRound = 200;
  std::atomic<int> destroyed{0};
  std::atomic<int> bad_reads{0};
  for (int round = 0; round < kRounds; ++round) {
    auto object = make_intrusive<StressObject>(&destroyed);
    weak_intrusive_ptr<StressObject> weak(object);
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t, strong = object, my_weak = weak]() mutable {
        ready.fetch_add(1);
        while (ready.load() < kThreads) std::this_thread::yield();
        const int drop_at = (t * 37 + round * 11) % kStepsPerRound;
        for (int step = 0; step < kStepsPerRound; ++step) {
          if (step == drop_at) strong.reset();
          if (strong) {
            intrusive_ptr<StressObject> copy = strong;
            weak_intrusive_ptr<StressObject> weak_copy(copy);
            if (copy->payload_ != 42) bad_reads.fetch_add(1);
          }
          weak_intrusive_ptr<StressObject> weak_copy = my_weak;
          if (intrusive_ptr<StressObject> locked = weak_copy.lock()) {
            if (locked->payload_ != 42 ||
                locked->released_.load(std::memory_order_relaxed) != 0) {
              bad_reads.fetch_add(1);
            }
          }
        }
        if (t % 2 == 0) my_weak.reset();  // some weak refs die before strong
      });
    }
    object.reset();
    weak.reset();
    for (auto& thread : threads) thread.join();
    ASSERT_EQ(destroyed.load(), round + 1) << "round " << round;
  }
  EXPECT_EQ(bad_reads.load(), 0);
}

TEST(IntrusivePtrStress, SharedObjectSurvivesConcurrentChurn) {
  constexpr int kThreads = 4;
  constexpr int kIterations = 20000;
  std::atomic<int> destroyed{0};
  {
    auto object = make_intrusive<StressObject>(&destroyed);
    weak_intrusive_ptr<StressObject> weak(object);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&object, &weak] {
        for (int i = 0; i < kIterations; ++i) {
          intrusive_ptr<StressObject> copy = object;  // concurrent reads of
          weak_intrusive_ptr<StressObject> w = weak;  // the same handles
          intrusive_ptr<StressObject> locked = w.lock();
          EXPECT_TRUE(locked.defined());
        }
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(object.use_count(), 1u);
    EXPECT_EQ(object.weak_use_count(), 2u);
    EXPECT_EQ(destroyed.load(), 0);
    object.reset();  // the weak reference remains: resources go first
    EXPECT_EQ(weak._unsafe_get_target()->released_.load(), 1);
    EXPECT_EQ(destroyed.load(), 0);
  }
  EXPECT_EQ(destroyed.load(), 1);
}

}  // namespace
