// The GPU suite, third part: the dtypes added to the pointwise, copy and
// reduction kernels on 2026-12-02 without a GPU (Short, Char, Byte, Half,
// BFloat16; kernels/dtypes.cuh), Half/BFloat16 in softmax, nll_loss and
// threshold_backward and their matmuls through cublasGemmEx, each against
// the CPU plugin; random numbers of those dtypes; the CUDA generator's
// get_state/set_state; and the words an op built for
// the core five dtypes refuses the others with. One binary with
// cuda_gpu_test.cc (tools/gpu/run.sh runs it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include <torch/types.h>

#include "aten/CPUGeneratorImpl.h"
#include "c10/core/DefaultGenerators.h"

#include "tests/backends/cuda/gpu_test_util.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_gpu_test::expect_close;
using ember_gpu_test::expect_equal;
using ember_gpu_test::Gpu;
using ember_gpu_test::randn;

const std::vector<c10::ScalarType> kIntegral = {c10::kShort, c10::kChar, c10::kByte};
const std::vector<c10::ScalarType> kReduced = {c10::kHalf, c10::kBFloat16};

// Values every integral dtype holds (Byte's too), 7×9, and its transposed
// (strided) view.
at::Tensor small_ints(c10::ScalarType dt, int64_t seed) {
  return at::arange(63).mul(seed).remainder(23).reshape({7, 9}).to(dt);
}

double tol_of(c10::ScalarType dt) { return dt == c10::kHalf ? 2e-3 : 1.6e-2; }

TEST_F(Gpu, IntegralDtypesComputeAsTheCpu) {
  for (c10::ScalarType dt : kIntegral) {
    SCOPED_TRACE(c10::toString(dt));
    const at::Tensor a = small_ints(dt, 5), b = small_ints(dt, 3).add(1);
    const at::Tensor ga = a.to(cuda), gb = b.to(cuda);
    expect_equal(at::add(ga, gb, 3), at::add(a, b, 3));
    expect_equal(ga.mul(gb), a.mul(b));  // wraps for Char and Byte
    expect_equal(ga.t().sub(gb.t()), a.t().sub(b.t()));
    expect_equal(at::maximum(ga, gb.t().contiguous().t()), at::maximum(a, b));
    expect_equal(ga.bitwise_xor(gb), a.bitwise_xor(b));
    expect_equal(ga.remainder(gb), a.remainder(b));
    expect_equal(ga.div(gb, "floor"), a.div(b, "floor"));
    expect_equal(ga.lt(gb), a.lt(b));
    expect_equal(at::where(ga.gt(gb), ga, gb), at::where(a.gt(b), a, b));
    expect_equal(ga.clamp(2, 9), a.clamp(2, 9));
    expect_close(ga.div(gb), a.div(b));    // true division is Float
    expect_close(ga.exp().log(), a.exp().log(), 1e-5, 1e-5);
    expect_equal(ga.sum(), a.sum());       // Long
    expect_equal(ga.sum(1), a.sum(1));
    expect_equal(ga.amax(0), a.amax(0));
    expect_equal(ga.argmin(1), a.argmin(1));
    expect_equal(ga.prod(0), a.prod(0));
    expect_equal(ga.any(), a.any());
    expect_equal(ga.cumsum(1), a.cumsum(1));                       // Long
    at::Tensor gc = ga.clone(), cc = a.clone();
    expect_equal(gc.cumsum_(0), cc.cumsum_(0));                    // in its own dtype: wraps
    const at::Tensor idx = at::arange(9).remainder(4).reshape({1, 9}).expand({7, 9}).contiguous();
    expect_equal(ga.gather(1, idx.to(cuda)), a.gather(1, idx));
    expect_equal(ga.scatter(1, idx.to(cuda), 3), a.scatter(1, idx, 3));
    // Reductions at repeated indices wrap as the CPU's, in any order.
    expect_equal(ga.scatter(1, idx.to(cuda), gb, "add"), a.scatter(1, idx, b, "add"));
    expect_equal(ga.scatter(1, idx.to(cuda), gb, "multiply"), a.scatter(1, idx, b, "multiply"));
    expect_equal(ga.scatter_add(0, idx.to(cuda).narrow(0, 0, 3), gb),
                 a.scatter_add(0, idx.narrow(0, 0, 3), b));
    expect_equal(ga.scatter(1, idx.to(cuda), 7, "multiply"), a.scatter(1, idx, 7, "multiply"));
    expect_equal(ga.index_select(0, idx[0].to(cuda)), a.index_select(0, idx[0]));
    for (c10::ScalarType to : {c10::kFloat, c10::kHalf, c10::kBool, c10::kLong, c10::kByte}) {
      expect_equal(ga.t().to(to), a.t().to(to));
    }
  }
  // Bool reductions: or (add) and and (multiply), as the CPU's.
  const at::Tensor p = at::rand({7, 9}).lt(0.5), q = at::rand({7, 9}).lt(0.5);
  const at::Tensor bi = at::arange(9).remainder(4).reshape({1, 9}).expand({7, 9}).contiguous();
  expect_equal(p.to(cuda).scatter(1, bi.to(cuda), q.to(cuda), "add"), p.scatter(1, bi, q, "add"));
  expect_equal(p.to(cuda).scatter(1, bi.to(cuda), q.to(cuda), "multiply"),
               p.scatter(1, bi, q, "multiply"));
  // The CPU's conversion of out-of-range floats: through int64, wrapped.
  const at::Tensor f = at::tensor(std::vector<double>{-2.5, 254.9, 300.7, -129.5});
  expect_equal(f.to(cuda).to(c10::kByte), f.to(c10::kByte));
  expect_equal(f.to(cuda).to(c10::kChar), f.to(c10::kChar));
}

TEST_F(Gpu, HalfAndBFloat16ComputeInFloatAsTheCpu) {
  for (c10::ScalarType dt : kReduced) {
    SCOPED_TRACE(c10::toString(dt));
    const double rtol = tol_of(dt), atol = rtol;
    const at::Tensor a = randn({33, 65}).to(dt), b = randn({33, 65}).to(dt);
    const at::Tensor ga = a.to(cuda), gb = b.to(cuda);
    expect_close(at::add(ga, gb, 2), at::add(a, b, 2), rtol, atol);
    expect_close(ga.mul(gb.t().contiguous().t()), a.mul(b), rtol, atol);
    expect_close(ga.div(gb.abs().add(1)), a.div(b.abs().add(1)), rtol, atol);
    expect_close(ga.exp(), a.exp(), rtol, atol);
    expect_close(ga.sigmoid(), a.sigmoid(), rtol, atol);
    expect_close(at::gelu(ga), at::gelu(a), rtol, atol);
    expect_close(ga.relu(), a.relu(), rtol, atol);
    expect_close(at::lerp(ga, gb, 0.25), at::lerp(a, b, 0.25), rtol, atol);
    expect_equal(ga.ge(gb), a.ge(b));
    expect_equal(ga.isnan(), a.isnan());
    expect_close(ga.sum(), a.sum(), rtol, 0.1);      // float accumulation, one rounding
    expect_close(ga.sum(0), a.sum(0), rtol, atol);
    expect_close(ga.mean(1), a.mean(1), rtol, atol);
    expect_equal(ga.amax(1), a.amax(1));
    expect_equal(ga.argmax(), a.argmax());
    expect_close(ga.var(0), a.var(0), rtol, atol);
    expect_equal(ga.cumsum(1), a.cumsum(1));  // float accumulator, each step rounded, as the CPU
    const at::Tensor idx = at::arange(65).remainder(5).reshape({1, 65}).expand({33, 65}).contiguous();
    expect_equal(ga.gather(1, idx.to(cuda)), a.gather(1, idx));
    expect_equal(ga.scatter(1, idx.to(cuda), 0.25), a.scatter(1, idx, 0.25));
    // Reductions at repeated indices (13 per slot), each step in float and
    // rounded, as the CPU's, in the atomics' order: within the roundings.
    expect_close(ga.scatter(1, idx.to(cuda), gb, "add"), a.scatter(1, idx, b, "add"),
                 16 * rtol, 16 * atol);
    expect_close(ga.scatter_add(1, idx.to(cuda), gb), a.scatter_add(1, idx, b), 16 * rtol,
                 16 * atol);
    const at::Tensor near_one = b.mul(0.1).add(1);
    expect_close(ga.scatter(1, idx.to(cuda), near_one.to(cuda), "multiply"),
                 a.scatter(1, idx, near_one, "multiply"), 16 * rtol, 16 * atol);
    expect_close(ga.scatter(1, idx.to(cuda), 0.5, "add"), a.scatter(1, idx, 0.5, "add"),
                 16 * rtol, 16 * atol);
    for (c10::ScalarType to : {c10::kFloat, c10::kDouble, c10::kHalf, c10::kBFloat16,
                               c10::kInt, c10::kBool}) {
      expect_equal(ga.t().mul(8).to(to), a.t().mul(8).to(to));
    }
    // mm and bmm through cublasGemmEx: float accumulation, so within a
    // rounding of the CPU's float result.
    const at::Tensor m1 = randn({17, 40}), m2 = randn({40, 23});
    const at::Tensor want = m1.to(dt).to(c10::kFloat).mm(m2.to(dt).to(c10::kFloat));
    expect_close(m1.to(dt).to(cuda).mm(m2.to(dt).to(cuda)).to(c10::kFloat), want, 2 * rtol, 2 * rtol * 8);
    expect_close(m1.t().to(dt).to(cuda).t().mm(m2.to(dt).to(cuda)).to(c10::kFloat), want,
                 2 * rtol, 2 * rtol * 8);
    const at::Tensor b1 = randn({3, 5, 8}), b2 = randn({3, 8, 6});
    expect_close(b1.to(dt).to(cuda).bmm(b2.to(dt).to(cuda)).to(c10::kFloat),
                 b1.to(dt).to(c10::kFloat).bmm(b2.to(dt).to(c10::kFloat)), 2 * rtol,
                 2 * rtol * 4);
  }
}

// A Half or BFloat16 classifier step: relu, log_softmax and nll_loss and
// their backward, a matmul, on the device in 16-bit storage, against the
// same step computed in float on the CPU from the same 16-bit values (each
// op rounds once to 16 bits on the GPU, so within a few roundings).
TEST_F(Gpu, HalfAndBFloat16TrainingStepMatchesFloat) {
  const at::Tensor x = randn({16, 12}), w = randn({12, 10}).mul(0.3);
  const at::Tensor target = at::arange(16).remainder(10);
  for (c10::ScalarType dt : kReduced) {
    SCOPED_TRACE(c10::toString(dt));
    const double tol = 4 * tol_of(dt);
    std::vector<at::Tensor> results[2];
    for (int on_gpu = 0; on_gpu < 2; ++on_gpu) {
      const c10::Device dev = on_gpu ? cuda : c10::Device(c10::kCPU);
      const c10::ScalarType run = on_gpu ? dt : c10::kFloat;
      at::Tensor lw = w.to(dt).to(run).to(dev).detach().requires_grad_();
      const at::Tensor h = at::relu(x.to(dt).to(run).to(dev).mm(lw));
      const at::Tensor logp = at::log_softmax(h, 1);
      const at::Tensor loss = at::nll_loss(logp, target.to(dev));
      loss.backward();
      ASSERT_TRUE(lw.grad().defined());
      EXPECT_EQ(lw.grad().scalar_type(), run);
      results[on_gpu] = {loss.to(c10::kFloat), at::softmax(h, 1).to(c10::kFloat),
                         lw.grad().to(c10::kFloat)};
    }
    for (size_t i = 0; i < results[0].size(); ++i) {
      expect_close(results[1][i], results[0][i], tol, tol);
    }
    // An embedding's gradient in 16 bits: accumulated in float, rounded once.
    const at::Tensor ids = at::tensor(std::vector<int64_t>{1, 3, 1, 0, 3, 3});
    const at::Tensor go = randn({6, 4}).to(dt);
    expect_close(at::embedding_dense_backward(go.to(cuda), ids.to(cuda), 5, -1, false),
                 at::embedding_dense_backward(go.to(c10::kFloat), ids, 5, -1, false).to(dt),
                 tol_of(dt), tol_of(dt));
  }
}

// The CUDA generator's state is the CPU's layout (seed, offset): restored,
// the draws repeat; set into a CPU generator, the CPU draws what the GPU
// drew (their streams are the same). A foreign state is refused.
TEST_F(Gpu, GeneratorStateRestoresAndCarriesToTheCpu) {
  at::Generator gen = at::detail::getDefaultGenerator(cuda);
  const at::TensorOptions on_gpu = at::TensorOptions().device(cuda);
  at::manual_seed(7);
  (void)at::rand({100}, on_gpu);  // the offset moves on
  at::Tensor state;
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    state = gen.get_state();
  }
  EXPECT_TRUE(state.is_cpu());
  EXPECT_EQ(state.scalar_type(), c10::kByte);
  EXPECT_EQ(state.numel(), 16);
  const at::Tensor first = at::rand({1000}, on_gpu).cpu();
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(state);
  }
  EXPECT_TRUE(at::equal(at::rand({1000}, on_gpu).cpu(), first));
  at::Generator cpu_gen = at::make_generator<at::CPUGeneratorImpl>(0);
  {
    std::lock_guard<std::mutex> lock(cpu_gen.mutex());
    cpu_gen.set_state(state);
  }
  EXPECT_TRUE(at::equal(at::rand({1000}, cpu_gen), first));
  std::lock_guard<std::mutex> lock(gen.mutex());
  EXPECT_THAT(ember_test::errorOf([&] { gen.set_state(at::zeros({16}, at::kFloat)); }),
              HasSubstr("CUDAGeneratorImpl::set_state: expected a CPU tensor of dtype Byte"));
  EXPECT_THAT(ember_test::errorOf([&] { gen.set_state(at::zeros({15}, at::kByte)); }),
              HasSubstr("expected a contiguous state of 16 bytes"));
}

// Random numbers of Half, BFloat16 and the small integers are the CPU's for
// one seed (Note [Random numbers of the other dtypes on CUDA]), uniform_
// stays below `to` after rounding, and the streams stay in step.
TEST_F(Gpu, RandomNumbersOfTheOtherDtypesAreTheCpus) {
  at::manual_seed(11);
  for (c10::ScalarType dt : kReduced) {
    SCOPED_TRACE(c10::toString(dt));
    const at::TensorOptions o = at::TensorOptions().dtype(dt);
    EXPECT_TRUE(at::equal(at::rand({999}, o.device(cuda)).cpu(), at::rand({999}, o)));
    EXPECT_TRUE(at::equal(at::randn({999}, o.device(cuda)).cpu(), at::randn({999}, o)));
    at::Tensor g = at::empty({4000}, o.device(cuda)), c = at::empty({4000}, o);
    EXPECT_TRUE(at::equal(g.uniform_(0.0, 0.3).cpu(), c.uniform_(0.0, 0.3)));
    EXPECT_LT(g.max().item<double>(), 0.3);
    EXPECT_TRUE(at::equal(at::randint(0, 100, {77}, o.device(cuda)).cpu(),
                          at::randint(0, 100, {77}, o)));
    EXPECT_TRUE(at::equal(g.bernoulli_(0.4).cpu(), c.bernoulli_(0.4)));
    const at::Tensor x = randn({300}).to(dt);
    const auto gd = at::native_dropout(x.to(cuda), 0.3, true);
    const auto cd = at::native_dropout(x, 0.3, true);
    EXPECT_TRUE(at::equal(std::get<1>(gd).cpu(), std::get<1>(cd)));
    EXPECT_TRUE(at::equal(std::get<0>(gd).cpu(), std::get<0>(cd)));
    const at::Tensor grad = randn({300}).to(dt);
    EXPECT_TRUE(at::equal(
        at::native_dropout_backward(grad.to(cuda), std::get<1>(gd), 1 / 0.7).cpu(),
        at::native_dropout_backward(grad, std::get<1>(cd), 1 / 0.7)));
  }
  for (c10::ScalarType dt : kIntegral) {
    SCOPED_TRACE(c10::toString(dt));
    const at::TensorOptions o = at::TensorOptions().dtype(dt);
    EXPECT_TRUE(at::equal(at::randint(3, 90, {77}, o.device(cuda)).cpu(),
                          at::randint(3, 90, {77}, o)));
    at::Tensor g = at::empty({5, 7}, o.device(cuda)).t(), c = at::empty({5, 7}, o).t();
    EXPECT_TRUE(at::equal(g.random_().cpu(), c.random_()));
  }
  EXPECT_TRUE(at::equal(at::rand({5}, at::TensorOptions().device(cuda)).cpu(), at::rand({5})));
}

// arange and linspace of the other dtypes through their carrier: the CPU's
// values (start and end rounded to the dtype first for linspace, integer
// aranges wrapping).
TEST_F(Gpu, RangesOfTheOtherDtypesAreTheCpus) {
  for (c10::ScalarType dt : {c10::kHalf, c10::kBFloat16, c10::kShort, c10::kChar, c10::kByte}) {
    SCOPED_TRACE(c10::toString(dt));
    const at::TensorOptions o = at::TensorOptions().dtype(dt);
    const bool floating = c10::isFloatingType(dt);
    expect_equal(at::arange(0, 100, 3, o.device(cuda)), at::arange(0, 100, 3, o));
    if (floating) {
      expect_equal(at::arange(-1.3, 2.9, 0.1, o.device(cuda)), at::arange(-1.3, 2.9, 0.1, o));
    }
    expect_equal(at::linspace(0.3, 97.7, 41, o.device(cuda)), at::linspace(0.3, 97.7, 41, o));
    expect_equal(at::linspace(5, 5, 1, o.device(cuda)), at::linspace(5, 5, 1, o));
    at::Tensor g = at::empty({9, 2}, o.device(cuda)).t()[0], c = at::empty({9, 2}, o).t()[0];
    expect_equal(at::arange_out(g, 0, 9), at::arange_out(c, 0, 9));  // strided out
  }
}

// empty with ChannelsLast: NHWC strides on the device, as on the CPU; other
// formats refused with the core's words.
TEST_F(Gpu, EmptyTakesChannelsLast) {
  const at::TensorOptions o = at::TensorOptions().device(cuda);
  const at::Tensor t = at::empty({2, 3, 4, 5}, o, c10::MemoryFormat::ChannelsLast);
  EXPECT_TRUE(t.is_cuda());
  EXPECT_EQ(t.strides(), c10::IntArrayRef({60, 1, 15, 3}));
  const at::Tensor x = randn({2, 3, 4, 5});
  const at::Tensor g = x.to(cuda).contiguous(c10::MemoryFormat::ChannelsLast);
  EXPECT_EQ(g.strides(), c10::IntArrayRef({60, 1, 15, 3}));
  expect_equal(g, x);
  EXPECT_THAT(
      ember_test::errorOf([&] { (void)at::empty({2, 3}, o, c10::MemoryFormat::ChannelsLast); }),
      HasSubstr("memory format ChannelsLast needs 4 sizes"));
  EXPECT_THAT(
      ember_test::errorOf([&] { (void)at::empty({2, 3}, o, c10::MemoryFormat::Preserve); }),
      HasSubstr("memory format Preserve"));
}

// randperm of every dtype but Bool: the CPU's permutation for one seed,
// converted as the CPU converts (exact: check_randperm keeps n - 1 within
// the dtype's integers); a too-large n is the CPU's error.
TEST_F(Gpu, RandpermOfEveryDtypeIsTheCpus) {
  for (c10::ScalarType t : {c10::kHalf, c10::kBFloat16, c10::kShort, c10::kChar, c10::kByte,
                            c10::kFloat, c10::kDouble, c10::kInt, c10::kLong}) {
    SCOPED_TRACE(c10::toString(t));
    at::manual_seed(7);
    const at::Tensor cpu = at::randperm(100, at::TensorOptions().dtype(t));
    at::manual_seed(7);
    const at::Tensor gpu = at::randperm(100, at::TensorOptions().dtype(t).device(cuda));
    expect_equal(gpu, cpu);
  }
  EXPECT_EQ(ember_test::errorOf([&] {
              (void)at::randperm(300, at::TensorOptions().dtype(c10::kByte).device(cuda));
            }),
            ember_test::errorOf(
                [&] { (void)at::randperm(300, at::TensorOptions().dtype(c10::kByte)); }));
}

// _softmax/_log_softmax with half_to_float: a Half input, a Float result (not
// rounded to Half) as on the CPU; the backward of that case (Float grad and
// output, input_dtype Half) a Half gradient; the CPU's refusal of Float.
TEST_F(Gpu, SoftmaxHalfToFloatIsTheCpus) {
  const at::Tensor x = randn({5, 33}).mul(4).to(c10::kHalf);
  for (bool log : {false, true}) {
    SCOPED_TRACE(log ? "log_softmax" : "softmax");
    for (int64_t d : {0, 1}) {
      const at::Tensor cpu = log ? at::_log_softmax(x, d, true) : at::_softmax(x, d, true);
      const at::Tensor gpu =
          log ? at::_log_softmax(x.to(cuda), d, true) : at::_softmax(x.to(cuda), d, true);
      EXPECT_EQ(gpu.scalar_type(), c10::kFloat);
      expect_close(gpu, cpu, 1e-6, 1e-6);
      const at::Tensor g = randn({5, 33});
      const at::Tensor cg = log ? at::_log_softmax_backward_data(g, cpu, d, c10::kHalf)
                                : at::_softmax_backward_data(g, cpu, d, c10::kHalf);
      const at::Tensor gg =
          log ? at::_log_softmax_backward_data(g.to(cuda), gpu, d, c10::kHalf)
              : at::_softmax_backward_data(g.to(cuda), gpu, d, c10::kHalf);
      EXPECT_EQ(gg.scalar_type(), c10::kHalf);
      expect_close(gg, cg, 2e-3, 1e-3);
    }
  }
  EXPECT_EQ(ember_test::errorOf([&] { at::_softmax(x.to(c10::kFloat).to(cuda), 1, true); }),
            ember_test::errorOf([&] { at::_softmax(x.to(c10::kFloat), 1, true); }));
}

}  // namespace
