// backends/cuda/PointwiseSupport.h — what the CUDA plugin's pointwise host
// code shares (pointwise_ops.cc, ternary_ops.cc, activation_ops.cc): Scalars
// as CPU wrapped numbers, the kernel dtype of an iteration, the OpParams of
// alpha/value arguments, and the binary and unary runs over the GPU
// TensorIterator. Internal to the plugin.
#pragma once

#include "aten/ScalarOps.h"
#include "aten/Tensor.h"
#include "backends/cuda/CUDAIterator.h"
#include "c10/core/Scalar.h"

namespace ember {
namespace cuda {
namespace pointwise {

using kernels::BinaryOp;
using kernels::OpParams;
using kernels::UnaryOp;

// `s` as a 0-dim CPU wrapped number, which promotes as a Python number and
// goes to the kernel by value (Note [CPU scalars on a device]).
at::Tensor wrap(const c10::Scalar& s);

// The kernel dtype of the iteration, refusing Bool unless `bool_ok`.
kernels::Dtype compute_dtype(const CUDAIterator& iter, const char* op, bool bool_ok);

// An out= tensor must be defined.
void check_out(const at::Tensor& out, const char* op);

// alpha and value arguments: d[0] for floating kernels, i[0] for integral
// and Bool ones.
OpParams number_param(const c10::Scalar& s, c10::ScalarType dtype);

// out = a <kind> b over the promoted dtype; `check` sees that dtype first.
template <typename Check>
at::Tensor binary(const char* op, BinaryOp kind, const at::Tensor& out, const at::Tensor& a,
                  const at::Tensor& b, bool int_to_float, bool bool_ok, Check&& check) {
  CUDAIterator iter(at::TensorIteratorConfig(op).add_output(out).add_input(a).add_input(b)
                        .promote_integer_inputs_to_float(int_to_float));
  const OpParams p = check(iter.common_dtype());
  const kernels::Dtype dtype = compute_dtype(iter, op, bool_ok);
  iter.run(op, [&](const kernels::Iteration& it, void* stream) {
    return kernels::launch_binary(it, kind, dtype, p, stream);
  });
  return iter.output();
}
inline at::Tensor binary(const char* op, BinaryOp kind, const at::Tensor& out,
                         const at::Tensor& a, const at::Tensor& b, bool int_to_float = false,
                         bool bool_ok = false) {
  return binary(op, kind, out, a, b, int_to_float, bool_ok,
                [](c10::ScalarType) { return OpParams{}; });
}

// out = kind(self), in the promoted dtype (integers to Float when
// int_to_float).
at::Tensor unary(const char* op, UnaryOp kind, const at::Tensor& out, const at::Tensor& self,
                 bool int_to_float, const OpParams& p = OpParams{}, bool bool_ok = false);

// A floating-only op (the activations): integral inputs are refused, as on
// the CPU, rather than promoted.
at::Tensor floating_unary(const char* op, UnaryOp kind, const at::Tensor& out,
                          const at::Tensor& self, const OpParams& p);

}  // namespace pointwise
}  // namespace cuda
}  // namespace ember
