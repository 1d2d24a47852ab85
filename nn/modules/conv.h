// nn/modules/conv.h — torch::nn::Conv2d.
//
//   torch::nn::Conv2d conv(torch::nn::Conv2dOptions(1, 32, 3).padding(torch::kSame));
//   auto y = conv(x);   // x [N, 1, H, W] -> y [N, 32, H, W]
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/options.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::Conv2dImpl — 2-d convolution. weight [out_channels,
// in_channels / groups, kH, kW] from kaiming_uniform_(a = sqrt(5)), bias
// [out_channels] from U(±1/sqrt(fan_in)). Only padding_mode kZeros is
// supported; padding kSame needs stride 1.
class Conv2dImpl : public Cloneable<Conv2dImpl> {
 public:
  Conv2dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<2> kernel_size)
      : Conv2dImpl(Conv2dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv2dImpl(Conv2dOptions options);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // input [N, C_in, H, W] or [C_in, H, W].
  Tensor forward(const Tensor& input);

  Conv2dOptions options;
  Tensor weight;
  Tensor bias;  // undefined without bias
};
TORCH_MODULE(Conv2d);

// Defined in conv.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class Cloneable<Conv2dImpl>;

}  // namespace nn
}  // namespace torch
