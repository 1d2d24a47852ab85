#include "nn/modules/activation.h"

#include "nn/functional.h"

namespace torch {
namespace nn {

void ReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::ReLU(";
  if (options.inplace()) stream << "inplace=true";
  stream << ")";
}

Tensor ReLUImpl::forward(Tensor input) { return functional::relu(std::move(input), options); }

GELUImpl::GELUImpl(GELUOptions options) : options(std::move(options)) { reset(); }

void GELUImpl::reset() {
  TORCH_CHECK(options.approximate() == "none" || options.approximate() == "tanh",
              "GELU: approximate must be \"none\" or \"tanh\", but got \"",
              options.approximate(), "\".");
}

void GELUImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::GELU()"; }

Tensor GELUImpl::forward(const Tensor& input) { return functional::gelu(input, options); }

void TanhImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::Tanh()"; }

Tensor TanhImpl::forward(const Tensor& input) { return at::tanh(input); }

void SigmoidImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::Sigmoid()"; }

Tensor SigmoidImpl::forward(const Tensor& input) { return at::sigmoid(input); }

void SoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Softmax(dim=" << options.dim() << ")";
}

Tensor SoftmaxImpl::forward(const Tensor& input) {
  return functional::softmax(input, options.dim());
}

void LogSoftmaxImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::LogSoftmax(dim=" << options.dim() << ")";
}

Tensor LogSoftmaxImpl::forward(const Tensor& input) {
  return functional::log_softmax(input, options.dim());
}

DropoutImpl::DropoutImpl(const DropoutOptions& options) : options(options) { reset(); }

void DropoutImpl::reset() {
  TORCH_CHECK(options.p() >= 0. && options.p() <= 1., "Dropout: the probability p must be "
              "between 0 and 1, but got ", options.p(), ".");
}

void DropoutImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::Dropout(p=" << options.p()
         << ", inplace=" << options.inplace() << ")";
}

Tensor DropoutImpl::forward(Tensor input) {
  return functional::dropout(std::move(input), functional::DropoutFuncOptions()
                                                   .p(options.p())
                                                   .inplace(options.inplace())
                                                   .training(is_training()));
}

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class Cloneable<ReLUImpl>;
template class Cloneable<GELUImpl>;
template class Cloneable<TanhImpl>;
template class Cloneable<SigmoidImpl>;
template class Cloneable<SoftmaxImpl>;
template class Cloneable<LogSoftmaxImpl>;
template class Cloneable<DropoutImpl>;

}  // namespace nn
}  // namespace torch
