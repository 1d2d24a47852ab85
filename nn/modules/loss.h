// nn/modules/loss.h — the loss modules: CrossEntropyLoss, NLLLoss, MSELoss,
// BCELoss, BCEWithLogitsLoss (forward(input, target)).
//
//   torch::nn::CrossEntropyLoss criterion;
//   auto loss = criterion(logits, labels);   // mean over the batch
//
// Each holds its options; a class weight (and pos_weight) is registered as
// a buffer, so it follows to() and checkpoints.
#pragma once

#include <ostream>

#include "nn/loss_options.h"
#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::CrossEntropyLossImpl — log_softmax + nll_loss, with
// label_smoothing; targets are class indices or class probabilities.
class CrossEntropyLossImpl : public Cloneable<CrossEntropyLossImpl> {
 public:
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target);

  CrossEntropyLossOptions options;
  Tensor weight;
};
TORCH_MODULE(CrossEntropyLoss);

// torch::nn::NLLLossImpl — the negative log likelihood of log-probabilities.
class NLLLossImpl : public Cloneable<NLLLossImpl> {
 public:
  explicit NLLLossImpl(const NLLLossOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target);

  NLLLossOptions options;
  Tensor weight;
};
TORCH_MODULE(NLLLoss);

// torch::nn::MSELossImpl — the mean (or sum) of squared differences.
class MSELossImpl : public Cloneable<MSELossImpl> {
 public:
  explicit MSELossImpl(const MSELossOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target);

  MSELossOptions options;
};
TORCH_MODULE(MSELoss);

// torch::nn::BCELossImpl — binary cross entropy of probabilities.
class BCELossImpl : public Cloneable<BCELossImpl> {
 public:
  explicit BCELossImpl(const BCELossOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target);

  BCELossOptions options;
  Tensor weight;
};
TORCH_MODULE(BCELoss);

// torch::nn::BCEWithLogitsLossImpl — sigmoid + binary cross entropy,
// computed stably from logits.
class BCEWithLogitsLossImpl : public Cloneable<BCEWithLogitsLossImpl> {
 public:
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target);

  BCEWithLogitsLossOptions options;
  Tensor weight;
  Tensor pos_weight;
};
TORCH_MODULE(BCEWithLogitsLoss);

// Defined in loss.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class Cloneable<CrossEntropyLossImpl>;
extern template class Cloneable<NLLLossImpl>;
extern template class Cloneable<MSELossImpl>;
extern template class Cloneable<BCELossImpl>;
extern template class Cloneable<BCEWithLogitsLossImpl>;

}  // namespace nn
}  // namespace torch
