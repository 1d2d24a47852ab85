#include "nn/modules/norm_pool.h"

#include "nn/functional.h"
#include "nn/init.h"

namespace torch {
namespace nn {

// ---- GroupNorm ----

GroupNormImpl::GroupNormImpl(const GroupNormOptions& options) : options(options) { reset(); }

void GroupNormImpl::reset() {
  TORCH_CHECK(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0,
              "GroupNorm: num_channels (", options.num_channels(), ") must be divisible by "
              "num_groups (", options.num_groups(), "), which must be positive.");
  const bool affine = options.affine();
  weight = register_parameter("weight", affine ? at::empty({options.num_channels()}) : Tensor(),
                              affine);
  bias = register_parameter("bias", affine ? at::empty({options.num_channels()}) : Tensor(),
                            affine);
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

void GroupNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::GroupNorm(" << options.num_groups() << ", "
         << options.num_channels() << ", eps=" << options.eps() << ", affine=" << options.affine()
         << ")";
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  TORCH_CHECK(input.defined() && input.dim() >= 2 && input.size(1) == options.num_channels(),
              "GroupNorm: expected an input [N, ", options.num_channels(), ", *] (num_channels "
              "in dimension 1), but got ", input.defined() ? "sizes " : "an undefined tensor",
              input.defined() ? input.sizes() : at::IntArrayRef(), ".");
  return functional::group_norm(input, functional::GroupNormFuncOptions(options.num_groups())
                                           .weight(weight)
                                           .bias(bias)
                                           .eps(options.eps()));
}

// ---- InstanceNorm ----

template <size_t D>
InstanceNormImpl<D>::InstanceNormImpl(const InstanceNormOptions& options) : options(options) {
  reset();
}

template <size_t D>
void InstanceNormImpl<D>::reset() {
  const int64_t c = options.num_features();
  TORCH_CHECK(c > 0, "InstanceNorm", D, "d: num_features must be positive, but got ", c, ".");
  const bool affine = options.affine(), track = options.track_running_stats();
  weight = this->register_parameter("weight", affine ? at::empty({c}) : Tensor(), affine);
  bias = this->register_parameter("bias", affine ? at::empty({c}) : Tensor(), affine);
  running_mean = this->register_buffer("running_mean", track ? at::zeros({c}) : Tensor());
  running_var = this->register_buffer("running_var", track ? at::ones({c}) : Tensor());
  num_batches_tracked = this->register_buffer(
      "num_batches_tracked",
      track ? at::zeros({}, at::TensorOptions().dtype(at::kLong)) : Tensor());
  reset_parameters();
}

template <size_t D>
void InstanceNormImpl<D>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

template <size_t D>
void InstanceNormImpl<D>::reset_parameters() {
  reset_running_stats();
  if (!options.affine()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

template <size_t D>
void InstanceNormImpl<D>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::InstanceNorm" << D << "d(" << options.num_features()
         << ", eps=" << options.eps() << ", momentum=" << options.momentum()
         << ", affine=" << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << ")";
}

template <size_t D>
Tensor InstanceNormImpl<D>::forward(const Tensor& input) {
  const int64_t d = static_cast<int64_t>(D);
  TORCH_CHECK(input.defined() && (input.dim() == d + 1 || input.dim() == d + 2),
              "InstanceNorm", D, "d: expected a ", d + 1, "-d (unbatched) or ", d + 2,
              "-d (batched) input, but got ",
              input.defined() ? std::to_string(input.dim()) + "-d input" : "an undefined tensor",
              ".");
  const bool batched = input.dim() == d + 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  if (options.affine() || options.track_running_stats()) {
    TORCH_CHECK(x.size(1) == options.num_features(), "InstanceNorm", D, "d: expected input "
                "with ", options.num_features(), " channels (num_features), but got ", x.size(1),
                " channels in input of sizes ", input.sizes(), ".");
  }
  const bool use_input_stats = this->is_training() || !options.track_running_stats();
  if (options.track_running_stats() && this->is_training()) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);
  }
  Tensor y = functional::instance_norm(x, functional::InstanceNormFuncOptions()
                                              .running_mean(running_mean)
                                              .running_var(running_var)
                                              .weight(weight)
                                              .bias(bias)
                                              .use_input_stats(use_input_stats)
                                              .momentum(options.momentum())
                                              .eps(options.eps()));
  return batched ? y : y.squeeze(0);
}

template class InstanceNormImpl<1>;
template class InstanceNormImpl<2>;
template class InstanceNormImpl<3>;

// ---- pooling ----

void MaxPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::MaxPool1d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}
Tensor MaxPool1dImpl::forward(const Tensor& input) {
  return functional::max_pool1d(input, options);
}

void AvgPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::AvgPool1d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
}
Tensor AvgPool1dImpl::forward(const Tensor& input) {
  return functional::avg_pool1d(input, options);
}

void AdaptiveAvgPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::AdaptiveAvgPool1d(output_size=" << options.output_size() << ")";
}
Tensor AdaptiveAvgPool1dImpl::forward(const Tensor& input) {
  return functional::adaptive_avg_pool1d(input, options);
}

void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::AdaptiveAvgPool2d(output_size=" << options.output_size() << ")";
}
Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  return functional::adaptive_avg_pool2d(input, options);
}

void AdaptiveMaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::AdaptiveMaxPool2d(output_size=" << options.output_size() << ")";
}
Tensor AdaptiveMaxPool2dImpl::forward(const Tensor& input) {
  return functional::adaptive_max_pool2d(input, options);
}

void MaxPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::MaxPool3d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}
Tensor MaxPool3dImpl::forward(const Tensor& input) {
  return functional::max_pool3d(input, options);
}

void AvgPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::AvgPool3d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
}
Tensor AvgPool3dImpl::forward(const Tensor& input) {
  return functional::avg_pool3d(input, options);
}

void AdaptiveAvgPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::AdaptiveAvgPool3d(output_size=" << options.output_size() << ")";
}
Tensor AdaptiveAvgPool3dImpl::forward(const Tensor& input) {
  return functional::adaptive_avg_pool3d(input, options);
}

void AdaptiveMaxPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::AdaptiveMaxPool1d(output_size=" << options.output_size() << ")";
}
Tensor AdaptiveMaxPool1dImpl::forward(const Tensor& input) {
  return functional::adaptive_max_pool1d(input, options);
}

void AdaptiveMaxPool3dImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::AdaptiveMaxPool3d(output_size=" << options.output_size() << ")";
}
Tensor AdaptiveMaxPool3dImpl::forward(const Tensor& input) {
  return functional::adaptive_max_pool3d(input, options);
}

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class Cloneable<GroupNormImpl>;
template class detail::CloneableAs<InstanceNorm1dImpl, InstanceNormImpl<1>>;
template class detail::CloneableAs<InstanceNorm2dImpl, InstanceNormImpl<2>>;
template class detail::CloneableAs<InstanceNorm3dImpl, InstanceNormImpl<3>>;
template class Cloneable<MaxPool1dImpl>;
template class Cloneable<AvgPool1dImpl>;
template class Cloneable<AdaptiveAvgPool1dImpl>;
template class Cloneable<AdaptiveAvgPool2dImpl>;
template class Cloneable<AdaptiveMaxPool2dImpl>;
template class Cloneable<MaxPool3dImpl>;
template class Cloneable<AvgPool3dImpl>;
template class Cloneable<AdaptiveAvgPool3dImpl>;
template class Cloneable<AdaptiveMaxPool1dImpl>;
template class Cloneable<AdaptiveMaxPool3dImpl>;

}  // namespace nn
}  // namespace torch
