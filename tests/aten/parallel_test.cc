// at::set_num_threads / at::get_num_threads, and that the CPU plugin's
// kernels (and oneDNN) run their parallel loops on that many threads, applied
// on whichever thread runs the kernel.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include <ATen/Parallel.h>
#include <torch/torch.h>

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
  at::set_num_threads(before);
}

TEST(Parallel, RefusesNonPositiveCounts) {
  EXPECT_THAT(ember_test::errorOf([] { at::set_num_threads(0); }),
              HasSubstr("set_num_threads: expected a positive number of threads, but got 0"));
  EXPECT_GE(at::get_num_threads(), 1);
}

}  // namespace
