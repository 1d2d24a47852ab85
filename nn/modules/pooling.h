// nn/modules/pooling.h — torch::nn::MaxPool2d and AvgPool2d.
//
//   torch::nn::MaxPool2d pool(2);   // kernel 2, stride 2
//   auto y = pool(x);               // [N, C, H, W] -> [N, C, H/2, W/2]
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/options.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::MaxPool2dImpl
class MaxPool2dImpl : public Cloneable<MaxPool2dImpl> {
 public:
  explicit MaxPool2dImpl(ExpandingArray<2> kernel_size)
      : MaxPool2dImpl(MaxPool2dOptions(kernel_size)) {}
  explicit MaxPool2dImpl(const MaxPool2dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  // input [N, C, H, W] or [C, H, W].
  Tensor forward(const Tensor& input);

  MaxPool2dOptions options;
};
TORCH_MODULE(MaxPool2d);

// torch::nn::AvgPool2dImpl
class AvgPool2dImpl : public Cloneable<AvgPool2dImpl> {
 public:
  explicit AvgPool2dImpl(ExpandingArray<2> kernel_size)
      : AvgPool2dImpl(AvgPool2dOptions(kernel_size)) {}
  explicit AvgPool2dImpl(const AvgPool2dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  // input [N, C, H, W] or [C, H, W].
  Tensor forward(const Tensor& input);

  AvgPool2dOptions options;
};
TORCH_MODULE(AvgPool2d);

// Defined in pooling.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class Cloneable<MaxPool2dImpl>;
extern template class Cloneable<AvgPool2dImpl>;

}  // namespace nn
}  // namespace torch
