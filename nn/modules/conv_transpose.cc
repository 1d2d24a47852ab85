#include "nn/modules/conv_transpose.h"

#include <cmath>
#include <variant>
#include <vector>

#include "nn/functional.h"
#include "nn/init.h"

namespace torch {
namespace nn {
namespace {

// The checks every convolution module makes on its options.
template <size_t D>
void check_conv_options(const char* name, int64_t in, int64_t out, int64_t groups,
                        const ExpandingArray<D>& kernel, const ExpandingArray<D>& stride,
                        const ExpandingArray<D>& dilation, const conv_padding_mode_t& mode) {
  TORCH_CHECK(in > 0 && out > 0, name, ": in_channels and out_channels must be positive, but "
              "got in_channels=", in, ", out_channels=", out, ".");
  TORCH_CHECK(groups > 0, name, ": groups must be positive, but got ", groups, ".");
  TORCH_CHECK(in % groups == 0 && out % groups == 0, name, ": in_channels (", in,
              ") and out_channels (", out, ") must both be divisible by groups (", groups, ").");
  for (size_t i = 0; i < D; ++i) {
    TORCH_CHECK((*kernel)[i] > 0 && (*stride)[i] > 0 && (*dilation)[i] > 0, name,
                ": kernel_size, stride and dilation must be positive, but got kernel_size=",
                kernel, ", stride=", stride, ", dilation=", dilation, ".");
  }
  TORCH_CHECK(std::holds_alternative<enumtype::kZeros>(mode), name, ": padding_mode ",
              enumtype::get_enum_name(mode), " is not supported by Ember; only torch::kZeros "
              "is. Pad the input yourself and use padding 0.");
}

void init_conv_parameters(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const auto fan_in = std::get<0>(init::_calculate_fan_in_and_fan_out(weight));
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    init::uniform_(bias, -bound, bound);
  }
}

std::string input_desc(const Tensor& input) {
  return input.defined() ? c10::str("a ", input.dim(), "-d input of sizes ", input.sizes())
                         : std::string("an undefined tensor");
}

}  // namespace

// ---- Conv1d ----

Conv1dImpl::Conv1dImpl(Conv1dOptions options) : options(std::move(options)) { reset(); }

void Conv1dImpl::reset() {
  const Conv1dOptions& o = options;
  check_conv_options<1>("Conv1d", o.in_channels(), o.out_channels(), o.groups(), o.kernel_size(),
                        o.stride(), o.dilation(), o.padding_mode());
  const auto* pad = std::get_if<ExpandingArray<1>>(&o.padding());
  TORCH_CHECK(pad != nullptr || std::holds_alternative<enumtype::kValid>(o.padding()),
              "Conv1d: padding torch::kSame is not supported for 1-d convolutions in Ember; "
              "pass the padding as a number.");
  TORCH_CHECK(pad == nullptr || (**pad)[0] >= 0, "Conv1d: padding must be non-negative, but "
              "got ", pad ? (**pad)[0] : 0, ".");
  weight = register_parameter("weight", at::empty({o.out_channels(), o.in_channels() / o.groups(),
                                                   (*o.kernel_size())[0]}));
  bias = register_parameter("bias", o.bias() ? at::empty({o.out_channels()}) : Tensor(),
                            /*requires_grad=*/o.bias());
  reset_parameters();
}

void Conv1dImpl::reset_parameters() { init_conv_parameters(weight, bias); }

void Conv1dImpl::pretty_print(std::ostream& stream) const {
  const Conv1dOptions& o = options;
  stream << "torch::nn::Conv1d(" << o.in_channels() << ", " << o.out_channels()
         << ", kernel_size=" << o.kernel_size() << ", stride=" << o.stride();
  if (const auto* pad = std::get_if<ExpandingArray<1>>(&o.padding())) {
    if ((**pad)[0] != 0) stream << ", padding=" << *pad;
  } else {
    stream << ", padding='valid'";
  }
  if ((*o.dilation())[0] != 1) stream << ", dilation=" << o.dilation();
  if (o.groups() != 1) stream << ", groups=" << o.groups();
  if (!o.bias()) stream << ", bias=false";
  stream << ")";
}

Tensor Conv1dImpl::forward(const Tensor& input) {
  TORCH_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3),
              "Conv1d: expected a 2-d [C, L] or 3-d [N, C, L] input, but got ",
              input_desc(input), ".");
  return functional::conv1d(input, weight,
                            functional::Conv1dFuncOptions()
                                .bias(bias)
                                .stride(options.stride())
                                .padding(options.padding())
                                .dilation(options.dilation())
                                .groups(options.groups()));
}

// ---- Conv3d ----

Conv3dImpl::Conv3dImpl(Conv3dOptions options) : options(std::move(options)) { reset(); }

void Conv3dImpl::reset() {
  const Conv3dOptions& o = options;
  check_conv_options<3>("Conv3d", o.in_channels(), o.out_channels(), o.groups(), o.kernel_size(),
                        o.stride(), o.dilation(), o.padding_mode());
  if (const auto* pad = std::get_if<ExpandingArray<3>>(&o.padding())) {
    for (int64_t p : **pad) {
      TORCH_CHECK(p >= 0, "Conv3d: padding must be non-negative, but got ", *pad, ".");
    }
  } else if (std::holds_alternative<enumtype::kSame>(o.padding())) {
    for (int64_t s : *o.stride()) {
      TORCH_CHECK(s == 1, "Conv3d: padding='same' is not supported for strided convolutions "
                  "(stride ", o.stride(), "); use stride 1 or explicit padding.");
    }
  }
  weight = register_parameter(
      "weight", at::empty({o.out_channels(), o.in_channels() / o.groups(), (*o.kernel_size())[0],
                           (*o.kernel_size())[1], (*o.kernel_size())[2]}));
  bias = register_parameter("bias", o.bias() ? at::empty({o.out_channels()}) : Tensor(),
                            /*requires_grad=*/o.bias());
  reset_parameters();
}

void Conv3dImpl::reset_parameters() { init_conv_parameters(weight, bias); }

void Conv3dImpl::pretty_print(std::ostream& stream) const {
  const Conv3dOptions& o = options;
  stream << "torch::nn::Conv3d(" << o.in_channels() << ", " << o.out_channels()
         << ", kernel_size=" << o.kernel_size() << ", stride=" << o.stride();
  if (const auto* pad = std::get_if<ExpandingArray<3>>(&o.padding())) {
    if ((**pad)[0] != 0 || (**pad)[1] != 0 || (**pad)[2] != 0) stream << ", padding=" << *pad;
  } else if (std::holds_alternative<enumtype::kSame>(o.padding())) {
    stream << ", padding='same'";
  } else {
    stream << ", padding='valid'";
  }
  const auto& d = *o.dilation();
  if (d[0] != 1 || d[1] != 1 || d[2] != 1) stream << ", dilation=" << o.dilation();
  if (o.groups() != 1) stream << ", groups=" << o.groups();
  if (!o.bias()) stream << ", bias=false";
  stream << ")";
}

Tensor Conv3dImpl::forward(const Tensor& input) {
  TORCH_CHECK(input.defined() && (input.dim() == 4 || input.dim() == 5),
              "Conv3d: expected a 4-d [C, D, H, W] or 5-d [N, C, D, H, W] input, but got ",
              input_desc(input), ".");
  return functional::conv3d(input, weight,
                            functional::Conv3dFuncOptions()
                                .bias(bias)
                                .stride(options.stride())
                                .padding(options.padding())
                                .dilation(options.dilation())
                                .groups(options.groups()));
}

// ---- ConvTranspose1d / ConvTranspose2d / ConvTranspose3d ----

template <size_t D>
ConvTransposeNdImpl<D>::ConvTransposeNdImpl(ConvTransposeOptions<D> options)
    : options(std::move(options)) {
  reset();
}

template <size_t D>
void ConvTransposeNdImpl<D>::reset() {
  const ConvTransposeOptions<D>& o = options;
  const char* name = D == 1 ? "ConvTranspose1d" : D == 2 ? "ConvTranspose2d" : "ConvTranspose3d";
  check_conv_options<D>(name, o.in_channels(), o.out_channels(), o.groups(), o.kernel_size(),
                        o.stride(), o.dilation(), o.padding_mode());
  for (size_t i = 0; i < D; ++i) {
    TORCH_CHECK((*o.padding())[i] >= 0 && (*o.output_padding())[i] >= 0, name,
                ": padding and output_padding must be non-negative, but got padding=",
                o.padding(), ", output_padding=", o.output_padding(), ".");
    TORCH_CHECK((*o.output_padding())[i] < std::max((*o.stride())[i], (*o.dilation())[i]), name,
                ": output_padding must be smaller than either stride or dilation, but got "
                "output_padding=", o.output_padding(), ", stride=", o.stride(), ", dilation=",
                o.dilation(), ".");
  }
  std::vector<int64_t> shape{o.in_channels(), o.out_channels() / o.groups()};
  for (size_t i = 0; i < D; ++i) shape.push_back((*o.kernel_size())[i]);
  weight = this->register_parameter("weight", at::empty(shape));
  bias = this->register_parameter("bias", o.bias() ? at::empty({o.out_channels()}) : Tensor(),
                                  /*requires_grad=*/o.bias());
  reset_parameters();
}

template <size_t D>
void ConvTransposeNdImpl<D>::reset_parameters() {
  init_conv_parameters(weight, bias);
}

template <size_t D>
void ConvTransposeNdImpl<D>::pretty_print(std::ostream& stream) const {
  const ConvTransposeOptions<D>& o = options;
  stream << "torch::nn::ConvTranspose" << D << "d(" << o.in_channels() << ", " << o.out_channels()
         << ", kernel_size=" << o.kernel_size() << ", stride=" << o.stride();
  bool any_padding = false, any_output_padding = false, any_dilation = false;
  for (size_t i = 0; i < D; ++i) {
    any_padding |= (*o.padding())[i] != 0;
    any_output_padding |= (*o.output_padding())[i] != 0;
    any_dilation |= (*o.dilation())[i] != 1;
  }
  if (any_padding) stream << ", padding=" << o.padding();
  if (any_output_padding) stream << ", output_padding=" << o.output_padding();
  if (any_dilation) stream << ", dilation=" << o.dilation();
  if (o.groups() != 1) stream << ", groups=" << o.groups();
  if (!o.bias()) stream << ", bias=false";
  stream << ")";
}

template <size_t D>
Tensor ConvTransposeNdImpl<D>::forward(const Tensor& input) {
  const int64_t d = static_cast<int64_t>(D);
  TORCH_CHECK(input.defined() && (input.dim() == d + 1 || input.dim() == d + 2),
              "ConvTranspose", D, "d: expected a ", d + 1, "-d (unbatched) or ", d + 2,
              "-d (batched) input, but got ", input_desc(input), ".");
  functional::ConvTransposeFuncOptions<D> f;
  f.bias(bias)
      .stride(options.stride())
      .padding(options.padding())
      .output_padding(options.output_padding())
      .groups(options.groups())
      .dilation(options.dilation());
  if constexpr (D == 1) {
    return functional::conv_transpose1d(input, weight, f);
  } else if constexpr (D == 2) {
    return functional::conv_transpose2d(input, weight, f);
  } else {
    return functional::conv_transpose3d(input, weight, f);
  }
}

template class ConvTransposeNdImpl<1>;
template class ConvTransposeNdImpl<2>;
template class ConvTransposeNdImpl<3>;

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class Cloneable<Conv1dImpl>;
template class Cloneable<Conv3dImpl>;
template class detail::CloneableAs<ConvTranspose1dImpl, ConvTransposeNdImpl<1>>;
template class detail::CloneableAs<ConvTranspose2dImpl, ConvTransposeNdImpl<2>>;
template class detail::CloneableAs<ConvTranspose3dImpl, ConvTransposeNdImpl<3>>;

}  // namespace nn
}  // namespace torch
