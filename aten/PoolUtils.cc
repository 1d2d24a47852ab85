// aten/PoolUtils.cc — see PoolUtils.h. The words are the CPU plugin's
// (tests/ops/pool_test.cc asserts them).
#include "aten/PoolUtils.h"

#include <string>

#include "c10/util/Exception.h"
#include "c10/util/StringUtil.h"

namespace at {
namespace native {

namespace {

// A two-value parameter from a list of one or two (or none: `fallback`).
void pair_of(c10::IntArrayRef p, const char* op, const char* what, bool may_be_empty,
             c10::IntArrayRef fallback, int64_t* a, int64_t* b) {
  const bool ok = p.size() == 1 || p.size() == 2 || (may_be_empty && p.empty());
  TORCH_CHECK(ok, op, ": ", what, " must ", may_be_empty ? "either be omitted, " : "be ",
              "a single int, or a tuple of two ints, but got ", p, ".");
  if (p.empty()) p = fallback;
  *a = p[0];
  *b = p.size() == 2 ? p[1] : p[0];
}

}  // namespace

void check_pool_input(const Tensor& self, const char* op, PoolIntegers ints) {
  TORCH_CHECK(self.dim() == 3 || self.dim() == 4, op, ": expected a 3-d (unbatched) or "
              "4-d (batched) input, but got input of size ", self.sizes(), ".");
  for (int64_t d = self.dim() - 3; d < self.dim(); ++d) {
    TORCH_CHECK(self.size(d) > 0, op, ": expected input to have non-zero size for "
                "non-batch dimensions, but input has sizes ", self.sizes(),
                " with dimension ", d, " being empty.");
  }
  const c10::ScalarType t = self.scalar_type();
  const bool integral = c10::isIntegralType(t, /*includeBool=*/false);
  const bool ok = c10::isFloatingType(t) || (ints == PoolIntegers::kAll && integral) ||
                  (ints == PoolIntegers::kLong && t == c10::ScalarType::Long);
  TORCH_CHECK(ok, op, ": dtype ", t, " is not supported; use a floating dtype",
              ints == PoolIntegers::kLong
                  ? " or Long"
                  : (ints == PoolIntegers::kAll ? " or an integer dtype" : ""),
              " (convert with .to()).");
}

int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil) {
  const int64_t num = in + 2 * pad - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
  int64_t out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  if (ceil && (out - 1) * s >= in + pad) --out;
  return out;
}

PoolGeometry pool_geometry(const Tensor& self, c10::IntArrayRef kernel_size,
                           c10::IntArrayRef stride, c10::IntArrayRef padding,
                           c10::IntArrayRef dilation, bool ceil_mode, const char* op,
                           PoolIntegers ints) {
  PoolGeometry p;
  pair_of(kernel_size, op, "kernel_size", false, {}, &p.kH, &p.kW);
  pair_of(stride, op, "stride", true, kernel_size, &p.sH, &p.sW);
  pair_of(padding, op, "padding", false, {}, &p.pH, &p.pW);
  pair_of(dilation, op, "dilation", false, {}, &p.dH, &p.dW);
  check_pool_input(self, op, ints);
  TORCH_CHECK(p.kH > 0 && p.kW > 0, op, ": kernel size should be greater than zero, but "
              "got kH: ", p.kH, " kW: ", p.kW, ".");
  TORCH_CHECK(p.sH > 0 && p.sW > 0, op, ": stride should be greater than zero, but got "
              "dH: ", p.sH, " dW: ", p.sW, ".");
  TORCH_CHECK(p.dH > 0 && p.dW > 0, op, ": dilation should be greater than zero, but "
              "got dilationH: ", p.dH, " dilationW: ", p.dW, ".");
  TORCH_CHECK(p.pH >= 0 && p.pW >= 0 && p.pH <= p.kH / 2 && p.pW <= p.kW / 2, op,
              ": pad should be non-negative and at most half of kernel size, but got "
              "padH = ", p.pH, ", padW = ", p.pW, ", kH = ", p.kH, ", kW = ", p.kW, ".");
  const int64_t d = self.dim();
  p.H = self.size(d - 2);
  p.W = self.size(d - 1);
  p.planes = self.size(d - 3) * (d == 4 ? self.size(0) : 1);
  p.OH = pooled_size(p.H, p.kH, p.pH, p.sH, p.dH, ceil_mode);
  p.OW = pooled_size(p.W, p.kW, p.pW, p.sW, p.dW, ceil_mode);
  TORCH_CHECK(p.OH >= 1 && p.OW >= 1, op, ": given input size: (", self.size(d - 3), "x",
              p.H, "x", p.W, "). Calculated output size: (", self.size(d - 3), "x", p.OH,
              "x", p.OW, "). Output size is too small.");
  p.out_shape = self.sizes().vec();
  p.out_shape[d - 2] = p.OH;
  p.out_shape[d - 1] = p.OW;
  return p;
}

PoolGeometry adaptive_pool_geometry(const Tensor& self, c10::IntArrayRef output_size,
                                    const char* op) {
  TORCH_CHECK(output_size.size() == 2, op, ": output_size must have 2 values, but got ",
              output_size, ".");
  TORCH_CHECK(output_size[0] >= 0 && output_size[1] >= 0, op, ": elements of "
              "output_size must be greater than or equal to 0, but got ",
              output_size, ".");
  check_pool_input(self, op);
  PoolGeometry p;
  const int64_t d = self.dim();
  p.H = self.size(d - 2);
  p.W = self.size(d - 1);
  p.planes = self.size(d - 3) * (d == 4 ? self.size(0) : 1);
  p.OH = output_size[0];
  p.OW = output_size[1];
  p.out_shape = self.sizes().vec();
  p.out_shape[d - 2] = p.OH;
  p.out_shape[d - 1] = p.OW;
  return p;
}

PoolGeometry adaptive_pool_backward_geometry(const Tensor& grad_output, const Tensor& self,
                                             const char* op) {
  TORCH_CHECK(grad_output.dim() == self.dim(), op, ": grad_output (", grad_output.sizes(),
              ") and input (", self.sizes(), ") must have the same number of dims.");
  const int64_t d = self.dim();
  const PoolGeometry p =
      adaptive_pool_geometry(self, {grad_output.size(d - 2), grad_output.size(d - 1)}, op);
  check_pool_grad(grad_output, self, p.out_shape, op);
  return p;
}

void check_avg_divisor(std::optional<int64_t> divisor_override, const char* op) {
  TORCH_CHECK(!divisor_override.has_value() || *divisor_override != 0, op,
              ": divisor must be not zero (divisor_override=0).");
}

void check_pool_grad(const Tensor& grad, const Tensor& self, const std::vector<int64_t>& shape,
                     const char* op) {
  TORCH_CHECK(grad.sizes() == c10::IntArrayRef(shape), op, ": expected grad_output of "
              "size ", c10::IntArrayRef(shape), " (the pooling's output), but got ",
              grad.sizes(), ".");
  TORCH_CHECK(grad.scalar_type() == self.scalar_type(), op, ": grad_output (",
              grad.scalar_type(), ") and input (", self.scalar_type(),
              ") must have the same dtype.");
}

void check_max_pool_indices(const Tensor& indices, const std::vector<int64_t>& shape,
                            const char* op) {
  TORCH_CHECK(indices.scalar_type() == c10::ScalarType::Long &&
                  indices.sizes() == c10::IntArrayRef(shape),
              op, ": expected Long indices of size ", c10::IntArrayRef(shape),
              " (as max_pool2d_with_indices returns), but got ", indices.scalar_type(),
              " indices of size ", indices.sizes(), ".");
}

void throw_max_pool_index(const char* op, int64_t index, int64_t position,
                          const PoolGeometry& g) {
  C10_THROW_ERROR(Error, op, ": index ", index, " at position ", position,
                  " is outside its input plane of ", g.H, "x", g.W, " elements; pass the "
                  "indices max_pool2d_with_indices returned.");
}

}  // namespace native
}  // namespace at
