// aten/PoolDecompositions.cc — see PoolDecompositions.h.
#include "aten/PoolDecompositions.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include "aten/Functions.h"
#include "aten/PoolUtils.h"
#include "c10/util/Exception.h"
#include "registration/library.h"

namespace at {
namespace native {

namespace {

// The lowest value of a dtype: -inf for floating dtypes.
c10::Scalar lowest_of(c10::ScalarType t) {
  switch (t) {
    case c10::kByte: return c10::Scalar(int64_t{0});
    case c10::kChar: return c10::Scalar(int64_t{std::numeric_limits<int8_t>::lowest()});
    case c10::kShort: return c10::Scalar(int64_t{std::numeric_limits<int16_t>::lowest()});
    case c10::kInt: return c10::Scalar(int64_t{std::numeric_limits<int32_t>::lowest()});
    case c10::kLong: return c10::Scalar(std::numeric_limits<int64_t>::lowest());
    default: return c10::Scalar(-std::numeric_limits<double>::infinity());
  }
}

// [1, n, 1] or [1, 1, n] Long tensors counting 0 .. n-1 on `options`' device.
Tensor counter(int64_t n, int dim, const TensorOptions& options) {
  std::vector<int64_t> shape{1, 1, 1};
  shape[static_cast<size_t>(dim)] = n;
  return at::arange(n, options.dtype(c10::kLong)).reshape(shape);
}

}  // namespace

std::tuple<Tensor, Tensor> max_pool2d_with_indices_decomposed(
    const Tensor& self, c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
    c10::IntArrayRef padding, c10::IntArrayRef dilation, bool ceil_mode) {
  const PoolGeometry g = pool_geometry(self, kernel_size, stride, padding, dilation, ceil_mode,
                                       "max_pool2d", PoolIntegers::kAll);
  // The input in a padded buffer of the lowest value, large enough for
  // every window (ceil_mode's last one may reach past the padding).
  const int64_t Hp = std::max(g.H + 2 * g.pH, (g.OH - 1) * g.sH + (g.kH - 1) * g.dH + 1);
  const int64_t Wp = std::max(g.W + 2 * g.pW, (g.OW - 1) * g.sW + (g.kW - 1) * g.dW + 1);
  Tensor padded = at::full({g.planes, Hp, Wp}, lowest_of(self.scalar_type()), self.options());
  padded.narrow(1, g.pH, g.H).narrow(2, g.pW, g.W).copy_(self.reshape({g.planes, g.H, g.W}));
  // Window (oh, ow) tap (kh, kw) is padded[oh * sH + kh * dH][ow * sW + kw * dW].
  const Tensor windows =
      padded
          .as_strided({g.planes, g.OH, g.OW, g.kH, g.kW},
                      {Hp * Wp, g.sH * Wp, g.sW, g.dH * Wp, g.dW}, padded.storage_offset())
          .reshape({g.planes, g.OH, g.OW, g.kH * g.kW});
  const auto best = at::max(windows, /*dim=*/-1);  // the first maximum in window order
  const Tensor& values = std::get<0>(best);
  const Tensor& tap = std::get<1>(best);
  // The tap as a position in the input plane.
  const TensorOptions on = self.options();
  const Tensor h0 = at::sub(at::mul(counter(g.OH, 1, on), g.sH), g.pH);  // window starts
  const Tensor w0 = at::sub(at::mul(counter(g.OW, 2, on), g.sW), g.pW);
  const Tensor h = at::add(h0, at::mul(at::div(tap, g.kW, "floor"), g.dH));
  const Tensor w = at::add(w0, at::mul(at::remainder(tap, g.kW), g.dW));
  // A tap in the padding wins only when every element of its window is the
  // lowest value; the CPU kernel names the first element inside the input:
  // its first valid row and column.
  auto first_inside = [](const Tensor& start, int64_t d) {
    return at::add(start, at::mul(at::where(at::lt(start, 0),
                                            at::div(at::add(at::neg(start), d - 1), d, "floor"),
                                            at::zeros_like(start)),
                                  d));
  };
  const Tensor outside =
      at::logical_or(at::logical_or(at::lt(h, 0), at::ge(h, g.H)),
                     at::logical_or(at::lt(w, 0), at::ge(w, g.W)));
  const Tensor index =
      at::where(outside,
                at::add(at::mul(first_inside(h0, g.dH), g.W), first_inside(w0, g.dW)),
                at::add(at::mul(h, g.W), w));
  return {values.reshape(g.out_shape), index.reshape(g.out_shape)};
}

Tensor max_pool2d_with_indices_backward_decomposed(
    const Tensor& grad_output, const Tensor& self, c10::IntArrayRef kernel_size,
    c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation,
    bool ceil_mode, const Tensor& indices) {
  const char* op = "max_pool2d_with_indices_backward";
  const PoolGeometry g =
      pool_geometry(self, kernel_size, stride, padding, dilation, ceil_mode, op);
  check_pool_grad(grad_output, self, g.out_shape, op);
  check_max_pool_indices(indices, g.out_shape, op);
  const int64_t plane_in = g.H * g.W, plane_out = g.OH * g.OW;
  const Tensor idx = indices.reshape({g.planes, plane_out});
  const Tensor inside = at::logical_and(at::ge(idx, 0), at::lt(idx, plane_in));
  // -1 marks an empty window (skipped); anything else outside the plane is
  // an error, found on the CPU only to report it.
  const Tensor bad = at::logical_and(at::logical_not(inside), at::ne(idx, -1));
  if (at::any(bad).item<bool>()) {
    const Tensor host_bad = bad.reshape({-1}).to(c10::kCPU);
    const Tensor host_idx = idx.reshape({-1}).to(c10::kCPU);
    const bool* flags = host_bad.data_ptr<bool>();
    for (int64_t i = 0; i < host_bad.numel(); ++i) {
      if (flags[i]) throw_max_pool_index(op, host_idx.data_ptr<int64_t>()[i], i, g);
    }
  }
  const Tensor grad = grad_output.reshape({g.planes, plane_out});
  Tensor grad_input = at::zeros({g.planes, plane_in}, self.options());
  grad_input.scatter_add_(1, at::where(inside, idx, at::zeros_like(idx)),
                          at::where(inside, grad, at::zeros_like(grad)));
  return grad_input.reshape(self.sizes());
}

namespace {

// Output cell (oh, ow)'s divisor and its number of elements inside the
// input, as [1, OH, OW] tensors (Long), from the CPU kernel's formulas.
struct AvgDivisors {
  Tensor divisor, inside;
};
AvgDivisors avg_divisors(const PoolGeometry& g, bool count_include_pad,
                         std::optional<int64_t> divisor_override, const TensorOptions& on) {
  const Tensor h0 = at::sub(at::mul(counter(g.OH, 1, on), g.sH), g.pH);
  const Tensor w0 = at::sub(at::mul(counter(g.OW, 2, on), g.sW), g.pW);
  const Tensor h1 = at::clamp_max(at::add(h0, g.kH), g.H + g.pH);
  const Tensor w1 = at::clamp_max(at::add(w0, g.kW), g.W + g.pW);
  const Tensor padded_area = at::mul(at::sub(h1, h0), at::sub(w1, w0));
  const Tensor rows = at::sub(at::clamp_max(h1, g.H), at::clamp_min(h0, 0));
  const Tensor cols = at::sub(at::clamp_max(w1, g.W), at::clamp_min(w0, 0));
  // An empty window has no rows or no columns inside: 0 elements.
  const Tensor inside = at::mul(at::clamp_min(rows, 0), at::clamp_min(cols, 0));
  Tensor divisor = divisor_override.has_value()
                       ? at::full_like(inside, *divisor_override)
                       : (count_include_pad ? padded_area : inside);
  return {divisor, inside};
}

// The padded extents for windows of kernel k, stride s (no dilation).
int64_t avg_padded(int64_t in, int64_t pad, int64_t out, int64_t s, int64_t k) {
  return std::max(in + 2 * pad, (out - 1) * s + k);
}

}  // namespace

Tensor avg_pool2d_decomposed(const Tensor& self, c10::IntArrayRef kernel_size,
                             c10::IntArrayRef stride, c10::IntArrayRef padding, bool ceil_mode,
                             bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d";
  const PoolGeometry g = pool_geometry(self, kernel_size, stride, padding, {1}, ceil_mode, op,
                                       PoolIntegers::kLong);
  check_avg_divisor(divisor_override, op);
  const bool integral = self.scalar_type() == c10::kLong;
  const c10::ScalarType acc = integral ? c10::kLong : c10::kDouble;
  const int64_t Hp = avg_padded(g.H, g.pH, g.OH, g.sH, g.kH);
  const int64_t Wp = avg_padded(g.W, g.pW, g.OW, g.sW, g.kW);
  Tensor padded = at::zeros({g.planes, Hp, Wp}, self.options().dtype(acc));
  padded.narrow(1, g.pH, g.H).narrow(2, g.pW, g.W).copy_(self.reshape({g.planes, g.H, g.W}));
  const Tensor sums = at::sum(
      padded.as_strided({g.planes, g.OH, g.OW, g.kH, g.kW}, {Hp * Wp, g.sH * Wp, g.sW, Wp, 1},
                        padded.storage_offset()),
      IntArrayRef({3, 4}));
  const AvgDivisors d = avg_divisors(g, count_include_pad, divisor_override, self.options());
  const Tensor avg = integral ? at::div(sums, d.divisor, "trunc")
                              : at::div(sums, d.divisor.to(c10::kDouble));
  return at::where(at::gt(d.inside, 0), avg, at::zeros_like(avg))
      .to(self.scalar_type())
      .reshape(g.out_shape);
}

Tensor avg_pool2d_backward_decomposed(const Tensor& grad_output, const Tensor& self,
                                      c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
                                      c10::IntArrayRef padding, bool ceil_mode,
                                      bool count_include_pad,
                                      std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d_backward";
  const PoolGeometry g = pool_geometry(self, kernel_size, stride, padding, {1}, ceil_mode, op,
                                       PoolIntegers::kLong);
  check_avg_divisor(divisor_override, op);
  check_pool_grad(grad_output, self, g.out_shape, op);
  const bool integral = self.scalar_type() == c10::kLong;
  const c10::ScalarType acc = integral ? c10::kLong : c10::kDouble;
  const AvgDivisors d = avg_divisors(g, count_include_pad, divisor_override, self.options());
  const Tensor grad = grad_output.reshape({g.planes, g.OH, g.OW}).to(acc);
  const Tensor share = integral ? at::div(grad, d.divisor, "trunc")
                                : at::div(grad, d.divisor.to(c10::kDouble));
  // Every tap of window (oh, ow) gets its share: taps in the padding land in
  // the padded border, which is cut off.
  const int64_t Hp = avg_padded(g.H, g.pH, g.OH, g.sH, g.kH);
  const int64_t Wp = avg_padded(g.W, g.pW, g.OW, g.sW, g.kW);
  const int64_t taps = g.OH * g.OW * g.kH * g.kW;
  const TensorOptions longs = self.options().dtype(c10::kLong);
  auto along = [&](int64_t n, int64_t step, int dim) {
    std::vector<int64_t> shape{1, 1, 1, 1};
    shape[static_cast<size_t>(dim)] = n;
    return at::mul(at::arange(n, longs), step).reshape(shape);
  };
  const Tensor pos = at::add(at::add(along(g.OH, g.sH * Wp, 0), along(g.OW, g.sW, 1)),
                             at::add(along(g.kH, Wp, 2), along(g.kW, 1, 3)))
                         .reshape({1, taps})
                         .expand({g.planes, taps});
  const Tensor src = share.reshape({g.planes, g.OH, g.OW, 1, 1})
                         .expand({g.planes, g.OH, g.OW, g.kH, g.kW})
                         .reshape({g.planes, taps});
  Tensor grad_padded = at::zeros({g.planes, Hp * Wp}, self.options().dtype(acc));
  grad_padded.scatter_add_(1, pos, src);
  return grad_padded.reshape({g.planes, Hp, Wp})
      .narrow(1, g.pH, g.H)
      .narrow(2, g.pW, g.W)
      .to(self.scalar_type())
      .reshape(self.sizes());
}

namespace {

// The [out, in] matrix whose row o averages input positions [start, end)
// of adaptive pooling, in `options`' dtype and device.
Tensor averaging_matrix(int64_t out, int64_t in, const TensorOptions& options) {
  const TensorOptions longs = options.dtype(c10::kLong);
  const Tensor o = at::arange(out, longs).reshape({out, 1});
  const Tensor i = at::arange(in, longs).reshape({1, in});
  const Tensor start = at::div(at::mul(o, in), out, "floor");
  const Tensor end = at::div(at::add(at::mul(at::add(o, 1), in), out - 1), out, "floor");
  const Tensor inside = at::logical_and(at::ge(i, start), at::lt(i, end));
  return at::div(inside.to(options.dtype()), at::sub(end, start).to(options.dtype()));
}

}  // namespace

Tensor adaptive_avg_pool2d_decomposed(const Tensor& self, c10::IntArrayRef output_size) {
  const PoolGeometry g = adaptive_pool_geometry(self, output_size, "adaptive_avg_pool2d");
  const Tensor rows = averaging_matrix(g.OH, g.H, self.options());
  const Tensor cols = averaging_matrix(g.OW, g.W, self.options());
  // [planes, H, W] -> rows @ x @ cols^T = [planes, OH, OW].
  const Tensor x = self.reshape({g.planes, g.H, g.W});
  return at::matmul(at::matmul(rows, x), cols.t()).reshape(g.out_shape);
}

Tensor adaptive_avg_pool2d_backward_decomposed(const Tensor& grad_output, const Tensor& self) {
  const PoolGeometry g =
      adaptive_pool_backward_geometry(grad_output, self, "adaptive_avg_pool2d_backward");
  const Tensor rows = averaging_matrix(g.OH, g.H, self.options());
  const Tensor cols = averaging_matrix(g.OW, g.W, self.options());
  const Tensor grad = grad_output.reshape({g.planes, g.OH, g.OW});
  return at::matmul(at::matmul(rows.t(), grad), cols).reshape(self.sizes());
}

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("_adaptive_avg_pool2d", TORCH_FN(adaptive_avg_pool2d_decomposed));
  m.impl("_adaptive_avg_pool2d_backward", TORCH_FN(adaptive_avg_pool2d_backward_decomposed));
  m.impl("avg_pool2d", TORCH_FN(avg_pool2d_decomposed));
  m.impl("avg_pool2d_backward", TORCH_FN(avg_pool2d_backward_decomposed));
  m.impl("max_pool2d_with_indices", TORCH_FN(max_pool2d_with_indices_decomposed));
  m.impl("max_pool2d_with_indices_backward",
         TORCH_FN(max_pool2d_with_indices_backward_decomposed));
}

}  // namespace native
}  // namespace at
