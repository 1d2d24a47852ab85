// The CUDA plugin on a real GPU: streams, guards and events, the caching
// allocator on device memory, and every CUDA kernel against the CPU plugin
// (exact for copies, fills and integer ops; a tolerance for floating point).
// Tagged `gpu`: where there is no device every test skips and prints why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CachingHostAllocator.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include "tests/backends/cuda/gpu_test_util.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::HasSubstr;
using ember_gpu_test::expect_close;
using ember_gpu_test::expect_equal;
using ember_gpu_test::Gpu;
using ember_gpu_test::randn;
TEST_F(Gpu, StreamsGuardsAndEvents) {
  EXPECT_GT(c10::cuda::device_count(), 0);
  const c10::cuda::CUDAStream def = c10::cuda::getDefaultCUDAStream();
  EXPECT_EQ(c10::cuda::getCurrentCUDAStream(), def);
  const c10::cuda::CUDAStream s = c10::cuda::getStreamFromPool();
  EXPECT_NE(s, def);
  EXPECT_NE(s.stream(), nullptr);
  {
    c10::cuda::CUDAStreamGuard guard(s);
    EXPECT_EQ(c10::cuda::getCurrentCUDAStream(), s);
  }
  EXPECT_EQ(c10::cuda::getCurrentCUDAStream(), def);
  {
    c10::cuda::CUDAGuard guard(0);
    EXPECT_EQ(c10::cuda::current_device(), 0);
  }
  at::cuda::CUDAEvent start(cudaEventDefault), end(cudaEventDefault);
  start.record(s);
  at::Tensor x = at::ones({1 << 20}, at::TensorOptions().device(cuda));
  end.record(s);
  end.synchronize();
  EXPECT_TRUE(end.query());
  EXPECT_GE(start.elapsed_time(end), 0.0f);
  torch::cuda::synchronize();
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::CUDAGuard guard(100); }),
              HasSubstr("CUDA device index 100 is out of range"));
}

TEST_F(Gpu, CachingAllocatorOnTheDevice) {
  namespace alloc = c10::cuda::CUDACachingAllocator;
  alloc::emptyCache();
  const int64_t before = alloc::memory_stats(0)["allocated_bytes.all.current"];
  {
    at::Tensor t = at::empty({1000}, at::TensorOptions().device(cuda));
    EXPECT_EQ(alloc::memory_stats(0)["allocated_bytes.all.current"], before + 4096);
    // Used on a side stream, then freed: not reused before that stream passes.
    alloc::recordStream(t.storage().data_ptr(), c10::cuda::getStreamFromPool());
  }
  EXPECT_EQ(alloc::memory_stats(0)["allocated_bytes.all.current"], before);
  EXPECT_GT(alloc::memory_stats(0)["reserved_bytes.all.current"], 0);
  torch::cuda::synchronize();
  alloc::emptyCache();
  EXPECT_THAT(alloc::memory_summary(0), HasSubstr("allocated_bytes (all)"));
}

TEST_F(Gpu, CopiesRoundTripExactly) {
  for (c10::ScalarType dt : {c10::kFloat, c10::kDouble, c10::kLong, c10::kInt, c10::kBool}) {
    const at::Tensor cpu = randn({5, 7}).mul(10).to(dt);
    expect_equal(cpu.to(cuda), cpu);
    // Non-contiguous both ways, and a device-side dtype conversion.
    expect_equal(cpu.t().to(cuda), cpu.t().contiguous());
    at::Tensor dst = at::empty({7, 5}, at::TensorOptions().device(cuda).dtype(dt)).t();
    dst.copy_(cpu);
    expect_equal(dst, cpu);
    expect_equal(cpu.to(cuda).to(c10::kDouble), cpu.to(c10::kDouble));
  }
  EXPECT_EQ(at::full({}, 3.5, at::TensorOptions().device(cuda)).item().toDouble(), 3.5);
}

// pin_memory() and non_blocking copies (Note [Asynchronous copies] in
// backends/cuda/ops.cc): values arrive after a synchronize, and a pinned
// block freed while its copy is still queued is not handed out again (an
// overwrite of the next pinned tensor would corrupt the copy).
TEST_F(Gpu, PinnedMemoryAndNonBlockingCopies) {
  const at::Tensor cpu = randn({1024, 1024});
  EXPECT_FALSE(cpu.is_pinned());
  at::Tensor pinned = cpu.pin_memory();
  EXPECT_TRUE(pinned.is_pinned());
  EXPECT_TRUE(pinned.pin_memory().is_same(pinned));
  expect_equal(pinned, cpu);
  at::Tensor dev = pinned.to(cuda, c10::kFloat, /*non_blocking=*/true);
  at::Tensor back = at::empty_like(cpu).pin_memory();
  back.copy_(dev, /*non_blocking=*/true);
  torch::cuda::synchronize();
  expect_equal(back, cpu);
  // Keep the stream busy, queue a copy from a pinned tensor, drop it, pin
  // another of the same size and overwrite it at once.
  const at::Tensor big = at::ones({4096, 4096}, at::TensorOptions().device(cuda));
  at::Tensor busy = at::mm(big, big);
  at::Tensor target = at::empty({1024, 1024}, at::TensorOptions().device(cuda));
  const void* first = nullptr;
  {
    at::Tensor source = cpu.pin_memory();
    first = source.data_ptr();
    target.copy_(source, /*non_blocking=*/true);
  }
  at::Tensor next = at::empty_like(cpu).pin_memory();
  EXPECT_NE(next.data_ptr(), first) << "a pinned block was reused while its copy was queued";
  next.fill_(-1.0);
  torch::cuda::synchronize();
  expect_equal(target, cpu);
  EXPECT_EQ(busy[0][0].item().toDouble(), 4096.0);
  // After the stream passed, the block is reused.
  next.reset();
  at::Tensor again = at::empty_like(cpu).pin_memory();
  EXPECT_TRUE(again.is_pinned());
  // Pageable memory with non_blocking is copied synchronously.
  at::Tensor pageable = at::empty_like(cpu);
  pageable.copy_(dev, /*non_blocking=*/true);
  expect_equal(pageable, cpu);
  // The cache: blocks held while pinned tensors live, given back after.
  EXPECT_GE(at::cuda::CachingHostAllocator_memoryStats()["allocation.current"], 3);
  pinned.reset();
  back.reset();
  again.reset();
  torch::cuda::synchronize();
  at::cuda::CachingHostAllocator_emptyCache();
  const auto host = at::cuda::CachingHostAllocator_memoryStats();
  EXPECT_EQ(host.at("allocation.current"), 0);
  EXPECT_EQ(host.at("reserved_bytes.current"), 0);
  EXPECT_GE(host.at("num_host_free"), 2);
}

TEST_F(Gpu, FillsAndFactories) {
  expect_equal(at::zeros({4, 3}, at::TensorOptions().device(cuda)), at::zeros({4, 3}));
  expect_equal(at::ones({4, 3}, at::TensorOptions().device(cuda).dtype(c10::kLong)),
               at::ones({4, 3}, at::TensorOptions().dtype(c10::kLong)));
  expect_equal(at::full({2, 2}, 2.5, at::TensorOptions().device(cuda).dtype(c10::kDouble)),
               at::full({2, 2}, 2.5, at::TensorOptions().dtype(c10::kDouble)));
  const at::Tensor s = at::empty_strided({2, 3}, {1, 2}, at::TensorOptions().device(cuda));
  EXPECT_EQ(s.strides(), (std::vector<int64_t>{1, 2}));
}

TEST_F(Gpu, PointwiseMatchesTheCpu) {
  const at::Tensor a = randn({3, 1}), b = randn({1, 4}), c = randn({4, 3}).t();
  const at::Tensor ga = a.to(cuda), gb = b.to(cuda), gc = c.to(cuda);
  expect_close(at::add(ga, gb, 2.0), at::add(a, b, 2.0));     // broadcast
  expect_close(at::sub(ga, gc), at::sub(a, c));                // strided input
  expect_close(at::mul(gc, gb), at::mul(c, b));
  expect_close(at::div(ga, gb), at::div(a, b));
  const at::Tensor ia = at::arange(12).reshape({3, 4});
  expect_equal(at::mul(ia.to(cuda), ia.to(cuda)), at::mul(ia, ia));
  expect_close(at::div(ia.to(cuda), ia.to(cuda).add(at::ones({1}, at::TensorOptions().dtype(c10::kLong).device(cuda)))),
               at::div(ia, ia.add(at::ones({1}, at::TensorOptions().dtype(c10::kLong)))));
  expect_close(at::add(ga, ia.to(cuda)), at::add(a, ia));      // type promotion
  at::Tensor inplace = gc.clone();
  inplace.mul_(gc);
  expect_close(inplace, c.mul(c));
  at::Tensor out = at::empty({3, 4}, at::TensorOptions().device(cuda));
  at::add_out(out, ga, gb);
  expect_close(out, at::add(a, b));
  for (auto [g, cpu] : {std::pair{at::relu(gc), at::relu(c)}, {at::neg(gc), at::neg(c)},
                        {at::abs(gc), at::abs(c)}, {at::exp(gc), at::exp(c)},
                        {at::log(at::abs(gc)), at::log(at::abs(c))},
                        {at::sqrt(at::abs(gc)), at::sqrt(at::abs(c))},
                        {at::tanh(gc), at::tanh(c)}, {at::sigmoid(gc), at::sigmoid(c)}}) {
    expect_close(g, cpu);
  }
  expect_equal(at::relu(ia.sub(at::full({1}, 5, at::TensorOptions().dtype(c10::kLong))).to(cuda)),
               at::relu(ia.sub(at::full({1}, 5, at::TensorOptions().dtype(c10::kLong)))));
}

TEST_F(Gpu, SumMatchesTheCpu) {
  const at::Tensor x = randn({1000, 1000});
  expect_close(at::sum(x.to(cuda)), at::sum(x), 1e-4, 1e-3);
  const at::Tensor i = at::arange(100000).reshape({100, 1000});
  expect_equal(at::sum(i.to(cuda).to(c10::kInt)), at::sum(i.to(c10::kInt)));
  expect_close(at::sum(x.to(cuda).t(), c10::kDouble), at::sum(x, c10::kDouble), 1e-9, 1e-9);
  // Over dimensions: leading, trailing, several, negative, keepdim, dtype=.
  const at::Tensor y = randn({4, 5, 6});
  const at::Tensor gy = y.to(cuda);
  for (std::vector<int64_t> dims : {std::vector<int64_t>{0}, {2}, {0, 2}, {-1, 1}, {}}) {
    for (bool keepdim : {false, true}) {
      expect_close(at::sum(gy, dims, keepdim), at::sum(y, dims, keepdim), 1e-5, 1e-5);
    }
  }
  expect_equal(at::sum(i.to(cuda), {1}, false, c10::kLong), at::sum(i, {1}, false, c10::kLong));
  EXPECT_THAT(ember_test::errorOf([&] { at::sum(gy, {0, 0}); }),
              HasSubstr("appears more than once"));
}

TEST_F(Gpu, MatmulThroughCublasMatchesTheCpu) {
  const at::Tensor a = randn({64, 48}), b = randn({48, 32}), bias = randn({32});
  expect_close(at::mm(a.to(cuda), b.to(cuda)), at::mm(a, b), 1e-5, 1e-5);
  expect_close(at::mm(a.t().contiguous().to(cuda).t(), b.to(cuda)), at::mm(a, b), 1e-5, 1e-5);
  expect_close(at::addmm(bias.to(cuda), a.to(cuda), b.to(cuda), 0.5, 2.0),
               at::addmm(bias, a, b, 0.5, 2.0), 1e-5, 1e-5);
  const at::Tensor ad = a.to(c10::kDouble), bd = b.to(c10::kDouble);
  expect_close(at::mm(ad.to(cuda), bd.to(cuda)), at::mm(ad, bd), 1e-12, 1e-12);
  EXPECT_THAT(ember_test::errorOf([&] { at::mm(a.to(cuda), a.to(cuda)); }),
              HasSubstr("cannot be multiplied"));
}

// The functional forms return the tensor the iterator allocated (by value: a
// reference to it dangled once, and the results were garbage or CPU tensors).
TEST_F(Gpu, FunctionalFormsReturnTheirOwnResult) {
  const at::Tensor a = randn({1000}), b = randn({1000});
  at::Tensor sum = at::add(a.to(cuda), b.to(cuda));
  at::Tensor other = at::mul(a.to(cuda), b.to(cuda));  // reuses freed blocks
  at::Tensor r = at::relu(a.to(cuda));
  EXPECT_TRUE(sum.is_cuda());
  EXPECT_TRUE(r.is_cuda());
  expect_close(sum, at::add(a, b));
  expect_close(other, at::mul(a, b));
  expect_close(r, at::relu(a));
  // The vectorized loop (contiguous, 16-byte aligned) with a tail of 3
  // elements, per dtype; a view 4 bytes into its storage takes the general
  // loop.
  for (c10::ScalarType dt : {c10::kFloat, c10::kDouble, c10::kLong, c10::kInt}) {
    const at::Tensor x = randn({1027}).mul(100).to(dt), y = randn({1027}).mul(100).to(dt);
    expect_equal(at::sub(x.to(cuda), y.to(cuda)), at::sub(x, y));
    expect_equal(at::neg(x.to(cuda)), at::neg(x));
    const at::Tensor gx = x.to(cuda), gy = y.to(cuda);
    expect_equal(at::mul(gx.narrow(0, 1, 1020), gy.narrow(0, 3, 1020)),
                 at::mul(x.narrow(0, 1, 1020), y.narrow(0, 3, 1020)));
    at::Tensor inplace = gx.clone();
    inplace.add_(gy);
    expect_equal(inplace, at::add(x, y));
  }
}

// Backward of CUDA ops runs through the engine (on the device's thread) and
// gives the CPU's gradients.
TEST_F(Gpu, BackwardMatchesTheCpu) {
  const at::Tensor a = randn({8, 5}), w = randn({5, 3}), c = randn({8, 3});
  std::vector<at::Tensor> grads[2];
  for (int on_gpu = 0; on_gpu < 2; ++on_gpu) {
    const c10::Device dev = on_gpu ? cuda : c10::Device(c10::kCPU);
    at::Tensor la = a.to(dev).detach().requires_grad_();
    at::Tensor lw = w.to(dev).detach().requires_grad_();
    at::Tensor loss = at::add(at::mul(at::mm(la, lw), c.to(dev)).sum(),
                              at::mul(la, la).sum(), 0.5);
    loss.backward();
    ASSERT_TRUE(la.grad().defined());
    ASSERT_TRUE(lw.grad().defined());
    EXPECT_EQ(la.grad().device(), dev);
    grads[on_gpu] = {la.grad(), lw.grad()};
  }
  expect_close(grads[1][0], grads[0][0], 1e-5, 1e-5);
  expect_close(grads[1][1], grads[0][1], 1e-5, 1e-5);
}

TEST_F(Gpu, SoftmaxLossAndMeanMatchTheCpu) {
  const at::Tensor x = randn({6, 10}), y3 = randn({3, 4, 5});
  expect_close(at::log_softmax(x.to(cuda), 1), at::log_softmax(x, 1));
  expect_close(at::softmax(x.to(cuda), 1), at::softmax(x, 1));
  expect_close(at::log_softmax(x.to(cuda), 0), at::log_softmax(x, 0));  // dim not last
  expect_close(at::softmax(y3.to(cuda), 1), at::softmax(y3, 1));
  expect_close(at::log_softmax(x.to(cuda).to(c10::kDouble), -1),
               at::log_softmax(x.to(c10::kDouble), -1), 1e-12, 1e-12);
  // Rows longer than a block, and large values (max subtracted first).
  const at::Tensor wide = randn({3, 1000}).mul(50);
  expect_close(at::log_softmax(wide.to(cuda), 1), at::log_softmax(wide, 1), 1e-5, 1e-4);
  // nll_loss: reductions, weights, ignore_index.
  const at::Tensor logp = at::log_softmax(x, 1);
  const at::Tensor target = at::tensor({3, 0, 9, 3, 5, 1}, at::TensorOptions().dtype(c10::kLong));
  const at::Tensor weight = at::rand({10});
  for (int64_t reduction : {0, 1, 2}) {
    expect_close(at::nll_loss(logp.to(cuda), target.to(cuda), {}, reduction),
                 at::nll_loss(logp, target, {}, reduction));
    expect_close(at::nll_loss(logp.to(cuda), target.to(cuda), weight.to(cuda), reduction, 3),
                 at::nll_loss(logp, target, weight, reduction, 3));
  }
  const at::Tensor bad = at::tensor({3, 0, 10, 3, 5, 1}, at::TensorOptions().dtype(c10::kLong));
  EXPECT_THAT(ember_test::errorOf([&] { at::nll_loss(logp.to(cuda), bad.to(cuda)); }),
              HasSubstr("Target 10 is out of bounds"));
  EXPECT_THAT(ember_test::errorOf([&] { at::nll_loss(logp.to(cuda), target.to(cuda).to(c10::kInt)); }),
              HasSubstr("expected a target of dtype Long"));
  // The device is still usable after the error.
  expect_close(at::nll_loss(logp.to(cuda), target.to(cuda)), at::nll_loss(logp, target));
  expect_close(at::mean(y3.to(cuda)), at::mean(y3), 1e-5, 1e-6);
  expect_close(at::mean(y3.to(cuda), {0, 2}, true), at::mean(y3, {0, 2}, true), 1e-5, 1e-6);
  EXPECT_THAT(ember_test::errorOf([&] { at::mean(target.to(cuda)); }),
              HasSubstr("could not infer output dtype"));
}

TEST_F(Gpu, LossGradientsMatchTheCpu) {
  const at::Tensor x = randn({8, 10}), w = at::rand({10});
  const at::Tensor target = at::tensor({1, 2, 3, 4, 5, 6, 7, 8}, at::TensorOptions().dtype(c10::kLong));
  std::vector<at::Tensor> grads[2];
  for (int on_gpu = 0; on_gpu < 2; ++on_gpu) {
    const c10::Device dev = on_gpu ? cuda : c10::Device(c10::kCPU);
    at::Tensor lx = x.to(dev).detach().requires_grad_();
    at::Tensor h = at::relu(lx.sub(at::full({}, 0.2, at::TensorOptions().device(dev))));
    at::Tensor loss = at::add(at::nll_loss(at::log_softmax(h, 1), target.to(dev), w.to(dev)),
                              at::softmax(h, 0).mul(h).mean());
    loss.backward();
    ASSERT_TRUE(lx.grad().defined());
    grads[on_gpu] = {lx.grad(), loss.detach()};
  }
  expect_close(grads[1][0], grads[0][0], 1e-5, 1e-6);
  expect_close(grads[1][1], grads[0][1], 1e-5, 1e-6);
}

// An MLP trained for a few SGD steps (momentum) on the GPU ends with the
// CPU's parameters: linear layers, ReLU, cross_entropy, the optimizer.
TEST_F(Gpu, MlpTrainingStepsMatchTheCpu) {
  namespace nn = torch::nn;
  namespace F = torch::nn::functional;
  const at::Tensor x = randn({16, 20});
  const at::Tensor target = at::randint(0, 10, {16}, at::TensorOptions().dtype(c10::kLong));
  std::vector<at::Tensor> params[2];
  for (int on_gpu = 0; on_gpu < 2; ++on_gpu) {
    const c10::Device dev = on_gpu ? cuda : c10::Device(c10::kCPU);
    torch::manual_seed(7);
    nn::Sequential model(nn::Linear(20, 32), nn::ReLU(), nn::Linear(32, 10));
    model->to(dev);
    torch::optim::SGD opt(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
    for (int step = 0; step < 3; ++step) {
      opt.zero_grad();
      at::Tensor loss = F::cross_entropy(model->forward(x.to(dev)), target.to(dev));
      loss.backward();
      opt.step();
    }
    for (const at::Tensor& p : model->parameters()) {
      EXPECT_EQ(p.device(), dev);
      params[on_gpu].push_back(p.detach());
    }
  }
  ASSERT_EQ(params[0].size(), params[1].size());
  for (size_t i = 0; i < params[0].size(); ++i) expect_close(params[1][i], params[0][i], 1e-4, 1e-5);
}

}  // namespace
