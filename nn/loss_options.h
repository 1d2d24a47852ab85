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

namespace functional {
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using MSELossFuncOptions = MSELossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
}  // namespace functional

}  // namespace nn
}  // namespace torch
