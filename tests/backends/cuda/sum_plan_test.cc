// The plan of the CUDA sum over dimensions (backends/cuda/kernels/sum_plan.h,
// Note [CUDA sum over dimensions]): its stages, each applied as the kernels
// do (the [outer, rows, inner] view of the previous result, summed over the
// middle) with the CPU's sum, give the CPU's sum over the same dimensions
// exactly (integers); runs of reduced dimensions become one stage each,
// innermost first; the plan refuses middle stages narrower than the limit.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "backends/cuda/kernels/sum_plan.h"

namespace {

namespace k = ember::cuda::kernels;

std::string describe(const std::vector<int64_t>& sizes, const std::vector<bool>& reduce) {
  std::string s;
  for (size_t d = 0; d < sizes.size(); ++d) {
    s += std::to_string(sizes[d]) + (reduce[d] ? "* " : " ");
  }
  return s;
}

// The plan applied with the CPU's sum, as the kernels apply it.
at::Tensor apply(const std::vector<k::SumStage>& stages, const at::Tensor& x) {
  at::Tensor in = x.contiguous();
  for (const k::SumStage& s : stages) {
    EXPECT_EQ(s.outer * s.rows * s.inner, in.numel());
    in = in.reshape({s.outer, s.rows, s.inner}).sum(1).reshape({-1});
  }
  return in;
}

TEST(SumPlan, StagesGiveTheCpusSum) {
  std::mt19937 rng(4);
  int planned = 0, middle = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const int ndim = std::uniform_int_distribution<int>(1, 6)(rng);
    std::vector<int64_t> sizes;
    std::vector<bool> reduce;
    std::vector<int64_t> dims;
    for (int d = 0; d < ndim; ++d) {
      sizes.push_back(std::uniform_int_distribution<int64_t>(0, 5)(rng) == 0
                          ? std::uniform_int_distribution<int64_t>(0, 1)(rng)
                          : std::uniform_int_distribution<int64_t>(2, 6)(rng));
      reduce.push_back(std::uniform_int_distribution<int>(0, 1)(rng) == 1);
      if (reduce.back()) dims.push_back(d);
    }
    if (dims.empty()) continue;
    SCOPED_TRACE(describe(sizes, reduce));
    const std::vector<k::SumStage> stages = k::plan_sum(sizes, reduce, /*min_inner=*/2);
    if (stages.empty()) continue;  // a middle stage of one column
    ++planned;
    for (const k::SumStage& s : stages) middle += s.inner > 1;
    const at::Tensor x = at::randint(-100, 100, sizes, at::kLong);
    const at::Tensor want = at::sum(x, dims).reshape({-1});
    EXPECT_TRUE(apply(stages, x).equal(want));
  }
  EXPECT_GT(planned, 300);
  EXPECT_GT(middle, 150);
}

TEST(SumPlan, OneStagePerRunInnermostFirst) {
  // NCHW batch statistics: over (0, 2, 3) is two stages, rows then middle.
  const auto bn = k::plan_sum({64, 32, 14, 14}, {true, false, true, true}, 32);
  ASSERT_EQ(bn.size(), 2u);
  EXPECT_EQ(bn[0].outer, 64 * 32);
  EXPECT_EQ(bn[0].rows, 196);
  EXPECT_EQ(bn[0].inner, 1);
  EXPECT_EQ(bn[1].outer, 1);
  EXPECT_EQ(bn[1].rows, 64);
  EXPECT_EQ(bn[1].inner, 32);
  // A bias gradient: over dim 0 of [batch, features], one middle stage.
  const auto bias = k::plan_sum({128, 512}, {true, false}, 32);
  ASSERT_EQ(bias.size(), 1u);
  EXPECT_EQ(bias[0].outer, 1);
  EXPECT_EQ(bias[0].rows, 128);
  EXPECT_EQ(bias[0].inner, 512);
  // Adjacent reduced dims are one run.
  const auto run = k::plan_sum({2, 3, 4, 50}, {false, true, true, false}, 32);
  ASSERT_EQ(run.size(), 1u);
  EXPECT_EQ(run[0].outer, 2);
  EXPECT_EQ(run[0].rows, 12);
  EXPECT_EQ(run[0].inner, 50);
  // Everything: one row.
  const auto all = k::plan_sum({3, 4}, {true, true}, 32);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].outer, 1);
  EXPECT_EQ(all[0].rows, 12);
  EXPECT_EQ(all[0].inner, 1);
}

TEST(SumPlan, NarrowMiddleStagesAreLeftToTheGeneralPath) {
  EXPECT_TRUE(k::plan_sum({1000, 4}, {true, false}, 32).empty());  // 4 columns
  EXPECT_EQ(k::plan_sum({1000, 32}, {true, false}, 32).size(), 1u);
  EXPECT_TRUE(k::plan_sum({5, 6}, {false, false}, 32).empty());  // nothing to sum
  // Size-1 kept dims after the run make it a row sum.
  const auto ones = k::plan_sum({7, 9, 1, 1}, {false, true, false, false}, 32);
  ASSERT_EQ(ones.size(), 1u);
  EXPECT_EQ(ones[0].inner, 1);
  EXPECT_EQ(ones[0].outer, 7);
  EXPECT_EQ(ones[0].rows, 9);
}

}  // namespace
