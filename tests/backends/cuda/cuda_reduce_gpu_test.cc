// The GPU suite, the reductions: max/min with positions, prod, var/std,
// all/any, argmax, and the reductions over leading and middle dims that run
// where the elements lie (Note [CUDA sum over dimensions]), each against the
// CPU plugin. One binary with cuda_gpu_test.cc (tools/gpu/run.sh runs it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>

#include "tests/backends/cuda/gpu_test_util.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_gpu_test::expect_close;
using ember_gpu_test::expect_equal;
using ember_gpu_test::Gpu;
using ember_gpu_test::randn;

// max/min with positions, prod, var/std, all/any, argmax over everything
// (two launches for a long row), against the CPU.
TEST_F(Gpu, ReductionsMatchTheCpu) {
  const at::Tensor x = randn({6, 7, 5});
  const at::Tensor gx = x.to(cuda);
  expect_equal(at::amax(gx, {1}), at::amax(x, {1}));
  expect_equal(at::amin(gx, {0, 2}, true), at::amin(x, {0, 2}, true));
  expect_equal(gx.max(), x.max());
  expect_equal(gx.min(), x.min());
  for (int64_t d : {0, 1, 2, -1}) {
    auto [gv, gi] = gx.max(d);
    auto [cv, ci] = x.max(d);
    expect_equal(gv, cv);
    expect_equal(gi, ci);
    auto [gv2, gi2] = gx.min(d, true);
    auto [cv2, ci2] = x.min(d, true);
    expect_equal(gv2, cv2);
    expect_equal(gi2, ci2);
  }
  expect_equal(gx.argmax(), x.argmax());
  expect_equal(gx.argmin(1), x.argmin(1));
  // Ties take the first position; NaN is the extreme of both.
  const at::Tensor ties = at::tensor({1.0, 3.0, 3.0, std::nan(""), 3.0, 0.0});
  expect_equal(ties.to(cuda).argmax(), ties.argmax());
  expect_equal(ties.to(cuda).argmin(), ties.argmin());
  expect_equal(at::isnan(ties.to(cuda).max()), at::isnan(ties.max()));
  const at::Tensor flat_ties = at::ones({5});
  expect_equal(flat_ties.to(cuda).argmax(), at::zeros({}, at::TensorOptions().dtype(c10::kLong)));
  // A long row: chunks, then their partials.
  const at::Tensor big = randn({100003});
  expect_equal(big.to(cuda).argmax(), big.argmax());
  expect_equal(big.to(cuda).amin(), big.amin());
  const at::Tensor i = at::arange(1, 13).reshape({3, 4});
  expect_equal(at::prod(i.to(cuda)), at::prod(i));
  expect_equal(at::prod(i.to(cuda), 1), at::prod(i, 1));
  expect_close(at::prod(gx.div(2).add(1), 1), at::prod(x.div(2).add(1), 1), 1e-4, 1e-5);
  expect_close(at::prod(i.to(cuda), 0, false, c10::kDouble), at::prod(i, 0, false, c10::kDouble));
  expect_close(at::var(gx, {1}), at::var(x, {1}), 1e-5, 1e-6);
  expect_close(at::std(gx, {0, 2}, false, true), at::std(x, {0, 2}, false, true), 1e-5, 1e-6);
  expect_close(at::var(gx.to(c10::kDouble)), at::var(x.to(c10::kDouble)), 1e-12, 1e-12);
  auto [gvar, gmean] = at::var_mean(gx, at::IntArrayRef{2}, true);
  auto [cvar, cmean] = at::var_mean(x, at::IntArrayRef{2}, true);
  expect_close(gvar, cvar, 1e-5, 1e-6);
  expect_close(gmean, cmean, 1e-5, 1e-6);
  const at::Tensor mask = x.gt(0);
  expect_equal(at::all(mask.to(cuda)), at::all(mask));
  expect_equal(at::any(mask.to(cuda), 1), at::any(mask, 1));
  expect_equal(at::all(gx, 2, true), at::all(x, 2, true));
  expect_equal(at::any(i.to(cuda).sub(5)), at::any(i.sub(5)));
  at::Tensor out = at::empty({0}, at::TensorOptions().device(cuda));
  at::amax_out(out, gx, {2});
  expect_equal(out, at::amax(x, {2}));
  at::sum_out(out, gx, {1});
  expect_close(out, at::sum(x, {1}));
  at::Tensor bool_out = at::empty({0}, at::TensorOptions().dtype(c10::kBool).device(cuda));
  at::all_out(bool_out, mask.to(cuda), 0);
  expect_equal(bool_out, at::all(mask, 0));
  // Errors are the core's, as on the CPU.
  const std::string cpu_error = ember_test::errorOf([&] { at::amax(at::empty({0, 3}), {0}); });
  EXPECT_EQ(ember_test::errorOf([&] { at::amax(at::empty({0, 3}).to(cuda), {0}); }), cpu_error);
  EXPECT_THAT(ember_test::errorOf([&] { at::var(i.to(cuda)); }),
              HasSubstr("std and var only support floating point"));
}

// Sums of contiguous inputs over leading and middle dims run where the
// elements lie (Note [CUDA sum over dimensions]): a bias gradient, batch
// statistics over (0, 2, 3), a middle run, long columns split into slices,
// fewer than 32 columns (the general path), integers exactly, Half and Bool,
// empty dims, keepdim and dtype=.
TEST_F(Gpu, SumsOverLeadingAndMiddleDimsMatchTheCpu) {
  struct Case {
    std::vector<int64_t> sizes;
    std::vector<int64_t> dims;
  };
  const std::vector<Case> cases = {
      {{128, 512}, {0}},         {{64, 32, 14, 14}, {0, 2, 3}}, {{2, 3, 4, 50}, {1, 2}},
      {{100000, 64}, {0}},       {{3000, 33}, {0}},             {{1000, 4}, {0}},
      {{5, 0, 40}, {1}},         {{0, 40}, {0}},                {{7, 40, 3}, {0, 2}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.sizes) + " over " + ::testing::PrintToString(c.dims));
    const at::Tensor i = at::randint(-1000, 1000, c.sizes);
    EXPECT_TRUE(at::equal(at::sum(i.to(cuda), c.dims).cpu(), at::sum(i, c.dims)));
    const at::Tensor f = randn(c.sizes);
    expect_close(at::sum(f.to(cuda), c.dims), at::sum(f, c.dims), 1e-5, 1e-4);
    expect_close(at::sum(f.to(cuda), c.dims, /*keepdim=*/true), at::sum(f, c.dims, true), 1e-5,
                 1e-4);
    const at::Tensor h = f.to(c10::kHalf);
    expect_close(at::sum(h.to(cuda), c.dims), at::sum(h, c.dims), 1e-2, 1e-1);
    const at::Tensor b = f.gt(0);
    EXPECT_TRUE(at::equal(at::sum(b.to(cuda), c.dims).cpu(), at::sum(b, c.dims)));  // Long
    expect_close(at::sum(i.to(cuda), c.dims, false, c10::kDouble),
                 at::sum(i, c.dims, false, c10::kDouble), 0, 0);
  }
  // Run twice, the same bits (no atomics).
  const at::Tensor f = randn({100000, 64}).to(cuda);
  EXPECT_TRUE(at::equal(at::sum(f, {0}).cpu(), at::sum(f, {0}).cpu()));
}

// prod, amax/amin, all/any of contiguous inputs over leading and middle
// dims take the same in-place stages (launch_reduce_middle): the CPU's
// values, NaN winning max/min, integers exactly; Half prod keeps the old path.
TEST_F(Gpu, OtherReductionsOverLeadingDimsMatchTheCpu) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{128, 512}, {0}}, {{64, 32, 14, 14}, {0, 2, 3}}, {{60000, 40}, {0}}, {{7, 40, 3}, {0, 2}}};
  for (const auto& [sizes, dims] : cases) {
    SCOPED_TRACE(::testing::PrintToString(sizes) + " over " + ::testing::PrintToString(dims));
    at::Tensor f = randn(sizes);
    f.view({-1}).index_put_({at::arange(0, f.numel(), 997)}, at::full({}, NAN));
    const at::Tensor g = f.to(cuda);
    const auto same_nan = [](const at::Tensor& a, const at::Tensor& b) {
      EXPECT_TRUE(a.isnan().equal(b.isnan()));
      EXPECT_TRUE(at::where(a.isnan(), 0.0, a).equal(at::where(b.isnan(), 0.0, b)));
    };
    same_nan(at::amax(g, dims).cpu(), at::amax(f, dims));
    same_nan(at::amin(g, dims, /*keepdim=*/true).cpu(), at::amin(f, dims, true));
    const at::Tensor i = at::randint(-50, 50, sizes).to(c10::kInt);
    EXPECT_TRUE(at::amax(i.to(cuda), dims).cpu().equal(at::amax(i, dims)));
    const at::Tensor b = f.gt(-1.5);
    for (int64_t d : dims) {
      EXPECT_TRUE(at::all(b.to(cuda), d).cpu().equal(at::all(b, d)));
      EXPECT_TRUE(at::any(f.gt(2.5).to(cuda), d).cpu().equal(at::any(f.gt(2.5), d)));
      const at::Tensor signs = at::randint(0, 2, sizes).mul(2).sub(1);
      EXPECT_TRUE(at::prod(signs.to(cuda), d).cpu().equal(at::prod(signs, d)));
      const at::Tensor near1 = at::rand(sizes).mul(0.02).add(0.99);
      expect_close(at::prod(near1.to(cuda), d), at::prod(near1, d), 1e-4, 1e-6);
      expect_close(at::prod(near1.to(c10::kHalf).to(cuda), d),
                   at::prod(near1.to(c10::kHalf), d), 2e-2, 1e-3);
    }
  }
}

}  // namespace
