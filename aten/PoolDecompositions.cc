// aten/PoolDecompositions.cc — see PoolDecompositions.h.
#include "aten/PoolDecompositions.h"

#include <algorithm>
#include <limits>

#include "aten/Functions.h"
#include "aten/PoolUtils.h"
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

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("max_pool2d_with_indices", TORCH_FN(max_pool2d_with_indices_decomposed));
  m.impl("max_pool2d_with_indices_backward",
         TORCH_FN(max_pool2d_with_indices_backward_decomposed));
}

}  // namespace native
}  // namespace at
