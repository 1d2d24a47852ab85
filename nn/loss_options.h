// nn/loss_options.h — the options of the losses (torch::nn::CrossEntropyLossOptions,
// ...) and their functional aliases (F::CrossEntropyFuncOptions, ...), as
// libtorch's torch/nn/options/loss.h.
//
//   torch::nn::CrossEntropyLoss loss(torch::nn::CrossEntropyLossOptions().label_smoothing(0.1));
//   auto l = F::mse_loss(x, y, F::MSELossFuncOptions(torch::kSum));
//
// `reduction` is torch::kNone, torch::kMean (the default) or torch::kSum;
// an options class with only a reduction converts from the tag.
#pragma once

#include <cstdint>
#include <variant>

#include "aten/Reduction.h"
#include "nn/arg.h"
#include "nn/enum.h"
#include "nn/types.h"

namespace torch {
namespace nn {

using loss_reduction_t = std::variant<enumtype::kNone, enumtype::kMean, enumtype::kSum>;

namespace detail {
// The at::Reduction value of a reduction tag.
inline int64_t reduction_value(const loss_reduction_t& reduction) {
  switch (reduction.index()) {
    case 0:
      return at::Reduction::None;
    case 1:
      return at::Reduction::Mean;
    default:
      return at::Reduction::Sum;
  }
}
}  // namespace detail

struct CrossEntropyLossOptions {
  using reduction_t = loss_reduction_t;
  // A manual rescaling weight for each class ([C]); undefined for none.
  TORCH_ARG(Tensor, weight);
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(double, label_smoothing) = 0.0;
};

struct NLLLossOptions {
  using reduction_t = loss_reduction_t;
  TORCH_ARG(Tensor, weight);
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};

struct MSELossOptions {
  using reduction_t = loss_reduction_t;
  MSELossOptions() = default;
  /* implicit */ MSELossOptions(enumtype::kNone r) : reduction_(r) {}
  /* implicit */ MSELossOptions(enumtype::kMean r) : reduction_(r) {}
  /* implicit */ MSELossOptions(enumtype::kSum r) : reduction_(r) {}
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};

struct BCELossOptions {
  using reduction_t = loss_reduction_t;
  // A rescaling weight broadcast against the input; undefined for none.
  TORCH_ARG(Tensor, weight);
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};

struct BCEWithLogitsLossOptions {
  using reduction_t = loss_reduction_t;
  TORCH_ARG(Tensor, weight);
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  // A weight of the positive examples per class, broadcast against the input.
  TORCH_ARG(Tensor, pos_weight);
};

struct L1LossOptions {
  using reduction_t = loss_reduction_t;
  L1LossOptions() = default;
  /* implicit */ L1LossOptions(enumtype::kNone r) : reduction_(r) {}
  /* implicit */ L1LossOptions(enumtype::kMean r) : reduction_(r) {}
  /* implicit */ L1LossOptions(enumtype::kSum r) : reduction_(r) {}
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
};

struct SmoothL1LossOptions {
  using reduction_t = loss_reduction_t;
  SmoothL1LossOptions() = default;
  /* implicit */ SmoothL1LossOptions(enumtype::kNone r) : reduction_(r) {}
  /* implicit */ SmoothL1LossOptions(enumtype::kMean r) : reduction_(r) {}
  /* implicit */ SmoothL1LossOptions(enumtype::kSum r) : reduction_(r) {}
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  // Where the loss turns from quadratic to linear; 0 is the l1 loss.
  TORCH_ARG(double, beta) = 1.0;
};

struct HuberLossOptions {
  using reduction_t = loss_reduction_t;
  HuberLossOptions() = default;
  /* implicit */ HuberLossOptions(enumtype::kNone r) : reduction_(r) {}
  /* implicit */ HuberLossOptions(enumtype::kMean r) : reduction_(r) {}
  /* implicit */ HuberLossOptions(enumtype::kSum r) : reduction_(r) {}
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  TORCH_ARG(double, delta) = 1.0;
};

// kl_div's reduction adds kBatchMean (the sum divided by the batch size,
// the mathematically correct KL divergence).
struct KLDivLossOptions {
  using reduction_t =
      std::variant<enumtype::kNone, enumtype::kBatchMean, enumtype::kSum, enumtype::kMean>;
  KLDivLossOptions() = default;
  /* implicit */ KLDivLossOptions(enumtype::kNone r) : reduction_(r) {}
  /* implicit */ KLDivLossOptions(enumtype::kBatchMean r) : reduction_(r) {}
  /* implicit */ KLDivLossOptions(enumtype::kSum r) : reduction_(r) {}
  /* implicit */ KLDivLossOptions(enumtype::kMean r) : reduction_(r) {}
  TORCH_ARG(reduction_t, reduction) = torch::kMean;
  // Whether the target holds log-probabilities too.
  TORCH_ARG(bool, log_target) = false;
};

namespace functional {
using L1LossFuncOptions = L1LossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using KLDivFuncOptions = KLDivLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using MSELossFuncOptions = MSELossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
}  // namespace functional

}  // namespace nn
}  // namespace torch
