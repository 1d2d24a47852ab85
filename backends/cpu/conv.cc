// convolution and convolution_backward on the CPU: argument checks, the
// geometry of the direct convolution behind each call (See Note
// [Convolution geometry]), and the choice between oneDNN (float32) and the
// plain loops.
#include "backends/cpu/conv.h"

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "aten/ConvUtils.h"
#include "aten/Functions.h"
#include "backends/cpu/conv_impl.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

using conv_detail::ConvGeometry;

bool is_channels_last(const at::Tensor& t) {
  if (t.dim() != 4 || t.is_contiguous() || t.size(1) < 2) return false;
  const int64_t C = t.size(1), W = t.size(3), H = t.size(2);
  return t.stride(1) == 1 && t.stride(3) == C && (H == 1 || t.stride(2) == W * C) &&
         (t.size(0) == 1 || t.stride(0) == H * W * C);
}

// A call's arguments, checked (the core's conv_plan), and whether the input
// is channels-last (results then are too).
struct Prepared : at::native::ConvPlan {
  bool channels_last = false;
};

Prepared prepare(const at::Tensor& input, const at::Tensor& weight,
                 const std::optional<at::Tensor>& bias, c10::IntArrayRef stride,
                 c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed,
                 c10::IntArrayRef output_padding, int64_t groups, const char* op) {
  Prepared p;
  static_cast<at::native::ConvPlan&>(p) = at::native::conv_plan(
      input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, op);
  p.channels_last = is_channels_last(p.input);
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
  at::native::check_conv_output_mask(output_mask, op);
  const Prepared p = prepare(input, weight, std::nullopt, stride, padding, dilation,
                             transposed, output_padding, groups, op);
  const ConvGeometry& g = p.g;
  at::native::check_conv_grad(grad_output, input, p, bias_sizes, op);
  const int64_t out_channels = transposed ? g.Cx : g.Cy;
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
