// nn/functional.h — torch::nn::functional: the stateless forms of the layers
// and losses, as libtorch's torch/nn/functional.h.
//
//   namespace F = torch::nn::functional;
//   auto h = F::relu(F::conv2d(x, w, F::Conv2dFuncOptions().padding(1)));
//   auto p = F::max_pool2d(h, F::MaxPool2dFuncOptions(2));
//   auto loss = F::cross_entropy(logits, target,
//                                F::CrossEntropyFuncOptions().label_smoothing(0.1));
//
// Each function checks its options (and, where the aten op would give a
// less helpful message, the input's shape) and calls the aten op, so it is
// differentiable through the op's registered backward. Undefined optional
// tensors (weight, bias, ...) mean "none".
#pragma once

#include "nn/loss_options.h"
#include "nn/options.h"
#include "nn/types.h"

namespace torch {
namespace nn {
namespace functional {

// ---- layers ----
// input @ weight^T + bias; input [*, in], weight [out, in], bias [out].
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

// 2-d convolution of input [N, C_in, H, W] (or [C_in, H, W]) with weight
// [C_out, C_in / groups, kH, kW].
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});

// 1-d convolution of input [N, C_in, L] (or [C_in, L]) with weight
// [C_out, C_in / groups, k].
Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});
// Transposed convolutions (the gradient of conv1d/conv2d with respect to its
// input): weight [C_in, C_out / groups, k…]; output size per dimension
// (in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1.
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& options = {});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options = {});

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);

// Batch normalization over dim 1 of input [N, C, *]. In training the batch
// statistics are used and running_mean/var (if defined) updated in place
// with options.momentum; otherwise running_mean/var are used.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {});
// Normalizes over the trailing dimensions given by normalized_shape.
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);
namespace detail {
// layer_norm without building options (LayerNorm's forward).
Tensor layer_norm(const Tensor& input, at::IntArrayRef normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps);
}  // namespace detail

// Rows of weight [num_embeddings, dim] picked by integer input. With
// max_norm, the rows input picks whose norm_type-norm exceeds max_norm are
// first rescaled in place (under NoGradGuard) to norm max_norm, as
// libtorch's embedding_renorm_.
Tensor embedding(const Tensor& input, const Tensor& weight,
                 const EmbeddingFuncOptions& options = {});
namespace detail {
// The in-place renormalization of the rows `indices` picks (each once).
void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                       double norm_type);
}  // namespace detail

// Zeroes elements with probability p and scales the rest by 1 / (1 - p)
// when options.training(); the identity otherwise.
Tensor dropout(Tensor input, const DropoutFuncOptions& options = {});
// Channel dropout: zeroes whole channels of [N, C, H, W] (or [C, H, W]) /
// [N, C, D, H, W] (or [C, D, H, W]) with probability p when training.
Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {});
Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options = {});

// ---- activations and reshaping ----
Tensor relu(Tensor input, const ReLUFuncOptions& options = {});
Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);
// x where x > 0, negative_slope * x elsewhere.
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options = {});
// x where x > 0, alpha * (exp(x) - 1) elsewhere.
Tensor elu(Tensor input, const ELUFuncOptions& options = {});
// 1.0507… * elu(x, alpha = 1.6732…).
Tensor selu(Tensor input, const SELUFuncOptions& options = {});
// log(1 + exp(beta * x)) / beta; x itself where beta * x > threshold.
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
// clamp(x, min_val, max_val).
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options = {});
// x where x > 0, weight * x elsewhere; weight [1] or [C] (dim 1 of input).
Tensor prelu(const Tensor& input, const Tensor& weight);
// Ember addition (libtorch has torch::flatten and nn::Flatten only).
Tensor flatten(const Tensor& input, const FlattenFuncOptions& options = {});

// ---- losses ----
// input: logits [N, C] (or [C], or [N, C, d1, ...]); target: class indices
// (int64, [N] ...) or class probabilities (the input's shape).
Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyFuncOptions& options = {});
// input: log-probabilities [N, C] (or [C], or [N, C, d1, ...]); target:
// class indices.
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});
Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});
// input: probabilities in [0, 1]; target: same shape.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options = {});
// |input - target|; input and target of the same shape.
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});
// Quadratic below beta, linear above (beta = 0: l1_loss).
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options = {});
// Quadratic below delta, delta * linear above.
Tensor huber_loss(const Tensor& input, const Tensor& target,
                  const HuberLossFuncOptions& options = {});
// The Kullback-Leibler divergence: input holds log-probabilities, target
// probabilities (log-probabilities with log_target). kBatchMean divides the
// sum by the batch size (input.size(0)).
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {});
// input: logits; target: same shape.
Tensor binary_cross_entropy_with_logits(
    const Tensor& input, const Tensor& target,
    const BinaryCrossEntropyWithLogitsFuncOptions& options = {});

// ---- normalization, pooling, resampling and bags added for libtorch
// programs (nn/functional_more.cc; composites of differentiable aten ops) ----
// Normalizes input [N, C, *] over each group of C / num_groups channels
// (and all of *), then applies weight/bias [C] per channel.
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);
// Normalizes each channel of each sample of [N, C, *] over *; with
// use_input_stats the running statistics (if defined) are updated.
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});

// 1-d pooling of [N, C, L] or [C, L].
Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
// Adaptive pooling: output [*, out...], cell i of length L covering
// [floor(i L / out), ceil((i + 1) L / out)).
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);

// Resizes the spatial dimensions of [N, C, L] (kNearest, kNearestExact,
// kArea, kLinear), [N, C, H, W] (kNearest, kNearestExact, kArea,
// kBilinear, kBicubic) or [N, C, D, H, W] (kNearest, kNearestExact, kArea,
// kTrilinear). kBicubic is PyTorch's cubic convolution (A = -0.75, edge
// samples repeated; values may overshoot the input's range).
Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});
// [*, C r^2, H, W] -> [*, C, H r, W r], and its inverse.
Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options);
Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options);

// Sums, means or maxima of bags of rows of weight [num_embeddings, dim]:
// input [B, L] (one bag per row) or 1-d with options.offsets() -> [B, dim];
// an empty bag gives zeros.
Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                     const EmbeddingBagFuncOptions& options = {});

// Dropout that keeps the mean and variance of SELU activations: dropped
// elements become -1.7581 (SELU's negative saturation), then an affine
// map restores the statistics. feature_: whole channels of [N, C, *].
Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options = {});
Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& options = {});
// Channel dropout of [N, C, L] or [C, L].
Tensor dropout1d(Tensor input, const Dropout1dFuncOptions& options = {});

// ---- 3-d convolution and pooling (nn/functional_3d.cc; composites: one
// 2-d kernel call per kernel depth, windows along the depth by strided
// slices; differentiable through the aten ops they call) ----
// input [N, C_in, D, H, W] (or [C_in, D, H, W]), weight [C_out, C_in /
// groups, kD, kH, kW]; padding numbers, kValid or kSame (stride 1).
Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options = {});
// weight [C_in, C_out / groups, kD, kH, kW]; output size per dimension
// (in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1.
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose3dFuncOptions& options = {});
// Pooling of [N, C, D, H, W] or [C, D, H, W] (as max_pool2d/avg_pool2d per
// dimension: padding at most half the kernel, ceil_mode, count_include_pad,
// divisor_override).
Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options);
Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options);
Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options);
// Adaptive max pooling of [N, C, L] / [C, L] and [N, C, D, H, W] /
// [C, D, H, W] (values only: no return_indices form).
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);

}  // namespace functional
}  // namespace nn
}  // namespace torch
