// The 3-d convolutions and pooling of torch::nn::functional (conv3d,
// conv_transpose3d, max_pool3d, avg_pool3d, adaptive_avg_pool3d,
// adaptive_max_pool1d/3d). Ember has no 3-d kernels; each function is a
// composite of differentiable aten ops, so autograd needs no derivative of
// its own. See Note [3-d layers from 2-d kernels].
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <variant>
#include <vector>

#include "c10/util/Exception.h"
#include "c10/util/StringUtil.h"
#include "aten/TensorFactory.h"
#include "nn/functional.h"

namespace torch {
namespace nn {
namespace functional {

// Note [3-d layers from 2-d kernels]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A 3-d window is a stack of 2-d windows along the depth. conv3d runs one
// conv2d per kernel depth kd over the depth slices kd * dilation + d *
// stride (one strided slice of the padded input, folded into the batch)
// and sums the kD results; conv_transpose3d runs one conv_transpose2d per
// kd and adds each result at depth d * stride + kd * dilation (zero
// stuffing by cat, shifting by padding). max_pool3d/avg_pool3d pool H and W
// with the 2-d kernels (avg as a sum: divisor_override 1) and combine the
// kD strided depth slices with maximum / add; avg then divides by the
// window counts, which factor per dimension as in PyTorch's avg_pool3d.
// Adaptive pooling is separable too: the mean of a box is a mean per
// dimension (a [out, in] averaging matrix), its max a max per dimension.
// Memory: kD intermediate results of the output's size.

namespace {

void check_defined(const char* where, const char* what, const Tensor& t) {
  TORCH_CHECK(t.defined(), where, ": the ", what, " tensor is undefined; pass a tensor.");
}

void check_rank(const char* where, const Tensor& input, int64_t spatial, const char* layout) {
  check_defined(where, "input", input);
  TORCH_CHECK(input.dim() == spatial + 1 || input.dim() == spatial + 2, where, ": expected a ",
              spatial + 1, "-d (unbatched) or ", spatial + 2, "-d (batched) input ", layout,
              ", but got a ", input.dim(), "-d input of sizes ", input.sizes(), ".");
}

at::TensorOptions like(const Tensor& x) {
  return at::TensorOptions().dtype(x.scalar_type()).device(x.device());
}

// x with `before` and `after` elements of `value` along dim; a negative
// count removes elements at that end instead (all of them, if it is more
// than there are).
Tensor pad_dim(const Tensor& x, int64_t dim, int64_t before, int64_t after, double value) {
  const int64_t size = x.size(dim);
  const int64_t keep_start = std::max<int64_t>(-before, 0);
  const int64_t keep_end = size - std::max<int64_t>(-after, 0);
  auto block = [&](int64_t n) {
    std::vector<int64_t> shape = x.sizes().vec();
    shape[dim] = n;
    return at::full(shape, value, like(x));
  };
  if (keep_end <= keep_start) return block(before + size + after);
  const Tensor kept = x.narrow(dim, keep_start, keep_end - keep_start);
  if (before <= 0 && after <= 0) return kept;
  std::vector<Tensor> parts;
  if (before > 0) parts.push_back(block(before));
  parts.push_back(kept);
  if (after > 0) parts.push_back(block(after));
  return at::cat(parts, dim);
}

// Window kk of `out` windows along dim: elements kk * dilation + o * stride.
Tensor window_tap(const Tensor& x, int64_t dim, int64_t kk, int64_t stride, int64_t dilation,
                  int64_t out) {
  const int64_t start = kk * dilation;
  return at::slice(x, dim, start, start + (out - 1) * stride + 1, stride);
}

void check_conv_params(const char* where, at::IntArrayRef stride, at::IntArrayRef dilation,
                       int64_t groups) {
  for (size_t i = 0; i < 3; ++i) {
    TORCH_CHECK(stride[i] > 0 && dilation[i] > 0, where, ": stride and dilation must be "
                "positive, but got stride=", stride, ", dilation=", dilation, ".");
  }
  TORCH_CHECK(groups > 0, where, ": groups must be positive, but got ", groups, ".");
}

// ---- pooling geometry (one dimension) ----
struct PoolDim {
  int64_t in, k, s, p, d, out;
};

PoolDim pool_dim(const char* where, int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                 bool ceil_mode, const Tensor& input) {
  TORCH_CHECK(k > 0 && s > 0 && d > 0, where, ": kernel_size, stride and dilation must be "
              "positive, but got kernel_size=", k, ", stride=", s, ", dilation=", d, ".");
  TORCH_CHECK(p >= 0 && 2 * p <= k, where, ": padding must be between 0 and half of "
              "kernel_size (", k, "), but got ", p, ".");
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  TORCH_CHECK(span >= 0, where, ": the input of sizes ", input.sizes(), " is too small for "
              "kernel_size ", k, " with padding ", p, " and dilation ", d, "; the output "
              "would be empty.");
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  // The last window must start inside the input or its left padding.
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return {in, k, s, p, d, out};
}

// Combines the k windows of depth dimension `dim` (padded with `fill`).
Tensor pool_depth(const Tensor& x, int64_t dim, const PoolDim& g, double fill, bool max) {
  const int64_t needed = (g.out - 1) * g.s + g.d * (g.k - 1) + 1;
  const Tensor padded = pad_dim(x, dim, g.p, needed - g.in - g.p, fill);
  Tensor acc = window_tap(padded, dim, 0, g.s, g.d, g.out);
  for (int64_t kk = 1; kk < g.k; ++kk) {
    const Tensor tap = window_tap(padded, dim, kk, g.s, g.d, g.out);
    acc = max ? at::maximum(acc, tap) : acc + tap;
  }
  return acc;
}

// Element counts of the windows of one dimension, as avg_pool divides.
std::vector<double> window_counts(const PoolDim& g, bool count_include_pad) {
  std::vector<double> counts(g.out);
  for (int64_t o = 0; o < g.out; ++o) {
    const int64_t start = o * g.s - g.p;
    const int64_t end = std::min(start + g.k, g.in + g.p);
    counts[o] = count_include_pad
                    ? static_cast<double>(end - start)
                    : static_cast<double>(std::min(end, g.in) - std::max<int64_t>(start, 0));
  }
  return counts;
}

Tensor double_tensor(const std::vector<double>& v) {
  return at::tensor(c10::ArrayRef<double>(v));
}

// [*, D, H, W] -> [prod(*) * D, H, W], pooled by `pool2d`, back to
// [*, D, H', W'].
template <typename Pool2d>
Tensor pool_planes(const Tensor& x, Pool2d pool2d) {
  const int64_t h = x.size(-2), w = x.size(-1);
  const Tensor y = pool2d(x.reshape({-1, h, w}));
  std::vector<int64_t> shape = x.sizes().vec();
  shape[shape.size() - 2] = y.size(-2);
  shape[shape.size() - 1] = y.size(-1);
  return y.reshape(shape);
}

// Cell i of `out` cells over `in` elements: [floor(i in / out), ceil((i + 1) in / out)).
int64_t cell_start(int64_t i, int64_t in, int64_t out) { return (i * in) / out; }
int64_t cell_end(int64_t i, int64_t in, int64_t out) { return ((i + 1) * in + out - 1) / out; }

void check_adaptive(const char* where, const Tensor& input, int64_t spatial,
                    at::IntArrayRef output_size, const char* layout) {
  check_rank(where, input, spatial, layout);
  for (int64_t i = 1; i <= spatial; ++i) {
    TORCH_CHECK(input.size(-i) > 0, where, ": expected non-empty spatial dimensions, but got "
                "input of sizes ", input.sizes(), ".");
  }
  for (int64_t v : output_size) {
    TORCH_CHECK(v > 0, where, ": output_size must be positive, but got ", output_size, ".");
  }
}

// Max over the adaptive cells of each of the trailing output_size.size()
// dimensions in turn.
Tensor adaptive_max_trailing(const Tensor& input, at::IntArrayRef output_size) {
  Tensor y = input;
  const int64_t n = static_cast<int64_t>(output_size.size());
  for (int64_t i = 0; i < n; ++i) {
    const int64_t dim = y.dim() - n + i, in = y.size(dim), out = output_size[i];
    if (in == out) continue;
    std::vector<Tensor> cells;
    cells.reserve(out);
    for (int64_t c = 0; c < out; ++c) {
      const int64_t b = cell_start(c, in, out), e = cell_end(c, in, out);
      cells.push_back(std::get<0>(y.narrow(dim, b, e - b).max(dim, /*keepdim=*/true)));
    }
    y = at::cat(cells, dim);
  }
  return y;
}

}  // namespace

// ---- convolutions ----

Tensor conv3d(const Tensor& input, const Tensor& weight, const Conv3dFuncOptions& options) {
  check_rank("conv3d", input, 3, "[C, D, H, W] / [N, C, D, H, W]");
  check_defined("conv3d", "weight", weight);
  TORCH_CHECK(weight.dim() == 5, "conv3d: expected a 5-d weight [out_channels, in_channels / "
              "groups, kD, kH, kW], but got sizes ", weight.sizes(), ".");
  const int64_t groups = options.groups();
  check_conv_params("conv3d", options.stride(), options.dilation(), groups);
  const bool batched = input.dim() == 5;
  Tensor x = batched ? input : input.unsqueeze(0);
  TORCH_CHECK(x.size(1) == weight.size(1) * groups, "conv3d: the input has ", x.size(1),
              " channels (sizes ", input.sizes(), ") but the weight ", weight.sizes(),
              " with groups=", groups, " expects ", weight.size(1) * groups, ".");
  const auto& stride = *options.stride();
  const auto& dilation = *options.dilation();
  int64_t pad[3] = {0, 0, 0};
  if (const auto* p = std::get_if<ExpandingArray<3>>(&options.padding())) {
    for (int i = 0; i < 3; ++i) {
      TORCH_CHECK((**p)[i] >= 0, "conv3d: padding must be non-negative, but got ", *p, ".");
      pad[i] = (**p)[i];
    }
  } else if (std::holds_alternative<enumtype::kSame>(options.padding())) {
    for (int i = 0; i < 3; ++i) {
      TORCH_CHECK(stride[i] == 1, "conv3d: padding='same' needs stride 1, but got stride ",
                  options.stride(), "; use explicit padding for strided convolutions.");
      // As PyTorch: the odd element of the total padding goes to the end.
      const int64_t total = dilation[i] * (weight.size(2 + i) - 1);
      x = pad_dim(x, 2 + i, total / 2, total - total / 2, 0.0);
    }
  }
  x = pad_dim(x, 2, pad[0], pad[0], 0.0);
  const int64_t n = x.size(0), depth = x.size(2), kd = weight.size(2);
  const int64_t span = depth - dilation[0] * (kd - 1) - 1;
  TORCH_CHECK(span >= 0, "conv3d: the input of sizes ", input.sizes(), " (depth ",
              depth - 2 * pad[0], " with padding ", pad[0], ") is smaller than the kernel's "
              "depth ", kd, " with dilation ", dilation[0], ".");
  const int64_t out_depth = span / stride[0] + 1;
  const int64_t hw_stride[2] = {stride[1], stride[2]}, hw_pad[2] = {pad[1], pad[2]},
                hw_dilation[2] = {dilation[1], dilation[2]};
  Tensor acc;
  for (int64_t k = 0; k < kd; ++k) {
    // [N, C, D', H, W] -> [N * D', C, H, W]
    const Tensor taps = window_tap(x, 2, k, stride[0], dilation[0], out_depth)
                            .transpose(1, 2)
                            .reshape({n * out_depth, x.size(1), x.size(3), x.size(4)});
    const Tensor y = at::conv2d(taps, weight.select(2, k), std::nullopt, hw_stride, hw_pad,
                                hw_dilation, groups);
    acc = acc.defined() ? acc + y : y;
  }
  Tensor out = acc.reshape({n, out_depth, acc.size(1), acc.size(2), acc.size(3)}).transpose(1, 2);
  if (options.bias().defined()) out = out + options.bias().reshape({1, -1, 1, 1, 1});
  return batched ? out : out.squeeze(0);
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose3dFuncOptions& options) {
  check_rank("conv_transpose3d", input, 3, "[C, D, H, W] / [N, C, D, H, W]");
  check_defined("conv_transpose3d", "weight", weight);
  TORCH_CHECK(weight.dim() == 5, "conv_transpose3d: expected a 5-d weight [in_channels, "
              "out_channels / groups, kD, kH, kW], but got sizes ", weight.sizes(), ".");
  const int64_t groups = options.groups();
  check_conv_params("conv_transpose3d", options.stride(), options.dilation(), groups);
  const auto& stride = *options.stride();
  const auto& dilation = *options.dilation();
  const auto& padding = *options.padding();
  const auto& output_padding = *options.output_padding();
  for (int i = 0; i < 3; ++i) {
    TORCH_CHECK(padding[i] >= 0 && output_padding[i] >= 0, "conv_transpose3d: padding and "
                "output_padding must be non-negative, but got padding=", options.padding(),
                ", output_padding=", options.output_padding(), ".");
    TORCH_CHECK(output_padding[i] < std::max(stride[i], dilation[i]), "conv_transpose3d: "
                "output_padding must be smaller than either stride or dilation, but got "
                "output_padding=", options.output_padding(), ", stride=", options.stride(),
                ", dilation=", options.dilation(), ".");
  }
  const bool batched = input.dim() == 5;
  const Tensor x = batched ? input : input.unsqueeze(0);
  TORCH_CHECK(x.size(1) == weight.size(0), "conv_transpose3d: the input has ", x.size(1),
              " channels (sizes ", input.sizes(), ") but the weight ", weight.sizes(),
              " expects ", weight.size(0), " (its dimension 0).");
  const int64_t n = x.size(0), depth = x.size(2), kd = weight.size(2);
  const int64_t full = (depth - 1) * stride[0] + dilation[0] * (kd - 1) + 1 + output_padding[0];
  const int64_t out_depth = full - 2 * padding[0];
  TORCH_CHECK(out_depth > 0, "conv_transpose3d: the output depth would be ", out_depth,
              " for input of sizes ", input.sizes(), " and padding ", padding[0],
              "; use less padding.");
  const int64_t hw_stride[2] = {stride[1], stride[2]}, hw_pad[2] = {padding[1], padding[2]},
                hw_output_padding[2] = {output_padding[1], output_padding[2]},
                hw_dilation[2] = {dilation[1], dilation[2]};
  // [N, C, D, H, W] -> [N * D, C, H, W]
  const Tensor planes =
      x.transpose(1, 2).reshape({n * depth, x.size(1), x.size(3), x.size(4)});
  Tensor acc;
  for (int64_t k = 0; k < kd; ++k) {
    Tensor y = at::conv_transpose2d(planes, weight.select(2, k), std::nullopt, hw_stride, hw_pad,
                                    hw_output_padding, groups, hw_dilation);
    y = y.reshape({n, depth, y.size(1), y.size(2), y.size(3)});
    if (stride[0] > 1) {  // d -> d * stride: stuff stride - 1 zero planes after each
      std::vector<int64_t> zeros_shape{n, depth, stride[0] - 1, y.size(2), y.size(3), y.size(4)};
      y = at::cat({y.unsqueeze(2), at::zeros(zeros_shape, like(y))}, 2)
              .reshape({n, depth * stride[0], y.size(2), y.size(3), y.size(4)})
              .narrow(1, 0, (depth - 1) * stride[0] + 1);
    }
    const int64_t shift = k * dilation[0] ;
    // Shift by k * dilation, keep the depths [padding, padding + out_depth).
    y = pad_dim(y, 1, shift - padding[0], out_depth + padding[0] - shift - y.size(1), 0.0);
    acc = acc.defined() ? acc + y : y;
  }
  Tensor out = acc.transpose(1, 2);
  if (options.bias().defined()) out = out + options.bias().reshape({1, -1, 1, 1, 1});
  return batched ? out : out.squeeze(0);
}

// ---- pooling ----

Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options) {
  check_rank("max_pool3d", input, 3, "[C, D, H, W] / [N, C, D, H, W]");
  const auto& k = *options.kernel_size();
  const auto& s = *options.stride();
  const auto& p = *options.padding();
  const auto& d = *options.dilation();
  const int64_t nd = input.dim();
  PoolDim g[3];
  for (int i = 0; i < 3; ++i) {
    g[i] = pool_dim("max_pool3d", input.size(nd - 3 + i), k[i], s[i], p[i], d[i],
                    options.ceil_mode(), input);
  }
  const Tensor planes = pool_planes(input, [&](const Tensor& t) {
    return at::max_pool2d(t, {k[1], k[2]}, {s[1], s[2]}, {p[1], p[2]}, {d[1], d[2]},
                          options.ceil_mode());
  });
  return pool_depth(planes, nd - 3, g[0], -std::numeric_limits<double>::infinity(),
                    /*max=*/true);
}

Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options) {
  check_rank("avg_pool3d", input, 3, "[C, D, H, W] / [N, C, D, H, W]");
  TORCH_CHECK(c10::isFloatingType(input.scalar_type()), "avg_pool3d: expected a floating-point "
              "input, but got ", input.scalar_type(), ".");
  const auto& k = *options.kernel_size();
  const auto& s = *options.stride();
  const auto& p = *options.padding();
  const std::optional<int64_t> divisor = options.divisor_override();
  TORCH_CHECK(!divisor || *divisor != 0, "avg_pool3d: divisor_override must not be zero.");
  const int64_t nd = input.dim();
  PoolDim g[3];
  for (int i = 0; i < 3; ++i) {
    g[i] = pool_dim("avg_pool3d", input.size(nd - 3 + i), k[i], s[i], p[i], 1,
                    options.ceil_mode(), input);
  }
  // Window sums over H and W (zeros in the padding), then over the depth.
  const Tensor planes = pool_planes(input, [&](const Tensor& t) {
    return at::avg_pool2d(t, {k[1], k[2]}, {s[1], s[2]}, {p[1], p[2]}, options.ceil_mode(),
                          /*count_include_pad=*/true, /*divisor_override=*/1);
  });
  const Tensor sums = pool_depth(planes, nd - 3, g[0], 0.0, /*max=*/false);
  if (divisor) return sums / static_cast<double>(*divisor);
  const Tensor cd = double_tensor(window_counts(g[0], options.count_include_pad()));
  const Tensor ch = double_tensor(window_counts(g[1], options.count_include_pad()));
  const Tensor cw = double_tensor(window_counts(g[2], options.count_include_pad()));
  const Tensor counts = cd.reshape({-1, 1, 1}) * ch.reshape({1, -1, 1}) * cw.reshape({1, 1, -1});
  return sums / counts.to(input.scalar_type());
}

Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options) {
  const auto& out = *options.output_size();
  check_adaptive("adaptive_avg_pool3d", input, 3, options.output_size(), "[C, D, H, W] / [N, C, D, H, W]");
  TORCH_CHECK(c10::isFloatingType(input.scalar_type()), "adaptive_avg_pool3d: expected a "
              "floating-point input, but got ", input.scalar_type(), ".");
  Tensor y = input;
  for (int i = 0; i < 3; ++i) {
    const int64_t dim = input.dim() - 3 + i, in = input.size(dim);
    if (in == out[i]) continue;
    // averaging[o][j] = 1 / |cell o| for j in cell o.
    std::vector<double> averaging(out[i] * in, 0.0);
    for (int64_t o = 0; o < out[i]; ++o) {
      const int64_t b = cell_start(o, in, out[i]), e = cell_end(o, in, out[i]);
      for (int64_t j = b; j < e; ++j) averaging[o * in + j] = 1.0 / static_cast<double>(e - b);
    }
    const Tensor a = double_tensor(averaging).reshape({out[i], in}).to(input.scalar_type());
    y = at::matmul(y.movedim(dim, -1), a.t()).movedim(-1, dim);
  }
  return y;
}

Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options) {
  check_adaptive("adaptive_max_pool1d", input, 1, options.output_size(), "[C, L] / [N, C, L]");
  return adaptive_max_trailing(input, options.output_size());
}

Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options) {
  check_adaptive("adaptive_max_pool3d", input, 3, options.output_size(),
                 "[C, D, H, W] / [N, C, D, H, W]");
  return adaptive_max_trailing(input, options.output_size());
}

}  // namespace functional
}  // namespace nn
}  // namespace torch
