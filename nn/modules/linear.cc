#include "nn/modules/linear.h"

#include <cmath>

#include "nn/functional.h"
#include "nn/init.h"

namespace torch {
namespace nn {

LinearImpl::LinearImpl(const LinearOptions& options) : options(options) { reset(); }

void LinearImpl::reset() {
  TORCH_CHECK(options.in_features() > 0 && options.out_features() > 0,
              "Linear: in_features and out_features must be positive, but got in_features=",
              options.in_features(), ", out_features=", options.out_features(), ".");
  weight = register_parameter(
      "weight", at::empty({options.out_features(), options.in_features()}));
  bias = register_parameter(
      "bias", options.bias() ? at::empty({options.out_features()}) : Tensor(),
      /*requires_grad=*/options.bias());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const auto fan_in = std::get<0>(init::_calculate_fan_in_and_fan_out(weight));
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    init::uniform_(bias, -bound, bound);
  }
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::Linear(in_features=" << options.in_features()
         << ", out_features=" << options.out_features() << ", bias=" << options.bias() << ")";
}

Tensor LinearImpl::forward(const Tensor& input) {
  return functional::linear(input, weight, bias);
}

void IdentityImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::Identity()"; }

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Flatten(start_dim=" << options.start_dim()
         << ", end_dim=" << options.end_dim() << ")";
}

Tensor FlattenImpl::forward(const Tensor& input) { return functional::flatten(input, options); }

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class Cloneable<LinearImpl>;
template class Cloneable<IdentityImpl>;
template class Cloneable<FlattenImpl>;

}  // namespace nn
}  // namespace torch
