// The plan of the CUDA sum over dimensions (backends/cuda/kernels/sum_plan.h,
// Note [CUDA sum over dimensions]): its stages, each applied as the kernels
// do (the [outer, rows, inner] view of the previous result, summed over the
// middle) with the CPU's sum, give the CPU's sum over the same dimensions
// exactly (integers); runs of reduced dimensions become one stage each,
// innermost first; the plan refuses middle stages narrower than the limit.
// And the middle-sum kernel's launches (kernels/middle_sums.cuh, Note [CUDA
// middle sums]) run on the host block by block and thread by thread as the
// GPU runs them: every output written once, the CPU's sums.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "backends/cuda/kernels/middle_sums.cuh"
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

// The launches of middle_plan run on the host as the kernel runs them:
// every block of the grid, every outer index of its loop, every thread's
// partial (middle_partial), the partials added in y order into
// middle_out_index. Outputs and workspace start as a sentinel so a missed
// or doubled write shows.
std::vector<int64_t> emulate_middle(const at::Tensor& input, int64_t outer, int64_t rows,
                                    int64_t inner, int64_t* writes) {
  const at::Tensor x = input.contiguous();
  const int64_t* in = x.data_ptr<int64_t>();
  const k::MiddlePlan p = k::middle_plan(outer, rows, inner);
  const int64_t kSentinel = -777777;
  std::vector<int64_t> out(static_cast<size_t>(outer * inner), kSentinel);
  std::vector<int64_t> workspace(static_cast<size_t>(p.workspace_elems), kSentinel);
  *writes = 0;
  for (int n = 0; n < p.count; ++n) {
    const k::MiddleLaunch& l = p.launch[n];
    const int64_t* src = l.from_workspace ? workspace.data() : in;
    std::vector<int64_t>& dst = l.to_workspace ? workspace : out;
    for (int64_t bz = 0; bz < l.grid_z; ++bz) {
      for (int64_t by = 0; by < l.grid_y; ++by) {
        for (int64_t bx = 0; bx < l.grid_x; ++bx) {
          for (int64_t o = by; o < l.outer; o += l.grid_y) {
            int64_t part[k::kMiddleRowThreads][k::kMiddleColumns];
            for (int y = 0; y < k::kMiddleRowThreads; ++y) {
              for (int t = 0; t < k::kMiddleColumns; ++t) {
                part[y][t] = k::middle_partial<int64_t, int64_t>(
                    src, l, o, bx * k::kMiddleColumns + t, bz, y);
              }
            }
            for (int t = 0; t < k::kMiddleColumns; ++t) {
              const int64_t column = bx * k::kMiddleColumns + t;
              if (column >= l.inner) continue;
              int64_t total = part[0][t];
              for (int y = 1; y < k::kMiddleRowThreads; ++y) total += part[y][t];
              const int64_t at = k::middle_out_index(l, o, column, bz);
              EXPECT_GE(at, 0);
              EXPECT_LT(at, static_cast<int64_t>(dst.size()));
              EXPECT_EQ(dst[static_cast<size_t>(at)], kSentinel) << "written twice: " << at;
              dst[static_cast<size_t>(at)] = total;
              if (!l.to_workspace) ++*writes;
            }
          }
        }
      }
    }
  }
  for (int64_t w : workspace) EXPECT_NE(w, kSentinel) << "a workspace slot never written";
  return out;
}

TEST(MiddleSums, TheLaunchesGridsGiveTheCpusSum) {
  struct Case {
    int64_t outer, rows, inner;
    int expected_launches;
  };
  const std::vector<Case> cases = {
      {1, 128, 512, 1},     // a bias gradient: 16 column blocks, 128 rows: not sliced
      {1, 100000, 33, 2},   // few outputs, long columns: sliced
      {3, 5000, 40, 2},     {2, 511, 64, 1},  // below 512 rows: not sliced
      {70000, 3, 32, 1},    // more outer indices than grid y: the block loops
      {1, 0, 40, 1},        // no rows: zeros
      {5, 7, 1, 1},         {1, 4096, 2000, 2},  // 63 column blocks: sliced 5 ways
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.outer) + " x " + std::to_string(c.rows) + " x " +
                 std::to_string(c.inner));
    const k::MiddlePlan p = k::middle_plan(c.outer, c.rows, c.inner);
    EXPECT_EQ(p.count, c.expected_launches);
    const at::Tensor x = at::randint(-1000, 1000, {c.outer, c.rows, c.inner}, at::kLong);
    int64_t writes = 0;
    const std::vector<int64_t> got = emulate_middle(x, c.outer, c.rows, c.inner, &writes);
    EXPECT_EQ(writes, c.outer * c.inner);
    const at::Tensor want = x.sum(1).reshape({-1}).contiguous();
    EXPECT_EQ(got, std::vector<int64_t>(want.data_ptr<int64_t>(),
                                        want.data_ptr<int64_t>() + want.numel()));
  }
  EXPECT_EQ(k::middle_plan(0, 5, 40).count, 0);  // nothing to write
  EXPECT_EQ(k::middle_plan(3, 5, 0).count, 0);
}

}  // namespace
