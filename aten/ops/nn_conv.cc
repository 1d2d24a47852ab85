// conv2d, max_pool2d and adaptive_avg_pool2d: composites over the
// convolution and pooling ops, as in PyTorch (CompositeImplicitAutograd).
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "aten/Functions.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

std::string shape_str(IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

// conv2d accepts [N, C, H, W] and unbatched [C, H, W] inputs.
bool batched_conv2d_input(const Tensor& input, const Tensor& weight) {
  TORCH_CHECK(input.dim() == 3 || input.dim() == 4, "conv2d: expected 3D (unbatched) or "
              "4D (batched) input to conv2d, but got input of size: ",
              shape_str(input.sizes()), ".");
  TORCH_CHECK(weight.dim() == 4, "conv2d: expected a 4-d weight [out_channels, "
              "in_channels / groups, kH, kW], but got weight of size ",
              shape_str(weight.sizes()), ".");
  return input.dim() == 4;
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const bool batched = batched_conv2d_input(input, weight);
  const Tensor x = batched ? input : input.unsqueeze(0);
  const int64_t zero = 0;
  Tensor y = at::convolution(x, weight, bias, stride, padding, dilation, false,
                             IntArrayRef(zero), groups);
  return batched ? y : y.squeeze(0);
}

// Two values from a conv2d parameter list of one or two.
std::vector<int64_t> two(IntArrayRef p, const char* name) {
  TORCH_CHECK(p.size() == 1 || p.size() == 2, "conv2d: expected ", name, " to be a "
              "single integer value or a list of 2 values, but got ", name, "=",
              shape_str(p), ".");
  return {p[0], p.size() == 2 ? p[1] : p[0]};
}

// padding='valid' is no padding; 'same' pads so that the output has the
// input's size (stride 1 only). An odd total padding puts the extra row or
// column at the end, as PyTorch does.
Tensor conv2d_padding(const Tensor& input, const Tensor& weight,
                      const std::optional<Tensor>& bias, IntArrayRef stride,
                      c10::string_view padding, IntArrayRef dilation, int64_t groups) {
  if (padding == "valid") {
    return native::conv2d(input, weight, bias, stride, {0}, dilation, groups);
  }
  TORCH_CHECK(padding == "same", "conv2d: invalid padding string '", std::string(padding),
              "'; it should be one of {'valid', 'same'}.");
  const bool batched = batched_conv2d_input(input, weight);
  const std::vector<int64_t> s = two(stride, "stride"), d = two(dilation, "dilation");
  TORCH_CHECK(s[0] == 1 && s[1] == 1, "conv2d: padding='same' is not supported for "
              "strided convolutions (stride=", shape_str(s), ").");
  Tensor x = batched ? input : input.unsqueeze(0);
  std::vector<int64_t> pad(2), extra(2);
  bool asymmetric = false;
  for (int i = 0; i < 2; ++i) {
    const int64_t total = d[i] * (weight.size(2 + i) - 1);
    pad[i] = total / 2;
    extra[i] = total % 2;
    asymmetric = asymmetric || extra[i] != 0;
  }
  if (asymmetric) {
    std::vector<int64_t> sizes = x.sizes().vec();
    sizes[2] += extra[0];
    sizes[3] += extra[1];
    Tensor padded = at::zeros(sizes, x.options());
    padded.narrow(2, 0, x.size(2)).narrow(3, 0, x.size(3)).copy_(x);
    x = padded;
  }
  const int64_t zero = 0;
  Tensor y = at::convolution(x, weight, bias, s, pad, d, false, IntArrayRef(zero), groups);
  return batched ? y : y.squeeze(0);
}

Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(
      at::max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  TORCH_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2, but "
              "got ", shape_str(output_size), ".");
  return at::_adaptive_avg_pool2d(self, output_size);
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("conv2d", TORCH_FN(at::native::conv2d));
  m.impl("conv2d.padding", TORCH_FN(at::native::conv2d_padding));
  m.impl("max_pool2d", TORCH_FN(at::native::max_pool2d));
  m.impl("adaptive_avg_pool2d", TORCH_FN(at::native::adaptive_avg_pool2d));
}
