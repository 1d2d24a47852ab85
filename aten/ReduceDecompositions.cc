// aten/ReduceDecompositions.cc — the vector norms and logsumexp as
// compositions of other ops, for CompositeExplicitAutograd (see
// ReduceDecompositions.h). tests/aten:decompositions_test compares them
// with the CPU plugin's kernels.
#include "aten/ReduceDecompositions.h"

#include <cmath>
#include <limits>
#include <vector>

#include "aten/Functions.h"
#include "aten/ReduceUtils.h"
#include "c10/util/Exception.h"
#include "registration/library.h"

namespace at {
namespace native {

Tensor vector_norm_decomposed(const Tensor& self, const c10::Scalar& ord,
                              c10::OptionalIntArrayRef dims, bool keepdim,
                              std::optional<c10::ScalarType> dtype, const char* op) {
  const double p = vector_norm_order(ord, op);
  TORCH_CHECK(self.defined(), op, ": the input tensor is undefined; pass a defined tensor.");
  check_vector_norm_dtypes(self, dtype, op);
  const std::vector<bool> mask = reduce_dim_mask(self, dims, op);
  check_vector_norm_nonempty(self, mask, p, op);
  const c10::ScalarType out_type = dtype.value_or(self.scalar_type());
  std::vector<int64_t> reduced;
  for (size_t d = 0; d < mask.size(); ++d) {
    if (mask[d]) reduced.push_back(static_cast<int64_t>(d));
  }
  // A 0-dim input reduces over nothing: the list of its one "dim".
  const IntArrayRef rdims = self.dim() == 0 ? IntArrayRef{} : IntArrayRef(reduced);
  const Tensor a = at::abs(self.to(out_type));
  if (p == 0) return at::sum(at::ne(a, 0).to(out_type), rdims, keepdim);
  if (p == 1) return at::sum(a, rdims, keepdim);
  if (p == 2) return at::sqrt(at::sum(at::mul(a, a), rdims, keepdim));
  if (std::isinf(p)) return p > 0 ? at::amax(a, rdims, keepdim) : at::amin(a, rdims, keepdim);
  return at::pow(at::sum(at::pow(a, p), rdims, keepdim), 1.0 / p);
}

Tensor logsumexp_decomposed(const Tensor& self, IntArrayRef dims, bool keepdim) {
  const char* op = "logsumexp";
  TORCH_CHECK(self.defined(), op, ": the input tensor is undefined; pass a defined tensor.");
  const std::vector<bool> mask = reduce_dim_mask(self, dims, op);
  const c10::ScalarType out_type =
      c10::isFloatingType(self.scalar_type()) ? self.scalar_type() : c10::kFloat;
  const Tensor x = self.to(out_type);
  std::vector<int64_t> reduced;
  bool empty = false;
  for (size_t d = 0; d < mask.size(); ++d) {
    if (!mask[d]) continue;
    reduced.push_back(static_cast<int64_t>(d));
    empty = empty || self.size(static_cast<int64_t>(d)) == 0;
  }
  if (empty) {  // nothing to add up: log(0)
    return at::full(reduce_shape(self, mask, keepdim), -std::numeric_limits<double>::infinity(),
                    x.options());
  }
  const IntArrayRef rdims = self.dim() == 0 ? IntArrayRef{} : IntArrayRef(reduced);
  // m + log(sum(exp(x - m))), with an infinite maximum replaced by 0 (so
  // -inf - -inf is not NaN: all -inf gives log(0) = -inf, +inf gives +inf).
  const Tensor m = at::amax(x, rdims, /*keepdim=*/true);
  const Tensor shift = at::where(at::isinf(m), at::zeros_like(m), m);
  const Tensor s = at::sum(at::exp(at::sub(x, shift)), rdims, keepdim);
  return at::add(at::log(s), shift.reshape(s.sizes()));
}

namespace {

using OptScalar = std::optional<c10::Scalar>;
using OptDtype = std::optional<c10::ScalarType>;

Tensor linalg_vector_norm_composite(const Tensor& self, const c10::Scalar& ord,
                                    c10::OptionalIntArrayRef dim, bool keepdim,
                                    OptDtype dtype) {
  return vector_norm_decomposed(self, ord, dim, keepdim, dtype, "linalg.vector_norm");
}
Tensor& linalg_vector_norm_out_composite(const Tensor& self, const c10::Scalar& ord,
                                         c10::OptionalIntArrayRef dim, bool keepdim,
                                         OptDtype dtype, Tensor& out) {
  return reduce_write_out(out, linalg_vector_norm_composite(self, ord, dim, keepdim, dtype),
                          "linalg.vector_norm");
}
Tensor norm_dim_dtype_composite(const Tensor& self, const OptScalar& p, IntArrayRef dim,
                                bool keepdim, c10::ScalarType dtype) {
  return vector_norm_decomposed(self, p.value_or(c10::Scalar(2.0)), dim, keepdim, dtype,
                                "norm");
}
Tensor norm_dim_composite(const Tensor& self, const OptScalar& p, IntArrayRef dim,
                          bool keepdim) {
  return vector_norm_decomposed(self, p.value_or(c10::Scalar(2.0)), dim, keepdim,
                                std::nullopt, "norm");
}
Tensor& norm_dtype_out_composite(const Tensor& self, const OptScalar& p, IntArrayRef dim,
                                 bool keepdim, c10::ScalarType dtype, Tensor& out) {
  return reduce_write_out(out, norm_dim_dtype_composite(self, p, dim, keepdim, dtype), "norm");
}
Tensor& norm_out_composite(const Tensor& self, const OptScalar& p, IntArrayRef dim,
                           bool keepdim, Tensor& out) {
  return reduce_write_out(out, norm_dim_composite(self, p, dim, keepdim), "norm");
}
Tensor& logsumexp_out_composite(const Tensor& self, IntArrayRef dim, bool keepdim,
                                Tensor& out) {
  TORCH_CHECK(out.defined(), "logsumexp: the out tensor is undefined; pass a defined tensor.");
  return logsumexp_write_out(out, logsumexp_decomposed(self, dim, keepdim));
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("linalg_vector_norm", TORCH_FN(linalg_vector_norm_composite));
  m.impl("linalg_vector_norm.out", TORCH_FN(linalg_vector_norm_out_composite));
  m.impl("norm.ScalarOpt_dim_dtype", TORCH_FN(norm_dim_dtype_composite));
  m.impl("norm.ScalarOpt_dim", TORCH_FN(norm_dim_composite));
  m.impl("norm.dtype_out", TORCH_FN(norm_dtype_out_composite));
  m.impl("norm.out", TORCH_FN(norm_out_composite));
  m.impl("logsumexp", TORCH_FN(logsumexp_decomposed));
  m.impl("logsumexp.out", TORCH_FN(logsumexp_out_composite));
}

}  // namespace native
}  // namespace at
