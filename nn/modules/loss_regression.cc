#include "nn/modules/loss_regression.h"

#include "nn/functional.h"

namespace torch {
namespace nn {

void L1LossImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::L1Loss()"; }
Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::l1_loss(input, target, options);
}

void SmoothL1LossImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::SmoothL1Loss(beta=" << options.beta() << ")";
}
Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::smooth_l1_loss(input, target, options);
}

void HuberLossImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::HuberLoss(delta=" << options.delta() << ")";
}
Tensor HuberLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::huber_loss(input, target, options);
}

void KLDivLossImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::KLDivLoss()";
}
Tensor KLDivLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::kl_div(input, target, options);
}

}  // namespace nn
}  // namespace torch
