// at::set_num_threads / at::get_num_threads, and that the CPU plugin applies
// the setting to OpenMP (which oneDNN follows) on the thread that runs a
// kernel.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdlib>
#include <thread>

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;

// Large enough for the parallel path of the elementwise loops.
at::Tensor big() { return at::ones({1 << 16}); }

TEST(Parallel, DefaultFollowsOmpNumThreads) {
  const char* env = std::getenv("OMP_NUM_THREADS");
  const int n = at::get_num_threads();
  EXPECT_GE(n, 1);
  if (env != nullptr && std::atoi(env) > 0) {
    EXPECT_EQ(n, std::atoi(env));
  }
}

TEST(Parallel, KernelsApplyTheSettingOnTheirThread) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "libgomp is not TSan-instrumented, so a two-thread OpenMP team reports "
                  "false races; the default (uninstrumented) run covers this test.";
#endif
  const int before = at::get_num_threads();
  at::set_num_threads(1);
  EXPECT_EQ(at::get_num_threads(), 1);
  const at::Tensor x = big();
  at::Tensor one = at::add(x, x);
  EXPECT_EQ(omp_get_max_threads(), 1);
  at::set_num_threads(2);
  at::Tensor two = at::add(x, x);
  EXPECT_EQ(omp_get_max_threads(), 2);
  for (int64_t i = 0; i < x.numel(); ++i) {
    ASSERT_EQ(one.data_ptr<float>()[i], 2.0f);
    ASSERT_EQ(two.data_ptr<float>()[i], 2.0f);
  }
  // Another thread's OpenMP setting follows when it runs a kernel there,
  // including oneDNN's matmul.
  int seen = 0;
  std::thread([&] {
    omp_set_num_threads(7);
    at::mm(at::ones({4, 4}), at::ones({4, 4}));
    seen = omp_get_max_threads();
  }).join();
  EXPECT_EQ(seen, 2);
  at::set_num_threads(before);
}

TEST(Parallel, RefusesNonPositiveCounts) {
  EXPECT_THAT(ember_test::errorOf([] { at::set_num_threads(0); }),
              HasSubstr("set_num_threads: expected a positive number of threads, but got 0"));
  EXPECT_GE(at::get_num_threads(), 1);
}

}  // namespace
