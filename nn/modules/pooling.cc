#include "nn/modules/pooling.h"

#include "nn/functional.h"

namespace torch {
namespace nn {

void MaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::MaxPool2d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}

Tensor MaxPool2dImpl::forward(const Tensor& input) {
  return functional::max_pool2d(input, options);
}

void AvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::AvgPool2d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding() << ")";
}

Tensor AvgPool2dImpl::forward(const Tensor& input) {
  return functional::avg_pool2d(input, options);
}

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class Cloneable<MaxPool2dImpl>;
template class Cloneable<AvgPool2dImpl>;

}  // namespace nn
}  // namespace torch
