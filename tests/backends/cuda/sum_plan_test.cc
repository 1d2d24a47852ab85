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

#include <cmath>
#include <memory>
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
// partial (middle_partial with the reduction `Op`), the partials combined in
// y order into middle_out_index. Outputs and workspace start as a sentinel
// so that a missed or doubled write shows.
template <typename T, typename Acc, typename Op>
std::vector<Acc> emulate_middle(const T* in, int64_t outer, int64_t rows, int64_t inner,
                                int64_t* writes) {
  const k::MiddlePlan p = k::middle_plan(outer, rows, inner);
  std::vector<Acc> out(static_cast<size_t>(outer * inner), Op::identity());
  // An array, not a vector: middle_partial reads it as Acc* (bool too).
  const size_t ws_size = static_cast<size_t>(p.workspace_elems);
  std::unique_ptr<Acc[]> workspace(new Acc[ws_size > 0 ? ws_size : 1]);
  std::vector<char> written(out.size(), 0), ws_written(ws_size, 0);
  *writes = 0;
  for (int n = 0; n < p.count; ++n) {
    const k::MiddleLaunch& l = p.launch[n];
    std::vector<char>& marks = l.to_workspace ? ws_written : written;
    for (int64_t bz = 0; bz < l.grid_z; ++bz) {
      for (int64_t by = 0; by < l.grid_y; ++by) {
        for (int64_t bx = 0; bx < l.grid_x; ++bx) {
          for (int64_t o = by; o < l.outer; o += l.grid_y) {
            Acc part[k::kMiddleRowThreads][k::kMiddleColumns];
            for (int y = 0; y < k::kMiddleRowThreads; ++y) {
              for (int t = 0; t < k::kMiddleColumns; ++t) {
                const int64_t column = bx * k::kMiddleColumns + t;
                part[y][t] =
                    l.from_workspace
                        ? k::middle_partial<Acc, Acc, Op>(workspace.get(), l, o, column, bz, y)
                        : k::middle_partial<T, Acc, Op>(in, l, o, column, bz, y);
              }
            }
            for (int t = 0; t < k::kMiddleColumns; ++t) {
              const int64_t column = bx * k::kMiddleColumns + t;
              if (column >= l.inner) continue;
              Acc total = part[0][t];
              for (int y = 1; y < k::kMiddleRowThreads; ++y) total = Op::combine(total, part[y][t]);
              const int64_t at = k::middle_out_index(l, o, column, bz);
              if (at < 0 || at >= static_cast<int64_t>(marks.size())) {
                ADD_FAILURE() << "writes outside: " << at;
                return out;
              }
              EXPECT_EQ(marks[static_cast<size_t>(at)], 0) << "written twice: " << at;
              marks[static_cast<size_t>(at)] = 1;
              if (l.to_workspace) {
                workspace[static_cast<size_t>(at)] = total;
              } else {
                out[static_cast<size_t>(at)] = total;
              }
              if (!l.to_workspace) ++*writes;
            }
          }
        }
      }
    }
  }
  for (char w : ws_written) EXPECT_EQ(w, 1) << "a workspace slot never written";
  return out;
}

template <typename T>
std::vector<T> values_of(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  return std::vector<T>(c.data_ptr<T>(), c.data_ptr<T>() + c.numel());
}

TEST(MiddleSums, TheLaunchesGridsGiveTheCpusSum) {
  struct Case {
    int64_t outer, rows, inner;
    int expected_launches;
  };
  const std::vector<Case> cases = {
      {1, 128, 512, 1},     // a bias gradient: 16 column blocks, 128 rows: not sliced
      {1, 60000, 33, 2},    // few outputs, long columns: sliced
      {3, 5000, 40, 2},     {2, 511, 64, 1},  // below 512 rows: not sliced
      {65600, 2, 32, 1},    // more outer indices than grid y: the block loops
      {1, 0, 40, 1},        // no rows: zeros
      {5, 7, 1, 1},         {1, 2048, 1000, 2},  // 32 column blocks: sliced 8 ways
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.outer) + " x " + std::to_string(c.rows) + " x " +
                 std::to_string(c.inner));
    const k::MiddlePlan p = k::middle_plan(c.outer, c.rows, c.inner);
    EXPECT_EQ(p.count, c.expected_launches);
    const at::Tensor x = at::randint(-1000, 1000, {c.outer, c.rows, c.inner}, at::kLong);
    int64_t writes = 0;
    const std::vector<int64_t> got = emulate_middle<int64_t, int64_t, k::MiddleSum<int64_t>>(
        x.data_ptr<int64_t>(), c.outer, c.rows, c.inner, &writes);
    EXPECT_EQ(writes, c.outer * c.inner);
    EXPECT_EQ(got, values_of<int64_t>(x.sum(1).reshape({-1})));
    if (c.rows == 0) continue;  // max/min of nothing is refused before the kernels
    // The other reductions through the same launches: max and min with NaNs
    // (they win), all and any, prod of +-1 (wrapping-free, exact).
    at::Tensor f = at::randn({c.outer, c.rows, c.inner});
    f.view({-1}).index_put_({at::arange(0, f.numel(), 977)}, at::full({}, NAN));
    for (bool max : {true, false}) {
      const std::vector<float> got_f =
          max ? emulate_middle<float, float, k::MiddleExtreme<float, true>>(
                    f.data_ptr<float>(), c.outer, c.rows, c.inner, &writes)
              : emulate_middle<float, float, k::MiddleExtreme<float, false>>(
                    f.data_ptr<float>(), c.outer, c.rows, c.inner, &writes);
      const std::vector<float> want_f =
          values_of<float>((max ? at::amax(f, {1}) : at::amin(f, {1})).reshape({-1}));
      ASSERT_EQ(got_f.size(), want_f.size());
      for (size_t j = 0; j < got_f.size(); ++j) {
        EXPECT_TRUE(std::isnan(want_f[j]) ? std::isnan(got_f[j]) : want_f[j] == got_f[j])
            << (max ? "max " : "min ") << j << ": " << got_f[j] << " vs " << want_f[j];
      }
    }
    const at::Tensor b = f.gt(0.5);
    const std::vector<bool> all = emulate_middle<bool, bool, k::MiddleLogical<true>>(
        b.data_ptr<bool>(), c.outer, c.rows, c.inner, &writes);
    const std::vector<bool> any = emulate_middle<bool, bool, k::MiddleLogical<false>>(
        b.data_ptr<bool>(), c.outer, c.rows, c.inner, &writes);
    const std::vector<bool> want_all = values_of<bool>(at::all(b, 1).reshape({-1}));
    const std::vector<bool> want_any = values_of<bool>(at::any(b, 1).reshape({-1}));
    EXPECT_EQ(all, want_all);
    EXPECT_EQ(any, want_any);
    const at::Tensor signs = at::randint(0, 2, {c.outer, c.rows, c.inner}, at::kLong).mul(2).sub(1);
    EXPECT_EQ((emulate_middle<int64_t, int64_t, k::MiddleProd<int64_t>>(
                  signs.data_ptr<int64_t>(), c.outer, c.rows, c.inner, &writes)),
              values_of<int64_t>(at::prod(signs, 1).reshape({-1})));
  }
  EXPECT_EQ(k::middle_plan(0, 5, 40).count, 0);  // nothing to write
  EXPECT_EQ(k::middle_plan(3, 5, 0).count, 0);
}

}  // namespace
