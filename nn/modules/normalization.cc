#include "nn/modules/normalization.h"

#include "nn/functional.h"
#include "nn/init.h"

namespace torch {
namespace nn {

template <size_t D>
BatchNormImplBase<D>::BatchNormImplBase(const BatchNormOptions& options) : options(options) {
  reset();
}

template <size_t D>
void BatchNormImplBase<D>::reset() {
  TORCH_CHECK(options.num_features() > 0, "BatchNorm", D, "d: num_features must be positive, but "
              "got ", options.num_features(), ".");
  TORCH_CHECK(options.eps() > 0, "BatchNorm", D, "d: eps must be positive, but got ", options.eps(),
              ".");
  TORCH_CHECK(!options.momentum().has_value() ||
                  (*options.momentum() >= 0 && *options.momentum() <= 1),
              "BatchNorm", D, "d: momentum must be between 0 and 1 (or unset for a cumulative "
              "average), but got ", options.momentum().value_or(0), ".");
  const int64_t c = options.num_features();
  weight = this->register_parameter("weight", options.affine() ? at::empty({c}) : Tensor(),
                              /*requires_grad=*/options.affine());
  bias = this->register_parameter("bias", options.affine() ? at::empty({c}) : Tensor(),
                            /*requires_grad=*/options.affine());
  const bool track = options.track_running_stats();
  running_mean = this->register_buffer("running_mean", track ? at::zeros({c}) : Tensor());
  running_var = this->register_buffer("running_var", track ? at::ones({c}) : Tensor());
  num_batches_tracked = this->register_buffer(
      "num_batches_tracked", track ? at::zeros({}, at::TensorOptions().dtype(at::kLong)) : Tensor());
  reset_parameters();
}

template <size_t D>
void BatchNormImplBase<D>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

template <size_t D>
void BatchNormImplBase<D>::reset_parameters() {
  reset_running_stats();
  if (options.affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

template <size_t D>
void BatchNormImplBase<D>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::BatchNorm" << D << "d(" << options.num_features()
         << ", eps=" << options.eps() << ", momentum=";
  if (options.momentum().has_value()) {
    stream << *options.momentum();
  } else {
    stream << "None";
  }
  stream << ", affine=" << options.affine()
         << ", track_running_stats=" << options.track_running_stats() << ")";
}

template <size_t D>
Tensor BatchNormImplBase<D>::forward(const Tensor& input) {
  TORCH_CHECK(input.defined() && (D == 1 ? (input.dim() == 2 || input.dim() == 3)
                                          : input.dim() == static_cast<int64_t>(D) + 2),
              "BatchNorm", D, "d: expected a ",
              D == 1 ? "2-d [N, C] or 3-d [N, C, L]"
                     : D == 2 ? "4-d input [N, C, H, W]" : "5-d input [N, C, D, H, W]",
              ", but got ",
              input.defined() ? c10::str(input.dim(), "-d input of sizes ", input.sizes())
                              : std::string("an undefined tensor"),
              ".");
  TORCH_CHECK(input.size(1) == options.num_features(), "BatchNorm", D, "d: the input has ",
              input.size(1), " channels (sizes ", input.sizes(), ") but the module was built "
              "for num_features=", options.num_features(), ".");
  double momentum = options.momentum().value_or(0.0);
  if (this->is_training() && options.track_running_stats()) {
    NoGradGuard no_grad;
    num_batches_tracked.add_(1);
    if (!options.momentum().has_value()) {
      momentum = 1.0 / static_cast<double>(num_batches_tracked.item<int64_t>());
    }
  }
  return functional::batch_norm(input, running_mean, running_var,
                                functional::BatchNormFuncOptions()
                                    .weight(weight)
                                    .bias(bias)
                                    .training(this->is_training() || !options.track_running_stats())
                                    .momentum(momentum)
                                    .eps(options.eps()));
}

template class BatchNormImplBase<1>;
template class BatchNormImplBase<2>;
template class BatchNormImplBase<3>;

LayerNormImpl::LayerNormImpl(LayerNormOptions options) : options(std::move(options)) { reset(); }

void LayerNormImpl::reset() {
  const std::vector<int64_t>& shape = options.normalized_shape();
  TORCH_CHECK(!shape.empty(), "LayerNorm: normalized_shape is empty; pass the sizes of the "
              "trailing dimensions to normalize, e.g. {features}.");
  for (int64_t s : shape) {
    TORCH_CHECK(s > 0, "LayerNorm: normalized_shape must have positive sizes, but got ",
                at::IntArrayRef(shape), ".");
  }
  const bool affine = options.elementwise_affine();
  weight = register_parameter("weight", affine ? at::empty(shape) : Tensor(), affine);
  bias = register_parameter("bias", affine ? at::empty(shape) : Tensor(), affine);
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (options.elementwise_affine()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

void LayerNormImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::LayerNorm(" << at::IntArrayRef(options.normalized_shape())
         << ", eps=" << options.eps() << ", elementwise_affine=" << options.elementwise_affine()
         << ")";
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return functional::detail::layer_norm(input, options.normalized_shape(), weight, bias,
                                        options.eps());
}

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class detail::CloneableAs<BatchNorm1dImpl, BatchNormImplBase<1>>;
template class detail::CloneableAs<BatchNorm2dImpl, BatchNormImplBase<2>>;
template class detail::CloneableAs<BatchNorm3dImpl, BatchNormImplBase<3>>;
template class Cloneable<LayerNormImpl>;

}  // namespace nn
}  // namespace torch
