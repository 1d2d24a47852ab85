// nn/modules/normalization.h — torch::nn::BatchNorm2d and LayerNorm.
//
//   torch::nn::BatchNorm2d bn(32);
//   auto y = bn(x);     // training: batch statistics, running stats updated
//   bn->eval();
//   auto z = bn(x);     // evaluation: running statistics
#pragma once

#include <ostream>

#include "nn/module.h"
#include "nn/options.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::BatchNorm2dImpl — normalizes each channel of [N, C, H, W].
// Parameters weight (ones) and bias (zeros) when affine; buffers
// running_mean (zeros), running_var (ones) and num_batches_tracked (int64
// 0) when track_running_stats. In training, running = (1 - momentum) *
// running + momentum * batch statistic (unbiased variance); with momentum
// unset, momentum = 1 / num_batches_tracked (a cumulative average).
class BatchNorm2dImpl : public Module {
 public:
  explicit BatchNorm2dImpl(int64_t num_features)
      : BatchNorm2dImpl(BatchNorm2dOptions(num_features)) {}
  explicit BatchNorm2dImpl(const BatchNorm2dOptions& options);

  void reset();
  void reset_running_stats();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  BatchNorm2dOptions options;
  Tensor weight;
  Tensor bias;
  Tensor running_mean;
  Tensor running_var;
  Tensor num_batches_tracked;
};
TORCH_MODULE(BatchNorm2d);

// torch::nn::LayerNormImpl — normalizes over the trailing
// normalized_shape dimensions; weight (ones) and bias (zeros) of that shape
// when elementwise_affine.
class LayerNormImpl : public Module {
 public:
  LayerNormImpl(std::vector<int64_t> normalized_shape)  // NOLINT: implicit as in libtorch
      : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(LayerNormOptions options);

  void reset();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  LayerNormOptions options;
  Tensor weight;
  Tensor bias;
};
TORCH_MODULE(LayerNorm);

}  // namespace nn
}  // namespace torch
