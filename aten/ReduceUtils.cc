// aten/ReduceUtils.cc — see ReduceUtils.h.
#include "aten/ReduceUtils.h"

#include <algorithm>
#include <cmath>

#include "aten/Functions.h"  // Tensor::copy_
#include "aten/Resize.h"
#include "aten/WrapDimUtils.h"
#include "c10/util/Exception.h"

namespace at {
namespace native {

std::vector<bool> reduce_dim_mask(const Tensor& self, c10::OptionalIntArrayRef dims,
                                  const char* op) {
  const int64_t ndim = self.dim();
  if (!dims.has_value() || dims->empty()) {
    return std::vector<bool>(static_cast<size_t>(ndim), true);
  }
  std::vector<bool> mask(static_cast<size_t>(std::max<int64_t>(ndim, 1)), false);
  for (const int64_t d : *dims) {
    const size_t w = static_cast<size_t>(at::maybe_wrap_dim(d, ndim, op));
    TORCH_CHECK(!mask[w], op, ": dim ", w, " appears multiple times in the "
                "list of dims ", *dims, ". List each dimension once.");
    mask[w] = true;
  }
  mask.resize(static_cast<size_t>(ndim));  // a 0-dim tensor has none to keep
  return mask;
}

std::vector<bool> reduce_one_dim_mask(const Tensor& self, int64_t dim, const char* op) {
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), op);
  std::vector<bool> mask(static_cast<size_t>(self.dim()), false);
  if (self.dim() > 0) mask[static_cast<size_t>(wrapped)] = true;
  return mask;
}

std::vector<int64_t> reduce_shape(const Tensor& self, const std::vector<bool>& mask,
                                  bool keepdim) {
  std::vector<int64_t> shape;
  for (size_t d = 0; d < mask.size(); ++d) {
    if (!mask[d]) {
      shape.push_back(self.sizes()[d]);
    } else if (keepdim) {
      shape.push_back(1);
    }
  }
  return shape;
}

void reduce_check_nonempty(const Tensor& self, const std::vector<bool>& mask, const char* op) {
  for (size_t d = 0; d < mask.size(); ++d) {
    TORCH_CHECK(!mask[d] || self.sizes()[d] != 0, op, "(): Expected reduction dim ",
                d, " to have non-zero size. The input has shape ", self.sizes(),
                "; reduce over dimensions that have elements.");
  }
}

Tensor& reduce_write_out(Tensor& out, const Tensor& result, const char* op) {
  TORCH_CHECK(out.defined(), op, ": the out tensor is undefined; pass a defined "
              "tensor (of any shape: it is resized), or call the functional ", op, ".");
  TORCH_CHECK(out.scalar_type() == result.scalar_type(), op, ": Expected out tensor "
              "to have dtype ", result.scalar_type(), ", but got ", out.scalar_type(),
              " instead. Pass an out tensor of dtype ", result.scalar_type(), ".");
  resize_output(out, result.sizes(), op);
  out.copy_(result);
  return out;
}

double vector_norm_order(const c10::Scalar& p, const char* op) {
  TORCH_CHECK(!p.isBoolean(), op, ": the order p must be a number, not a bool.");
  return p.toDouble();
}

void check_vector_norm_dtypes(const Tensor& self, std::optional<c10::ScalarType> dtype,
                              const char* op) {
  TORCH_CHECK(c10::isFloatingType(self.scalar_type()), op, ": Expected a floating "
              "point or complex tensor as input. Got ", self.scalar_type(),
              ". Convert it first, e.g. x.to(at::kFloat).");
  TORCH_CHECK(!dtype.has_value() || c10::isFloatingType(*dtype), op, ": dtype should "
              "be floating point or complex. Got ", *dtype, ". Pass e.g. at::kDouble.");
}

void check_vector_norm_nonempty(const Tensor& self, const std::vector<bool>& mask, double p,
                                const char* op) {
  if (std::isinf(p) || p < 0) {
    for (size_t d = 0; d < mask.size(); ++d) {
      TORCH_CHECK(!mask[d] || self.sizes()[d] != 0, op, ": cannot compute the ", p,
                  " norm on an empty tensor because the operation does not have an "
                  "identity; dim ", d, " of shape ", self.sizes(), " is empty. Use a "
                  "p >= 0, or reduce over dimensions that have elements.");
    }
  }
}

void check_scan_dtype_arg(std::optional<c10::ScalarType> dtype, const Tensor& result,
                          const char* op) {
  TORCH_CHECK(!dtype.has_value() || *dtype == result.scalar_type(), op,
              ": the dtype argument (", *dtype, ") must match the dtype of the "
              "result tensor (", result.scalar_type(), "). Pass dtype=",
              result.scalar_type(), " or none.");
}

c10::ScalarType cumsum_result_type(const Tensor& self, std::optional<c10::ScalarType> dtype) {
  if (dtype.has_value()) return *dtype;
  return c10::isIntegralType(self.scalar_type(), /*includeBool=*/true) ? c10::ScalarType::Long
                                                                        : self.scalar_type();
}

Tensor& logsumexp_write_out(Tensor& out, const Tensor& result) {
  TORCH_CHECK(out.defined(), "logsumexp: the out tensor is undefined; pass a defined tensor.");
  TORCH_CHECK(c10::isFloatingType(out.scalar_type()), "logsumexp(): Expected floating "
              "point type for result tensor, but got: ", out.scalar_type(),
              ". Pass a floating out tensor.");
  resize_output(out, result.sizes(), "logsumexp");
  out.copy_(result);
  return out;
}

std::optional<c10::Scalar> unbiased_to_correction(bool unbiased) {
  return c10::Scalar(unbiased ? int64_t{1} : int64_t{0});
}

void check_var_dtype(const Tensor& self, const char* op) {
  TORCH_CHECK(c10::isFloatingType(self.scalar_type()), op, ": std and var only "
              "support floating point and complex dtypes; the input is ",
              self.scalar_type(), ". Convert it first, e.g. x.to(at::kFloat).");
}

void warn_var_dof(const char* op, int64_t num_outputs, int64_t num_reduced,
                  double correction) {
  if (num_outputs > 0 && num_reduced > 0 && static_cast<double>(num_reduced) - correction <= 0) {
    TORCH_WARN(op, "(): degrees of freedom is <= 0. Correction should be strictly "
               "less than the reduction factor (input numel divided by output numel).");
  }
}

Tensor& logical_write_out(Tensor& out, const Tensor& result, const char* op) {
  TORCH_CHECK(out.defined(), op, ": the out tensor is undefined; pass a defined tensor.");
  TORCH_CHECK(out.scalar_type() == c10::ScalarType::Bool ||
                  out.scalar_type() == c10::ScalarType::Byte,
              op, ": the out tensor must be Bool or Byte (uint8), got ",
              out.scalar_type(), ". Pass a Bool out tensor.");
  resize_output(out, result.sizes(), op);
  out.copy_(result);
  return out;
}

}  // namespace native
}  // namespace at
