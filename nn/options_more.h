// nn/options_more.h — the options of the normalization, pooling, resampling
// and bag layers added for libtorch programs (issue 15): GroupNorm,
// InstanceNorm*, MaxPool1d, AvgPool1d, AdaptiveAvgPool1d/2d,
// AdaptiveMaxPool2d, Upsample and interpolate, PixelShuffle/Unshuffle,
// EmbeddingBag, AlphaDropout and Unflatten, as libtorch's
// torch/nn/options/*.h. Included by nn/options.h; not for direct use.
//
//   torch::nn::GroupNorm gn(torch::nn::GroupNormOptions(4, 32).eps(1e-6));
//   auto y = F::interpolate(x, F::InterpolateFuncOptions()
//                                  .scale_factor(std::vector<double>{2, 2})
//                                  .mode(torch::kBilinear).align_corners(false));
#pragma once

#include <optional>
#include <variant>
#include <vector>

#include "nn/arg.h"
#include "nn/enum.h"
#include "nn/expanding_array.h"
#include "nn/types.h"

namespace torch {
namespace nn {

// ---- group and instance normalization ----
struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  TORCH_ARG(int64_t, num_groups);
  TORCH_ARG(int64_t, num_channels);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(bool, affine) = true;
};

struct InstanceNormOptions {
  /* implicit */ InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}
  TORCH_ARG(int64_t, num_features);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(double, momentum) = 0.1;
  TORCH_ARG(bool, affine) = false;
  TORCH_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

namespace functional {
struct GroupNormFuncOptions {
  /* implicit */ GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}
  TORCH_ARG(int64_t, num_groups);
  TORCH_ARG(Tensor, weight);
  TORCH_ARG(Tensor, bias);
  TORCH_ARG(double, eps) = 1e-5;
};

struct InstanceNormFuncOptions {
  TORCH_ARG(Tensor, running_mean);
  TORCH_ARG(Tensor, running_var);
  TORCH_ARG(Tensor, weight);
  TORCH_ARG(Tensor, bias);
  // false: normalize with running_mean/var (which must be defined).
  TORCH_ARG(bool, use_input_stats) = true;
  TORCH_ARG(double, momentum) = 0.1;
  TORCH_ARG(double, eps) = 1e-5;
};
}  // namespace functional

// ---- 1-d and adaptive pooling (MaxPoolOptions/AvgPoolOptions are in options.h) ----
template <typename output_size_t>
struct AdaptiveAvgPoolOptions {
  /* implicit */ AdaptiveAvgPoolOptions(output_size_t output_size)
      : output_size_(output_size) {}
  TORCH_ARG(output_size_t, output_size);
};
// libtorch's 2-d output_size is an ExpandingArrayWithOptionalElem (a
// missing element keeps the input's size); here every element is given.
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<ExpandingArray<1>>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArray<2>>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<ExpandingArray<3>>;

template <typename output_size_t>
struct AdaptiveMaxPoolOptions {
  /* implicit */ AdaptiveMaxPoolOptions(output_size_t output_size)
      : output_size_(output_size) {}
  TORCH_ARG(output_size_t, output_size);
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<ExpandingArray<1>>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<ExpandingArray<2>>;
using AdaptiveMaxPool3dOptions = AdaptiveMaxPoolOptions<ExpandingArray<3>>;

namespace functional {
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
using AdaptiveAvgPool3dFuncOptions = AdaptiveAvgPool3dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool3dFuncOptions = AdaptiveMaxPool3dOptions;
}  // namespace functional

// ---- upsampling ----
struct UpsampleOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear,
                              enumtype::kBicubic, enumtype::kTrilinear>;
  // Exactly one of size and scale_factor, one value per spatial dimension.
  TORCH_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TORCH_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  // Every mode: kLinear for 3-d, kBilinear/kBicubic for 4-d, kTrilinear
  // for 5-d inputs.
  TORCH_ARG(mode_t, mode) = torch::kNearest;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;
};

namespace functional {
struct InterpolateFuncOptions {
  using mode_t = std::variant<enumtype::kNearest, enumtype::kLinear, enumtype::kBilinear,
                              enumtype::kBicubic, enumtype::kTrilinear, enumtype::kArea,
                              enumtype::kNearestExact>;
  TORCH_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TORCH_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  // Every mode: kLinear for 3-d, kBilinear/kBicubic for 4-d, kTrilinear
  // for 5-d inputs.
  TORCH_ARG(mode_t, mode) = torch::kNearest;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;
  // true: the scale is output / input size (as when size is given).
  TORCH_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  // Not implemented: true is rejected.
  TORCH_ARG(bool, antialias) = false;
};
}  // namespace functional

// ---- pixel shuffle ----
struct PixelShuffleOptions {
  /* implicit */ PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}
  TORCH_ARG(int64_t, upscale_factor);
};
struct PixelUnshuffleOptions {
  /* implicit */ PixelUnshuffleOptions(int64_t downscale_factor)
      : downscale_factor_(downscale_factor) {}
  TORCH_ARG(int64_t, downscale_factor);
};
namespace functional {
using PixelShuffleFuncOptions = PixelShuffleOptions;
using PixelUnshuffleFuncOptions = PixelUnshuffleOptions;
}  // namespace functional

// ---- embedding bags ----
using EmbeddingBagMode = std::variant<enumtype::kSum, enumtype::kMean, enumtype::kMax>;

struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  TORCH_ARG(int64_t, num_embeddings);
  TORCH_ARG(int64_t, embedding_dim);
  // Rows picked with a larger norm_type-norm are rescaled in place to it.
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  // Gradients divided by each index's count in the input (not with kMax).
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(EmbeddingBagMode, mode) = torch::kMean;
  // Not implemented (no sparse tensors): true is rejected.
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(Tensor, _weight);
  // offsets has B + 1 entries, the last one the number of indices.
  TORCH_ARG(bool, include_last_offset) = false;
  // Indices equal to padding_idx are left out of their bag (and its count).
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

namespace functional {
struct EmbeddingBagFuncOptions {
  // Start of each bag in a 1-d input; undefined for a 2-d input [B, L].
  TORCH_ARG(Tensor, offsets);
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(EmbeddingBagMode, mode) = torch::kMean;
  TORCH_ARG(bool, sparse) = false;
  // A weight per index, multiplied in before summing (mode kSum only).
  TORCH_ARG(Tensor, per_sample_weights);
  TORCH_ARG(bool, include_last_offset) = false;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};
}  // namespace functional

// ---- AlphaDropout, Unflatten ----
using AlphaDropoutOptions = DropoutOptions;
using FeatureAlphaDropoutOptions = DropoutOptions;
using Dropout1dOptions = DropoutOptions;
namespace functional {
using AlphaDropoutFuncOptions = DropoutFuncOptions;
using FeatureAlphaDropoutFuncOptions = DropoutFuncOptions;
using Dropout1dFuncOptions = DropoutFuncOptions;
}  // namespace functional

struct UnflattenOptions {
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes)
      : dim_(dim), sizes_(std::move(sizes)) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::vector<int64_t>, sizes);
};

}  // namespace nn
}  // namespace torch
