// The CUDA plugin on a machine without a usable device (no driver or no GPU,
// as on CI): it loads, answers is_available() false and device_count() 0,
// and every request that needs a device fails with "no CUDA device:
// <cudart's reason>". Also: the plugin carries its descriptor and no core
// code, and C10_CUDA_CHECK's message. On a machine with a GPU the no-device
// cases skip with a reason (the gpu-tagged suites cover that machine).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CachingHostAllocator.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/autograd.h>
#include <torch/cuda.h>
#include <torch/types.h>

#include "backends/cuda/stream_ids.h"
#include "registration/plugin_loader.h"
#include "tests/support/error_of.h"

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// The message every device request must start with: "no CUDA device: " and
// the reason the plugin got from cudart.
std::string expectedPrefix() {
  return "no CUDA device: " + c10::cuda::impl::cudaRuntime().unavailableReason();
}

class NoDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (torch::cuda::device_count() > 0) {
      GTEST_SKIP() << "this machine has " << torch::cuda::device_count()
                   << " CUDA device(s); the no-device path cannot be tested "
                      "here (the gpu-tagged suites run instead)";
    }
  }
};

TEST_F(NoDevice, PluginLoadsAndReportsNoDevice) {
  EXPECT_FALSE(torch::cuda::is_available());
  EXPECT_EQ(torch::cuda::device_count(), 0u);
  EXPECT_EQ(c10::cuda::device_count(), 0);
  // Loaded from the runfiles by the first question, and registered.
  ASSERT_TRUE(c10::impl::hasDeviceGuardImpl(c10::kCUDA));
  bool loaded = false;
  for (const c10::PluginInfo& p : c10::loaded_plugins()) {
    if (p.name == "cuda") {
      loaded = true;
      EXPECT_EQ(p.fingerprint, c10::core_build_fingerprint());
    }
  }
  EXPECT_TRUE(loaded) << "libember_cuda.so was not loaded by device_count()";
  // cudart said why; the reason is its words, not empty.
  EXPECT_FALSE(c10::cuda::impl::cudaRuntime().unavailableReason().empty());
  // The plugin answers whether convolutions use cuDNN: not without a device
  // (CI has cuDNN 9 in the toolkit, cudnn_test). Asked directly, its op says
  // the same instead of throwing.
  EXPECT_FALSE(torch::cuda::cudnn_is_available());
  const auto op = c10::Dispatcher::singleton().findSchema(
      c10::OperatorName{"ember_cuda::cudnn_is_available", ""});
  ASSERT_TRUE(op.has_value());
  EXPECT_FALSE(op->typed<bool()>().call());
}

TEST_F(NoDevice, EveryRequestFailsWithTheReason) {
  const std::string prefix = expectedPrefix();
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::getCurrentCUDAStream(); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::getStreamFromPool(); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::getDefaultCUDAStream(0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::getStreamFromPool(true, 0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::CUDAGuard guard(0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::OptionalCUDAGuard guard(
                                           c10::Device(c10::kCUDA, 0)); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::current_device(); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { c10::cuda::set_device(0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { torch::cuda::synchronize(); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { torch::cuda::synchronize(0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] {
                at::cuda::CUDAEvent event;
                event.record(c10::cuda::CUDAStream(c10::Stream(
                    c10::Stream::DEFAULT, c10::Device(c10::kCUDA, 0))));
              }),
              StartsWith(prefix));
  // A stream made by hand still cannot reach a native handle.
  EXPECT_THAT(ember_test::errorOf([] {
                c10::cuda::CUDAStream s(c10::Stream(c10::Stream::DEFAULT,
                                                    c10::Device(c10::kCUDA, 0)));
                (void)s.stream();
              }),
              StartsWith(prefix));
  namespace alloc = c10::cuda::CUDACachingAllocator;
  EXPECT_THAT(ember_test::errorOf([] { alloc::memory_stats(0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { alloc::memory_summary(0); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] {
                c10::GetAllocator(c10::kCUDA)->allocate(16);
              }),
              StartsWith(prefix));
  // The kernels are registered; what fails is the device.
  EXPECT_THAT(ember_test::errorOf([] {
                at::empty({2}, at::TensorOptions().device(c10::kCUDA));
              }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { at::ones({2}).to(c10::Device(c10::kCUDA, 0)); }),
              StartsWith(prefix));
  // Pinned memory: the plugin registers its host allocator, which needs a
  // device; nothing is pinned.
  ASSERT_NE(c10::GetPinnedMemoryAllocator(c10::kCUDA), nullptr);
  EXPECT_THAT(ember_test::errorOf([] { at::ones({2}).pin_memory(); }), StartsWith(prefix));
  EXPECT_FALSE(at::ones({2}).is_pinned());
  // Its cache needs no device: empty, all zeros.
  EXPECT_NO_THROW(at::cuda::CachingHostAllocator_emptyCache());
  const auto host = at::cuda::CachingHostAllocator_memoryStats();
  EXPECT_EQ(host.at("reserved_bytes.current"), 0);
  EXPECT_EQ(host.at("allocation.peak"), 0);
  EXPECT_EQ(host.at("num_host_alloc"), 0);
  EXPECT_EQ(host.size(), 20u);
}

// A CUDA tensor made by hand (no device memory behind it: the kernels must
// stop at the device check before touching it), to show that each kernel is
// registered for the CUDA key and reaches that check in CI.
at::Tensor handMadeCudaTensor(std::vector<int64_t> sizes,
                              c10::ScalarType dtype = c10::kFloat) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(),
      static_cast<size_t>(numel) * c10::elementSize(dtype),
      c10::DataPtr(nullptr, c10::Device(c10::kCUDA, 0)), nullptr, false));
  at::Tensor t(c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CUDA), dtype));
  t.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  return t;
}

TEST_F(NoDevice, EveryKernelIsRegisteredAndStopsAtTheDeviceCheck) {
  const std::string prefix = expectedPrefix();
  const at::Tensor x = handMadeCudaTensor({2, 2});
  ASSERT_TRUE(x.is_cuda());
  at::Tensor cpu = at::ones({2, 2});
  at::Tensor y = x;
  EXPECT_THAT(ember_test::errorOf([&] { cpu.copy_(x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { y.copy_(cpu); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { y.copy_(x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { y.fill_(1); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::add(x, x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::sub(x, x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::mul(x, x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::div(x, x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { y.mul_(x); }), StartsWith(prefix));
  for (auto op : {&at::relu, &at::neg, &at::abs, &at::exp, &at::log, &at::sqrt,
                  &at::tanh, &at::sigmoid}) {
    EXPECT_THAT(ember_test::errorOf([&] { op(x); }), StartsWith(prefix));
  }
  EXPECT_THAT(ember_test::errorOf([&] { at::sum(x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::sum(x, {1}); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::mm(x, x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::addmm(x, x, x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([] { handMadeCudaTensor({1}).item(); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::_log_softmax(x, 1, false); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::_softmax(x, 0, false); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::_log_softmax_backward_data(x, x, 1, c10::kFloat); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::_softmax_backward_data(x, x, 1, c10::kFloat); }),
              StartsWith(prefix));
  const at::Tensor target = handMadeCudaTensor({2}, c10::kLong);
  EXPECT_THAT(ember_test::errorOf([&] { at::nll_loss_forward(x, target, {}, 1, -100); }),
              StartsWith(prefix));
  const at::Tensor scalar = handMadeCudaTensor({});
  EXPECT_THAT(ember_test::errorOf([&] {
                at::nll_loss_backward(scalar, x, target, {}, 1, -100, scalar);
              }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::threshold_backward(x, x, 0); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::mean(x); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::mean(x, {1}); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] {
                at::nll_loss_forward(x, handMadeCudaTensor({2}, c10::kInt), {}, 1, -100);
              }),
              HasSubstr("expected a target of dtype Long (class indices), but got Int"));
  EXPECT_THAT(ember_test::errorOf([&] { at::mean(target); }),
              HasSubstr("mean(): could not infer output dtype"));
  // randperm of a dtype too narrow for n: the CPU's error, before the device.
  EXPECT_EQ(ember_test::errorOf([] {
              at::Tensor t = handMadeCudaTensor({3}, c10::kChar);
              at::randperm_out(t, 200);
            }),
            ember_test::errorOf([] {
              at::Tensor t = at::empty({3}, at::TensorOptions().dtype(c10::kChar));
              at::randperm_out(t, 200);
            }));
  // half_to_float: a Half input reaches the device; Float is refused first.
  const at::Tensor h = handMadeCudaTensor({2, 2}, c10::kHalf);
  EXPECT_THAT(ember_test::errorOf([&] { at::_softmax(h, 0, true); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::_log_softmax(h, 1, true); }), StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::_softmax_backward_data(x, x, 1, c10::kHalf); }),
              StartsWith(prefix));
  EXPECT_THAT(ember_test::errorOf([&] { at::_softmax(x, 0, true); }),
              HasSubstr("softmax: conversion is supported for Half type only"));
  EXPECT_THAT(ember_test::errorOf([&] { at::topk(handMadeCudaTensor({2, 2}, c10::kBool), 1); }),
              HasSubstr("topk: \"topk_cuda\" not implemented for 'Bool'"));
  // Half and BFloat16 convolutions need cuDNN (no decomposition to fall back
  // on), which cannot be used without a device; the CPU refuses them.
  for (c10::ScalarType t : {c10::kHalf, c10::kBFloat16}) {
    EXPECT_THAT(ember_test::errorOf([&] {
                  at::conv2d(handMadeCudaTensor({1, 2, 4, 4}, t), handMadeCudaTensor({3, 2, 3, 3}, t));
                }),
                AllOf(HasSubstr(std::string("convolution: a ") + c10::toString(t) +
                                " convolution on CUDA needs cuDNN, which cannot take this call "
                                "(no CUDA device: "),
                      HasSubstr("Convert the input and weight to float32")));
    EXPECT_THAT(ember_test::errorOf([&] {
                  at::conv2d(at::zeros({1, 2, 4, 4}, t), at::zeros({3, 2, 3, 3}, t));
                }),
                HasSubstr("is not supported; use float32 or float64"));
  }
  // Argument checks come before the device: the user learns what is wrong.
  EXPECT_THAT(ember_test::errorOf([&] { at::mm(x, handMadeCudaTensor({3, 2})); }),
              HasSubstr("mm: mat1 and mat2 shapes cannot be multiplied (2x2 and 3x2)"));
}

// The op list written on 2026-11-27 without a GPU: every kernel is registered
// for the CUDA key (no "no kernel" error) and stops at the device check; CPU
// scalars and Scalar overloads reach it too.
TEST_F(NoDevice, PointwiseReductionAndIndexKernelsAreRegistered) {
  const std::string prefix = expectedPrefix();
  const at::Tensor x = handMadeCudaTensor({2, 2});
  const at::Tensor l = handMadeCudaTensor({2, 2}, c10::kLong);
  const at::Tensor b = handMadeCudaTensor({2, 2}, c10::kBool);
  at::Tensor y = x;
  using F = std::function<void()>;
  const std::vector<std::pair<const char*, F>> calls = {
      {"mul.Scalar", [&] { x.mul(2.5); }},
      {"cpu 0-dim", [&] { at::add(x, at::full({}, 2.0)); }},
      {"eq", [&] { at::eq(x, x); }},
      {"lt.Scalar", [&] { at::lt(x, 0.5); }},
      {"ge_", [&] { y.ge_(x); }},
      {"logical_and", [&] { at::logical_and(x, l); }},
      {"logical_not", [&] { at::logical_not(x); }},
      {"isnan", [&] { at::isnan(x); }},
      {"isinf", [&] { at::isinf(x); }},
      {"bitwise_and", [&] { at::bitwise_and(l, 3); }},
      {"bitwise_not", [&] { at::bitwise_not(b); }},
      {"maximum", [&] { at::maximum(x, x); }},
      {"minimum", [&] { at::minimum(x, l); }},
      {"fmod", [&] { at::fmod(x, x); }},
      {"div floor", [&] { at::div(l, l, "floor"); }},
      {"remainder.Scalar", [&] { at::remainder(l, 3); }},
      {"pow", [&] { at::pow(x, x); }},
      {"pow.Tensor_Scalar", [&] { at::pow(x, 2); }},
      {"pow.Scalar", [&] { at::pow(2, x); }},
      {"sign", [&] { at::sign(x); }},
      {"floor", [&] { at::floor(x); }},
      {"round", [&] { at::round(x, 2); }},
      {"sin", [&] { at::sin(x); }},
      {"rsqrt", [&] { at::rsqrt(x); }},
      {"where", [&] { at::where(b, x, x); }},
      {"where.ScalarOther", [&] { at::where(b, x, 0.0); }},
      {"clamp", [&] { at::clamp(x, -1, 1); }},
      {"clamp.Tensor", [&] { at::clamp(x, x, x); }},
      {"clamp_min", [&] { at::clamp_min(x, 0); }},
      {"addcmul", [&] { at::addcmul(x, x, x, 2); }},
      {"addcdiv", [&] { at::addcdiv(x, x, x); }},
      {"lerp", [&] { at::lerp(x, x, 0.5); }},
      {"leaky_relu", [&] { at::leaky_relu(x); }},
      {"gelu", [&] { at::gelu(x, "tanh"); }},
      {"silu", [&] { at::silu(x); }},
      {"elu", [&] { at::elu(x); }},
      {"softplus", [&] { at::softplus(x); }},
      {"hardtanh", [&] { at::hardtanh(x); }},
      {"gelu_backward", [&] { at::gelu_backward(x, x); }},
      {"silu_backward", [&] { at::silu_backward(x, x); }},
      {"sigmoid_backward", [&] { at::sigmoid_backward(x, x); }},
      {"hardtanh_backward", [&] { at::hardtanh_backward(x, x, -1, 1); }},
      {"prod", [&] { at::prod(x); }},
      {"prod.dim_int", [&] { at::prod(l, 1); }},
      {"amax", [&] { at::amax(x, {0}); }},
      {"max", [&] { x.max(); }},
      {"max.dim", [&] { x.max(1); }},
      {"argmax", [&] { x.argmax(); }},
      {"argmin.dim", [&] { x.argmin(0); }},
      {"var", [&] { at::var(x, {1}); }},
      {"std_mean", [&] { at::std_mean(x); }},
      {"all", [&] { at::all(b); }},
      {"any.dim", [&] { at::any(x, 1); }},
      {"sum.IntList_out", [&] { at::sum_out(y, x, {1}); }},
      {"mse_loss (composite)", [&] { at::mse_loss(x, x); }},
      {"binary_cross_entropy (composite)", [&] { at::binary_cross_entropy(x, x); }},
      {"layer_norm (composite)", [&] { at::layer_norm(x, {2}); }},
      {"batch_norm (composite)",
       [&] { at::batch_norm(x, std::nullopt, std::nullopt, std::nullopt, std::nullopt, true, 0.1, 1e-5, false); }},
      {"bmm", [&] { at::bmm(handMadeCudaTensor({2, 2, 3}), handMadeCudaTensor({2, 3, 2})); }},
      {"cat", [&] { at::cat({x, x}, 1); }},
      {"index_select", [&] { at::index_select(x, 0, handMadeCudaTensor({2}, c10::kLong)); }},
      {"embedding", [&] { at::embedding(x, handMadeCudaTensor({3}, c10::kLong)); }},
      {"embedding_dense_backward",
       [&] { at::embedding_dense_backward(x, handMadeCudaTensor({2}, c10::kLong), 4, -1, false); }},
      {"uniform_", [&] { at::Tensor t = x; t.uniform_(); }},
      {"normal_", [&] { at::Tensor t = x; t.normal_(); }},
      {"random_.from", [&] { at::Tensor t = l; t.random_(1, 5); }},
      {"random_.to", [&] { at::Tensor t = l; t.random_(5); }},
      {"random_", [&] { at::Tensor t = l; t.random_(); }},
      {"bernoulli_.float", [&] { at::Tensor t = x; t.bernoulli_(0.5); }},
      {"bernoulli_.Tensor", [&] { at::Tensor t = x; t.bernoulli_(x); }},
      {"rand.out", [&] { at::Tensor t = x; at::rand_out(t, {2, 2}); }},
      {"randn.out", [&] { at::Tensor t = x; at::randn_out(t, {2, 2}); }},
      {"randint.out", [&] { at::Tensor t = l; at::randint_out(t, 3, {2, 2}); }},
      {"randperm.out", [&] { at::Tensor t = handMadeCudaTensor({3}, c10::kLong); at::randperm_out(t, 3); }},
      {"randperm.out Half", [&] { at::Tensor t = handMadeCudaTensor({3}, c10::kHalf); at::randperm_out(t, 3); }},
      {"native_dropout", [&] { at::native_dropout(x, 0.5, true); }},
      {"dropout (composite)", [&] { at::dropout(x, 0.5, true); }},
      {"native_dropout_backward", [&] { at::native_dropout_backward(x, b, 2.0); }},
      {"arange.start_out", [&] { at::Tensor t = handMadeCudaTensor({4}); at::arange_out(t, 0, 4, 1); }},
      {"linspace.out", [&] { at::Tensor t = handMadeCudaTensor({4}); at::linspace_out(t, 0, 1, 4); }},
      {"eye.out", [&] { at::Tensor t = x; at::eye_out(t, 2); }},
      {"linalg_vector_norm (composite)", [&] { at::linalg_vector_norm(x, 3); }},
      {"norm.ScalarOpt_dim (composite)", [&] { at::norm(x, 1, {0}); }},
      {"logsumexp (composite)", [&] { at::logsumexp(x, {1}); }},
      {"gather", [&] { at::gather(x, 1, l); }},
      {"gather.out", [&] { at::Tensor t = handMadeCudaTensor({2, 2}); at::gather_out(t, x, 1, l); }},
      {"scatter.src", [&] { at::scatter(x, 1, l, x); }},
      {"scatter_.value", [&] { at::Tensor t = x; t.scatter_(1, l, 2.0); }},
      {"scatter.reduce", [&] { at::scatter(x, 1, l, x, "multiply"); }},
      {"scatter_add", [&] { at::scatter_add(x, 1, l, x); }},
      {"scatter_add_", [&] { at::Tensor t = handMadeCudaTensor({2, 2}); t.scatter_add_(0, l, x); }},
      {"conv2d (composite)",
       [&] { at::conv2d(handMadeCudaTensor({1, 2, 4, 4}), handMadeCudaTensor({3, 2, 3, 3})); }},
      {"convolution_backward (composite)", [&] {
         at::convolution_backward(handMadeCudaTensor({1, 3, 2, 2}), handMadeCudaTensor({1, 2, 4, 4}),
                                  handMadeCudaTensor({3, 2, 3, 3}), std::nullopt, {1}, {0}, {1},
                                  false, {0}, 1, {true, true, true});
       }},
      {"adaptive_avg_pool2d (composite)",
       [&] { at::adaptive_avg_pool2d(handMadeCudaTensor({1, 2, 4, 4}), {2, 2}); }},
      {"avg_pool2d (composite)", [&] { at::avg_pool2d(handMadeCudaTensor({1, 2, 4, 4}), {2}); }},
      {"max_pool2d (composite)", [&] { at::max_pool2d(handMadeCudaTensor({1, 2, 4, 4}), {2}); }},
      {"cumsum", [&] { at::cumsum(x, 1); }},
      {"cumsum_", [&] { at::Tensor t = x; t.cumsum_(0); }},
      {"cumsum.out", [&] { at::Tensor t = handMadeCudaTensor({2, 2}); at::cumsum_out(t, x, 1); }},
      {"sort.stable", [&] { at::sort(x, /*stable=*/true, 1, true); }},
      {"sort (composite)", [&] { at::sort(l, 0); }},
      {"sort.values_stable", [&] {
         at::Tensor v = handMadeCudaTensor({2, 2}), i = handMadeCudaTensor({2, 2}, c10::kLong);
         at::sort_out(v, i, x, /*stable=*/true, 1, false);
       }},
      {"topk", [&] { at::topk(x, 1, 1); }},
      {"topk.values", [&] {
         at::Tensor v = handMadeCudaTensor({2, 1}), i = handMadeCudaTensor({2, 1}, c10::kLong);
         at::topk_out(v, i, x, 1, 1);
       }},
      {"masked_fill_ (composite)", [&] { at::Tensor t = x; t.masked_fill_(b, 1.0); }},
      {"nonzero (composite)", [&] { at::nonzero(x); }},
      {"isclose (composite)", [&] { at::isclose(x, x); }},
      {"resize_", [&] { at::Tensor t = handMadeCudaTensor({2}); t.resize_({100}); }},
      {"_softmax.out (composite)", [&] { at::Tensor t = handMadeCudaTensor({2, 2}); at::_softmax_out(t, x, 1, false); }},
      {"zeros.out (composite)", [&] { at::Tensor t = handMadeCudaTensor({2}); at::zeros_out(t, {2}); }},
      {"nll_loss2d (composite)", [&] {
         at::nll_loss2d(handMadeCudaTensor({1, 2, 2, 2}), handMadeCudaTensor({1, 2, 2}, c10::kLong));
       }},
      {"equal (composite)", [&] { at::equal(x, x); }},
      {"index (composite)", [&] { at::index(x, {l.select(1, 0)}); }},
      {"index_put_ (composite)", [&] { at::Tensor t = x; t.index_put_({l.select(1, 0)}, x, true); }},
      {"masked_select (composite)", [&] { at::masked_select(x, b); }},
      {"masked_fill (composite)", [&] { at::masked_fill(x, b, at::full({}, 1.0)); }},
  };
  for (const auto& [name, call] : calls) {
    EXPECT_THAT(ember_test::errorOf(call), StartsWith(prefix)) << name;
  }
}

// Argument errors come before the device, in the CPU's words (the checks are
// the core's: aten/PointwiseChecks.h, ReduceUtils.h, JoinUtils.h,
// LinalgChecks.h).
TEST_F(NoDevice, ArgumentErrorsAreTheCpusAndComeFirst) {
  const at::Tensor x = handMadeCudaTensor({2, 2});
  const at::Tensor b = handMadeCudaTensor({2, 2}, c10::kBool);
  const at::Tensor l = handMadeCudaTensor({2, 2}, c10::kLong);
  const at::Tensor cx = at::ones({2, 2});
  const at::Tensor cb = at::ones({2, 2}, at::TensorOptions().dtype(c10::kBool));
  const at::Tensor cl = at::ones({2, 2}, at::TensorOptions().dtype(c10::kLong));
  using F = std::function<void(const at::Tensor&, const at::Tensor&, const at::Tensor&)>;
  const std::vector<std::pair<const char*, F>> calls = {
      {"sub bool", [](auto&, auto& b, auto&) { at::sub(b, b); }},
      {"neg bool", [](auto&, auto& b, auto&) { at::neg(b); }},
      {"floor bool", [](auto&, auto& b, auto&) { at::floor(b); }},
      {"where condition", [](auto& x, auto&, auto&) { at::where(x, x, x); }},
      {"clamp no bounds", [](auto& x, auto&, auto&) {
         at::clamp(x, std::optional<c10::Scalar>(), std::optional<c10::Scalar>());
       }},
      {"round decimals", [](auto&, auto&, auto& l) { at::round(l, 2); }},
      {"bitwise_not float", [](auto& x, auto&, auto&) { at::bitwise_not(x); }},
      {"gelu approximate", [](auto& x, auto&, auto&) { at::gelu(x, "fast"); }},
      {"addcdiv ints", [](auto&, auto&, auto& l) { at::addcdiv(l, l, l); }},
      {"lerp dtypes", [](auto& x, auto&, auto& l) { at::lerp(x, l, 0.5); }},
      {"leaky_relu_backward", [](auto& x, auto&, auto&) {
         at::leaky_relu_backward(x, x, -0.5, true);
       }},
      {"fmod bool", [](auto&, auto& b, auto&) { at::fmod(b, b); }},
      {"div mode", [](auto& x, auto&, auto&) { at::div(x, x, "round"); }},
      {"var ints", [](auto&, auto&, auto& l) { at::var(l); }},
      {"amax dims", [](auto& x, auto&, auto&) { at::amax(x, {0, 0}); }},
      {"max.dim range", [](auto& x, auto&, auto&) { x.max(5); }},
      {"mm shapes", [](auto& x, auto&, auto&) { at::mm(x, x.reshape({4, 1})); }},
      {"bmm dims", [](auto& x, auto&, auto&) { at::bmm(x, x); }},
      {"cat dims", [](auto& x, auto&, auto&) { at::cat({x, x.reshape({4})}); }},
      {"index_select dtype", [](auto& x, auto&, auto&) { at::index_select(x, 0, x); }},
      {"embedding weight", [](auto& x, auto&, auto& l) { at::embedding(x.reshape({4}), l); }},
      {"uniform_ bounds", [](auto& x, auto&, auto&) { at::Tensor t = x; t.uniform_(1, 0); }},
      {"uniform_ infinite", [](auto& x, auto&, auto&) { at::Tensor t = x; t.uniform_(0, INFINITY); }},
      {"normal_ std", [](auto& x, auto&, auto&) { at::Tensor t = x; t.normal_(0, -1); }},
      {"random_ order", [](auto&, auto&, auto& l) { at::Tensor t = l; t.random_(4, 2); }},
      {"random_ range", [](auto&, auto& b, auto&) { at::Tensor t = b; t.random_(0, 3); }},
      {"bernoulli_ p", [](auto& x, auto&, auto&) { at::Tensor t = x; t.bernoulli_(1.5); }},
      {"bernoulli_ p dtype", [](auto& x, auto&, auto& l) { at::Tensor t = x; t.bernoulli_(l); }},
      {"bernoulli_ p shape", [](auto& x, auto&, auto&) {
         at::Tensor t = x;
         t.bernoulli_(x.reshape({4}));
       }},
      {"randint bounds", [](auto&, auto&, auto& l) { at::Tensor t = l; at::randint_out(t, 5, 5, {2, 2}); }},
      {"randperm bool", [](auto&, auto& b, auto&) { at::Tensor t = b; at::randperm_out(t, 3); }},
      {"dropout p", [](auto& x, auto&, auto&) { at::native_dropout(x, 1.5, true); }},
      {"dropout ints", [](auto&, auto&, auto& l) { at::native_dropout(l, 0.5, true); }},
      {"dropout_backward mask", [](auto& x, auto&, auto&) { at::native_dropout_backward(x, x, 2.0); }},
      {"arange step", [](auto& x, auto&, auto&) { at::Tensor t = x; at::arange_out(t, 0, 4, 0); }},
      {"arange sign", [](auto& x, auto&, auto&) { at::Tensor t = x; at::arange_out(t, 0, 4, -1); }},
      {"arange bool", [](auto&, auto& b, auto&) { at::Tensor t = b; at::arange_out(t, 0, 4, 1); }},
      {"linspace steps", [](auto& x, auto&, auto&) { at::Tensor t = x; at::linspace_out(t, 0, 1, -1); }},
      {"eye n", [](auto& x, auto&, auto&) { at::Tensor t = x; at::eye_out(t, -2); }},
      {"norm ints", [](auto&, auto&, auto& l) { at::linalg_vector_norm(l, 2); }},
      {"norm bool order", [](auto& x, auto&, auto&) { at::norm(x, true, {0}); }},
      {"logsumexp dims", [](auto& x, auto&, auto&) { at::logsumexp(x, {0, 0}); }},
      {"gather index dtype", [](auto& x, auto&, auto&) { at::gather(x, 0, x); }},
      {"gather index dims", [](auto& x, auto&, auto& l) { at::gather(x, 0, l.reshape({4})); }},
      {"gather index size", [](auto& x, auto&, auto& l) { at::gather(x.narrow(1, 0, 1), 0, l); }},
      {"scatter src dtype", [](auto& x, auto&, auto& l) { at::scatter(x, 0, l, l); }},
      {"scatter reduce", [](auto& x, auto&, auto& l) { at::scatter(x, 0, l, x, "max"); }},
      {"scatter_add dims", [](auto& x, auto&, auto& l) { at::scatter_add(x, 5, l, x); }},
      {"max_pool2d dims", [](auto& x, auto&, auto&) { at::max_pool2d(x, {2}); }},
      {"conv2d dims", [](auto& x, auto&, auto&) { at::conv2d(x, x); }},
      {"avg_pool2d dims", [](auto& x, auto&, auto&) { at::avg_pool2d(x, {2}); }},
      {"cumsum dim", [](auto& x, auto&, auto&) { at::cumsum(x, 3); }},
      {"cumsum_ dtype", [](auto& x, auto&, auto&) { at::Tensor t = x; t.cumsum_(0, at::kDouble); }},
      {"sort dim", [](auto& x, auto&, auto&) { at::sort(x, 2); }},
      {"softmax half_to_float", [](auto& x, auto&, auto&) { at::_log_softmax(x, 1, true); }},
      {"softmax_backward input_dtype", [](auto& x, auto&, auto&) {
         at::_softmax_backward_data(x, x, 1, c10::kDouble);
       }},
      {"topk k", [](auto& x, auto&, auto&) { at::topk(x, 3, 1); }},
      {"topk negative k", [](auto& x, auto&, auto&) { at::topk(x, -1); }},
      {"topk dim", [](auto& x, auto&, auto&) { at::topk(x, 1, -3); }},
      {"sort_out values dtype", [](auto& x, auto&, auto& l) {
         at::Tensor v = l, i = l;
         at::sort_out(v, i, x, true, 1, false);
       }},
      {"sort_out indices dtype", [](auto& x, auto& b, auto&) {
         at::Tensor v = x, i = b;
         at::sort_out(v, i, x, true, 1, false);
       }},
      {"sort_out overlap", [](auto& x, auto&, auto& l) {
         at::Tensor v = x, i = l;
         at::sort_out(v, i, x, true, 1, false);
       }},
      {"topk_out values dtype", [](auto& x, auto&, auto& l) {
         at::Tensor v = l, i = l;
         at::topk_out(v, i, x, 1);
       }},
      {"masked_select mask dtype", [](auto& x, auto&, auto& l) { at::masked_select(x, l); }},
      {"index dtype", [](auto& x, auto&, auto&) { at::index(x, {x.select(1, 0)}); }},
      {"isclose dtypes", [](auto& x, auto&, auto& l) { at::isclose(x, l); }},
      {"nll_loss2d dims", [](auto& x, auto&, auto& l) { at::nll_loss2d(x, l); }},
      {"index too many", [](auto& x, auto&, auto& l) {
         at::index(x, {l.select(1, 0), l.select(1, 0), l.select(1, 0)});
       }},
      {"index_put_ dtype", [](auto& x, auto&, auto& l) {
         at::Tensor t = x;
         t.index_put_({l.select(1, 0)}, l, false);
       }},
      {"masked_fill_ mask dtype", [](auto& x, auto&, auto& l) { at::Tensor t = x; t.masked_fill_(l, 1.0); }},
      {"masked_fill_ broadcast", [](auto& x, auto& b, auto&) {
         at::Tensor t = x.select(0, 0);
         t.masked_fill_(b, 1.0);
       }},
  };
  for (const auto& entry : calls) {
    const char* name = entry.first;
    const F& call = entry.second;  // a plain name: the lambdas capture it
    const std::string cpu = ember_test::errorOf([&] { call(cx, cb, cl); });
    EXPECT_NE(cpu, "<no error>") << name;
    EXPECT_EQ(ember_test::errorOf([&] { call(x, b, l); }), cpu) << name;
  }
}

TEST_F(NoDevice, EmptyCacheWithoutADeviceDoesNothing) {
  EXPECT_EQ(ember_test::errorOf([] {
              c10::cuda::CUDACachingAllocator::emptyCache();
            }),
            "<no error>");
}

TEST_F(NoDevice, SeedingWithoutADeviceDoesNothing) {
  // As libtorch: manual_seed(_all) are no-ops where CUDA is unavailable.
  EXPECT_EQ(ember_test::errorOf([] { torch::cuda::manual_seed(1); }), "<no error>");
  EXPECT_EQ(ember_test::errorOf([] { torch::cuda::manual_seed_all(1); }),
            "<no error>");
}

TEST(CudaApi, StreamOfAnotherDeviceTypeIsRefused) {
  EXPECT_THAT(ember_test::errorOf([] {
                c10::cuda::CUDAStream s(
                    c10::Stream(c10::Stream::DEFAULT, c10::Device(c10::kCPU)));
              }),
              HasSubstr("CUDAStream: expected a stream of a CUDA device, got one of cpu"));
  EXPECT_THAT(ember_test::errorOf([] { at::cuda::CUDAEvent e(cudaEventBlockingSync); }),
              HasSubstr("CUDAEvent: flags 1 are not supported"));
}

TEST(CudaApi, CheckMacrosNameTheErrorAndTheCall) {
  const std::string msg = ember_test::errorOf(
      [] { C10_CUDA_CHECK(cudaErrorInvalidValue); });
  EXPECT_THAT(msg, StartsWith("CUDA error: invalid argument (cudaErrorInvalidValue) "
                              "from cudaErrorInvalidValue at "));
  EXPECT_THAT(msg, HasSubstr("runtime_no_device_test.cc:"));
  EXPECT_EQ(ember_test::errorOf([] { C10_CUDA_CHECK(cudaSuccess); }), "<no error>");
}

TEST(CudaApi, StreamIdsRoundTrip) {
  using ember::cuda::StreamKind;
  for (int slot = 0; slot < ember::cuda::kStreamsPerPool; ++slot) {
    for (bool high : {false, true}) {
      const c10::StreamId id = ember::cuda::poolStreamId(high, slot);
      EXPECT_EQ(ember::cuda::streamKind(id),
                high ? StreamKind::kHighPriority : StreamKind::kLowPriority);
      EXPECT_EQ(ember::cuda::streamSlot(id), slot);
    }
  }
  EXPECT_EQ(ember::cuda::streamKind(0), StreamKind::kDefault);
  EXPECT_EQ(ember::cuda::streamKind(-1), StreamKind::kInvalid);
  EXPECT_EQ(ember::cuda::streamKind(2 * ember::cuda::kStreamsPerPool + 1),
            StreamKind::kInvalid);
}

// The plugin defines none of the core's functions or data (it links only
// headers): strong c10::/at::/torch:: definitions would be a second core.
TEST(CudaPlugin, DefinesNoCoreSymbolsAndNoCudart) {
  const std::string path = std::string(std::getenv("TEST_SRCDIR")) +
                           "/ember/backends/cuda/libember_cuda.so";
  const std::string cmd = "nm -D --defined-only -C '" + path + "' 2>&1";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), &pclose);
  ASSERT_TRUE(pipe);
  std::string strong_core, cudart;
  int lines = 0;
  char buf[4096];
  while (fgets(buf, sizeof(buf), pipe.get()) != nullptr) {
    ++lines;
    const std::string line(buf);
    if (line.size() < 19) continue;
    const char type = line[17];
    const std::string name = line.substr(19);
    const bool strong = type == 'T' || type == 'D' || type == 'B' || type == 'R';
    if (strong && (name.rfind("c10::", 0) == 0 || name.rfind("at::", 0) == 0 ||
                   name.rfind("torch::", 0) == 0)) {
      strong_core += line;
    }
    // cudart is linked statically with its symbols kept local, so a
    // program's own cudart does not bind to the plugin's copy.
    if (name.rfind("cuda", 0) == 0) cudart += line;
  }
  EXPECT_GT(lines, 0) << "nm printed nothing for " << path;
  EXPECT_EQ(strong_core, "") << path << " carries core code";
  EXPECT_EQ(cudart, "") << path << " exports cudart's symbols";
}

}  // namespace
