// aten/ReduceUtils.h — the argument handling every backend's reductions
// share: which dimensions a `dim` argument names, the result's shape, the
// empty-reduction check of ops without an identity, and the end of an out=
// variant. Written once so that the CPU and CUDA plugins agree on shapes and
// errors.
//
//   std::vector<bool> mask = at::native::reduce_dim_mask(x, dim, "amax");
//   at::Tensor r = ...;  // of at::native::reduce_shape(x, mask, keepdim)
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "aten/Tensor.h"
#include "c10/core/Scalar.h"
#include "c10/util/OptionalArrayRef.h"

namespace at {
namespace native {

// Which dimensions `dims` names, wrapped (negative dims count from the end);
// none or an empty list: all of them. A repeated dim is an error.
std::vector<bool> reduce_dim_mask(const Tensor& self, c10::OptionalIntArrayRef dims,
                                  const char* op);
// The mask of one dim (of none for a 0-dim tensor, whose dim may be 0 or -1).
std::vector<bool> reduce_one_dim_mask(const Tensor& self, int64_t dim, const char* op);

// The result's shape: kept dims, and reduced ones as 1 when keepdim.
std::vector<int64_t> reduce_shape(const Tensor& self, const std::vector<bool>& mask,
                                  bool keepdim);

// Refuses an empty reduced dim (ops with no identity: max, min, inf norms).
void reduce_check_nonempty(const Tensor& self, const std::vector<bool>& mask, const char* op);

// The end of an out= variant: `out` must be defined and of `result`'s dtype
// (PyTorch's reductions do not cast into out=); it is resized to `result`'s
// shape and gets its values.
Tensor& reduce_write_out(Tensor& out, const Tensor& result, const char* op);

// var/std's `unbiased` as the correction it stands for (1 or 0).
std::optional<c10::Scalar> unbiased_to_correction(bool unbiased);
// var/std take floating tensors.
void check_var_dtype(const Tensor& self, const char* op);
// PyTorch's warning when the correction leaves no degrees of freedom.
void warn_var_dof(const char* op, int64_t num_outputs, int64_t num_reduced, double correction);

// norm's and linalg.vector_norm's order as a double (a bool is refused).
double vector_norm_order(const c10::Scalar& p, const char* op);
// A floating input and a floating dtype= if given.
void check_vector_norm_dtypes(const Tensor& self, std::optional<c10::ScalarType> dtype,
                              const char* op);
// For p = +-inf or p < 0 (no identity), no empty reduced dim.
void check_vector_norm_nonempty(const Tensor& self, const std::vector<bool>& mask, double p,
                                const char* op);
// cumsum_'s and cumsum.out's dtype argument must name the result's dtype.
void check_scan_dtype_arg(std::optional<c10::ScalarType> dtype, const Tensor& result,
                          const char* op);
// cumsum's result dtype: the given one, else Long for integral and Bool
// inputs, else the input's.
c10::ScalarType cumsum_result_type(const Tensor& self, std::optional<c10::ScalarType> dtype);

// The end of logsumexp's out= variant: `out` defined and floating; resized
// to `result`'s shape and given its values (converted).
Tensor& logsumexp_write_out(Tensor& out, const Tensor& result);

// The end of all/any's out= variants: `out` is Bool or Byte (uint8).
Tensor& logical_write_out(Tensor& out, const Tensor& result, const char* op);

}  // namespace native
}  // namespace at
