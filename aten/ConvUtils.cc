// aten/ConvUtils.cc — see ConvUtils.h. The words are the CPU plugin's
// (tests/ops/conv_test.cc asserts them).
#include "aten/ConvUtils.h"

#include <algorithm>
#include <string>

#include "aten/Functions.h"
#include "c10/util/Exception.h"
#include "c10/util/StringUtil.h"

namespace at {
namespace native {

namespace {

// A parameter list for `k` spatial dims: one value is used for all of them.
std::vector<int64_t> expand_param(c10::IntArrayRef p, const char* name, int64_t k,
                                  const char* op) {
  if (p.size() == 1) return std::vector<int64_t>(static_cast<size_t>(k), p[0]);
  TORCH_CHECK(static_cast<int64_t>(p.size()) == k, op, ": expected ", name,
              " to be a single integer value or a list of ", k,
              " values to match the convolution dimensions, but got ", name, "=",
              p, ".");
  return p.vec();
}

}  // namespace

ConvPlan conv_plan(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   c10::IntArrayRef stride_in, c10::IntArrayRef padding_in,
                   c10::IntArrayRef dilation_in, bool transposed,
                   c10::IntArrayRef output_padding_in, int64_t groups, const char* op,
                   bool half_types) {
  TORCH_CHECK(input.dim() == 3 || input.dim() == 4, op,
              ": expected a 3-d (batched 1-d) or 4-d (batched 2-d) input, but got "
              "input of size ", input.sizes(), "; only 1-d and 2-d "
              "convolutions are implemented.");
  TORCH_CHECK(weight.dim() == input.dim(), op, ": expected ", input.dim(),
              "-dimensional weight for ", input.dim(), "-dimensional input of size ",
              input.sizes(), ", but got weight of size ",
              weight.sizes(), ".");
  const c10::ScalarType dtype = input.scalar_type();
  const bool half = dtype == c10::ScalarType::Half || dtype == c10::ScalarType::BFloat16;
  TORCH_CHECK(dtype == c10::ScalarType::Float || dtype == c10::ScalarType::Double ||
                  (half_types && half),
              op, ": dtype ", dtype, " is not supported; use float32 or float64 "
              "(convert with .to()).");
  TORCH_CHECK(weight.scalar_type() == dtype, op, ": input (", dtype, ") and weight (",
              weight.scalar_type(), ") must have the same dtype; convert one with .to().");
  const bool has_bias = bias.has_value() && bias->defined();
  TORCH_CHECK(!has_bias || bias->scalar_type() == dtype, op, ": input (", dtype,
              ") and bias (", bias->scalar_type(), ") must have the same dtype; convert "
              "one with .to().");
  const int64_t k = input.dim() - 2;
  for (int64_t d = 2; d < input.dim(); ++d) {
    TORCH_CHECK(weight.size(d) > 0, op, ": expected a kernel of positive sizes, but got "
                "weight of size ", weight.sizes(), ".");
    TORCH_CHECK(input.size(d) > 0, op, ": expected input's spatial dimensions to have "
                "positive length, but input has a shape of ", input.sizes(), ".");
  }
  const auto stride = expand_param(stride_in, "stride", k, op);
  const auto padding = expand_param(padding_in, "padding", k, op);
  const auto dilation = expand_param(dilation_in, "dilation", k, op);
  const auto output_padding = expand_param(output_padding_in, "output_padding", k, op);
  for (int64_t i = 0; i < k; ++i) {
    TORCH_CHECK(stride[i] > 0, op, ": non-positive stride is not supported (stride=",
                c10::IntArrayRef(stride), "); use strides of at least 1.");
    TORCH_CHECK(padding[i] >= 0, op, ": negative padding is not supported (padding=",
                c10::IntArrayRef(padding), ").");
    TORCH_CHECK(dilation[i] > 0, op, ": dilation should be greater than zero (dilation=",
                c10::IntArrayRef(dilation), ").");
    TORCH_CHECK(output_padding[i] >= 0, op, ": negative output_padding is not "
                "supported (output_padding=", c10::IntArrayRef(output_padding), ").");
    TORCH_CHECK(!transposed || output_padding[i] < std::max(stride[i], dilation[i]), op,
                ": output padding must be smaller than either stride or dilation, but "
                "got output_padding=", c10::IntArrayRef(output_padding), ", stride=",
                c10::IntArrayRef(stride), ", dilation=", c10::IntArrayRef(dilation), ".");
  }
  TORCH_CHECK(groups > 0, op, ": non-positive groups is not supported (groups=", groups,
              ").");
  TORCH_CHECK(weight.size(0) % groups == 0, op, ": given groups=", groups,
              ", expected weight to be divisible by ", groups, " at dimension 0, but "
              "got weight of size ", weight.sizes(), " instead.");
  const int64_t in_channels = transposed ? weight.size(0) : weight.size(1) * groups;
  TORCH_CHECK(input.size(1) == in_channels, op, ": given groups=", groups,
              transposed ? ", transposed=1" : "", ", weight of size ",
              weight.sizes(), ", expected input", input.sizes(),
              " to have ", in_channels, " channels, but got ", input.size(1),
              " channels instead.");
  const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  TORCH_CHECK(!has_bias || (bias->dim() == 1 && bias->size(0) == out_channels), op,
              ": given weight of size ", weight.sizes(),
              ", expected bias to be 1-dimensional with ", out_channels,
              " elements, but got bias of size ", bias->sizes(), " instead.");

  ConvPlan p;
  p.one_d = k == 1;
  p.transposed = transposed;
  p.input = p.one_d ? input.unsqueeze(2) : input;
  p.weight = p.one_d ? weight.unsqueeze(2) : weight;
  // Spatial parameters as (h, w); a 1-d convolution has h = 1, no padding.
  const auto hw = [&](const std::vector<int64_t>& v, int64_t h) {
    return p.one_d ? std::vector<int64_t>{h, v[0]} : v;
  };
  const auto s = hw(stride, 1), pad = hw(padding, 0), d = hw(dilation, 1),
             op_pad = hw(output_padding, 0);
  ConvGeometry& g = p.g;
  g.N = p.input.size(0);
  g.G = groups;
  g.KH = p.weight.size(2);
  g.KW = p.weight.size(3);
  g.sh = s[0], g.sw = s[1], g.ph = pad[0], g.pw = pad[1], g.dh = d[0], g.dw = d[1];
  const int64_t H = p.input.size(2), W = p.input.size(3);
  const int64_t ext_h = d[0] * (g.KH - 1) + 1, ext_w = d[1] * (g.KW - 1) + 1;
  if (!transposed) {
    TORCH_CHECK(H + 2 * pad[0] >= ext_h && W + 2 * pad[1] >= ext_w, op,
                ": calculated padded input size per channel: (",
                p.one_d ? "" : std::to_string(H + 2 * pad[0]) + " x ",
                W + 2 * pad[1], "). Kernel size: (",
                p.one_d ? "" : std::to_string(ext_h) + " x ", ext_w,
                "). Kernel size can't be greater than actual input size.");
    g.Cx = in_channels, g.Hx = H, g.Wx = W;
    g.Cy = out_channels;
    g.Hy = (H + 2 * pad[0] - ext_h) / s[0] + 1;
    g.Wy = (W + 2 * pad[1] - ext_w) / s[1] + 1;
  } else {
    g.Cy = in_channels, g.Hy = H, g.Wy = W;
    g.Cx = out_channels;
    g.Hx = (H - 1) * s[0] - 2 * pad[0] + ext_h + op_pad[0];
    g.Wx = (W - 1) * s[1] - 2 * pad[1] + ext_w + op_pad[1];
    TORCH_CHECK(g.Hx > 0 && g.Wx > 0, op, ": given input size per channel (",
                p.one_d ? "" : std::to_string(H) + " x ", W,
                "), the calculated output size per channel is (",
                p.one_d ? "" : std::to_string(g.Hx) + " x ", g.Wx,
                "); output size is too small.");
  }
  p.output_shape = transposed ? std::vector<int64_t>{g.N, g.Cx, g.Hx, g.Wx}
                              : std::vector<int64_t>{g.N, g.Cy, g.Hy, g.Wy};
  if (p.one_d) p.output_shape.erase(p.output_shape.begin() + 2);
  return p;
}

void check_conv_output_mask(const std::vector<bool>& output_mask, const char* op) {
  TORCH_CHECK(output_mask.size() == 3, op, ": output_mask must have 3 entries "
              "(input, weight, bias), but has ", output_mask.size(), ".");
}

void check_conv_grad(const Tensor& grad_output, const Tensor& input, const ConvPlan& p,
                     c10::OptionalIntArrayRef bias_sizes, const char* op) {
  TORCH_CHECK(grad_output.sizes() == c10::IntArrayRef(p.output_shape), op,
              ": expected grad_output of size ", c10::IntArrayRef(p.output_shape),
              " (the convolution's output), but got ", grad_output.sizes(), ".");
  TORCH_CHECK(grad_output.scalar_type() == input.scalar_type(), op, ": grad_output (",
              grad_output.scalar_type(), ") and input (", input.scalar_type(),
              ") must have the same dtype.");
  const int64_t out_channels = p.transposed ? p.g.Cx : p.g.Cy;
  TORCH_CHECK(!bias_sizes.has_value() ||
                  (bias_sizes->size() == 1 && (*bias_sizes)[0] == out_channels),
              op, ": bias_sizes must be [", out_channels, "], but got ",
              bias_sizes.has_value() ? c10::str(*bias_sizes) : std::string("None"), ".");
}

}  // namespace native
}  // namespace at
