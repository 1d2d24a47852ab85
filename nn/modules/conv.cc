#include "nn/modules/conv.h"

#include <cmath>
#include <variant>

#include "nn/functional.h"
#include "nn/init.h"

namespace torch {
namespace nn {

Conv2dImpl::Conv2dImpl(Conv2dOptions options) : options(std::move(options)) { reset(); }

void Conv2dImpl::reset() {
  const Conv2dOptions& o = options;
  TORCH_CHECK(o.in_channels() > 0 && o.out_channels() > 0, "Conv2d: in_channels and "
              "out_channels must be positive, but got in_channels=", o.in_channels(),
              ", out_channels=", o.out_channels(), ".");
  TORCH_CHECK(o.groups() > 0, "Conv2d: groups must be positive, but got ", o.groups(), ".");
  TORCH_CHECK(o.in_channels() % o.groups() == 0 && o.out_channels() % o.groups() == 0,
              "Conv2d: in_channels (", o.in_channels(), ") and out_channels (",
              o.out_channels(), ") must both be divisible by groups (", o.groups(), ").");
  for (size_t i = 0; i < 2; ++i) {
    TORCH_CHECK((*o.kernel_size())[i] > 0 && (*o.stride())[i] > 0 && (*o.dilation())[i] > 0,
                "Conv2d: kernel_size, stride and dilation must be positive, but got "
                "kernel_size=", o.kernel_size(), ", stride=", o.stride(), ", dilation=",
                o.dilation(), ".");
  }
  if (const auto* pad = std::get_if<ExpandingArray<2>>(&o.padding())) {
    for (int64_t p : **pad) {
      TORCH_CHECK(p >= 0, "Conv2d: padding must be non-negative, but got ", *pad, ".");
    }
  } else if (std::holds_alternative<enumtype::kSame>(o.padding())) {
    for (int64_t s : *o.stride()) {
      TORCH_CHECK(s == 1, "Conv2d: padding='same' is not supported for strided convolutions "
                  "(stride ", o.stride(), "); use stride 1 or explicit padding.");
    }
  }
  TORCH_CHECK(std::holds_alternative<enumtype::kZeros>(o.padding_mode()), "Conv2d: padding_mode ",
              enumtype::get_enum_name(o.padding_mode()), " is not supported by Ember; only "
              "torch::kZeros is. Pad the input yourself (e.g. with a reflected copy) and use "
              "padding 0.");
  weight = register_parameter(
      "weight", at::empty({o.out_channels(), o.in_channels() / o.groups(),
                           (*o.kernel_size())[0], (*o.kernel_size())[1]}));
  bias = register_parameter("bias", o.bias() ? at::empty({o.out_channels()}) : Tensor(),
                            /*requires_grad=*/o.bias());
  reset_parameters();
}

void Conv2dImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const auto fan_in = std::get<0>(init::_calculate_fan_in_and_fan_out(weight));
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    init::uniform_(bias, -bound, bound);
  }
}

void Conv2dImpl::pretty_print(std::ostream& stream) const {
  const Conv2dOptions& o = options;
  stream << std::boolalpha << "torch::nn::Conv2d(" << o.in_channels() << ", " << o.out_channels()
         << ", kernel_size=" << o.kernel_size() << ", stride=" << o.stride();
  if (const auto* pad = std::get_if<ExpandingArray<2>>(&o.padding())) {
    if ((**pad)[0] != 0 || (**pad)[1] != 0) stream << ", padding=" << *pad;
  } else if (std::holds_alternative<enumtype::kSame>(o.padding())) {
    stream << ", padding='same'";
  } else {
    stream << ", padding='valid'";
  }
  if ((*o.dilation())[0] != 1 || (*o.dilation())[1] != 1) {
    stream << ", dilation=" << o.dilation();
  }
  if (o.groups() != 1) stream << ", groups=" << o.groups();
  if (!o.bias()) stream << ", bias=" << false;
  if (!std::holds_alternative<enumtype::kZeros>(o.padding_mode())) {
    stream << ", padding_mode=" << enumtype::get_enum_name(o.padding_mode());
  }
  stream << ")";
}

Tensor Conv2dImpl::forward(const Tensor& input) {
  TORCH_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4),
              "Conv2d: expected a 3-d [C, H, W] or 4-d [N, C, H, W] input, but got ",
              input.defined() ? c10::str("a ", input.dim(), "-d input of sizes ", input.sizes())
                              : std::string("an undefined tensor"),
              ".");
  return functional::conv2d(input, weight,
                            functional::Conv2dFuncOptions()
                                .bias(bias)
                                .stride(options.stride())
                                .padding(options.padding())
                                .dilation(options.dilation())
                                .groups(options.groups()));
}

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class Cloneable<Conv2dImpl>;

}  // namespace nn
}  // namespace torch
