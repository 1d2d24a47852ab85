// The GPU suite, the ops that order and scan: sort and topk (every dtype,
// every dim, long rows and many rows, out=, errors, gradients) and cumsum
// (the CPU's values; long lines through the chunked scan), each against the
// CPU plugin. One binary with cuda_gpu_test.cc (tools/gpu/run.sh runs it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include <torch/autograd.h>
#include <torch/types.h>

#include "tests/backends/cuda/gpu_test_util.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_gpu_test::expect_close;
using ember_gpu_test::expect_equal;
using ember_gpu_test::Gpu;
using ember_gpu_test::randn;

// cumsum: the CPU's order and accumulator, so the CPU's values exactly.
TEST_F(Gpu, CumsumIsTheCpus) {
  const at::Tensor x = randn({5, 300, 3});
  for (int64_t d : {0, 1, 2, -1}) {
    expect_close(at::cumsum(x.to(cuda), d), at::cumsum(x, d), 0, 0);
  }
  expect_close(at::cumsum(x.transpose(0, 2).to(cuda), 1), at::cumsum(x.transpose(0, 2), 1), 0, 0);
  const at::Tensor i = at::randint(-100, 100, {7, 9}, at::kInt);
  EXPECT_TRUE(at::equal(at::cumsum(i.to(cuda), 1).cpu(), at::cumsum(i, 1)));  // Long result
  EXPECT_TRUE(at::equal(at::cumsum(i.to(cuda), 0, at::kInt).cpu(), at::cumsum(i, 0, at::kInt)));
  const at::Tensor b = at::rand({6}).lt(0.5);
  EXPECT_TRUE(at::equal(at::cumsum(b.to(cuda), 0).cpu(), at::cumsum(b, 0)));
  at::Tensor cx = x.clone().set_requires_grad(true), gx = x.to(cuda).set_requires_grad(true);
  at::cumsum(cx, 1).sum().backward();
  at::cumsum(gx, 1).sum().backward();
  expect_close(gx.grad(), cx.grad(), 1e-5, 1e-5);  // its backward sums (not in CPU order)
}

// Long lines take the chunked scan (Note [CUDA long cumsum]): integers and
// Bool exactly the CPU's, wrapping included; floating types within the
// accumulator's roundings. Lengths at the chunk's edges (2048), rows and a
// non-last dim with few lines (transposed to rows and back).
TEST_F(Gpu, LongCumsumLinesScanInChunks) {
  for (int64_t n : {1024, 2047, 2048, 2049, 4096, 100001}) {
    SCOPED_TRACE("n " + std::to_string(n));
    const at::Tensor i = at::randint(-1000, 1000, {3, n});
    EXPECT_TRUE(at::equal(at::cumsum(i.to(cuda), 1).cpu(), at::cumsum(i, 1)));
    const at::Tensor f = randn({3, n});
    expect_close(at::cumsum(f.to(cuda), 1), at::cumsum(f, 1), 1e-6, 1e-5);
    const at::Tensor d = randn({2, n}, c10::kDouble);
    expect_close(at::cumsum(d.to(cuda), -1), at::cumsum(d, -1), 1e-12, 1e-12);
  }
  const at::Tensor col = at::randint(-9, 9, {5000, 7}, at::kInt);
  EXPECT_TRUE(at::equal(at::cumsum(col.to(cuda), 0, at::kInt).cpu(), at::cumsum(col, 0, at::kInt)));
  const at::Tensor fcol = randn({3, 3000, 5});
  expect_close(at::cumsum(fcol.to(cuda), 1), at::cumsum(fcol, 1), 1e-6, 1e-5);
  const at::Tensor wrap = at::randint(-128, 128, {70000}).to(at::kChar);
  EXPECT_TRUE(at::equal(at::cumsum(wrap.to(cuda), 0, at::kChar).cpu(), at::cumsum(wrap, 0, at::kChar)));
  const at::Tensor bits = at::rand({9000}).lt(0.001);
  EXPECT_TRUE(at::equal(at::cumsum(bits.to(cuda), 0).cpu(), at::cumsum(bits, 0)));  // Long
  at::Tensor gb = bits.to(cuda), cb = bits.clone();
  EXPECT_TRUE(at::equal(gb.cumsum_(0).cpu(), cb.cumsum_(0)));  // Bool: or
  const at::Tensor h = randn({2, 5000}).to(c10::kHalf);
  expect_close(at::cumsum(h.to(cuda), 1), at::cumsum(h, 1), 2e-3, 2e-2);
  at::Tensor cx = randn({4, 3000}).set_requires_grad(true);
  at::Tensor gx = cx.detach().to(cuda).set_requires_grad(true);
  at::cumsum(cx, 1).mul(cx.detach()).sum().backward();
  at::cumsum(gx, 1).mul(gx.detach()).sum().backward();
  expect_close(gx.grad(), cx.grad(), 1e-4, 1e-3);
}

// Values a GPU op returned equal to the CPU's, element for element and NaN
// for NaN (sort moves elements, so their bits are the input's).
void expect_same_values(const at::Tensor& gpu, const at::Tensor& cpu) {
  ASSERT_TRUE(gpu.is_cuda());
  const at::Tensor back = gpu.cpu();
  ASSERT_EQ(back.sizes(), cpu.sizes());
  ASSERT_EQ(back.scalar_type(), cpu.scalar_type());
  if (!c10::isFloatingType(cpu.scalar_type())) {
    EXPECT_TRUE(back.equal(cpu)) << "gpu:\n" << back << "\ncpu:\n" << cpu;
    return;
  }
  EXPECT_TRUE(back.isnan().equal(cpu.isnan()));
  EXPECT_TRUE(at::where(back.isnan(), 0.0, back).equal(at::where(cpu.isnan(), 0.0, cpu)))
      << "gpu:\n" << back << "\ncpu:\n" << cpu;
}

// sort and topk of x on the GPU against the CPU along every dim, both ways:
// the same values and the same indices (stable: ties in position order).
void expect_sorts_like_the_cpu(const at::Tensor& x, const c10::Device& cuda,
                               const std::vector<int64_t>& ks) {
  const at::Tensor gx = x.to(cuda);
  for (int64_t d = -1; d < std::max<int64_t>(x.dim(), 1); ++d) {
    for (bool descending : {false, true}) {
      SCOPED_TRACE("dim " + std::to_string(d) + (descending ? " descending" : " ascending"));
      const auto cpu = at::sort(x, /*stable=*/true, d, descending);
      const auto gpu = at::sort(gx, /*stable=*/true, d, descending);
      expect_same_values(std::get<0>(gpu), std::get<0>(cpu));
      expect_equal(std::get<1>(gpu), std::get<1>(cpu));
      const auto plain = at::sort(gx, d, descending);  // stable=false: stable too
      expect_equal(std::get<1>(plain), std::get<1>(cpu));
      if (x.scalar_type() == c10::kBool) continue;
      const int64_t n = x.dim() == 0 ? 1 : x.size(d);
      for (int64_t k : ks) {
        if (k > n) continue;
        SCOPED_TRACE("k " + std::to_string(k));
        const auto ct = at::topk(x, k, d, /*largest=*/descending);
        const auto gt = at::topk(gx, k, d, /*largest=*/descending);
        expect_same_values(std::get<0>(gt), std::get<0>(ct));
        expect_equal(std::get<1>(gt), std::get<1>(ct));
      }
    }
  }
}

// sort and topk on every dtype, every dim, both directions, against the CPU:
// many ties (small integers), NaN, infinities and -0.0 among floats; a
// strided input; 0-dim and empty tensors.
TEST_F(Gpu, SortAndTopkAreTheCpus) {
  const std::vector<c10::ScalarType> types = {
      c10::kFloat, c10::kDouble, c10::kHalf, c10::kBFloat16, c10::kLong,
      c10::kInt,   c10::kShort,  c10::kChar, c10::kByte,     c10::kBool};
  for (c10::ScalarType t : types) {
    SCOPED_TRACE(c10::toString(t));
    at::Tensor x = at::randint(0, 9, {6, 37, 5}).sub(t == c10::kByte || t == c10::kBool ? 0 : 4);
    if (t == c10::kBool) x = x.gt(3);
    x = x.to(t);
    if (c10::isFloatingType(t)) {
      x.select(1, 3).fill_(std::numeric_limits<double>::quiet_NaN());
      x.select(1, 5).fill_(std::numeric_limits<double>::infinity());
      x.select(1, 8).fill_(-std::numeric_limits<double>::infinity());
      x.select(1, 11).fill_(-0.0);
      x.select(1, 12).fill_(0.0);
      x.select(1, 13).fill_(-0.0);
      x.select(0, 2).mul_(0.37);
    }
    expect_sorts_like_the_cpu(x, cuda, {0, 1, 3, 5, 37});
    expect_sorts_like_the_cpu(x.transpose(0, 2), cuda, {2});
  }
  expect_sorts_like_the_cpu(at::full({}, 3.5), cuda, {0, 1});
  expect_sorts_like_the_cpu(at::empty({0, 4}), cuda, {0});
  expect_sorts_like_the_cpu(at::empty({4, 0}), cuda, {0});
}

// Rows of 2^17 elements and more take one radix sort per row, shorter ones
// one segmented sort: both against the CPU, with ties across the whole row.
TEST_F(Gpu, LongRowsAndManyRowsSortLikeTheCpu) {
  expect_sorts_like_the_cpu(at::randint(0, 1000, {300000}).to(c10::kFloat), cuda, {7});
  expect_sorts_like_the_cpu(at::randint(-50, 50, {3, 131072}).to(c10::kHalf), cuda, {1});
  expect_sorts_like_the_cpu(randn({20000, 3}, c10::kDouble), cuda, {2});
  expect_sorts_like_the_cpu(at::randint(0, 3, {5000, 40}), cuda, {4});
}

// out= variants (resized, checked as on the CPU), the errors, and the
// gradient of topk's and sort's values.
TEST_F(Gpu, SortAndTopkOutErrorsAndGradients) {
  const at::Tensor x = randn({4, 9});
  const at::Tensor gx = x.to(cuda);
  at::Tensor v = at::empty({0}, at::TensorOptions().device(cuda));
  at::Tensor i = at::empty({0}, at::TensorOptions().dtype(c10::kLong).device(cuda));
  at::sort_out(v, i, gx, /*stable=*/true, 1, true);
  const auto cs = at::sort(x, true, 1, true);
  expect_same_values(v, std::get<0>(cs));
  expect_equal(i, std::get<1>(cs));
  at::topk_out(v, i, gx, 3, 0, false);
  const auto ct = at::topk(x, 3, 0, false);
  expect_same_values(v, std::get<0>(ct));
  expect_equal(i, std::get<1>(ct));

  // Errors: the CPU's messages where the CPU has them.
  auto both = [&](auto op) {
    EXPECT_EQ(ember_test::errorOf([&] { op(gx, cuda); }),
              ember_test::errorOf([&] { op(x, c10::Device(c10::kCPU)); }));
  };
  both([](const at::Tensor& t, c10::Device) { at::topk(t, 10, 1); });
  both([](const at::Tensor& t, c10::Device) { at::topk(t, -1, 1); });
  both([](const at::Tensor& t, c10::Device) { at::sort(t, 2); });
  both([](const at::Tensor& t, c10::Device dev) {
    at::Tensor wv = at::empty({0}, at::TensorOptions().dtype(c10::kDouble).device(dev));
    at::Tensor wi = at::empty({0}, at::TensorOptions().dtype(c10::kLong).device(dev));
    at::sort_out(wv, wi, t, true, 1, false);
  });
  both([](const at::Tensor& t, c10::Device dev) {
    at::Tensor wv = at::empty({0}, at::TensorOptions().device(dev));
    at::Tensor wi = at::empty({0}, at::TensorOptions().dtype(c10::kInt).device(dev));
    at::topk_out(wv, wi, t, 2, 1, true);
  });
  EXPECT_THAT(ember_test::errorOf([&] { at::topk(gx.gt(0), 1); }),
              HasSubstr("\"topk_cuda\" not implemented for 'Bool'"));
  at::Tensor cv = at::empty({0}), ci = at::empty({0}, at::TensorOptions().dtype(c10::kLong));
  EXPECT_THAT(ember_test::errorOf([&] { at::sort_out(cv, ci, gx, true, 1, false); }),
              HasSubstr("sort_out: Expected all tensors to be on the same device"));

  at::Tensor cx = x.clone().set_requires_grad(true), gg = gx.clone().set_requires_grad(true);
  std::get<0>(at::topk(cx, 3, 1)).mul(at::arange(3)).sum().backward();
  std::get<0>(at::topk(gg, 3, 1)).mul(at::arange(3).to(cuda)).sum().backward();
  expect_close(gg.grad(), cx.grad(), 0, 0);
  at::Tensor sx = x.clone().set_requires_grad(true), sg = gx.clone().set_requires_grad(true);
  std::get<0>(at::sort(sx, 0)).mul(at::arange(4).unsqueeze(1)).sum().backward();
  std::get<0>(at::sort(sg, 0)).mul(at::arange(4).unsqueeze(1).to(cuda)).sum().backward();
  expect_close(sg.grad(), sx.grad(), 0, 0);
}

}  // namespace
