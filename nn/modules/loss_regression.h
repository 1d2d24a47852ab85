// nn/modules/loss_regression.h — torch::nn::L1Loss, SmoothL1Loss,
// HuberLoss and KLDivLoss (forward(input, target)); the classification
// losses are in nn/modules/loss.h.
//
//   torch::nn::SmoothL1Loss criterion(torch::nn::SmoothL1LossOptions().beta(0.5));
//   auto loss = criterion(prediction, target);
#pragma once

#include <ostream>

#include "nn/loss_options.h"
#include "nn/module.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

#define EMBER_NN_LOSS_MODULE_(Name)                                         \
  class Name##Impl : public Module {                                        \
   public:                                                                  \
    explicit Name##Impl(const Name##Options& options = {}) : options(options) {} \
    void reset() {}                                                         \
    void pretty_print(std::ostream& stream) const override;                 \
    Tensor forward(const Tensor& input, const Tensor& target);              \
                                                                            \
    Name##Options options;                                                  \
  };                                                                        \
  TORCH_MODULE(Name);

// torch::nn::L1LossImpl — |input - target|, reduced.
EMBER_NN_LOSS_MODULE_(L1Loss)
// torch::nn::SmoothL1LossImpl — quadratic below beta, linear above.
EMBER_NN_LOSS_MODULE_(SmoothL1Loss)
// torch::nn::HuberLossImpl — quadratic below delta, delta * linear above.
EMBER_NN_LOSS_MODULE_(HuberLoss)
// torch::nn::KLDivLossImpl — input log-probabilities, target probabilities.
EMBER_NN_LOSS_MODULE_(KLDivLoss)
#undef EMBER_NN_LOSS_MODULE_

}  // namespace nn
}  // namespace torch
