// nn/modules/conv_transpose.h — torch::nn::Conv1d, Conv3d, ConvTranspose1d,
// ConvTranspose2d and ConvTranspose3d (the 2-d convolution is
// nn/modules/conv.h; the 3-d ones are composites of the 2-d kernels, see
// Note [3-d layers from 2-d kernels] in nn/functional_3d.cc).
//
//   torch::nn::ConvTranspose2d up(torch::nn::ConvTranspose2dOptions(64, 32, 4)
//                                     .stride(2).padding(1).bias(false));
//   auto y = up(x);   // x [N, 64, H, W] -> y [N, 32, 2H, 2W]
//   torch::nn::Conv1d conv(torch::nn::Conv1dOptions(8, 16, 3).padding(1));
//
// Initialisation as PyTorch's: weight from kaiming_uniform_(a = sqrt(5)),
// bias from U(±1/sqrt(fan_in)) (fan_in of the weight as stored). Only
// padding_mode kZeros is supported.
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/options.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::Conv1dImpl — weight [out_channels, in_channels / groups, k].
class Conv1dImpl : public Cloneable<Conv1dImpl> {
 public:
  Conv1dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<1> kernel_size)
      : Conv1dImpl(Conv1dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv1dImpl(Conv1dOptions options);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // input [N, C_in, L] or [C_in, L].
  Tensor forward(const Tensor& input);

  Conv1dOptions options;
  Tensor weight;
  Tensor bias;  // undefined without bias
};
TORCH_MODULE(Conv1d);

// torch::nn::Conv3dImpl — weight [out_channels, in_channels / groups, kD,
// kH, kW]; padding numbers, kValid or kSame (stride 1).
class Conv3dImpl : public Cloneable<Conv3dImpl> {
 public:
  Conv3dImpl(int64_t input_channels, int64_t output_channels, ExpandingArray<3> kernel_size)
      : Conv3dImpl(Conv3dOptions(input_channels, output_channels, kernel_size)) {}
  explicit Conv3dImpl(Conv3dOptions options);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // input [N, C_in, D, H, W] or [C_in, D, H, W].
  Tensor forward(const Tensor& input);

  Conv3dOptions options;
  Tensor weight;
  Tensor bias;  // undefined without bias
};
TORCH_MODULE(Conv3d);

// torch::nn::ConvTransposeNdImpl<D> — weight [in_channels, out_channels /
// groups, k…]. forward(input, output_size) is not supported (pass
// output_padding in the options instead).
template <size_t D>
class ConvTransposeNdImpl : public Module {
 public:
  ConvTransposeNdImpl(int64_t input_channels, int64_t output_channels,
                      ExpandingArray<D> kernel_size)
      : ConvTransposeNdImpl(
            ConvTransposeOptions<D>(input_channels, output_channels, kernel_size)) {}
  explicit ConvTransposeNdImpl(ConvTransposeOptions<D> options);

  void reset();
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // input [N, C_in, *] or [C_in, *] with D spatial dimensions.
  Tensor forward(const Tensor& input);

  ConvTransposeOptions<D> options;
  Tensor weight;
  Tensor bias;  // undefined without bias
};

class ConvTranspose1dImpl : public detail::CloneableAs<ConvTranspose1dImpl, ConvTransposeNdImpl<1>> {
 public:
  using CloneableAs::CloneableAs;
};
TORCH_MODULE(ConvTranspose1d);

class ConvTranspose2dImpl : public detail::CloneableAs<ConvTranspose2dImpl, ConvTransposeNdImpl<2>> {
 public:
  using CloneableAs::CloneableAs;
};
TORCH_MODULE(ConvTranspose2d);

class ConvTranspose3dImpl : public detail::CloneableAs<ConvTranspose3dImpl, ConvTransposeNdImpl<3>> {
 public:
  using CloneableAs::CloneableAs;
};
TORCH_MODULE(ConvTranspose3d);

extern template class ConvTransposeNdImpl<1>;
extern template class ConvTransposeNdImpl<2>;
extern template class ConvTransposeNdImpl<3>;

// Defined in conv_transpose.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class Cloneable<Conv1dImpl>;
extern template class Cloneable<Conv3dImpl>;
extern template class detail::CloneableAs<ConvTranspose1dImpl, ConvTransposeNdImpl<1>>;
extern template class detail::CloneableAs<ConvTranspose2dImpl, ConvTransposeNdImpl<2>>;
extern template class detail::CloneableAs<ConvTranspose3dImpl, ConvTransposeNdImpl<3>>;

}  // namespace nn
}  // namespace torch
