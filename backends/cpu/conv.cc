// convolution and convolution_backward on the CPU: argument checks, the
// geometry of the direct convolution behind each call (See Note
// [Convolution geometry]), and the choice between oneDNN (float32) and the
// plain loops.
#include "backends/cpu/conv.h"

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "aten/Functions.h"
#include "backends/cpu/conv_impl.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

using conv_detail::ConvGeometry;

std::string shape_str(c10::IntArrayRef s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

// A parameter list for `k` spatial dims: one value is used for all of them.
std::vector<int64_t> expand_param(c10::IntArrayRef p, const char* name, int64_t k,
                                  const char* op) {
  if (p.size() == 1) return std::vector<int64_t>(static_cast<size_t>(k), p[0]);
  TORCH_CHECK(static_cast<int64_t>(p.size()) == k, op, ": expected ", name,
              " to be a single integer value or a list of ", k,
              " values to match the convolution dimensions, but got ", name, "=",
              shape_str(p), ".");
  return p.vec();
}

bool is_channels_last(const at::Tensor& t) {
  if (t.dim() != 4 || t.is_contiguous() || t.size(1) < 2) return false;
  const int64_t C = t.size(1), W = t.size(3), H = t.size(2);
  return t.stride(1) == 1 && t.stride(3) == C && (H == 1 || t.stride(2) == W * C) &&
         (t.size(0) == 1 || t.stride(0) == H * W * C);
}

// A call's arguments, checked, as 4-d tensors and the geometry of its
// direct convolution.
struct Prepared {
  ConvGeometry g;
  at::Tensor input, weight;  // 4-d views (1-d convolutions get H = 1)
  bool one_d = false;
  bool channels_last = false;
  bool transposed = false;
  std::vector<int64_t> output_shape;  // as the caller sees it (3-d or 4-d)
};

Prepared prepare(const at::Tensor& input, const at::Tensor& weight,
                 const std::optional<at::Tensor>& bias, c10::IntArrayRef stride_in,
                 c10::IntArrayRef padding_in, c10::IntArrayRef dilation_in,
                 bool transposed, c10::IntArrayRef output_padding_in, int64_t groups,
                 const char* op) {
  TORCH_CHECK(input.dim() == 3 || input.dim() == 4, op,
              ": expected a 3-d (batched 1-d) or 4-d (batched 2-d) input, but got "
              "input of size ", shape_str(input.sizes()), "; only 1-d and 2-d "
              "convolutions are implemented on the CPU.");
  TORCH_CHECK(weight.dim() == input.dim(), op, ": expected ", input.dim(),
              "-dimensional weight for ", input.dim(), "-dimensional input of size ",
              shape_str(input.sizes()), ", but got weight of size ",
              shape_str(weight.sizes()), ".");
  const c10::ScalarType dtype = input.scalar_type();
  TORCH_CHECK(dtype == c10::ScalarType::Float || dtype == c10::ScalarType::Double, op,
              ": dtype ", dtype, " is not supported on the CPU; use float32 or float64 "
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
                "weight of size ", shape_str(weight.sizes()), ".");
    TORCH_CHECK(input.size(d) > 0, op, ": expected input's spatial dimensions to have "
                "positive length, but input has a shape of ", shape_str(input.sizes()), ".");
  }
  const auto stride = expand_param(stride_in, "stride", k, op);
  const auto padding = expand_param(padding_in, "padding", k, op);
  const auto dilation = expand_param(dilation_in, "dilation", k, op);
  const auto output_padding = expand_param(output_padding_in, "output_padding", k, op);
  for (int64_t i = 0; i < k; ++i) {
    TORCH_CHECK(stride[i] > 0, op, ": non-positive stride is not supported (stride=",
                shape_str(stride), "); use strides of at least 1.");
    TORCH_CHECK(padding[i] >= 0, op, ": negative padding is not supported (padding=",
                shape_str(padding), ").");
    TORCH_CHECK(dilation[i] > 0, op, ": dilation should be greater than zero (dilation=",
                shape_str(dilation), ").");
    TORCH_CHECK(output_padding[i] >= 0, op, ": negative output_padding is not "
                "supported (output_padding=", shape_str(output_padding), ").");
    TORCH_CHECK(!transposed || output_padding[i] < std::max(stride[i], dilation[i]), op,
                ": output padding must be smaller than either stride or dilation, but "
                "got output_padding=", shape_str(output_padding), ", stride=",
                shape_str(stride), ", dilation=", shape_str(dilation), ".");
  }
  TORCH_CHECK(groups > 0, op, ": non-positive groups is not supported (groups=", groups,
              ").");
  TORCH_CHECK(weight.size(0) % groups == 0, op, ": given groups=", groups,
              ", expected weight to be divisible by ", groups, " at dimension 0, but "
              "got weight of size ", shape_str(weight.sizes()), " instead.");
  const int64_t in_channels = transposed ? weight.size(0) : weight.size(1) * groups;
  TORCH_CHECK(input.size(1) == in_channels, op, ": given groups=", groups,
              transposed ? ", transposed=1" : "", ", weight of size ",
              shape_str(weight.sizes()), ", expected input", shape_str(input.sizes()),
              " to have ", in_channels, " channels, but got ", input.size(1),
              " channels instead.");
  const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  TORCH_CHECK(!has_bias || (bias->dim() == 1 && bias->size(0) == out_channels), op,
              ": given weight of size ", shape_str(weight.sizes()),
              ", expected bias to be 1-dimensional with ", out_channels,
              " elements, but got bias of size ", shape_str(bias->sizes()), " instead.");

  Prepared p;
  p.one_d = k == 1;
  p.transposed = transposed;
  p.input = p.one_d ? input.unsqueeze(2) : input;
  p.weight = p.one_d ? weight.unsqueeze(2) : weight;
  p.channels_last = is_channels_last(p.input);
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

// A new 4-d result, channels-last when the input is.
at::Tensor new_4d(c10::IntArrayRef sizes, const at::Tensor& like, bool channels_last) {
  if (channels_last) {
    return at::empty(sizes, like.options(), c10::MemoryFormat::ChannelsLast);
  }
  return at::empty(sizes, like.options());
}

// A tensor oneDNN can wrap: NCHW- or NHWC-contiguous.
at::Tensor dense(const at::Tensor& t) {
  return t.is_contiguous() || is_channels_last(t) ? t : t.contiguous();
}

bool nonempty(const ConvGeometry& g) {
  return g.N > 0 && g.Cx > 0 && g.Cy > 0 && g.Hx > 0 && g.Wx > 0 && g.Hy > 0 &&
         g.Wy > 0;
}

// Runs `plain` on contiguous copies of the inputs into `out`, through a
// contiguous temporary when `out` is not contiguous.
template <typename F>
void into(const at::Tensor& out, const F& plain) {
  if (out.is_contiguous()) {
    plain(out);
    return;
  }
  at::Tensor tmp = at::empty(out.sizes(), out.options());
  plain(tmp);
  out.copy_(tmp);
}

template <typename T>
const T* ptr(const at::Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}

// The three products of the geometry on 4-d tensors, into preallocated
// outputs: oneDNN for float32 when it takes the case, else the plain loops.
void forward(const ConvGeometry& g, const at::Tensor& x, const at::Tensor& w,
             const at::Tensor& bias, const at::Tensor& y) {
  const at::Tensor wc = w.contiguous();
  const at::Tensor bc = bias.defined() ? bias.contiguous() : bias;
  if (x.scalar_type() == c10::ScalarType::Float && nonempty(g) &&
      conv_detail::onednn_forward(g, dense(x), wc, bc, y)) {
    return;
  }
  const at::Tensor xc = x.contiguous();
  into(y, [&](const at::Tensor& out) {
    if (x.scalar_type() == c10::ScalarType::Float) {
      conv_detail::plain_forward<float>(g, ptr<float>(xc), ptr<float>(wc), ptr<float>(bc),
                                        static_cast<float*>(out.data_ptr()));
    } else {
      conv_detail::plain_forward<double>(g, ptr<double>(xc), ptr<double>(wc),
                                         ptr<double>(bc), static_cast<double*>(out.data_ptr()));
    }
  });
}

void backward_data(const ConvGeometry& g, const at::Tensor& dy, const at::Tensor& w,
                   const at::Tensor& dx) {
  const at::Tensor wc = w.contiguous();
  if (dy.scalar_type() == c10::ScalarType::Float && nonempty(g) &&
      conv_detail::onednn_backward_data(g, dense(dy), wc, dx)) {
    return;
  }
  const at::Tensor dyc = dy.contiguous();
  into(dx, [&](const at::Tensor& out) {
    if (dy.scalar_type() == c10::ScalarType::Float) {
      conv_detail::plain_backward_data<float>(g, ptr<float>(dyc), ptr<float>(wc),
                                              static_cast<float*>(out.data_ptr()));
    } else {
      conv_detail::plain_backward_data<double>(g, ptr<double>(dyc), ptr<double>(wc),
                                               static_cast<double*>(out.data_ptr()));
    }
  });
}

// Returns whether dbias (when defined) was filled too.
bool backward_weights(const ConvGeometry& g, const at::Tensor& x, const at::Tensor& dy,
                      const at::Tensor& dw, const at::Tensor& dbias) {
  if (x.scalar_type() == c10::ScalarType::Float && nonempty(g) &&
      conv_detail::onednn_backward_weights(g, dense(x), dense(dy), dw, dbias)) {
    return true;
  }
  const at::Tensor xc = x.contiguous(), dyc = dy.contiguous();
  into(dw, [&](const at::Tensor& out) {
    if (x.scalar_type() == c10::ScalarType::Float) {
      conv_detail::plain_backward_weights<float>(g, ptr<float>(xc), ptr<float>(dyc),
                                                 static_cast<float*>(out.data_ptr()));
    } else {
      conv_detail::plain_backward_weights<double>(g, ptr<double>(xc), ptr<double>(dyc),
                                                  static_cast<double*>(out.data_ptr()));
    }
  });
  return false;
}

}  // namespace

at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight,
                       const std::optional<at::Tensor>& bias, c10::IntArrayRef stride,
                       c10::IntArrayRef padding, c10::IntArrayRef dilation,
                       bool transposed, c10::IntArrayRef output_padding,
                       int64_t groups) {
  const Prepared p = prepare(input, weight, bias, stride, padding, dilation, transposed,
                             output_padding, groups, "convolution");
  const ConvGeometry& g = p.g;
  const at::Tensor b = bias.has_value() && bias->defined() ? *bias : at::Tensor();
  if (!transposed) {
    at::Tensor y = new_4d({g.N, g.Cy, g.Hy, g.Wy}, input, p.channels_last);
    forward(g, p.input, p.weight, b, y);
    return p.one_d ? y.squeeze(2) : y;
  }
  at::Tensor x = new_4d({g.N, g.Cx, g.Hx, g.Wx}, input, p.channels_last);
  backward_data(g, p.input, p.weight, x);
  if (b.defined()) x.add_(b.view({1, g.Cx, 1, 1}));
  return p.one_d ? x.squeeze(2) : x;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight,
    c10::OptionalIntArrayRef bias_sizes, c10::IntArrayRef stride,
    c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed,
    c10::IntArrayRef output_padding, int64_t groups,
    const std::vector<bool>& output_mask) {
  const char* op = "convolution_backward";
  TORCH_CHECK(output_mask.size() == 3, op, ": output_mask must have 3 entries "
              "(input, weight, bias), but has ", output_mask.size(), ".");
  const Prepared p = prepare(input, weight, std::nullopt, stride, padding, dilation,
                             transposed, output_padding, groups, op);
  const ConvGeometry& g = p.g;
  TORCH_CHECK(grad_output.sizes() == c10::IntArrayRef(p.output_shape), op,
              ": expected grad_output of size ", shape_str(p.output_shape),
              " (the convolution's output), but got ", shape_str(grad_output.sizes()), ".");
  TORCH_CHECK(grad_output.scalar_type() == input.scalar_type(), op, ": grad_output (",
              grad_output.scalar_type(), ") and input (", input.scalar_type(),
              ") must have the same dtype.");
  const int64_t out_channels = transposed ? g.Cx : g.Cy;
  TORCH_CHECK(!bias_sizes.has_value() ||
                  (bias_sizes->size() == 1 && (*bias_sizes)[0] == out_channels),
              op, ": bias_sizes must be [", out_channels, "], but got ",
              bias_sizes.has_value() ? shape_str(*bias_sizes) : std::string("None"), ".");
  const at::Tensor go = p.one_d ? grad_output.unsqueeze(2) : grad_output;

  at::Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) grad_input = new_4d(p.input.sizes(), input, p.channels_last);
  if (output_mask[1]) grad_weight = at::empty(p.weight.sizes(), weight.options());
  if (output_mask[2]) grad_bias = at::empty({out_channels}, grad_output.options());
  bool bias_done = false;
  const bool both = output_mask[0] && output_mask[1];
  if (!transposed && both && input.scalar_type() == c10::ScalarType::Float && nonempty(g) &&
      conv_detail::onednn_backward(g, dense(p.input), dense(go), p.weight.contiguous(),
                                   grad_input, grad_weight, grad_bias)) {
    bias_done = true;
  } else if (!transposed) {
    if (output_mask[0]) backward_data(g, go, p.weight, grad_input);
    if (output_mask[1]) bias_done = backward_weights(g, p.input, go, grad_weight, grad_bias);
  } else {
    // See Note [Convolution geometry]: grad_output plays X, input plays Y.
    if (output_mask[0]) forward(g, go, p.weight, at::Tensor(), grad_input);
    if (output_mask[1]) backward_weights(g, go, p.input, grad_weight, at::Tensor());
  }
  if (output_mask[2] && !bias_done) {
    grad_bias = go.numel() == 0 ? at::zeros({out_channels}, grad_output.options())
                                : at::sum(go, c10::IntArrayRef({0, 2, 3}));
  }
  if (p.one_d) {
    if (grad_input.defined()) grad_input = grad_input.squeeze(2);
    if (grad_weight.defined()) grad_weight = grad_weight.squeeze(2);
  }
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace ember::cpu
