// The GPU suite, second part: the op list written on 2026-11-27 without a GPU
// (pointwise ops with CPU scalars, comparisons, where/clamp/lerp, activations
// and their gradients, errors, the composite losses and layer norm,
// bmm/cat/index_select/embedding; the reductions are in
// cuda_reduce_gpu_test.cc), each against the CPU plugin. One binary with
// cuda_gpu_test.cc (tools/gpu/run.sh runs it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <torch/autograd.h>
#include <torch/types.h>

#include "aten/CPUGeneratorImpl.h"
#include "tests/backends/cuda/gpu_test_util.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_gpu_test::expect_close;
using ember_gpu_test::expect_equal;
using ember_gpu_test::Gpu;
using ember_gpu_test::randn;

// CPU 0-dim tensors and Scalar overloads reach the kernels by value (Note
// [CPU scalars on a device]): promotion as on the CPU, the vectorized loop
// with a scalar operand, a misaligned view beside a scalar.
TEST_F(Gpu, CpuScalarsAndScalarOverloadsMatchTheCpu) {
  const at::Tensor x = randn({1027});
  const at::Tensor gx = x.to(cuda);
  expect_close(gx.mul(2.5), x.mul(2.5));
  expect_close(at::add(gx, 3, 2), at::add(x, 3, 2));
  expect_close(gx.sub(1.25), x.sub(1.25));
  expect_close(gx.div(4), x.div(4));
  const at::Tensor half = at::full({}, 0.5, at::TensorOptions().dtype(c10::kDouble));
  expect_close(gx.mul(half), x.mul(half));                 // stays Float
  expect_close(gx.narrow(0, 1, 1020).add(half), x.narrow(0, 1, 1020).add(half));
  const at::Tensor i = at::arange(10);
  expect_close(i.to(cuda).mul(2.5), i.mul(2.5));           // Long * 2.5 is Float
  expect_equal(i.to(cuda).mul(3), i.mul(3));               // stays Long
  expect_close(at::pow(gx, 2), at::pow(x, 2));
  expect_close(at::pow(2.0, gx), at::pow(2.0, x));
  expect_equal(at::pow(i.to(cuda), 3), at::pow(i, 3));
  expect_close(at::rsub(gx, 1.5), at::rsub(x, 1.5));
  expect_close(at::where(gx.gt(0), gx, 0.0), at::where(x.gt(0), x, 0.0));
}

TEST_F(Gpu, UnaryOpsMatchTheCpu) {
  const at::Tensor x = randn({7, 9}).mul(3);
  const at::Tensor xt = x.t();  // strided
  for (c10::ScalarType dt : {c10::kFloat, c10::kDouble}) {
    const at::Tensor c = xt.to(dt), g = c.to(cuda);
    const at::Tensor cp = c.abs().add(0.1), gp = cp.to(cuda);
    expect_close(at::sign(g), at::sign(c));
    expect_close(at::floor(g), at::floor(c));
    expect_close(at::ceil(g), at::ceil(c));
    expect_close(at::round(g), at::round(c));
    expect_close(at::round(g, 2), at::round(c, 2));
    expect_close(at::round(g.mul(100), -1), at::round(c.mul(100), -1));
    expect_close(at::trunc(g), at::trunc(c));
    expect_close(at::log1p(gp), at::log1p(cp));
    expect_close(at::expm1(g), at::expm1(c));
    expect_close(at::rsqrt(gp), at::rsqrt(cp));
    expect_close(at::reciprocal(gp), at::reciprocal(cp));
    expect_close(at::sin(g), at::sin(c));
    expect_close(at::cos(g), at::cos(c));
    at::Tensor inplace = g.clone();
    inplace.floor_();
    expect_close(inplace, at::floor(c));
    at::Tensor out = at::empty({0}, at::TensorOptions().dtype(dt).device(cuda));
    at::sin_out(out, g);
    expect_close(out, at::sin(c));
  }
  const at::Tensor i = at::arange(-6, 6).reshape({3, 4});
  expect_equal(at::sign(i.to(cuda)), at::sign(i));
  expect_equal(at::floor(i.to(cuda)), i);
  expect_equal(at::bitwise_not(i.to(cuda)), at::bitwise_not(i));
  expect_close(at::sin(i.to(cuda)), at::sin(i));  // Long promotes to Float
  const at::Tensor b = i.gt(0);
  expect_equal(at::bitwise_not(b.to(cuda)), at::bitwise_not(b));
  expect_equal(at::abs(b.to(cuda)), at::abs(b));
}

TEST_F(Gpu, ComparisonsAndLogicalOpsMatchTheCpu) {
  const at::Tensor a = randn({4, 5}).round(), b = randn({5}).round();
  const at::Tensor ga = a.to(cuda), gb = b.to(cuda);
  expect_equal(at::eq(ga, gb), at::eq(a, b));
  expect_equal(at::ne(ga, gb), at::ne(a, b));
  expect_equal(at::lt(ga, gb), at::lt(a, b));
  expect_equal(at::le(ga.t(), 0), at::le(a.t(), 0));
  expect_equal(at::gt(ga, 0.5), at::gt(a, 0.5));
  expect_equal(at::ge(ga, gb), at::ge(a, b));
  const at::Tensor i = at::arange(20).reshape({4, 5});
  expect_equal(at::lt(i.to(cuda), ga), at::lt(i, a));      // Long vs Float
  at::Tensor inplace = ga.clone();
  inplace.lt_(gb);                                          // Bool into Float
  expect_equal(inplace, a.lt(b).to(c10::kFloat));
  at::Tensor out = at::empty({0}, at::TensorOptions().dtype(c10::kBool).device(cuda));
  at::eq_out(out, ga, gb);
  expect_equal(out, at::eq(a, b));
  expect_equal(at::logical_and(ga, i.to(cuda)), at::logical_and(a, i));
  expect_equal(at::logical_or(ga, gb), at::logical_or(a, b));
  expect_equal(at::logical_xor(ga, gb), at::logical_xor(a, b));
  expect_equal(at::logical_not(ga), at::logical_not(a));
  const at::Tensor special = at::tensor({1.0, std::nan(""), INFINITY, -INFINITY, 0.0});
  expect_equal(at::isnan(special.to(cuda)), at::isnan(special));
  expect_equal(at::isinf(special.to(cuda)), at::isinf(special));
  expect_equal(at::eq(special.to(cuda), special.to(cuda)), at::eq(special, special));
  expect_equal(at::bitwise_and(i.to(cuda), 6), at::bitwise_and(i, 6));
  const at::Tensor j = i.mul(7).add(3);
  expect_equal(at::bitwise_or(i.to(cuda), j.to(cuda)), at::bitwise_or(i, j));
  expect_equal(at::bitwise_xor(i.gt(3).to(cuda), i.lt(9).to(cuda)),
               at::bitwise_xor(i.gt(3), i.lt(9)));
  expect_close(at::fmod(ga, gb.add(0.5)), at::fmod(a, b.add(0.5)));
  expect_close(at::remainder(ga, -1.5), at::remainder(a, -1.5));
  expect_equal(at::remainder(i.sub(7).to(cuda), 3), at::remainder(i.sub(7), 3));
  expect_equal(at::fmod(i.sub(7).to(cuda), -3), at::fmod(i.sub(7), -3));
  expect_equal(at::div(i.sub(7).to(cuda), -3, "floor"), at::div(i.sub(7), -3, "floor"));
  expect_close(at::div(ga, gb.add(0.5), "floor"), at::div(a, b.add(0.5), "floor"));
  expect_close(at::div(ga, 0.7, "trunc"), at::div(a, 0.7, "trunc"));
  EXPECT_EQ(ember_test::errorOf([&] { at::fmod(i.to(cuda), i.mul(0).to(cuda)); }),
            ember_test::errorOf([&] { at::fmod(i, i.mul(0)); }));
  expect_equal(at::maximum(ga, gb), at::maximum(a, b));
  expect_equal(at::minimum(i.to(cuda), ga), at::minimum(i, a));
  const at::Tensor nan_max = at::maximum(special.to(cuda), at::zeros({5}).to(cuda));
  expect_equal(at::isnan(nan_max), at::isnan(special));     // NaN propagates
}

TEST_F(Gpu, WhereClampAddcmulLerpMatchTheCpu) {
  const at::Tensor a = randn({4, 5}), b = randn({5}), c = randn({4, 1});
  const at::Tensor ga = a.to(cuda), gb = b.to(cuda), gc = c.to(cuda);
  expect_close(at::where(ga.gt(gb), ga, gc), at::where(a.gt(b), a, c));
  expect_close(at::where(ga.gt(0), 1.0, gc), at::where(a.gt(0), 1.0, c));
  expect_close(at::clamp(ga, -0.5, 0.5), at::clamp(a, -0.5, 0.5));
  expect_close(at::clamp(ga, std::nullopt, 0.25), at::clamp(a, std::nullopt, 0.25));
  expect_close(at::clamp(ga, gc, gb), at::clamp(a, c, b));
  expect_close(at::clamp_min(ga, gb), at::clamp_min(a, b));
  expect_close(at::clamp_max(ga, 0.1), at::clamp_max(a, 0.1));
  const at::Tensor i = at::arange(-5, 5);
  expect_equal(at::clamp(i.to(cuda), -2, 3), at::clamp(i, -2, 3));
  expect_close(at::clamp(i.to(cuda), -2.5, 3.5), at::clamp(i, -2.5, 3.5));  // promotes
  at::Tensor inplace = ga.clone();
  inplace.clamp_(-1, 1);
  expect_close(inplace, a.clamp(-1, 1));
  expect_close(at::addcmul(ga, gb, gc, 0.5), at::addcmul(a, b, c, 0.5));
  expect_close(at::addcdiv(ga, gb, gc.abs().add(1), -2), at::addcdiv(a, b, c.abs().add(1), -2));
  expect_equal(at::addcmul(i.to(cuda), i.to(cuda), i.to(cuda), 3), at::addcmul(i, i, i, 3));
  expect_close(at::lerp(ga, gb, 0.3), at::lerp(a, b, 0.3));
  expect_close(at::lerp(ga, gb, gc.sigmoid()), at::lerp(a, b, c.sigmoid()));
}

TEST_F(Gpu, ActivationsAndTheirGradientsMatchTheCpu) {
  const at::Tensor x = randn({6, 7}).mul(3);
  const at::Tensor grad = randn({6, 7});
  using F = std::function<at::Tensor(const at::Tensor&)>;
  const std::vector<std::pair<const char*, F>> fns = {
      {"leaky_relu", [](const at::Tensor& t) { return at::leaky_relu(t, 0.2); }},
      {"gelu", [](const at::Tensor& t) { return at::gelu(t); }},
      {"gelu tanh", [](const at::Tensor& t) { return at::gelu(t, "tanh"); }},
      {"silu", [](const at::Tensor& t) { return at::silu(t); }},
      {"elu", [](const at::Tensor& t) { return at::elu(t, 1.5, 1.1, 0.9); }},
      {"softplus", [](const at::Tensor& t) { return at::softplus(t, 2, 5); }},
      {"hardtanh", [](const at::Tensor& t) { return at::hardtanh(t, -1.5, 2); }},
      {"sigmoid", [](const at::Tensor& t) { return at::sigmoid(t); }},
      {"tanh", [](const at::Tensor& t) { return at::tanh(t); }},
      {"pow", [](const at::Tensor& t) { return at::pow(t, 3); }},
      {"clamp", [](const at::Tensor& t) { return at::clamp(t, -1, 1); }},
      {"where", [](const at::Tensor& t) { return at::where(t.gt(0), t, t.mul(t)); }},
  };
  for (const auto& [name, f] : fns) {
    SCOPED_TRACE(name);
    at::Tensor cx = x.clone().set_requires_grad(true);
    at::Tensor gx = x.to(cuda).set_requires_grad(true);
    const at::Tensor cy = f(cx), gy = f(gx);
    expect_close(gy.detach(), cy.detach(), 1e-5, 1e-5);
    cy.backward(grad);
    gy.backward(grad.to(cuda));
    expect_close(gx.grad(), cx.grad(), 1e-4, 1e-5);
  }
  expect_close(at::leaky_relu_backward(grad.to(cuda), x.to(cuda), 0.1, false),
               at::leaky_relu_backward(grad, x, 0.1, false));
  expect_close(at::elu_backward(grad.to(cuda), 1, 1, 1, true, at::elu(x).to(cuda)),
               at::elu_backward(grad, 1, 1, 1, true, at::elu(x)));
}

// The argument checks are the core's: the CUDA kernels refuse what the CPU
// refuses, with the same words.
TEST_F(Gpu, PointwiseErrorsMatchTheCpu) {
  const at::Tensor b = at::ones({3}, at::TensorOptions().dtype(c10::kBool));
  const at::Tensor f = at::ones({3});
  const at::Tensor i = at::ones({3}, at::TensorOptions().dtype(c10::kLong));
  using ember_test::errorOf;
  auto same = [&](const std::function<void(const at::Tensor&, const at::Tensor&,
                                           const at::Tensor&)>& op) {
    const std::string cpu = errorOf([&] { op(b, f, i); });
    const std::string gpu = errorOf([&] { op(b.to(cuda), f.to(cuda), i.to(cuda)); });
    EXPECT_FALSE(cpu.empty());
    EXPECT_EQ(gpu, cpu);
  };
  same([](auto& b, auto&, auto&) { at::sub(b, b); });
  same([](auto&, auto& f, auto&) { at::bitwise_and(f, f); });
  same([](auto&, auto& f, auto&) { at::bitwise_not(f); });
  same([](auto&, auto&, auto& i) { at::add(i, i, 0.5); });
  same([](auto&, auto& f, auto&) { at::where(f, f, f); });
  same([](auto&, auto& f, auto&) {
    at::clamp(f, std::optional<c10::Scalar>(), std::optional<c10::Scalar>());
  });
  same([](auto&, auto&, auto& i) { at::round(i, 2); });
  same([](auto&, auto&, auto& i) { at::pow(i, -1); });
  same([](auto&, auto& f, auto&) { at::gelu(f, "fast"); });
  same([](auto&, auto& f, auto& i) { at::lerp(f, i.to(c10::kDouble), 0.5); });
  same([](auto& b, auto&, auto&) { at::neg(b); });
}

// mse_loss, binary_cross_entropy and layer_norm through their
// CompositeExplicitAutograd decompositions (aten/LossDecompositions.h,
// NormDecompositions.h), with gradients.
TEST_F(Gpu, CompositeLossesAndLayerNormMatchTheCpu) {
  const at::Tensor x = at::rand({6, 3}), t = at::rand({6, 3}).round(), w = at::rand({3});
  for (int64_t r : {0, 1, 2}) {
    expect_close(at::mse_loss(x.to(cuda), t.to(cuda), r), at::mse_loss(x, t, r));
    expect_close(at::binary_cross_entropy(x.to(cuda), t.to(cuda), w.to(cuda), r),
                 at::binary_cross_entropy(x, t, w, r), 1e-5, 1e-6);
    expect_close(at::binary_cross_entropy_with_logits(x.to(cuda).mul(8), t.to(cuda), w.to(cuda),
                                                      w.to(cuda), r),
                 at::binary_cross_entropy_with_logits(x.mul(8), t, w, w, r), 1e-5, 1e-6);
  }
  at::Tensor cx = x.clone().set_requires_grad(true);
  at::Tensor gx = x.to(cuda).set_requires_grad(true);
  at::binary_cross_entropy(cx, t).backward();
  at::binary_cross_entropy(gx, t.to(cuda)).backward();
  expect_close(gx.grad(), cx.grad(), 1e-5, 1e-6);
  // layer_norm through native_layer_norm's decomposition, with gradients.
  const at::Tensor h = randn({4, 3, 8}), lw = randn({8}), lb = randn({8});
  at::Tensor ch = h.clone().set_requires_grad(true), cw = lw.clone().set_requires_grad(true);
  at::Tensor gh = h.to(cuda).set_requires_grad(true), gw = lw.to(cuda).set_requires_grad(true);
  const at::Tensor cy = at::layer_norm(ch, {8}, cw, lb), gy = at::layer_norm(gh, {8}, gw, lb.to(cuda));
  expect_close(gy.detach(), cy.detach(), 1e-5, 1e-5);
  const at::Tensor up = randn({4, 3, 8});
  cy.backward(up);
  gy.backward(up.to(cuda));
  expect_close(gh.grad(), ch.grad(), 1e-4, 1e-5);
  expect_close(gw.grad(), cw.grad(), 1e-4, 1e-5);
  at::Tensor bad = x.clone();
  bad.select(0, 1).select(0, 2).fill_(-0.5);
  EXPECT_EQ(ember_test::errorOf([&] { at::binary_cross_entropy(bad.to(cuda), t.to(cuda)); }),
            ember_test::errorOf([&] { at::binary_cross_entropy(bad, t); }));
}

// batch_norm through native_batch_norm's decomposition: training (running
// statistics updated on the device) and evaluation, with gradients.
TEST_F(Gpu, CompositeBatchNormMatchesTheCpu) {
  const at::Tensor h = randn({4, 3, 5, 2}).mul(2).add(1), bw = randn({3}), bb = randn({3});
  for (bool training : {true, false}) {
    SCOPED_TRACE(training);
    at::Tensor crm = randn({3}), crv = at::rand({3}).add(0.5);
    at::Tensor grm = crm.to(cuda), grv = crv.to(cuda);
    at::Tensor ch = h.clone().set_requires_grad(true), cw = bw.clone().set_requires_grad(true);
    at::Tensor gh = h.to(cuda).set_requires_grad(true), gw = bw.to(cuda).set_requires_grad(true);
    const at::Tensor cy = at::batch_norm(ch, cw, bb, crm, crv, training, 0.2, 1e-5, false);
    const at::Tensor gy =
        at::batch_norm(gh, gw, bb.to(cuda), grm, grv, training, 0.2, 1e-5, false);
    expect_close(gy.detach(), cy.detach(), 1e-5, 1e-5);
    expect_close(grm, crm, 1e-5, 1e-6);
    expect_close(grv, crv, 1e-5, 1e-6);
    const at::Tensor up = randn({4, 3, 5, 2});
    cy.backward(up);
    gy.backward(up.to(cuda));
    expect_close(gh.grad(), ch.grad(), 1e-4, 1e-5);
    expect_close(gw.grad(), cw.grad(), 1e-4, 1e-5);
  }
}

// One seed, the CPU's numbers (Note [CUDA random numbers equal the CPU's]):
// equal integers and masks; Float uniform_/normal_ equal bit for bit;
// Double normal_ within the device's log/sin/cos rounding.
TEST_F(Gpu, RandomNumbersAreTheCpusForOneSeed) {
  const at::TensorOptions on_gpu = at::TensorOptions().device(cuda);
  at::manual_seed(123);  // every default generator: the CPU's and the GPU's
  for (int round = 0; round < 2; ++round) {  // the offsets advance alike
    EXPECT_TRUE(at::equal(at::rand({1001}, on_gpu).cpu(), at::rand({1001})));
    EXPECT_TRUE(at::equal(at::randn({1001}, on_gpu).cpu(), at::randn({1001})));
  }
  const at::TensorOptions dbl = at::TensorOptions().dtype(at::kDouble);
  EXPECT_TRUE(at::equal(at::rand({77}, dbl.device(cuda)).cpu(), at::rand({77}, dbl)));
  expect_close(at::randn({77}, dbl.device(cuda)), at::randn({77}, dbl), 1e-14, 1e-14);
  EXPECT_TRUE(at::equal(at::randint(-5, 1000, {77}, on_gpu).cpu(), at::randint(-5, 1000, {77})));
  const at::TensorOptions i32 = at::TensorOptions().dtype(at::kInt);
  EXPECT_TRUE(at::equal(at::randint(0, 7, {9}, i32.device(cuda)).cpu(), at::randint(0, 7, {9}, i32)));
  at::Tensor gl = at::empty({33}, on_gpu.dtype(at::kLong)), cl = at::empty({33}, at::kLong);
  EXPECT_TRUE(at::equal(gl.random_().cpu(), cl.random_()));
  at::Tensor gb = at::empty({50}, on_gpu), cb = at::empty({50});
  EXPECT_TRUE(at::equal(gb.bernoulli_(0.3).cpu(), cb.bernoulli_(0.3)));
  const at::Tensor probs = at::rand({40});
  EXPECT_TRUE(at::equal(at::bernoulli(probs.to(cuda)).cpu(), at::bernoulli(probs)));
  EXPECT_TRUE(at::equal(at::randperm(100, on_gpu.dtype(at::kLong)).cpu(), at::randperm(100)));
  // A non-contiguous target is filled in row-major order, as on the CPU.
  at::Tensor gt = at::empty({4, 6}, on_gpu).t(), ct = at::empty({4, 6}).t();
  EXPECT_TRUE(at::equal(gt.uniform_(-1, 1).cpu(), ct.uniform_(-1, 1)));
  // Dropout: the same mask and values, and its gradient.
  const at::Tensor x = randn({8, 16});
  const auto gd = at::native_dropout(x.to(cuda), 0.25, true);
  const auto cd = at::native_dropout(x, 0.25, true);
  EXPECT_TRUE(at::equal(std::get<1>(gd).cpu(), std::get<1>(cd)));
  EXPECT_TRUE(at::equal(std::get<0>(gd).cpu(), std::get<0>(cd)));
  at::Tensor gx = x.to(cuda).set_requires_grad(true);
  at::dropout(gx, 0.5, true).sum().backward();
  const at::Tensor g = gx.grad().cpu();
  EXPECT_TRUE(at::logical_or(g.eq(0), g.eq(2)).all().item<bool>()) << g;
  // The CPU's errors; a CPU generator is refused.
  const at::Tensor bad = at::full({3}, 1.5);
  EXPECT_EQ(ember_test::errorOf([&] { at::bernoulli(bad.to(cuda)); }),
            ember_test::errorOf([&] { at::bernoulli(bad); }));
  at::Generator cpu_gen = at::make_generator<at::CPUGeneratorImpl>(1);
  EXPECT_THAT(ember_test::errorOf([&] { at::empty({3}, on_gpu).uniform_(0, 1, cpu_gen); }),
              ::testing::HasSubstr("CPUGeneratorImpl"));
}

// Vector norms and logsumexp through the core's decompositions
// (aten/ReduceDecompositions.h), with a gradient.
TEST_F(Gpu, CompositeNormsAndLogsumexpMatchTheCpu) {
  const at::Tensor x = randn({4, 6, 5});
  for (double p : {0.0, 1.0, 2.0, 3.0, -1.0, std::numeric_limits<double>::infinity()}) {
    expect_close(at::linalg_vector_norm(x.to(cuda), p, std::vector<int64_t>{1}),
                 at::linalg_vector_norm(x, p, std::vector<int64_t>{1}), 1e-5, 1e-5);
  }
  expect_close(at::norm(x.to(cuda), 2, {0, 2}, true), at::norm(x, 2, {0, 2}, true), 1e-5, 1e-5);
  expect_close(at::logsumexp(x.to(cuda).mul(40), {2}), at::logsumexp(x.mul(40), {2}), 1e-5, 1e-5);
  at::Tensor cx = x.clone().set_requires_grad(true), gx = x.to(cuda).set_requires_grad(true);
  at::logsumexp(cx, {1}).sum().backward();
  at::logsumexp(gx, {1}).sum().backward();
  expect_close(gx.grad(), cx.grad(), 1e-5, 1e-6);
}

// gather, scatter (assign, add, multiply; src and value) and scatter_add;
// out-of-range indices are the CPU's IndexError and leave self unchanged.
TEST_F(Gpu, GatherAndScatterMatchTheCpu) {
  const at::Tensor x = randn({4, 5, 3});
  const at::Tensor idx = at::randint(0, 5, {4, 2, 3});
  expect_close(at::gather(x.to(cuda), 1, idx.to(cuda)), at::gather(x, 1, idx), 0, 0);
  const at::Tensor t = x.transpose(0, 2);  // strided self and index
  const at::Tensor ti = at::randint(0, 3, {3, 5, 4}).transpose(0, 1).contiguous().transpose(0, 1);
  expect_close(at::gather(t.to(cuda), 0, ti.to(cuda)), at::gather(t, 0, ti), 0, 0);
  // Unique indices per row so that assignment is deterministic.
  const at::Tensor perm = at::stack({at::randperm(5), at::randperm(5), at::randperm(5),
                                     at::randperm(5)}).unsqueeze(2).expand({4, 5, 3}).contiguous();
  const at::Tensor src = randn({4, 5, 3});
  expect_close(at::scatter(x.to(cuda), 1, perm.to(cuda), src.to(cuda)),
               at::scatter(x, 1, perm, src), 0, 0);
  expect_close(at::scatter(x.to(cuda), 1, perm.to(cuda), 2.5), at::scatter(x, 1, perm, 2.5), 0, 0);
  // Repeated indices: add and multiply combine every contribution.
  expect_close(at::scatter_add(x.to(cuda), 1, idx.to(cuda), src.narrow(1, 0, 2).to(cuda)),
               at::scatter_add(x, 1, idx, src.narrow(1, 0, 2)), 1e-5, 1e-6);
  expect_close(at::scatter(x.to(cuda), 1, idx.to(cuda), src.narrow(1, 0, 2).to(cuda), "multiply"),
               at::scatter(x, 1, idx, src.narrow(1, 0, 2), "multiply"), 1e-5, 1e-6);
  const at::Tensor li = at::randint(0, 4, {6}), lv = at::randint(-9, 9, {6});
  for (c10::ScalarType dt : {at::kLong, at::kInt}) {
    const at::Tensor base = at::ones({4}, at::TensorOptions().dtype(dt));
    EXPECT_TRUE(at::equal(at::scatter_add(base.to(cuda), 0, li.to(cuda), lv.to(dt).to(cuda)).cpu(),
                          at::scatter_add(base, 0, li, lv.to(dt))));
    EXPECT_TRUE(at::equal(at::scatter(base.to(cuda), 0, li.to(cuda), 3, "multiply").cpu(),
                          at::scatter(base, 0, li, 3, "multiply")));
  }
  // Gradient of gather (scatter_add in its backward).
  at::Tensor cx = x.clone().set_requires_grad(true), gx = x.to(cuda).set_requires_grad(true);
  at::gather(cx, 1, idx).sum().backward();
  at::gather(gx, 1, idx.to(cuda)).sum().backward();
  expect_close(gx.grad(), cx.grad(), 0, 0);
  // A bad index: the CPU's error, nothing written.
  at::Tensor bad = idx.clone();
  bad.select(0, 2).select(0, 1).select(0, 0).fill_(7);
  EXPECT_EQ(ember_test::errorOf([&] { at::gather(x.to(cuda), 1, bad.to(cuda)); }),
            ember_test::errorOf([&] { at::gather(x, 1, bad); }));
  at::Tensor g = x.to(cuda);
  EXPECT_EQ(ember_test::errorOf([&] { g.scatter_(1, bad.to(cuda), 0.0); }),
            ember_test::errorOf([&] { at::Tensor c = x.clone(); c.scatter_(1, bad, 0.0); }));
  expect_close(g, x, 0, 0);
}

// convolution (plain, grouped, strided, 1-d, transposed) and its gradients
// through the core's decomposition (aten/ConvDecompositions.h).
TEST_F(Gpu, CompositeConvolutionMatchesTheCpu) {
  const at::Tensor x = randn({2, 4, 9, 8}), w = randn({6, 2, 3, 3}), b = randn({6});
  expect_close(at::conv2d(x.to(cuda), w.to(cuda), b.to(cuda), {2, 1}, {1}, {1}, 2),
               at::conv2d(x, w, b, {2, 1}, {1}, {1}, 2), 1e-4, 1e-5);
  const at::Tensor x1 = randn({3, 2, 11}), w1 = randn({5, 2, 4});
  expect_close(at::conv1d(x1.to(cuda), w1.to(cuda), {}, {2}, {1}), at::conv1d(x1, w1, {}, {2}, {1}),
               1e-4, 1e-5);
  const at::Tensor wt = randn({4, 3, 3, 3});
  expect_close(at::conv_transpose2d(x.to(cuda), wt.to(cuda), {}, {2}, {1}, {1}),
               at::conv_transpose2d(x, wt, {}, {2}, {1}, {1}), 1e-4, 1e-5);
  at::Tensor cx = x.clone().set_requires_grad(true), gx = x.to(cuda).set_requires_grad(true);
  at::Tensor cw = randn({3, 4, 3, 3}).set_requires_grad(true);
  at::Tensor gw = cw.detach().to(cuda).set_requires_grad(true);
  at::relu(at::conv2d(cx, cw, {}, {1}, {1})).sum().backward();
  at::relu(at::conv2d(gx, gw, {}, {1}, {1})).sum().backward();
  expect_close(gx.grad(), cx.grad(), 1e-4, 1e-5);
  expect_close(gw.grad(), cw.grad(), 1e-4, 1e-4);
}

// max_pool2d through the core's decomposition: the CPU's values and
// indices, and its gradient.
TEST_F(Gpu, CompositeMaxPool2dMatchesTheCpu) {
  const at::Tensor x = randn({2, 3, 9, 8});
  for (bool ceil : {false, true}) {
    const auto g = at::max_pool2d_with_indices(x.to(cuda), {3}, {2}, {1}, {1}, ceil);
    const auto c = at::max_pool2d_with_indices(x, {3}, {2}, {1}, {1}, ceil);
    expect_close(std::get<0>(g), std::get<0>(c), 0, 0);
    EXPECT_TRUE(at::equal(std::get<1>(g).cpu(), std::get<1>(c)));
  }
  at::Tensor cx = x.clone().set_requires_grad(true), gx = x.to(cuda).set_requires_grad(true);
  at::max_pool2d(cx, {2}).sum().backward();
  at::max_pool2d(gx, {2}).sum().backward();
  expect_close(gx.grad(), cx.grad(), 0, 0);
  // avg_pool2d too (and Long, which divides truncating).
  expect_close(at::avg_pool2d(x.to(cuda), {3}, {2}, {1}, true, false),
               at::avg_pool2d(x, {3}, {2}, {1}, true, false), 1e-5, 1e-6);
  const at::Tensor l = at::randint(-50, 50, {1, 2, 6, 6});
  EXPECT_TRUE(at::equal(at::avg_pool2d(l.to(cuda), {2}).cpu(), at::avg_pool2d(l, {2})));
  at::Tensor ca = x.clone().set_requires_grad(true), ga = x.to(cuda).set_requires_grad(true);
  at::avg_pool2d(ca, {3}, {2}, {1}).sum().backward();
  at::avg_pool2d(ga, {3}, {2}, {1}).sum().backward();
  expect_close(ga.grad(), ca.grad(), 1e-5, 1e-6);
  // adaptive_avg_pool2d: averaging matrices through cuBLAS.
  at::Tensor cd = x.clone().set_requires_grad(true), gd = x.to(cuda).set_requires_grad(true);
  const at::Tensor cy = at::adaptive_avg_pool2d(cd, {4, 3}), gy = at::adaptive_avg_pool2d(gd, {4, 3});
  expect_close(gy.detach(), cy.detach(), 1e-5, 1e-6);
  cy.sum().backward();
  gy.sum().backward();
  expect_close(gd.grad(), cd.grad(), 1e-5, 1e-6);
}

// masked_fill_ through the core's decomposition (where, then copy_).
TEST_F(Gpu, CompositeMaskedFillMatchesTheCpu) {
  const at::Tensor x = randn({3, 4}), mask = at::rand({3, 4}).lt(0.5), row = at::rand({4}).lt(0.5);
  for (const at::Tensor& m : {mask, row}) {
    expect_close(at::masked_fill(x.to(cuda), m.to(cuda), -1e9), at::masked_fill(x, m, -1e9), 0, 0);
    at::Tensor g = x.to(cuda);
    g.masked_fill_(m.to(cuda), at::full({}, 2.0));
    expect_close(g, at::masked_fill(x, m, 2.0), 0, 0);
  }
  at::Tensor cx = x.clone().set_requires_grad(true), gx = x.to(cuda).set_requires_grad(true);
  at::masked_fill(cx, mask, 0.0).sum().backward();
  at::masked_fill(gx, mask.to(cuda), 0.0).sum().backward();
  expect_close(gx.grad(), cx.grad(), 0, 0);
  // nonzero and masked_select (a running sum and a scatter).
  EXPECT_TRUE(at::equal(at::nonzero(mask.to(cuda)).cpu(), at::nonzero(mask)));
  EXPECT_TRUE(at::equal(at::nonzero(x.gt(0).to(cuda)).cpu(), at::nonzero(x.gt(0))));
  EXPECT_TRUE(at::equal(at::masked_select(x.to(cuda), row.to(cuda)).cpu(), at::masked_select(x, row)));
  // Advanced indexing: index and index_put_ (Long, negative, mask, None).
  using Idx = std::vector<std::optional<at::Tensor>>;
  const at::Tensor i = at::tensor({2, -1, 0}, at::kLong);
  for (const Idx& idx : {Idx{i}, Idx{std::nullopt, at::tensor({3, 0}, at::kLong)}, Idx{mask}}) {
    Idx on_gpu;
    for (const auto& e : idx) on_gpu.push_back(e.has_value() ? std::optional<at::Tensor>(e->to(cuda)) : e);
    const at::Tensor want = at::index(x, idx);
    EXPECT_TRUE(at::equal(at::index(x.to(cuda), on_gpu).cpu(), want));
    const at::Tensor v = at::randn(want.sizes());
    at::Tensor g = x.to(cuda), c = x.clone();
    g.index_put_(on_gpu, v.to(cuda), true);
    c.index_put_(idx, v, true);
    expect_close(g, c, 1e-6, 1e-6);
  }
  EXPECT_EQ(ember_test::errorOf([&] { at::index(x.to(cuda), {at::tensor({7}, at::kLong).to(cuda)}); }),
            ember_test::errorOf([&] { at::index(x, {at::tensor({7}, at::kLong)}); }));
}

// nll_loss2d (and so cross_entropy over [N, C, H, W]) through the core's
// decomposition onto nll_loss.
TEST_F(Gpu, CompositeNllLoss2dMatchesTheCpu) {
  const at::Tensor x = randn({2, 4, 3, 5}), t = at::randint(0, 4, {2, 3, 5});
  at::Tensor cx = x.clone().set_requires_grad(true), gx = x.to(cuda).set_requires_grad(true);
  const at::Tensor cl = at::cross_entropy_loss(cx, t), gl = at::cross_entropy_loss(gx, t.to(cuda));
  expect_close(gl.detach(), cl.detach(), 1e-5, 1e-6);
  cl.backward();
  gl.backward();
  expect_close(gx.grad(), cx.grad(), 1e-5, 1e-6);
}

// Past 2^31 elements the general kernel's Iteration is split into pieces it
// indexes in 32 bits (Note [CUDA 32-bit indexing]): a transposing copy and
// a strided add over 3 x 2^30 bytes (3 GiB a tensor, 12 GiB in all), every
// element checked on the device, the pieces' edges on the host.
TEST_F(Gpu, StridedOpsPast2To31ElementsSplitTheIteration) {
  const int64_t n = int64_t{1} << 30;
  const at::TensorOptions bytes = at::TensorOptions().dtype(c10::kByte).device(cuda);
  at::Tensor a = at::empty({3, n}, bytes);
  for (int64_t r = 0; r < 3; ++r) a.select(0, r).fill_(r + 1);
  const at::Tensor t = a.t().contiguous();  // (n, 3), read through the transposed view
  const at::Tensor s = t.add(a.t());        // a strided input
  const at::Tensor row = at::arange(1, 4).to(c10::kByte);
  for (int64_t at_row : {int64_t{0}, n / 2 - 1, n / 2, n - 2}) {
    SCOPED_TRACE("row " + std::to_string(at_row));
    EXPECT_TRUE(t.narrow(0, at_row, 2).cpu().equal(row.expand({2, 3})));
    EXPECT_TRUE(s.narrow(0, at_row, 2).cpu().equal(row.mul(2).expand({2, 3})));
  }
  EXPECT_TRUE(s.eq(row.mul(2).to(cuda).expand({n, 3})).all().item<bool>());
}

// resize_ (and so out= arguments of another shape): the storage grows on the
// device and keeps its bytes.
TEST_F(Gpu, ResizeGrowsTheStorageAndKeepsTheBytes) {
  at::Tensor t = at::arange(6, at::TensorOptions().device(cuda).dtype(at::kFloat));
  t.resize_({2, 3});
  EXPECT_TRUE(at::equal(t.cpu(), at::arange(6, at::kFloat).reshape({2, 3})));
  t.resize_({4, 5});
  EXPECT_TRUE(at::equal(t.cpu().reshape({-1}).narrow(0, 0, 6), at::arange(6, at::kFloat)));
  at::Tensor out = at::empty({0}, at::TensorOptions().device(cuda));
  at::add_out(out, at::ones({3}).to(cuda), at::ones({3}).to(cuda));
  EXPECT_TRUE(at::equal(out.cpu(), at::full({3}, 2.0)));
  at::full_out(out, {2, 2}, 7);  // the factories' out= forms (core composites)
  EXPECT_TRUE(at::equal(out.cpu(), at::full({2, 2}, 7.0)));
  const at::Tensor x = randn({3, 5});
  at::log_softmax_out(out, x.to(cuda), 1);  // through _log_softmax.out (core composite)
  expect_close(out, at::log_softmax(x, 1), 1e-6, 1e-6);
}

// isclose, allclose and equal through the core's decompositions.
TEST_F(Gpu, CompositeIscloseAndEqualMatchTheCpu) {
  const at::Tensor a = randn({40}), b = a.add(randn({40}).mul(1e-5));
  EXPECT_TRUE(at::equal(at::isclose(a.to(cuda), b.to(cuda)).cpu(), at::isclose(a, b)));
  EXPECT_EQ(at::allclose(a.to(cuda), b.to(cuda)), at::allclose(a, b));
  EXPECT_TRUE(at::equal(a.to(cuda), a.to(cuda)));
  EXPECT_FALSE(at::equal(a.to(cuda), b.to(cuda)));
}

// arange, linspace and eye: the CPU's values (range_ops.cuh).
TEST_F(Gpu, RangeFactoriesAreTheCpus) {
  const at::TensorOptions on_gpu = at::TensorOptions().device(cuda);
  EXPECT_TRUE(at::equal(at::arange(10, on_gpu).cpu(), at::arange(10)));
  EXPECT_TRUE(at::equal(at::arange(-1, 1, 0.1, on_gpu).cpu(), at::arange(-1, 1, 0.1)));
  EXPECT_TRUE(at::equal(at::arange(0, 1, 0.25, on_gpu.dtype(at::kDouble)).cpu(),
                        at::arange(0, 1, 0.25, at::kDouble)));
  EXPECT_TRUE(at::equal(at::linspace(-3.5, 7.25, 101, on_gpu).cpu(), at::linspace(-3.5, 7.25, 101)));
  EXPECT_TRUE(at::equal(at::linspace(0, 100, 7, on_gpu.dtype(at::kLong)).cpu(),
                        at::linspace(0, 100, 7, at::kLong)));
  EXPECT_TRUE(at::equal(at::eye(3, 5, on_gpu).cpu(), at::eye(3, 5)));
  EXPECT_TRUE(at::equal(at::eye(4, on_gpu.dtype(at::kInt)).cpu(), at::eye(4, at::kInt)));
  // A non-contiguous out.
  at::Tensor g = at::zeros({6, 2}, on_gpu), c = at::zeros({6, 2});
  at::Tensor gcol = g.select(1, 0), ccol = c.select(1, 0);
  at::arange_out(gcol, 0, 6, 1);
  at::arange_out(ccol, 0, 6, 1);
  EXPECT_TRUE(at::equal(g.cpu(), c));
}

TEST_F(Gpu, BmmCatIndexSelectAndEmbeddingMatchTheCpu) {
  const at::Tensor a = randn({4, 3, 5}), b = randn({4, 5, 2});
  expect_close(at::bmm(a.to(cuda), b.to(cuda)), at::bmm(a, b), 1e-5, 1e-5);
  // Transposed and expanded batches go to cuBLAS without copies.
  const at::Tensor bt = randn({4, 2, 5}).transpose(1, 2);
  expect_close(at::bmm(a.to(cuda), bt.to(cuda)), at::bmm(a, bt), 1e-5, 1e-5);
  const at::Tensor one = randn({1, 5, 2}).expand({4, 5, 2});
  expect_close(at::bmm(a.to(cuda), one.to(cuda)), at::bmm(a, one), 1e-5, 1e-5);
  const at::Tensor c = randn({4, 3, 2});
  expect_close(at::baddbmm(c.to(cuda), a.to(cuda), b.to(cuda), 0.5, 2),
               at::baddbmm(c, a, b, 0.5, 2), 1e-5, 1e-5);
  expect_close(at::matmul(a.to(cuda), b.to(cuda)), at::matmul(a, b), 1e-5, 1e-5);

  const at::Tensor x = randn({2, 3}), y = randn({2, 4}), z = at::arange(6).reshape({2, 3});
  expect_close(at::cat({x.to(cuda), y.to(cuda)}, 1), at::cat({x, y}, 1));
  expect_close(at::cat({x.to(cuda), z.to(cuda)}, 0), at::cat({x, z}, 0));  // promotes
  expect_close(at::stack({x.to(cuda), x.t().t().to(cuda)}, 1), at::stack({x, x}, 1));
  at::Tensor out = at::empty({0}, at::TensorOptions().device(cuda));
  at::cat_out(out, {x.to(cuda), x.to(cuda)}, -1);
  expect_close(out, at::cat({x, x}, -1));

  const at::Tensor table = randn({10, 4});
  const at::Tensor idx = at::tensor({3, 0, 9, 3}, at::TensorOptions().dtype(c10::kLong));
  expect_equal(at::index_select(table.to(cuda), 0, idx.to(cuda)), at::index_select(table, 0, idx));
  expect_equal(at::index_select(table.t().to(cuda), 1, idx.to(cuda).to(c10::kInt)),
               at::index_select(table.t(), 1, idx.to(c10::kInt)));
  const at::Tensor ids = at::tensor({1, 2, 1, 7, 0, 1}, at::TensorOptions().dtype(c10::kLong))
                             .reshape({2, 3});
  expect_equal(at::embedding(table.to(cuda), ids.to(cuda)), at::embedding(table, ids));
  const at::Tensor g = randn({2, 3, 4});
  expect_close(at::embedding_dense_backward(g.to(cuda), ids.to(cuda), 10, -1, false),
               at::embedding_dense_backward(g, ids, 10, -1, false), 1e-5, 1e-6);
  expect_close(at::embedding_dense_backward(g.to(cuda), ids.to(cuda), 10, 1, true),
               at::embedding_dense_backward(g, ids, 10, 1, true), 1e-5, 1e-6);
  // Gradients through the engine.
  at::Tensor ct = table.clone().set_requires_grad(true);
  at::Tensor gt = table.to(cuda).set_requires_grad(true);
  at::embedding(ct, ids).mul(g).sum().backward();
  at::embedding(gt, ids.to(cuda)).mul(g.to(cuda)).sum().backward();
  expect_close(gt.grad(), ct.grad(), 1e-5, 1e-6);
  // A bad index is the CPU's IndexError, and the device stays usable.
  const at::Tensor bad = at::tensor({1, 12, 2}, at::TensorOptions().dtype(c10::kLong));
  const std::string cpu_error = ember_test::errorOf([&] { at::index_select(table, 0, bad); });
  EXPECT_EQ(ember_test::errorOf([&] { at::index_select(table.to(cuda), 0, bad.to(cuda)); }),
            cpu_error);
  EXPECT_EQ(ember_test::errorOf([&] { at::embedding(table.to(cuda), bad.to(cuda)); }),
            ember_test::errorOf([&] { at::embedding(table, bad); }));
  expect_equal(at::index_select(table.to(cuda), 0, idx.to(cuda)), at::index_select(table, 0, idx));
}

}  // namespace
