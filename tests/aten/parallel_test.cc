// at::set_num_threads / at::get_num_threads, and that the CPU plugin's
// kernels (and oneDNN) run their parallel loops on that many threads, applied
// on whichever thread runs the kernel.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <ATen/Parallel.h>
#include <torch/autograd.h>
#include <torch/types.h>

#include "tests/support/error_of.h"

// Note [Watching the kernels' OpenMP teams]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The CPU plugin's loops and oneDNN run their parallel work as OpenMP
// regions, which GCC compiles to calls of libgomp's
// GOMP_parallel(body, data, num_threads, flags). This binary defines that
// function and exports it (linkopts in BUILD.bazel): the dynamic linker looks
// in the executable before any library, so the plugin's calls land here. The
// wrapper records which thread runs each region's body, then hands the region
// to libgomp's GOMP_parallel. So a test sees how many threads a kernel's loop
// really used, not only the OpenMP setting.
namespace {

struct Region {
  void (*body)(void*);
  void* data;
};

std::mutex g_mu;
std::set<std::thread::id> g_threads;  // threads that ran a region body
int g_regions = 0;                    // regions started

void watched_body(void* p) {
  const Region* r = static_cast<const Region*>(p);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_threads.insert(std::this_thread::get_id());
  }
  r->body(r->data);
}

void reset_record() {
  std::lock_guard<std::mutex> lock(g_mu);
  g_threads.clear();
  g_regions = 0;
}

struct Record {
  int regions;
  size_t threads;
};
Record record() {
  std::lock_guard<std::mutex> lock(g_mu);
  return {g_regions, g_threads.size()};
}

}  // namespace

extern "C" void GOMP_parallel(void (*body)(void*), void* data, unsigned num_threads,
                              unsigned flags) {
  using Real = void (*)(void (*)(void*), void*, unsigned, unsigned);
  static const Real real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "GOMP_parallel"));
  {
    std::lock_guard<std::mutex> lock(g_mu);
    ++g_regions;
  }
  Region r{body, data};
  real(&watched_body, &r, num_threads, flags);
}

namespace {

using ::testing::HasSubstr;

// Large enough for the parallel path of the elementwise loops.
at::Tensor big() { return at::ones({1 << 16}); }

// The count before any set_num_threads, in a new process with OMP_NUM_THREADS
// set to `env` (unset when null); the process prints what it got.
void expect_default(const char* env, int expected) {
  SCOPED_TRACE(env == nullptr ? "OMP_NUM_THREADS unset" : std::string("OMP_NUM_THREADS=") + env);
  // Threadsafe: the child starts this binary afresh, so the setting is read
  // for the first time there, whatever this process has read or set.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        if (env == nullptr) {
          unsetenv("OMP_NUM_THREADS");
        } else {
          setenv("OMP_NUM_THREADS", env, 1);
        }
        std::fprintf(stderr, "get_num_threads() = %d\n", at::get_num_threads());
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "get_num_threads\\(\\) = " + std::to_string(expected) + "\n");
}

TEST(Parallel, DefaultFollowsOmpNumThreads) {
  // Two values, so that one differs from the machine's thread count.
  expect_default("3", 3);
  expect_default("5", 5);
  const int hardware = static_cast<int>(std::thread::hardware_concurrency());
  ASSERT_GE(hardware, 1);
  expect_default(nullptr, hardware);
  expect_default("0", hardware);
  expect_default("-2", hardware);
  expect_default("many", hardware);
}

TEST(Parallel, KernelsApplyTheSettingOnTheirThread) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "libgomp is not TSan-instrumented, so a multi-thread OpenMP team reports "
                  "false races; the default (uninstrumented) run covers this test.";
#endif
#if defined(__clang__)
  GTEST_SKIP() << "clang (the asan build) compiles the CPU plugin's OpenMP regions to LLVM "
                  "libomp's __kmpc_fork_call, not libgomp's GOMP_parallel that this test "
                  "watches; the gcc builds (default, tsan) cover this test.";
#endif
  const int before = at::get_num_threads();
  const at::Tensor x = big();
  for (int n : {1, 2, 3}) {
    SCOPED_TRACE("set_num_threads(" + std::to_string(n) + ")");
    at::set_num_threads(n);
    EXPECT_EQ(at::get_num_threads(), n);
    reset_record();
    const at::Tensor y = at::add(x, x);
    // One thread runs the loop without a region; n threads in one region.
    EXPECT_EQ(record().regions, n == 1 ? 0 : 1);
    EXPECT_EQ(record().threads, n == 1 ? 0u : static_cast<size_t>(n));
    EXPECT_EQ(omp_get_max_threads(), n);
    for (int64_t i = 0; i < x.numel(); ++i) ASSERT_EQ(y.data_ptr<float>()[i], 2.0f);
  }
  // Another thread's OpenMP setting follows when it runs a kernel there,
  // including oneDNN's matmul, whose team is then at most that large.
  at::set_num_threads(2);
  int seen = 0;
  reset_record();
  std::thread([&] {
    omp_set_num_threads(7);
    const at::Tensor m = at::ones({512, 512});
    at::mm(m, m);
    seen = omp_get_max_threads();
  }).join();
  EXPECT_EQ(seen, 2);
  EXPECT_GE(record().regions, 1);
  EXPECT_EQ(record().threads, 2u);
  // And on a thread that has run kernels at this count, after the program
  // changed OpenMP's setting there itself.
  const at::Tensor m = at::ones({512, 512});
  at::mm(m, m);
  omp_set_num_threads(7);
  reset_record();
  at::mm(m, m);
  EXPECT_EQ(omp_get_max_threads(), 2);
  EXPECT_GE(record().regions, 1);
  EXPECT_LE(record().threads, 2u);
  at::set_num_threads(before);
}

// Runs `op` on a new thread whose own OpenMP setting (7) is not what
// at::set_num_threads says, and returns how many threads ran the bodies of
// the OpenMP regions it started (0 when it started none).
size_t threads_used(const std::function<void()>& op) {
  reset_record();
  std::thread([&] {
    omp_set_num_threads(7);
    op();
  }).join();
  return record().threads;
}

// Every family of the CPU plugin's parallel loops (See Note [One thread
// count for every loop] in backends/cpu/parallel_loops.h), each on inputs large
// enough for at least three threads, on a thread that had run no kernel:
// each uses at::get_num_threads() threads, not OpenMP's per-thread default
// and not a fixed cap. oneDNN's convolution picks its own team size up to
// that count.
TEST(Parallel, EveryLoopFamilyFollowsTheSettingOnAFreshThread) {
#if defined(__SANITIZE_THREAD__) || defined(__clang__)
  GTEST_SKIP() << "see KernelsApplyTheSettingOnTheirThread: the default (gcc, uninstrumented) "
                  "run covers this test.";
#endif
  const int before = at::get_num_threads();
  const at::Tensor rows = at::ones({4096, 64});
  const at::Tensor row_index = at::arange(4096);
  const at::Tensor wide = at::ones({64, 4096});
  const at::Tensor zeros_index = at::zeros({512, 128}, at::kLong);
  const at::Tensor matrix = at::ones({512, 128});
  const at::Tensor images = at::ones({8, 16, 32, 32});
  const at::Tensor images_double = at::ones({4, 8, 32, 32}, at::kDouble);
  const at::Tensor weight_double = at::ones({16, 8, 3, 3}, at::kDouble);
  const at::Tensor weight = at::ones({16, 16, 3, 3});
  const at::Tensor table = at::ones({1000, 64});
  const at::Tensor channels = at::ones({64, 32, 16, 16});
  const at::Tensor running = at::zeros({32});
  struct Case {
    const char* name;
    bool onednn;  // oneDNN chooses its team, at most the setting
    std::function<void()> op;
  };
  const std::vector<Case> cases = {
      {"add (TensorIterator)", false, [&] { at::add(rows, rows); }},
      {"sum.dim_IntList (reductions)", false, [&] { at::sum(rows, {1}); }},
      {"cumsum (scan)", false, [&] { at::cumsum(rows, 1); }},
      {"index_select", false, [&] { at::index_select(rows, 0, row_index); }},
      {"gather", false, [&] { at::gather(matrix, 1, zeros_index); }},
      {"scatter", false, [&] { at::scatter(matrix, 1, zeros_index, matrix); }},
      {"index.Tensor", false, [&] { at::index(rows, {row_index}); }},
      // Indexing dim 1: each of the 64 rows is a piece (repeated picks along
      // the indexed dim stay on one thread).
      {"index_put_", false,
       [&] { wide.clone().index_put_({at::indexing::Slice(), row_index}, wide); }},
      {"sort", false, [&] { at::sort(matrix, 1); }},
      {"embedding", false, [&] { at::embedding(table, row_index.remainder(1000)); }},
      {"native_layer_norm", false, [&] { at::layer_norm(rows, {64}); }},
      {"native_batch_norm", false,
       [&] { at::batch_norm(channels, {}, {}, running.clone(), running.clone() + 1, true, 0.1,
                            1e-5, false); }},
      {"_softmax", false, [&] { at::softmax(rows, 1); }},
      {"max_pool2d", false, [&] { at::max_pool2d(images, {3, 3}); }},
      {"max_pool2d 2x2", false, [&] { at::max_pool2d(images, {2, 2}); }},
      {"avg_pool2d", false, [&] { at::avg_pool2d(images, {2, 2}); }},
      {"adaptive_avg_pool2d", false, [&] { at::adaptive_avg_pool2d(images, {5, 5}); }},
      {"rand (random)", false, [&] { at::rand({1 << 16}); }},
      {"dropout", false, [&] { at::dropout(rows, 0.5, true); }},
      {"conv2d float64 (plain loops)", false,
       [&] { at::conv2d(images_double, weight_double); }},
      {"conv2d float32 (oneDNN)", true, [&] { at::conv2d(images, weight); }},
  };
  for (int n : {1, 3}) {
    at::set_num_threads(n);
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(c.name) + ", set_num_threads(" + std::to_string(n) + ")");
      const size_t used = threads_used(c.op);
      if (c.onednn) {
        EXPECT_LE(used, static_cast<size_t>(n));
      } else {
        // One thread runs a loop without starting a region.
        EXPECT_EQ(used, n == 1 ? 0u : static_cast<size_t>(n));
      }
    }
  }
  at::set_num_threads(before);
}

TEST(Parallel, RefusesNonPositiveCounts) {
  EXPECT_THAT(ember_test::errorOf([] { at::set_num_threads(0); }),
              HasSubstr("set_num_threads: expected a positive number of threads, but got 0"));
  EXPECT_GE(at::get_num_threads(), 1);
}

}  // namespace
