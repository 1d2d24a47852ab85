// nn/modules/norm_pool.h — torch::nn::GroupNorm, InstanceNorm1d/2d/3d,
// MaxPool1d, AvgPool1d, MaxPool3d, AvgPool3d, AdaptiveAvgPool1d/2d/3d and
// AdaptiveMaxPool1d/2d/3d.
//
//   torch::nn::Sequential head(torch::nn::Conv2d(3, 32, 3),
//                              torch::nn::GroupNorm(torch::nn::GroupNormOptions(8, 32)),
//                              torch::nn::AdaptiveAvgPool2d(torch::nn::AdaptiveAvgPool2dOptions({1, 1})));
//
// Forward calls the functional form (nn/functional.h), a composite of
// differentiable aten ops.
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/options.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::GroupNormImpl — group_norm with weight [C] (ones) and bias [C]
// (zeros) when affine.
class GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // input [N, C, *] with C == num_channels.
  Tensor forward(const Tensor& input);

  GroupNormOptions options;
  Tensor weight;
  Tensor bias;
};
TORCH_MODULE(GroupNorm);

// torch::nn::InstanceNorm{1,2,3}dImpl — per-sample, per-channel
// normalization of [N, C, *D] (or unbatched [C, *D]); weight/bias with
// affine, running_mean/var (used in eval) with track_running_stats.
template <size_t D>
class InstanceNormImpl : public Module {
 public:
  explicit InstanceNormImpl(int64_t num_features)
      : InstanceNormImpl(InstanceNormOptions(num_features)) {}
  explicit InstanceNormImpl(const InstanceNormOptions& options);
  void reset();
  void reset_running_stats();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  InstanceNormOptions options;
  Tensor weight;
  Tensor bias;
  Tensor running_mean;
  Tensor running_var;
  Tensor num_batches_tracked;
};
class InstanceNorm1dImpl : public detail::CloneableAs<InstanceNorm1dImpl, InstanceNormImpl<1>> {
 public:
  using CloneableAs::CloneableAs;
};
TORCH_MODULE(InstanceNorm1d);
class InstanceNorm2dImpl : public detail::CloneableAs<InstanceNorm2dImpl, InstanceNormImpl<2>> {
 public:
  using CloneableAs::CloneableAs;
};
TORCH_MODULE(InstanceNorm2d);
class InstanceNorm3dImpl : public detail::CloneableAs<InstanceNorm3dImpl, InstanceNormImpl<3>> {
 public:
  using CloneableAs::CloneableAs;
};
TORCH_MODULE(InstanceNorm3d);
extern template class InstanceNormImpl<1>;
extern template class InstanceNormImpl<2>;
extern template class InstanceNormImpl<3>;

// torch::nn::MaxPool1dImpl / AvgPool1dImpl — [N, C, L] or [C, L].
class MaxPool1dImpl : public Cloneable<MaxPool1dImpl> {
 public:
  explicit MaxPool1dImpl(ExpandingArray<1> kernel_size)
      : MaxPool1dImpl(MaxPool1dOptions(kernel_size)) {}
  explicit MaxPool1dImpl(const MaxPool1dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  MaxPool1dOptions options;
};
TORCH_MODULE(MaxPool1d);

class AvgPool1dImpl : public Cloneable<AvgPool1dImpl> {
 public:
  explicit AvgPool1dImpl(ExpandingArray<1> kernel_size)
      : AvgPool1dImpl(AvgPool1dOptions(kernel_size)) {}
  explicit AvgPool1dImpl(const AvgPool1dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  AvgPool1dOptions options;
};
TORCH_MODULE(AvgPool1d);

// torch::nn::AdaptiveAvgPool1dImpl / AdaptiveAvgPool2dImpl /
// AdaptiveMaxPool2dImpl — pooling to a fixed output size.
class AdaptiveAvgPool1dImpl : public Cloneable<AdaptiveAvgPool1dImpl> {
 public:
  explicit AdaptiveAvgPool1dImpl(ExpandingArray<1> output_size)
      : AdaptiveAvgPool1dImpl(AdaptiveAvgPool1dOptions(output_size)) {}
  explicit AdaptiveAvgPool1dImpl(const AdaptiveAvgPool1dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  AdaptiveAvgPool1dOptions options;
};
TORCH_MODULE(AdaptiveAvgPool1d);

class AdaptiveAvgPool2dImpl : public Cloneable<AdaptiveAvgPool2dImpl> {
 public:
  explicit AdaptiveAvgPool2dImpl(ExpandingArray<2> output_size)
      : AdaptiveAvgPool2dImpl(AdaptiveAvgPool2dOptions(output_size)) {}
  explicit AdaptiveAvgPool2dImpl(const AdaptiveAvgPool2dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  AdaptiveAvgPool2dOptions options;
};
TORCH_MODULE(AdaptiveAvgPool2d);

class AdaptiveMaxPool2dImpl : public Cloneable<AdaptiveMaxPool2dImpl> {
 public:
  explicit AdaptiveMaxPool2dImpl(ExpandingArray<2> output_size)
      : AdaptiveMaxPool2dImpl(AdaptiveMaxPool2dOptions(output_size)) {}
  explicit AdaptiveMaxPool2dImpl(const AdaptiveMaxPool2dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  AdaptiveMaxPool2dOptions options;
};
TORCH_MODULE(AdaptiveMaxPool2d);

// torch::nn::MaxPool3dImpl / AvgPool3dImpl — [N, C, D, H, W] or [C, D, H, W].
class MaxPool3dImpl : public Cloneable<MaxPool3dImpl> {
 public:
  explicit MaxPool3dImpl(ExpandingArray<3> kernel_size)
      : MaxPool3dImpl(MaxPool3dOptions(kernel_size)) {}
  explicit MaxPool3dImpl(const MaxPool3dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  MaxPool3dOptions options;
};
TORCH_MODULE(MaxPool3d);

class AvgPool3dImpl : public Cloneable<AvgPool3dImpl> {
 public:
  explicit AvgPool3dImpl(ExpandingArray<3> kernel_size)
      : AvgPool3dImpl(AvgPool3dOptions(kernel_size)) {}
  explicit AvgPool3dImpl(const AvgPool3dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  AvgPool3dOptions options;
};
TORCH_MODULE(AvgPool3d);

// torch::nn::AdaptiveAvgPool3dImpl / AdaptiveMaxPool1dImpl /
// AdaptiveMaxPool3dImpl (no forward_with_indices).
class AdaptiveAvgPool3dImpl : public Cloneable<AdaptiveAvgPool3dImpl> {
 public:
  explicit AdaptiveAvgPool3dImpl(ExpandingArray<3> output_size)
      : AdaptiveAvgPool3dImpl(AdaptiveAvgPool3dOptions(output_size)) {}
  explicit AdaptiveAvgPool3dImpl(const AdaptiveAvgPool3dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  AdaptiveAvgPool3dOptions options;
};
TORCH_MODULE(AdaptiveAvgPool3d);

class AdaptiveMaxPool1dImpl : public Cloneable<AdaptiveMaxPool1dImpl> {
 public:
  explicit AdaptiveMaxPool1dImpl(ExpandingArray<1> output_size)
      : AdaptiveMaxPool1dImpl(AdaptiveMaxPool1dOptions(output_size)) {}
  explicit AdaptiveMaxPool1dImpl(const AdaptiveMaxPool1dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  AdaptiveMaxPool1dOptions options;
};
TORCH_MODULE(AdaptiveMaxPool1d);

class AdaptiveMaxPool3dImpl : public Cloneable<AdaptiveMaxPool3dImpl> {
 public:
  explicit AdaptiveMaxPool3dImpl(ExpandingArray<3> output_size)
      : AdaptiveMaxPool3dImpl(AdaptiveMaxPool3dOptions(output_size)) {}
  explicit AdaptiveMaxPool3dImpl(const AdaptiveMaxPool3dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  AdaptiveMaxPool3dOptions options;
};
TORCH_MODULE(AdaptiveMaxPool3d);

// Defined in norm_pool.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class Cloneable<GroupNormImpl>;
extern template class detail::CloneableAs<InstanceNorm1dImpl, InstanceNormImpl<1>>;
extern template class detail::CloneableAs<InstanceNorm2dImpl, InstanceNormImpl<2>>;
extern template class detail::CloneableAs<InstanceNorm3dImpl, InstanceNormImpl<3>>;
extern template class Cloneable<MaxPool1dImpl>;
extern template class Cloneable<AvgPool1dImpl>;
extern template class Cloneable<AdaptiveAvgPool1dImpl>;
extern template class Cloneable<AdaptiveAvgPool2dImpl>;
extern template class Cloneable<AdaptiveMaxPool2dImpl>;
extern template class Cloneable<MaxPool3dImpl>;
extern template class Cloneable<AvgPool3dImpl>;
extern template class Cloneable<AdaptiveAvgPool3dImpl>;
extern template class Cloneable<AdaptiveMaxPool1dImpl>;
extern template class Cloneable<AdaptiveMaxPool3dImpl>;

}  // namespace nn
}  // namespace torch
