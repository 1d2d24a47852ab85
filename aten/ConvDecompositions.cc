// aten/ConvDecompositions.cc — see ConvDecompositions.h. The three products
// of Note [Convolution geometry] (aten/ConvUtils.h) on 4-d tensors, as
// "columns": column (n, i, j) of group k holds the Cx/G * KH * KW input taps
// of output (n, ., i, j), so forward and the weight gradient are batched
// matrix products over the groups, and the input gradient is the product
// folded back by a scatter_add over the padded input.
#include "aten/ConvDecompositions.h"

#include <algorithm>

#include "aten/ConvUtils.h"
#include "aten/Functions.h"
#include "registration/library.h"

namespace at {
namespace native {

namespace {

// The padded input's extents: X plus padding, large enough for every window.
int64_t padded_h(const ConvGeometry& g) {
  return std::max(g.Hx + 2 * g.ph, (g.Hy - 1) * g.sh + (g.KH - 1) * g.dh + 1);
}
int64_t padded_w(const ConvGeometry& g) {
  return std::max(g.Wx + 2 * g.pw, (g.Wy - 1) * g.sw + (g.KW - 1) * g.dw + 1);
}

// X [N, Cx, Hx, Wx] as columns [G, N * Hy * Wy, Cx/G * KH * KW].
Tensor columns(const ConvGeometry& g, const Tensor& x) {
  const int64_t Hp = padded_h(g), Wp = padded_w(g), cg = g.Cx / g.G;
  Tensor xp = at::zeros({g.N, g.Cx, Hp, Wp}, x.options());
  xp.narrow(2, g.ph, g.Hx).narrow(3, g.pw, g.Wx).copy_(x);
  const Tensor taps = xp.as_strided({g.N, g.G, cg, g.Hy, g.Wy, g.KH, g.KW},
                                    {g.Cx * Hp * Wp, cg * Hp * Wp, Hp * Wp, g.sh * Wp, g.sw,
                                     g.dh * Wp, g.dw},
                                    xp.storage_offset());
  return taps.permute({1, 0, 3, 4, 2, 5, 6}).reshape({g.G, g.N * g.Hy * g.Wy, cg * g.KH * g.KW});
}

// Y [N, Cy, Hy, Wy] as [G, N * Hy * Wy, Cy/G] (rows: outputs, as columns()).
Tensor y_rows(const ConvGeometry& g, const Tensor& y) {
  return y.reshape({g.N, g.G, g.Cy / g.G, g.Hy, g.Wy})
      .permute({1, 0, 3, 4, 2})
      .reshape({g.G, g.N * g.Hy * g.Wy, g.Cy / g.G});
}

// W [Cy, Cx/G, KH, KW] as [G, Cy/G, Cx/G * KH * KW].
Tensor w_rows(const ConvGeometry& g, const Tensor& w) {
  return w.reshape({g.G, g.Cy / g.G, g.Cx / g.G * g.KH * g.KW});
}

Tensor forward(const ConvGeometry& g, const Tensor& x, const Tensor& w) {
  const Tensor y = at::bmm(columns(g, x), w_rows(g, w).transpose(1, 2));  // [G, M, Cy/G]
  return y.reshape({g.G, g.N, g.Hy, g.Wy, g.Cy / g.G})
      .permute({1, 0, 4, 2, 3})
      .reshape({g.N, g.Cy, g.Hy, g.Wy});
}

Tensor backward_weights(const ConvGeometry& g, const Tensor& x, const Tensor& dy) {
  return at::bmm(y_rows(g, dy).transpose(1, 2), columns(g, x))
      .reshape({g.Cy, g.Cx / g.G, g.KH, g.KW});
}

Tensor backward_data(const ConvGeometry& g, const Tensor& dy, const Tensor& w) {
  const int64_t Hp = padded_h(g), Wp = padded_w(g), cg = g.Cx / g.G;
  const int64_t taps = g.Hy * g.Wy * g.KH * g.KW;
  // The column gradients, one row of taps per (n, input channel).
  const Tensor cols = at::bmm(y_rows(g, dy), w_rows(g, w))  // [G, M, cg * KH * KW]
                          .reshape({g.G, g.N, g.Hy, g.Wy, cg, g.KH, g.KW})
                          .permute({1, 0, 4, 2, 3, 5, 6})
                          .reshape({g.N * g.Cx, taps});
  // Where tap (i, j, kh, kw) lies in a padded plane; the same for every plane.
  const TensorOptions longs = dy.options().dtype(c10::kLong);
  auto along = [&](int64_t n, int64_t step, int d) {
    std::vector<int64_t> shape{1, 1, 1, 1};
    shape[static_cast<size_t>(d)] = n;
    return at::mul(at::arange(n, longs), step).reshape(shape);
  };
  const Tensor pos = at::add(at::add(along(g.Hy, g.sh * Wp, 0), along(g.Wy, g.sw, 1)),
                             at::add(along(g.KH, g.dh * Wp, 2), along(g.KW, g.dw, 3)))
                         .reshape({1, taps})
                         .expand({g.N * g.Cx, taps});
  Tensor dxp = at::zeros({g.N * g.Cx, Hp * Wp}, dy.options());
  dxp.scatter_add_(1, pos, cols);
  return dxp.reshape({g.N, g.Cx, Hp, Wp}).narrow(2, g.ph, g.Hx).narrow(3, g.pw, g.Wx).contiguous();
}

Tensor squeezed(const Tensor& t, bool one_d) { return one_d ? t.squeeze(2) : t; }

}  // namespace

Tensor convolution_decomposed(const Tensor& input, const Tensor& weight,
                              const std::optional<Tensor>& bias, c10::IntArrayRef stride,
                              c10::IntArrayRef padding, c10::IntArrayRef dilation,
                              bool transposed, c10::IntArrayRef output_padding, int64_t groups) {
  const ConvPlan p = conv_plan(input, weight, bias, stride, padding, dilation, transposed,
                               output_padding, groups, "convolution");
  const ConvGeometry& g = p.g;
  // A transposed convolution's output is the direct one's input gradient.
  Tensor out = transposed ? backward_data(g, p.input, p.weight) : forward(g, p.input, p.weight);
  if (bias.has_value() && bias->defined()) {
    out = at::add(out, bias->reshape({1, transposed ? g.Cx : g.Cy, 1, 1}));
  }
  return squeezed(out, p.one_d);
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_decomposed(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight,
    c10::OptionalIntArrayRef bias_sizes, c10::IntArrayRef stride, c10::IntArrayRef padding,
    c10::IntArrayRef dilation, bool transposed, c10::IntArrayRef output_padding,
    int64_t groups, const std::vector<bool>& output_mask) {
  const char* op = "convolution_backward";
  check_conv_output_mask(output_mask, op);
  const ConvPlan p = conv_plan(input, weight, std::nullopt, stride, padding, dilation,
                               transposed, output_padding, groups, op);
  check_conv_grad(grad_output, input, p, bias_sizes, op);
  const ConvGeometry& g = p.g;
  const Tensor go = p.one_d ? grad_output.unsqueeze(2) : grad_output;
  Tensor grad_input, grad_weight, grad_bias;
  if (!transposed) {
    if (output_mask[0]) grad_input = backward_data(g, go, p.weight);
    if (output_mask[1]) grad_weight = backward_weights(g, p.input, go);
  } else {
    // Note [Convolution geometry]: grad_output plays X, input plays Y.
    if (output_mask[0]) grad_input = forward(g, go, p.weight);
    if (output_mask[1]) grad_weight = backward_weights(g, go, p.input);
  }
  if (output_mask[2]) grad_bias = at::sum(go, c10::IntArrayRef({0, 2, 3}));
  if (grad_input.defined()) grad_input = squeezed(grad_input, p.one_d);
  if (grad_weight.defined()) grad_weight = squeezed(grad_weight, p.one_d);
  return {grad_input, grad_weight, grad_bias};
}

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("convolution", TORCH_FN(convolution_decomposed));
  m.impl("convolution_backward", TORCH_FN(convolution_backward_decomposed));
}

}  // namespace native
}  // namespace at
