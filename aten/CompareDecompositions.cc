// aten/CompareDecompositions.cc — see CompareDecompositions.h.
#include "aten/CompareDecompositions.h"

#include "aten/Functions.h"
#include "c10/util/Exception.h"
#include "registration/library.h"

namespace at {
namespace native {

void check_isclose_args(const Tensor& self, const Tensor& other, double rtol, double atol) {
  TORCH_CHECK(self.defined() && other.defined(), "isclose: both tensors must be "
              "defined; pass defined tensors.");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), "isclose: ",
              self.scalar_type(), " did not match ", other.scalar_type(), "; both "
              "tensors must have the same dtype. Convert one with .to(dtype).");
  TORCH_CHECK(rtol >= 0, "isclose: rtol must be greater than or equal to zero, but "
              "got ", rtol, ".");
  TORCH_CHECK(atol >= 0, "isclose: atol must be greater than or equal to zero, but "
              "got ", atol, ".");
}

void check_equal_args(const Tensor& self, const Tensor& other) {
  TORCH_CHECK(self.defined() && other.defined(), "equal: both tensors must be "
              "defined; pass defined tensors.");
  TORCH_CHECK(self.device() == other.device(), "equal: Cannot compare two tensors on "
              "different devices. Got: ", self.device(), " and ", other.device(),
              ". Move one with .to(device).");
}

Tensor isclose_decomposed(const Tensor& self, const Tensor& other, double rtol, double atol,
                          bool equal_nan) {
  check_isclose_args(self, other, rtol, atol);
  const c10::ScalarType t = self.scalar_type();
  const Tensor same = at::eq(self, other);
  if (t == c10::kBool) return same;
  const bool floating = c10::isFloatingType(t);
  // |a - b| in the dtype for floating inputs (float for Half/BFloat16), in
  // double for integers; the tolerance always in double.
  const c10::ScalarType math = floating && t != c10::kDouble ? c10::kFloat : c10::kDouble;
  const Tensor a = self.to(math), b = other.to(math);
  const Tensor diff = at::abs(at::sub(a, b));
  Tensor tol = at::add(at::mul(at::abs(b.to(c10::kDouble)), rtol), atol);
  if (floating) tol = tol.to(math);
  Tensor close = at::logical_or(same, at::le(diff, tol));
  if (floating) {
    // An infinite difference is never close (inf <= inf would say so).
    const Tensor finite = at::logical_not(at::logical_or(at::isinf(diff), at::isnan(diff)));
    close = at::logical_or(same, at::logical_and(finite, at::le(diff, tol)));
    if (equal_nan) close = at::logical_or(close, at::logical_and(at::isnan(a), at::isnan(b)));
  }
  return close;
}

bool equal_decomposed(const Tensor& self, const Tensor& other) {
  check_equal_args(self, other);
  if (self.sizes() != other.sizes()) return false;
  if (self.numel() == 0) return true;
  return at::all(at::eq(self, other)).item<bool>();
}

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("isclose", TORCH_FN(isclose_decomposed));
  m.impl("equal", TORCH_FN(equal_decomposed));
}

}  // namespace native
}  // namespace at
