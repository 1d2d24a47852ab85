// aten/ConvDecompositions.h — convolution and convolution_backward written
// with other ATen ops (the windows of a zero-padded copy as a strided view,
// batched matrix products per group, and a scatter_add that folds column
// gradients back into the input), registered for CompositeExplicitAutograd:
// a backend without its own kernels (CUDA, a third party's) gets 1-d and
// 2-d convolutions, transposed and grouped, with their gradients, while the
// CPU plugin keeps oneDNN and its loops. Checks and geometry are shared
// with the CPU kernels (aten/ConvUtils.h, Note [Convolution geometry]).
// Declared here so that tests can run them on the CPU against the CPU
// kernels. The results are contiguous (the CPU kernels keep a
// ChannelsLast input's layout).
#pragma once

#include <tuple>
#include <vector>

#include "aten/Tensor.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/OptionalArrayRef.h"

namespace at {
namespace native {

Tensor convolution_decomposed(const Tensor& input, const Tensor& weight,
                              const std::optional<Tensor>& bias, c10::IntArrayRef stride,
                              c10::IntArrayRef padding, c10::IntArrayRef dilation,
                              bool transposed, c10::IntArrayRef output_padding, int64_t groups);
std::tuple<Tensor, Tensor, Tensor> convolution_backward_decomposed(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight,
    c10::OptionalIntArrayRef bias_sizes, c10::IntArrayRef stride, c10::IntArrayRef padding,
    c10::IntArrayRef dilation, bool transposed, c10::IntArrayRef output_padding,
    int64_t groups, const std::vector<bool>& output_mask);

}  // namespace native
}  // namespace at
