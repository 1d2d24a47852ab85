// Reentrant backward: a Node whose backward runs another backward. Nested on
// one thread up to Engine::kMaxReentrantDepth calls, then on reused pool
// threads that restart the count; errors reach the outermost caller.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmath>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <torch/autograd.h>
#include <torch/types.h>

#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_test::errorOf;
using torch::autograd::AutogradContext;
using torch::autograd::Engine;
using torch::autograd::variable_list;

// Threads of this process now.
int thread_count() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int n = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n;
}

// What the levels of a reentrant chain saw; each level runs while the one
// above it waits, so one mutex is plenty.
struct Trace {
  std::mutex mutex;
  std::vector<std::thread::id> threads;  // per level, outermost first
  std::set<long> kernel_ids;             // the kernel's ids of those threads
  int threads_at_innermost = -1;
  int64_t fail_at = -1;                  // the level that throws, if any

  void reset() {
    std::lock_guard<std::mutex> lock(mutex);
    threads.clear();
    kernel_ids.clear();
    threads_at_innermost = -1;
    fail_at = -1;
  }
};
Trace& trace() {
  static Trace t;
  return t;
}

// y = x, whose backward (at level `depth`) runs a backward of its own through
// Reenter(depth - 1) on a fresh leaf and scales the gradient by twice what
// that inner pass gave, so Reenter(x, d) has gradient 2^(d + 1).
struct Reenter : torch::autograd::Function<Reenter> {
  static at::Tensor forward(AutogradContext* ctx, at::Tensor x, int64_t depth, bool use_grad) {
    ctx->saved_data["depth"] = depth;
    ctx->saved_data["use_grad"] = use_grad;
    return x * 1;
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    const int64_t depth = ctx->saved_data["depth"].toInt();
    const bool use_grad = ctx->saved_data["use_grad"].toBool();
    {
      std::lock_guard<std::mutex> lock(trace().mutex);
      trace().threads.push_back(std::this_thread::get_id());
      // Kernel ids are not handed out again soon, unlike std::thread::id,
      // so the same id in two chains means the same thread.
      trace().kernel_ids.insert(static_cast<long>(syscall(SYS_gettid)));
      if (depth == 0) trace().threads_at_innermost = thread_count();
    }
    TORCH_CHECK(depth != trace().fail_at, "reentrant: level ", depth, " failed.");
    EXPECT_TRUE(Engine::is_checkpoint_valid());
    double inner = 1.0;
    if (depth > 0) {
      torch::AutoGradMode enable(true);
      at::Tensor leaf = at::ones({1}, at::kDouble).requires_grad_();
      at::Tensor out = Reenter::apply(leaf, depth - 1, use_grad).sum();
      if (use_grad) {
        inner = torch::autograd::grad({out}, {leaf})[0].item<double>();
      } else {
        out.backward();
        inner = leaf.grad().item<double>();
      }
    }
    return {g[0] * (2.0 * inner), at::Tensor(), at::Tensor()};
  }
};

// The gradient of Reenter(x, depth) at x = 3, by a backward from this thread.
double chain_gradient(int64_t depth, bool use_grad = false) {
  at::Tensor x = at::full({1}, 3.0, at::kDouble).requires_grad_();
  Reenter::apply(x, depth, use_grad).sum().backward();
  return x.grad().item<double>();
}

TEST(ReentrantBackward, GivesTheGradientsOfTheNestedPasses) {
  trace().reset();
  EXPECT_DOUBLE_EQ(chain_gradient(0), 2.0);
  EXPECT_DOUBLE_EQ(chain_gradient(3), 16.0);
  EXPECT_DOUBLE_EQ(chain_gradient(3, /*use_grad=*/true), 16.0);
  // Within the depth limit everything ran on this thread.
  for (const auto& id : trace().threads) EXPECT_EQ(id, std::this_thread::get_id());
  EXPECT_FALSE(Engine::is_checkpoint_valid());
}

TEST(ReentrantBackward, DeepChainsNestPerThreadUpToTheLimitThenUsePoolThreads) {
  trace().reset();
  constexpr int64_t kDepth = 200;  // 201 nested backward calls
  EXPECT_DOUBLE_EQ(chain_gradient(kDepth), std::ldexp(1.0, kDepth + 1));
  const std::vector<std::thread::id>& levels = trace().threads;
  ASSERT_EQ(levels.size(), static_cast<size_t>(kDepth + 1));
  // kMaxReentrantDepth levels per thread, then the next thread restarts the
  // count: 60 on this thread, 60 and 60 on two pool threads, 21 on a third.
  std::vector<size_t> run_lengths{1};
  for (size_t i = 1; i < levels.size(); ++i) {
    if (levels[i] == levels[i - 1]) {
      ++run_lengths.back();
    } else {
      run_lengths.push_back(1);
    }
  }
  constexpr size_t kMax = Engine::kMaxReentrantDepth;
  EXPECT_EQ(run_lengths, (std::vector<size_t>{kMax, kMax, kMax, kDepth + 1 - 3 * kMax}));
  EXPECT_EQ(levels.front(), std::this_thread::get_id());
  EXPECT_EQ(std::set<std::thread::id>(levels.begin(), levels.end()).size(), 4u);
}

TEST(ReentrantBackward, ErrorsInNestedPassesReachTheOutermostCaller) {
  trace().reset();
  trace().fail_at = 1;  // on this thread
  EXPECT_THAT(errorOf([] { chain_gradient(3); }), HasSubstr("reentrant: level 1 failed."));
  trace().reset();
  trace().fail_at = 50;  // on the second pool thread of a 200-level chain
  EXPECT_THAT(errorOf([] { chain_gradient(200); }), HasSubstr("reentrant: level 50 failed."));
  EXPECT_THAT(errorOf([] { chain_gradient(200, /*use_grad=*/true); }),
              HasSubstr("reentrant: level 50 failed."));
  // The engine, this thread and the pool are still usable.
  trace().reset();
  EXPECT_FALSE(Engine::is_checkpoint_valid());
  EXPECT_DOUBLE_EQ(chain_gradient(3), 16.0);
  EXPECT_DOUBLE_EQ(chain_gradient(130), std::ldexp(1.0, 131));
}

TEST(ReentrantBackward, PoolThreadsAreReusedAcrossDeepChains) {
  trace().reset();
  const int before = thread_count();
  ASSERT_GT(before, 0);
  EXPECT_DOUBLE_EQ(chain_gradient(200), std::ldexp(1.0, 201));
  // At most three pool threads were alive for the 201 calls (fewer when an
  // earlier test left some idle), not one per level past the limit.
  const int first = trace().threads_at_innermost;
  EXPECT_LE(first - before, 3);
  const std::set<long> first_threads = trace().kernel_ids;
  EXPECT_EQ(first_threads.size(), 4u);
  const int after_first = thread_count();
  for (int round = 0; round < 5; ++round) {
    trace().reset();
    EXPECT_DOUBLE_EQ(chain_gradient(200), std::ldexp(1.0, 201));
    EXPECT_EQ(trace().threads_at_innermost, first) << "round " << round;
    // The same threads again: none was started for this chain.
    EXPECT_EQ(trace().kernel_ids, first_threads) << "round " << round;
  }
  EXPECT_EQ(thread_count(), after_first);
}

TEST(ReentrantBackward, ConcurrentDeepChainsFromSeveralThreads) {
  trace().reset();
  std::vector<std::thread> callers;
  std::vector<double> results(3, 0.0);
  for (size_t t = 0; t < results.size(); ++t) {
    callers.emplace_back([t, &results] { results[t] = chain_gradient(130); });
  }
  for (auto& c : callers) c.join();
  for (double r : results) EXPECT_DOUBLE_EQ(r, std::ldexp(1.0, 131));
}

}  // namespace
