// The GPU suite, convolutions through cuDNN (Note [CUDA convolutions] in
// backends/cuda/conv_ops.cc): forward and the three gradients of direct,
// grouped, strided, dilated, padded, 1-d and transposed convolutions against
// the CPU plugin, in Float and (computed from the same rounded values) Half
// and BFloat16. One binary with cuda_gpu_test.cc (tools/gpu/run.sh runs
// it). Where the machine has no cuDNN, the Float cases still run (through
// the decomposition) and the 16-bit ones skip with the reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <torch/autograd.h>
#include <torch/cuda.h>
#include <torch/types.h>

#include "tests/backends/cuda/gpu_test_util.h"

namespace {

using ember_gpu_test::expect_close;
using ember_gpu_test::Gpu;
using ember_gpu_test::randn;

struct Case {
  const char* name;
  std::vector<int64_t> input, weight;
  std::vector<int64_t> stride, padding, dilation, output_padding;
  bool transposed;
  int64_t groups;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"the CNN's first", {8, 1, 28, 28}, {16, 1, 3, 3}, {1}, {1}, {1}, {0}, false, 1},
      {"the CNN's second", {8, 16, 14, 14}, {32, 16, 3, 3}, {1}, {1}, {1}, {0}, false, 1},
      {"grouped, strided, dilated", {2, 8, 17, 9}, {12, 2, 3, 2}, {2, 1}, {1, 0}, {2, 3}, {0},
       false, 4},
      {"depthwise", {2, 6, 11, 11}, {6, 1, 3, 3}, {1}, {1}, {1}, {0}, false, 6},
      {"1-d", {3, 4, 50}, {6, 4, 5}, {2}, {3}, {1}, {0}, false, 1},
      {"transposed", {2, 6, 7, 5}, {6, 4, 3, 3}, {2, 3}, {1, 2}, {1}, {1, 2}, true, 1},
      {"transposed, grouped", {2, 6, 7, 5}, {6, 2, 2, 3}, {3}, {0}, {2}, {2}, true, 3},
  };
  return all;
}

// The convolution of case c on x, w and b.
at::Tensor run(const Case& c, const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  return at::convolution(x, w, b, c.stride, c.padding, c.dilation, c.transposed,
                         c.output_padding, c.groups);
}

// Forward and the input, weight and bias gradients of every case in `type`
// on the GPU against the CPU in Float on the same (rounded) values.
void expect_like_the_cpu(c10::ScalarType type, const c10::Device& cuda, double rtol,
                         double atol) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(std::string(c.name) + " " + c10::toString(type));
    const at::Tensor x = randn(c.input).to(type).to(c10::kFloat);
    const at::Tensor w = randn(c.weight).to(type).to(c10::kFloat);
    const int64_t out_channels = c.transposed ? c.weight[1] * c.groups : c.weight[0];
    const at::Tensor b = randn({out_channels}).to(type).to(c10::kFloat);
    at::Tensor cx = x.clone().set_requires_grad(true), cw = w.clone().set_requires_grad(true);
    at::Tensor cb = b.clone().set_requires_grad(true);
    at::Tensor gx = x.to(cuda).to(type).set_requires_grad(true);
    at::Tensor gw = w.to(cuda).to(type).set_requires_grad(true);
    at::Tensor gb = b.to(cuda).to(type).set_requires_grad(true);
    const at::Tensor cy = run(c, cx, cw, cb), gy = run(c, gx, gw, gb);
    ASSERT_EQ(gy.scalar_type(), type);
    expect_close(gy.to(c10::kFloat), cy.detach(), rtol, atol);
    const at::Tensor weights = randn(cy.sizes().vec());  // every gradient element differs
    cy.mul(weights).sum().backward();
    gy.to(c10::kFloat).mul(weights.to(cuda)).sum().backward();
    expect_close(gx.grad().to(c10::kFloat), cx.grad(), rtol, atol);
    expect_close(gw.grad().to(c10::kFloat), cw.grad(), rtol, 10 * atol);  // sums over N*H*W
    expect_close(gb.grad().to(c10::kFloat), cb.grad(), rtol, 10 * atol);
  }
}

TEST_F(Gpu, FloatConvolutionsAndGradientsMatchTheCpu) {
  std::printf("cudnn_is_available(): %s\n", torch::cuda::cudnn_is_available() ? "true" : "false");
  expect_like_the_cpu(c10::kFloat, cuda, 1e-4, 1e-4);
}

TEST_F(Gpu, HalfAndBFloat16ConvolutionsGoThroughCuDNN) {
  if (!torch::cuda::cudnn_is_available()) {
    GTEST_SKIP() << "no usable cuDNN on this machine (Half and BFloat16 convolutions need it)";
  }
  expect_like_the_cpu(c10::kHalf, cuda, 1e-2, 1e-2);
  expect_like_the_cpu(c10::kBFloat16, cuda, 4e-2, 4e-2);
}

// A channels-last (NHWC) input goes to cuDNN as it is and its result is
// channels last too (as PyTorch's); values and gradients as the CPU's.
TEST_F(Gpu, ChannelsLastConvolutionsStayChannelsLast) {
  if (!torch::cuda::cudnn_is_available()) {
    GTEST_SKIP() << "no usable cuDNN on this machine (the decomposition makes NCHW results)";
  }
  const at::Tensor x = randn({4, 8, 9, 7}), w = randn({6, 8, 3, 3}), b = randn({6});
  at::Tensor nhwc = x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}).to(cuda);
  ASSERT_FALSE(nhwc.is_contiguous());
  nhwc.set_requires_grad(true);
  at::Tensor gw = w.to(cuda).set_requires_grad(true);
  const at::Tensor y = at::conv2d(nhwc, gw, b.to(cuda), {1}, {1});
  EXPECT_EQ(y.strides(), (std::vector<int64_t>{9 * 7 * 6, 1, 7 * 6, 6}));
  at::Tensor cx = x.clone().set_requires_grad(true), cw = w.clone().set_requires_grad(true);
  const at::Tensor cy = at::conv2d(cx, cw, b, {1}, {1});
  expect_close(y, cy.detach(), 1e-4, 1e-4);
  y.sum().backward();
  cy.sum().backward();
  expect_close(nhwc.grad(), cx.grad(), 1e-4, 1e-4);
  expect_close(gw.grad(), cw.grad(), 1e-4, 1e-3);
}

// Double is not among cuDNN's types here: the decomposition computes it,
// to double precision.
TEST_F(Gpu, DoubleConvolutionsTakeTheDecomposition) {
  const at::Tensor x = randn({2, 3, 9, 8}, c10::kDouble), w = randn({4, 3, 3, 3}, c10::kDouble);
  expect_close(at::conv2d(x.to(cuda), w.to(cuda), {}, {1}, {1}), at::conv2d(x, w, {}, {1}, {1}),
               1e-10, 1e-10);
}

}  // namespace
