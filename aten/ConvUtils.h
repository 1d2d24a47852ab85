// aten/ConvUtils.h — convolution's argument checks and the geometry of the
// direct convolution behind each call, which every backend makes alike (the
// CPU plugin's kernels, the core's decompositions in
// aten/ConvDecompositions.h), in PyTorch's words.
//
// Note [Convolution geometry]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every call computes one direct, 2-d, grouped convolution
//   Y[n, o, i, j] = sum over c in o's group, kh, kw of
//       X[n, c, i*sh - ph + kh*dh, j*sw - pw + kw*dw] * W[o, c mod Cx/G, kh, kw]
// with X [N, Cx, Hx, Wx], W [Cy, Cx/G, KH, KW] and Y [N, Cy, Hy, Wy]; taps
// outside X read zero. Its three products are forward (X, W -> Y),
// backward_data (dY, W -> dX) and backward_weights (X, dY -> dW). A
// transposed convolution is the same geometry read the other way: its input
// is Y, its output X and its weight W (PyTorch's [Cin, Cout/G, KH, KW]), so
// its forward is backward_data, and its gradients are forward (input) and
// backward_weights with X and dY swapped in meaning. A 1-d convolution is
// the 2-d one with H = 1.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "aten/Tensor.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/OptionalArrayRef.h"

namespace at {
namespace native {

struct ConvGeometry {
  int64_t N = 0, G = 1;
  int64_t Cx = 0, Hx = 0, Wx = 0;  // X: the direct convolution's input
  int64_t Cy = 0, Hy = 0, Wy = 0;  // Y: its output
  int64_t KH = 0, KW = 0;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

// A call's arguments, checked: the geometry, input and weight as 4-d views
// (1-d convolutions get H = 1) and the output's shape as the caller sees it.
// Float and Double inputs; Half and BFloat16 too with `half_types` (the CUDA
// plugin's cuDNN path).
struct ConvPlan {
  ConvGeometry g;
  Tensor input, weight;
  bool one_d = false;
  bool transposed = false;
  std::vector<int64_t> output_shape;
};
ConvPlan conv_plan(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   c10::IntArrayRef stride, c10::IntArrayRef padding,
                   c10::IntArrayRef dilation, bool transposed,
                   c10::IntArrayRef output_padding, int64_t groups, const char* op,
                   bool half_types = false);
// convolution_backward's mask (3 entries), checked before the plan.
void check_conv_output_mask(const std::vector<bool>& output_mask, const char* op);
// convolution_backward's grad_output (the output's shape, input's dtype) and
// bias_sizes ([output channels] when given).
void check_conv_grad(const Tensor& grad_output, const Tensor& input, const ConvPlan& p,
                     c10::OptionalIntArrayRef bias_sizes, const char* op);

}  // namespace native
}  // namespace at
