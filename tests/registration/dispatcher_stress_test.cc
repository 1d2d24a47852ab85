// Registration may run while other threads dispatch (plugins load lazily):
// run both at once, many times, and check which kernel each call reached.
// Meant for --config=tsan too.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "registration/library.h"
#include "tests/registration/test_tensors.h"

using at::TensorBase;
using c10::DispatchKey;
using torch::Library;

namespace {

// The two CPU kernels answer differently, so a caller can tell which one ran:
// the first returns its first argument, the second its second argument.
TensorBase firstKernel(const TensorBase& a, const TensorBase&) { return a; }
TensorBase secondKernel(const TensorBase&, const TensorBase& b) { return b; }
// Registered for CUDA only; a CPU call that reached it would get a new tensor.
TensorBase cudaKernel(const TensorBase&, const TensorBase&) {
  return ember_test::makeTensor({1});
}

// Waits until `pred` holds, for at most 30 s; returns whether it held.
template <class Pred>
bool waitFor(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

// Counts per caller thread. Relaxed: each is a tally read after join(),
// which orders it; the waits in the test poll them and need no other data.
struct Tally {
  std::atomic<int64_t> first{0};
  std::atomic<int64_t> second{0};
  std::atomic<int64_t> neither{0};
  // Calls that began after the registering thread finished, by kernel.
  std::atomic<int64_t> first_after{0};
  std::atomic<int64_t> second_after{0};
};

TEST(DispatcherStress, ReadersSeeTheSecondKernelComeAndGo) {
  Library def(Library::DEF, "stress", std::nullopt, __FILE__, __LINE__);
  def.def("op(Tensor self, Tensor other) -> Tensor");
  Library cpu(Library::IMPL, "stress", DispatchKey::CPU, __FILE__, __LINE__);
  cpu.impl("op", &firstKernel);
  const auto op = c10::Dispatcher::singleton()
                      .findSchemaOrThrow("stress::op", "")
                      .typed<TensorBase(const TensorBase&, const TensorBase&)>();
  const TensorBase a = ember_test::makeTensor({1});
  const TensorBase b = ember_test::makeTensor({1});

  constexpr int kCallers = 3;
  constexpr int kRounds = 200;
  Tally tally[kCallers];
  auto second_total = [&] {
    int64_t n = 0;
    for (const Tally& t : tally) n += t.second.load(std::memory_order_relaxed);
    return n;
  };
  // Acquire/release: a caller that reads `registered_done` true also sees the
  // table as the registering thread left it (the second kernel removed).
  std::atomic<bool> registered_done{false};
  std::atomic<bool> stop{false};
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i) {
    callers.emplace_back([&, i] {
      Tally& t = tally[i];
      while (!stop.load(std::memory_order_acquire)) {
        const bool after = registered_done.load(std::memory_order_acquire);
        const TensorBase out = op.call(a, b);
        if (out.is_same(a)) {
          t.first.fetch_add(1, std::memory_order_relaxed);
          if (after) t.first_after.fetch_add(1, std::memory_order_relaxed);
        } else if (out.is_same(b)) {
          t.second.fetch_add(1, std::memory_order_relaxed);
          if (after) t.second_after.fetch_add(1, std::memory_order_relaxed);
        } else {
          t.neither.fetch_add(1, std::memory_order_relaxed);
        }
      }
    });
  }

  // The registering thread, meanwhile: each round adds and removes kernels
  // for another key of this op, another op, a fallback, and a second CPU
  // kernel, which takes over until it is removed. It waits each round until
  // some caller has been answered by the second kernel, so every round races
  // readers against both the registration and the removal.
  int rounds_done = 0;
  std::thread registrar([&] {
    for (int round = 0; round < kRounds; ++round) {
      Library cuda(Library::IMPL, "stress", DispatchKey::CUDA, __FILE__, __LINE__);
      cuda.impl("op", &cudaKernel);
      Library other(Library::FRAGMENT, "stress", std::nullopt, __FILE__, __LINE__);
      other.def("other" + std::to_string(round) + "(Tensor self) -> Tensor");
      Library fb(Library::IMPL, "_", DispatchKey::PrivateUse1, __FILE__, __LINE__);
      fb.fallback(torch::CppFunction::makeFallthrough());
      {
        struct Drop : c10::WarningHandler {
          void process(const c10::Warning&) override {}
        } drop;
        c10::WarningUtils::WarningHandlerGuard g(&drop);
        const int64_t seen_before = second_total();
        Library cpu2(Library::IMPL, "stress", DispatchKey::CPU, __FILE__, __LINE__);
        cpu2.impl("op", &secondKernel);
        if (!op.call(a, b).is_same(b)) {
          ADD_FAILURE() << "round " << round << ": the second CPU kernel did not take over";
          break;
        }
        if (!waitFor([&] { return second_total() > seen_before; })) {
          ADD_FAILURE() << "round " << round << ": no caller reached the second kernel";
          break;
        }
      }
      if (!op.call(a, b).is_same(a)) {
        ADD_FAILURE() << "round " << round << ": the first CPU kernel did not answer again "
                      << "after the second was removed";
        break;
      }
      rounds_done = round + 1;
    }
    registered_done.store(true, std::memory_order_release);
  });
  registrar.join();
  // Let every caller make calls that start after the registrations ended.
  for (Tally& t : tally) {
    EXPECT_TRUE(waitFor([&] { return t.first_after.load(std::memory_order_relaxed) >= 100; }));
  }
  stop.store(true, std::memory_order_release);
  for (auto& t : callers) t.join();

  EXPECT_EQ(rounds_done, kRounds);
  for (int i = 0; i < kCallers; ++i) {
    SCOPED_TRACE("caller " + std::to_string(i));
    EXPECT_GT(tally[i].first.load(), 0);
    EXPECT_EQ(tally[i].neither.load(), 0);
    // Once the second kernel is gone, only the first answers.
    EXPECT_GE(tally[i].first_after.load(), 100);
    EXPECT_EQ(tally[i].second_after.load(), 0);
  }
  EXPECT_GE(second_total(), kRounds);
}

}  // namespace
