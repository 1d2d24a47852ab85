#include "nn/modules/rectifiers.h"

#include "nn/functional.h"
#include "nn/init.h"

namespace torch {
namespace nn {

void LeakyReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::LeakyReLU(negative_slope=" << options.negative_slope();
  if (options.inplace()) stream << ", inplace=true";
  stream << ")";
}
Tensor LeakyReLUImpl::forward(Tensor input) {
  return functional::leaky_relu(std::move(input), options);
}

void ELUImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::ELU(alpha=" << options.alpha();
  if (options.inplace()) stream << ", inplace=true";
  stream << ")";
}
Tensor ELUImpl::forward(Tensor input) { return functional::elu(std::move(input), options); }

void SELUImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::SELU(";
  if (options.inplace()) stream << "inplace=true";
  stream << ")";
}
Tensor SELUImpl::forward(Tensor input) { return functional::selu(std::move(input), options); }

void SoftplusImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Softplus(beta=" << options.beta() << ", threshold=" << options.threshold()
         << ")";
}
Tensor SoftplusImpl::forward(const Tensor& input) { return functional::softplus(input, options); }

HardtanhImpl::HardtanhImpl(const HardtanhOptions& options) : options(options) { reset(); }
void HardtanhImpl::reset() {
  TORCH_CHECK(options.max_val() > options.min_val(), "Hardtanh: max_val (", options.max_val(),
              ") must be greater than min_val (", options.min_val(), ").");
}
void HardtanhImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Hardtanh(min_val=" << options.min_val()
         << ", max_val=" << options.max_val();
  if (options.inplace()) stream << ", inplace=true";
  stream << ")";
}
Tensor HardtanhImpl::forward(Tensor input) {
  return functional::hardtanh(std::move(input), options);
}

PReLUImpl::PReLUImpl(const PReLUOptions& options) : options(options) { reset(); }
void PReLUImpl::reset() {
  TORCH_CHECK(options.num_parameters() > 0, "PReLU: num_parameters must be positive, but got ",
              options.num_parameters(), ".");
  weight = register_parameter("weight", at::empty({options.num_parameters()}));
  reset_parameters();
}
void PReLUImpl::reset_parameters() { init::constant_(weight, options.init()); }
void PReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::PReLU(num_parameters=" << options.num_parameters() << ")";
}
Tensor PReLUImpl::forward(const Tensor& input) { return functional::prelu(input, weight); }

template <int64_t D>
ChannelDropoutImpl<D>::ChannelDropoutImpl(const DropoutOptions& options) : options(options) {
  reset();
}
template <int64_t D>
void ChannelDropoutImpl<D>::reset() {
  TORCH_CHECK(options.p() >= 0. && options.p() <= 1., "Dropout", D, "d: the probability p "
              "must be between 0 and 1, but got ", options.p(), ".");
}
template <int64_t D>
void ChannelDropoutImpl<D>::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::Dropout" << D << "d(p=" << options.p()
         << ", inplace=" << options.inplace() << ")";
}
template <int64_t D>
Tensor ChannelDropoutImpl<D>::forward(Tensor input) {
  const auto f = functional::DropoutFuncOptions()
                     .p(options.p())
                     .inplace(options.inplace())
                     .training(this->is_training());
  if constexpr (D == 2) {
    return functional::dropout2d(std::move(input), f);
  } else {
    return functional::dropout3d(std::move(input), f);
  }
}

template class ChannelDropoutImpl<2>;
template class ChannelDropoutImpl<3>;

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class Cloneable<LeakyReLUImpl>;
template class Cloneable<ELUImpl>;
template class Cloneable<SELUImpl>;
template class Cloneable<SoftplusImpl>;
template class Cloneable<HardtanhImpl>;
template class Cloneable<PReLUImpl>;
template class detail::CloneableAs<Dropout2dImpl, ChannelDropoutImpl<2>>;
template class detail::CloneableAs<Dropout3dImpl, ChannelDropoutImpl<3>>;

}  // namespace nn
}  // namespace torch
