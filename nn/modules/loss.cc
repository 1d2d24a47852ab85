#include "nn/modules/loss.h"

#include "nn/functional.h"

namespace torch {
namespace nn {

CrossEntropyLossImpl::CrossEntropyLossImpl(const CrossEntropyLossOptions& options)
    : options(options) {
  reset();
}

void CrossEntropyLossImpl::reset() { weight = register_buffer("weight", options.weight()); }

void CrossEntropyLossImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::CrossEntropyLoss()";
}

Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::cross_entropy(input, target,
                                   functional::CrossEntropyFuncOptions()
                                       .weight(weight)
                                       .ignore_index(options.ignore_index())
                                       .reduction(options.reduction())
                                       .label_smoothing(options.label_smoothing()));
}

NLLLossImpl::NLLLossImpl(const NLLLossOptions& options) : options(options) { reset(); }

void NLLLossImpl::reset() { weight = register_buffer("weight", options.weight()); }

void NLLLossImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::NLLLoss()"; }

Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::nll_loss(input, target,
                              functional::NLLLossFuncOptions()
                                  .weight(weight)
                                  .ignore_index(options.ignore_index())
                                  .reduction(options.reduction()));
}

void MSELossImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::MSELoss()"; }

Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::mse_loss(input, target, options);
}

BCELossImpl::BCELossImpl(const BCELossOptions& options) : options(options) { reset(); }

void BCELossImpl::reset() { weight = register_buffer("weight", options.weight()); }

void BCELossImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::BCELoss()"; }

Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::binary_cross_entropy(
      input, target,
      functional::BinaryCrossEntropyFuncOptions().weight(weight).reduction(options.reduction()));
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options)
    : options(options) {
  reset();
}

void BCEWithLogitsLossImpl::reset() {
  weight = register_buffer("weight", options.weight());
  pos_weight = register_buffer("pos_weight", options.pos_weight());
}

void BCEWithLogitsLossImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::BCEWithLogitsLoss()";
}

Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::binary_cross_entropy_with_logits(
      input, target,
      functional::BinaryCrossEntropyWithLogitsFuncOptions()
          .weight(weight)
          .pos_weight(pos_weight)
          .reduction(options.reduction()));
}

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class Cloneable<CrossEntropyLossImpl>;
template class Cloneable<NLLLossImpl>;
template class Cloneable<MSELossImpl>;
template class Cloneable<BCELossImpl>;
template class Cloneable<BCEWithLogitsLossImpl>;

}  // namespace nn
}  // namespace torch
