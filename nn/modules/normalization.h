// nn/modules/normalization.h — torch::nn::BatchNorm2d and LayerNorm.
//
//   torch::nn::BatchNorm2d bn(32);
//   auto y = bn(x);     // training: batch statistics, running stats updated
//   bn->eval();
//   auto z = bn(x);     // evaluation: running statistics
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/options.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::BatchNorm1dImpl / BatchNorm2dImpl / BatchNorm3dImpl —
// normalize each channel of [N, C] or [N, C, L] (1d), [N, C, H, W] (2d),
// [N, C, D, H, W] (3d). Parameters weight (ones) and bias (zeros) when
// affine; buffers running_mean (zeros), running_var (ones) and
// num_batches_tracked (int64 0) when track_running_stats. In training,
// running = (1 - momentum) * running + momentum * batch statistic (unbiased
// variance); with momentum unset, momentum = 1 / num_batches_tracked (a
// cumulative average).
template <size_t D>
class BatchNormImplBase : public Module {
 public:
  explicit BatchNormImplBase(int64_t num_features)
      : BatchNormImplBase(BatchNormOptions(num_features)) {}
  explicit BatchNormImplBase(const BatchNormOptions& options);

  void reset();
  void reset_running_stats();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  BatchNormOptions options;
  Tensor weight;
  Tensor bias;
  Tensor running_mean;
  Tensor running_var;
  Tensor num_batches_tracked;
};

class BatchNorm1dImpl : public detail::CloneableAs<BatchNorm1dImpl, BatchNormImplBase<1>> {
 public:
  using CloneableAs::CloneableAs;
};
TORCH_MODULE(BatchNorm1d);
class BatchNorm2dImpl : public detail::CloneableAs<BatchNorm2dImpl, BatchNormImplBase<2>> {
 public:
  using CloneableAs::CloneableAs;
};
TORCH_MODULE(BatchNorm2d);
class BatchNorm3dImpl : public detail::CloneableAs<BatchNorm3dImpl, BatchNormImplBase<3>> {
 public:
  using CloneableAs::CloneableAs;
};
TORCH_MODULE(BatchNorm3d);

extern template class BatchNormImplBase<1>;
extern template class BatchNormImplBase<2>;
extern template class BatchNormImplBase<3>;

// torch::nn::LayerNormImpl — normalizes over the trailing
// normalized_shape dimensions; weight (ones) and bias (zeros) of that shape
// when elementwise_affine.
class LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  LayerNormImpl(std::vector<int64_t> normalized_shape)  // NOLINT: implicit as in libtorch
      : LayerNormImpl(LayerNormOptions(std::move(normalized_shape))) {}
  explicit LayerNormImpl(LayerNormOptions options);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  LayerNormOptions options;
  Tensor weight;
  Tensor bias;
};
TORCH_MODULE(LayerNorm);

// Defined in normalization.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class detail::CloneableAs<BatchNorm1dImpl, BatchNormImplBase<1>>;
extern template class detail::CloneableAs<BatchNorm2dImpl, BatchNormImplBase<2>>;
extern template class detail::CloneableAs<BatchNorm3dImpl, BatchNormImplBase<3>>;
extern template class Cloneable<LayerNormImpl>;

}  // namespace nn
}  // namespace torch
