#include "nn/functional.h"

#include <algorithm>
#include <optional>
#include <variant>
#include <vector>

#include "aten/TensorFactory.h"
#include "c10/util/Exception.h"

namespace torch {
namespace nn {
namespace functional {
namespace {

// An optional tensor argument of an aten op: an undefined tensor is "none".
std::optional<Tensor> optional_tensor(const Tensor& t) {
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}

at::IntArrayRef ref(const ExpandingArray<2>& values) { return values; }

void check_defined(const char* where, const char* what, const Tensor& t) {
  TORCH_CHECK(t.defined(), where, ": the ", what, " tensor is undefined; pass a tensor.");
}

void check_positive(const char* where, const char* what, at::IntArrayRef values) {
  for (int64_t v : values) {
    TORCH_CHECK(v > 0, where, ": ", what, " must be positive, but got ", values, ".");
  }
}

void check_non_negative(const char* where, const char* what, at::IntArrayRef values) {
  for (int64_t v : values) {
    TORCH_CHECK(v >= 0, where, ": ", what, " must be non-negative, but got ", values, ".");
  }
}

void check_pool_input(const char* where, const Tensor& input) {
  check_defined(where, "input", input);
  TORCH_CHECK(input.dim() == 3 || input.dim() == 4, where,
              ": expected a 3-d [C, H, W] or 4-d [N, C, H, W] input, but got a ", input.dim(),
              "-d input of sizes ", input.sizes(), ".");
}

void check_same_size(const char* where, const Tensor& input, const Tensor& target) {
  TORCH_CHECK(input.sizes() == target.sizes(), where, ": the target's sizes ", target.sizes(),
              " differ from the input's ", input.sizes(),
              "; pass a target of the same shape as the input.");
}

}  // namespace

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  check_defined("linear", "input", input);
  check_defined("linear", "weight", weight);
  TORCH_CHECK(weight.dim() == 2, "linear: expected a 2-d weight [out_features, in_features], "
              "but got sizes ", weight.sizes(), ".");
  TORCH_CHECK(input.dim() >= 1 && input.size(-1) == weight.size(1), "linear: the input's last "
              "dimension must be in_features = ", weight.size(1), ", but the input has sizes ",
              input.sizes(), ". Reshape the input (e.g. flatten it) to [*, ", weight.size(1), "].");
  return at::linear(input, weight, optional_tensor(bias));
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options) {
  check_defined("conv2d", "input", input);
  check_defined("conv2d", "weight", weight);
  TORCH_CHECK(input.dim() == 3 || input.dim() == 4, "conv2d: expected a 3-d [C, H, W] or 4-d "
              "[N, C, H, W] input, but got a ", input.dim(), "-d input of sizes ", input.sizes(),
              ".");
  TORCH_CHECK(weight.dim() == 4, "conv2d: expected a 4-d weight [out_channels, in_channels / "
              "groups, kH, kW], but got sizes ", weight.sizes(), ".");
  TORCH_CHECK(options.groups() > 0, "conv2d: groups must be positive, but got ",
              options.groups(), ".");
  check_positive("conv2d", "stride", ref(options.stride()));
  check_positive("conv2d", "dilation", ref(options.dilation()));
  const int64_t channels = input.size(input.dim() - 3);
  TORCH_CHECK(channels == weight.size(1) * options.groups(), "conv2d: the input has ", channels,
              " channels (sizes ", input.sizes(), ") but the weight ", weight.sizes(),
              " with groups=", options.groups(), " expects ", weight.size(1) * options.groups(),
              ".");
  const std::optional<Tensor> bias = optional_tensor(options.bias());
  const auto& padding = options.padding();
  if (std::holds_alternative<ExpandingArray<2>>(padding)) {
    const auto& pad = std::get<ExpandingArray<2>>(padding);
    check_non_negative("conv2d", "padding", ref(pad));
    return at::conv2d(input, weight, bias, ref(options.stride()), ref(pad), ref(options.dilation()),
                      options.groups());
  }
  const bool same = std::holds_alternative<enumtype::kSame>(padding);
  if (same) {
    for (int64_t s : ref(options.stride())) {
      TORCH_CHECK(s == 1, "conv2d: padding='same' needs stride 1, but got stride ",
                  options.stride(), "; use explicit padding for strided convolutions.");
    }
  }
  return at::conv2d(input, weight, bias, ref(options.stride()), same ? "same" : "valid",
                    ref(options.dilation()), options.groups());
}

Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options) {
  check_pool_input("max_pool2d", input);
  check_positive("max_pool2d", "kernel_size", ref(options.kernel_size()));
  check_positive("max_pool2d", "stride", ref(options.stride()));
  check_positive("max_pool2d", "dilation", ref(options.dilation()));
  check_non_negative("max_pool2d", "padding", ref(options.padding()));
  for (size_t i = 0; i < 2; ++i) {
    TORCH_CHECK((*options.padding())[i] * 2 <= (*options.kernel_size())[i],
                "max_pool2d: padding ", options.padding(),
                " must be at most half of kernel_size ", options.kernel_size(), ".");
  }
  return at::max_pool2d(input, ref(options.kernel_size()), ref(options.stride()), ref(options.padding()),
                        ref(options.dilation()), options.ceil_mode());
}

Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options) {
  check_pool_input("avg_pool2d", input);
  check_positive("avg_pool2d", "kernel_size", ref(options.kernel_size()));
  check_positive("avg_pool2d", "stride", ref(options.stride()));
  check_non_negative("avg_pool2d", "padding", ref(options.padding()));
  for (size_t i = 0; i < 2; ++i) {
    TORCH_CHECK((*options.padding())[i] * 2 <= (*options.kernel_size())[i],
                "avg_pool2d: padding ", options.padding(),
                " must be at most half of kernel_size ", options.kernel_size(), ".");
  }
  TORCH_CHECK(!options.divisor_override().has_value() || *options.divisor_override() != 0,
              "avg_pool2d: divisor_override must be non-zero; leave it unset to divide by the "
              "window size.");
  return at::avg_pool2d(input, ref(options.kernel_size()), ref(options.stride()), ref(options.padding()),
                        options.ceil_mode(), options.count_include_pad(),
                        options.divisor_override());
}

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options) {
  check_defined("batch_norm", "input", input);
  TORCH_CHECK(input.dim() >= 2, "batch_norm: expected an input [N, C, *] with at least 2 "
              "dimensions, but got sizes ", input.sizes(), ".");
  TORCH_CHECK(input.size(1) > 0, "batch_norm: the input has no channels (sizes ",
              input.sizes(), "); dimension 1 holds the channels and must be non-empty.");
  if (options.training()) {
    TORCH_CHECK(input.numel() / input.size(1) > 1, "batch_norm: expected more than 1 value per "
                "channel when training, got input sizes ", input.sizes(),
                "; use a batch of more than one element, or eval().");
  }
  TORCH_CHECK(options.momentum().has_value(), "batch_norm: momentum is unset; the functional "
              "form needs a value (BatchNorm modules derive one from num_batches_tracked).");
  TORCH_CHECK(running_mean.defined() == running_var.defined(), "batch_norm: running_mean and "
              "running_var must both be defined or both undefined.");
  TORCH_CHECK(options.training() || running_mean.defined(), "batch_norm: evaluation mode "
              "(training=false) needs running_mean and running_var; pass them or set "
              "training(true).");
  return at::batch_norm(input, optional_tensor(options.weight()), optional_tensor(options.bias()),
                        optional_tensor(running_mean), optional_tensor(running_var),
                        options.training(), *options.momentum(), options.eps(),
                        /*cudnn_enabled=*/false);
}

Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return detail::layer_norm(input, options.normalized_shape(), options.weight(), options.bias(),
                            options.eps());
}

Tensor detail::layer_norm(const Tensor& input, at::IntArrayRef shape, const Tensor& weight,
                          const Tensor& bias, double eps) {
  check_defined("layer_norm", "input", input);
  TORCH_CHECK(!shape.empty(), "layer_norm: normalized_shape is empty; pass the sizes of the "
              "trailing dimensions to normalize, e.g. {features}.");
  const int64_t n = static_cast<int64_t>(shape.size());
  bool matches = input.dim() >= n;
  for (int64_t i = 0; matches && i < n; ++i) {
    matches = input.size(input.dim() - n + i) == shape[static_cast<size_t>(i)];
  }
  TORCH_CHECK(matches, "layer_norm: the input's trailing sizes must be normalized_shape ", shape,
              ", but the input has sizes ", input.sizes(), ".");
  return at::layer_norm(input, shape, optional_tensor(weight), optional_tensor(bias), eps);
}

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  check_defined("embedding", "input", input);
  check_defined("embedding", "weight", weight);
  TORCH_CHECK(weight.dim() == 2, "embedding: expected a 2-d weight [num_embeddings, "
              "embedding_dim], but got sizes ", weight.sizes(), ".");
  TORCH_CHECK(input.scalar_type() == at::kLong || input.scalar_type() == at::kInt,
              "embedding: the indices must be int64 or int32, but got ", input.scalar_type(),
              "; convert them with .to(torch::kLong).");
  TORCH_CHECK(!options.sparse(), "embedding: sparse=true is not supported (Ember has no sparse "
              "tensors); use sparse=false.");
  int64_t padding_idx = -1;
  if (options.padding_idx().has_value()) {
    const int64_t rows = weight.size(0);
    padding_idx = *options.padding_idx();
    TORCH_CHECK(padding_idx < rows && padding_idx >= -rows, "embedding: padding_idx ",
                padding_idx, " is out of range for ", rows,
                " embeddings; it must be in [-num_embeddings, num_embeddings).");
    if (padding_idx < 0) padding_idx += rows;
  }
  if (options.max_norm()) {
    detail::embedding_renorm_(weight, input, *options.max_norm(), options.norm_type());
  }
  return at::embedding(weight, input, padding_idx, options.scale_grad_by_freq(), false);
}

namespace detail {
void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                       double norm_type) {
  TORCH_CHECK(max_norm >= 0, "embedding: max_norm must be non-negative, but got ", max_norm,
              ".");
  NoGradGuard no_grad;
  const Tensor flat = indices.to(at::kLong).reshape({-1}).contiguous();
  std::vector<int64_t> unique(flat.data_ptr<int64_t>(), flat.data_ptr<int64_t>() + flat.numel());
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  if (unique.empty()) return;
  const int64_t rows = weight.size(0);
  TORCH_CHECK(unique.front() >= 0 && unique.back() < rows, "embedding: index ",
              unique.front() < 0 ? unique.front() : unique.back(), " is out of range for ",
              rows, " embeddings.");
  const Tensor idx = at::tensor(c10::ArrayRef<int64_t>(unique));
  const Tensor picked = weight.index_select(0, idx);
  const Tensor norms =
      at::linalg_vector_norm(picked, norm_type, std::vector<int64_t>{1}, /*keepdim=*/true);
  const Tensor scale = at::where(norms > max_norm, max_norm / (norms + 1e-7), 1.0);
  weight.index_put_({std::optional<Tensor>(idx)}, picked * scale);
}
}  // namespace detail

Tensor dropout(Tensor input, const DropoutFuncOptions& options) {
  check_defined("dropout", "input", input);
  TORCH_CHECK(options.p() >= 0 && options.p() <= 1, "dropout: the probability p must be "
              "between 0 and 1, but got ", options.p(), ".");
  if (options.inplace()) return at::dropout_(input, options.p(), options.training());
  return at::dropout(input, options.p(), options.training());
}

Tensor relu(Tensor input, const ReLUFuncOptions& options) {
  check_defined("relu", "input", input);
  if (options.inplace()) return at::relu_(input);
  return at::relu(input);
}

Tensor gelu(const Tensor& input, const GELUFuncOptions& options) {
  check_defined("gelu", "input", input);
  const std::string& approximate = options.approximate();
  TORCH_CHECK(approximate == "none" || approximate == "tanh", "gelu: approximate must be "
              "\"none\" or \"tanh\", but got \"", approximate, "\".");
  return at::gelu(input, approximate);
}

Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  check_defined("softmax", "input", input);
  return at::softmax(input, options.dim(), options.dtype());
}

Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  check_defined("log_softmax", "input", input);
  return at::log_softmax(input, options.dim(), options.dtype());
}

Tensor flatten(const Tensor& input, const FlattenFuncOptions& options) {
  check_defined("flatten", "input", input);
  return at::flatten(input, options.start_dim(), options.end_dim());
}

// ---- losses ----

Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyFuncOptions& options) {
  check_defined("cross_entropy", "input", input);
  check_defined("cross_entropy", "target", target);
  TORCH_CHECK(options.label_smoothing() >= 0.0 && options.label_smoothing() <= 1.0,
              "cross_entropy: label_smoothing must be between 0.0 and 1.0, but got ",
              options.label_smoothing(), ".");
  return at::cross_entropy_loss(input, target, optional_tensor(options.weight()),
                                nn::detail::reduction_value(options.reduction()),
                                options.ignore_index(), options.label_smoothing());
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  check_defined("nll_loss", "input", input);
  check_defined("nll_loss", "target", target);
  return at::nll_loss_nd(input, target, optional_tensor(options.weight()),
                         nn::detail::reduction_value(options.reduction()), options.ignore_index());
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  check_defined("mse_loss", "input", input);
  check_defined("mse_loss", "target", target);
  check_same_size("mse_loss", input, target);
  return at::mse_loss(input, target, nn::detail::reduction_value(options.reduction()));
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options) {
  check_defined("binary_cross_entropy", "input", input);
  check_defined("binary_cross_entropy", "target", target);
  check_same_size("binary_cross_entropy", input, target);
  Tensor weight = options.weight();
  if (weight.defined() && weight.sizes() != input.sizes()) weight = weight.expand(input.sizes());
  return at::binary_cross_entropy(input, target, optional_tensor(weight),
                                  nn::detail::reduction_value(options.reduction()));
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  check_defined("binary_cross_entropy_with_logits", "input", input);
  check_defined("binary_cross_entropy_with_logits", "target", target);
  check_same_size("binary_cross_entropy_with_logits", input, target);
  return at::binary_cross_entropy_with_logits(
      input, target, optional_tensor(options.weight()), optional_tensor(options.pos_weight()),
      nn::detail::reduction_value(options.reduction()));
}

// ---- the libtorch forms added for compatibility (docs/compat.md) ----------------

Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options) {
  check_defined("conv1d", "input", input);
  check_defined("conv1d", "weight", weight);
  const auto* pad = std::get_if<ExpandingArray<1>>(&options.padding());
  TORCH_CHECK(pad != nullptr || std::holds_alternative<enumtype::kValid>(options.padding()),
              "conv1d: padding torch::kSame is not supported for 1-d convolutions in Ember; "
              "pass the padding as a number.");
  const int64_t zero = 0;
  return at::conv1d(input, weight, optional_tensor(options.bias()), options.stride(),
                    pad ? at::IntArrayRef(*pad) : at::IntArrayRef(zero), options.dilation(),
                    options.groups());
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& options) {
  check_defined("conv_transpose1d", "input", input);
  check_defined("conv_transpose1d", "weight", weight);
  return at::conv_transpose1d(input, weight, optional_tensor(options.bias()), options.stride(),
                              options.padding(), options.output_padding(), options.groups(),
                              options.dilation());
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options) {
  check_defined("conv_transpose2d", "input", input);
  check_defined("conv_transpose2d", "weight", weight);
  return at::conv_transpose2d(input, weight, optional_tensor(options.bias()), options.stride(),
                              options.padding(), options.output_padding(), options.groups(),
                              options.dilation());
}

namespace {
Tensor channel_dropout(const char* where, int64_t dims, Tensor input,
                       const DropoutFuncOptions& options) {
  check_defined(where, "input", input);
  TORCH_CHECK(options.p() >= 0 && options.p() <= 1, where, ": the probability p must be "
              "between 0 and 1, but got ", options.p(), ".");
  TORCH_CHECK(input.dim() == dims + 1 || input.dim() == dims + 2, where, ": expected a ",
              dims + 1, "-d (unbatched) or ", dims + 2, "-d (batched) input, but got a ",
              input.dim(), "-d input of sizes ", input.sizes(), ".");
  const bool batched = input.dim() == dims + 2;
  Tensor x = batched ? input : input.unsqueeze(0);
  Tensor y = at::feature_dropout(x, options.p(), options.training());
  if (!batched) y = y.squeeze(0);
  if (options.inplace()) {
    at::NoGradGuard no_grad;
    return input.copy_(y);
  }
  return y;
}
}  // namespace

Tensor dropout1d(Tensor input, const Dropout1dFuncOptions& options) {
  return channel_dropout("dropout1d", 1, std::move(input), options);
}

Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options) {
  return channel_dropout("dropout2d", 2, std::move(input), options);
}

Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options) {
  return channel_dropout("dropout3d", 3, std::move(input), options);
}

Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options) {
  check_defined("leaky_relu", "input", input);
  if (options.inplace()) return at::leaky_relu_(input, options.negative_slope());
  return at::leaky_relu(input, options.negative_slope());
}

Tensor elu(Tensor input, const ELUFuncOptions& options) {
  check_defined("elu", "input", input);
  if (options.inplace()) return at::elu_(input, options.alpha());
  return at::elu(input, options.alpha());
}

Tensor selu(Tensor input, const SELUFuncOptions& options) {
  check_defined("selu", "input", input);
  if (options.inplace()) {
    return at::elu_(input, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946);
  }
  return at::selu(input);
}

Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options) {
  check_defined("softplus", "input", input);
  return at::softplus(input, options.beta(), options.threshold());
}

Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options) {
  check_defined("hardtanh", "input", input);
  TORCH_CHECK(options.max_val() > options.min_val(), "hardtanh: max_val (", options.max_val(),
              ") must be greater than min_val (", options.min_val(), ").");
  if (options.inplace()) return at::hardtanh_(input, options.min_val(), options.max_val());
  return at::hardtanh(input, options.min_val(), options.max_val());
}

Tensor prelu(const Tensor& input, const Tensor& weight) {
  check_defined("prelu", "input", input);
  check_defined("prelu", "weight", weight);
  return at::prelu(input, weight);
}

Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  check_defined("l1_loss", "input", input);
  check_defined("l1_loss", "target", target);
  check_same_size("l1_loss", input, target);
  return at::l1_loss(input, target, nn::detail::reduction_value(options.reduction()));
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options) {
  check_defined("smooth_l1_loss", "input", input);
  check_defined("smooth_l1_loss", "target", target);
  check_same_size("smooth_l1_loss", input, target);
  return at::smooth_l1_loss(input, target, nn::detail::reduction_value(options.reduction()),
                            options.beta());
}

Tensor huber_loss(const Tensor& input, const Tensor& target,
                  const HuberLossFuncOptions& options) {
  check_defined("huber_loss", "input", input);
  check_defined("huber_loss", "target", target);
  check_same_size("huber_loss", input, target);
  return at::huber_loss(input, target, nn::detail::reduction_value(options.reduction()),
                        options.delta());
}

Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options) {
  check_defined("kl_div", "input", input);
  check_defined("kl_div", "target", target);
  check_same_size("kl_div", input, target);
  switch (options.reduction().index()) {
    case 0:  // kNone
      return at::kl_div(input, target, at::Reduction::None, options.log_target());
    case 1: {  // kBatchMean
      TORCH_CHECK(input.dim() >= 1, "kl_div: reduction kBatchMean needs a batch dimension, "
                  "but the input is 0-d; use kSum.");
      const Tensor sum = at::kl_div(input, target, at::Reduction::Sum, options.log_target());
      return sum / static_cast<double>(input.size(0));
    }
    case 2:  // kSum
      return at::kl_div(input, target, at::Reduction::Sum, options.log_target());
    default:  // kMean
      return at::kl_div(input, target, at::Reduction::Mean, options.log_target());
  }
}

}  // namespace functional
}  // namespace nn
}  // namespace torch
