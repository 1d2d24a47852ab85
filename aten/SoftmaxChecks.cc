// aten/SoftmaxChecks.cc — see SoftmaxChecks.h.
#include "aten/SoftmaxChecks.h"

#include "c10/util/Exception.h"

namespace at {
namespace native {

c10::ScalarType softmax_result_dtype(const Tensor& self, bool half_to_float, const char* op) {
  TORCH_CHECK(!half_to_float || self.scalar_type() == c10::kHalf, op,
              ": conversion is supported for Half type only; half_to_float=true "
              "needs a Half input, but got ", self.scalar_type(),
              ". Pass half_to_float=false.");
  return half_to_float ? c10::kFloat : self.scalar_type();
}

bool softmax_backward_half_to_float(const Tensor& grad_output, c10::ScalarType input_dtype,
                                    const char* op) {
  const bool half_to_float = grad_output.scalar_type() != input_dtype;
  TORCH_CHECK(!half_to_float || (grad_output.scalar_type() == c10::kFloat &&
                                 input_dtype == c10::kHalf),
              op, ": expected input_dtype to be grad_output's dtype (",
              grad_output.scalar_type(), "), or Half with a Float grad_output (the "
              "half_to_float case), but got ", input_dtype, ".");
  return half_to_float;
}

}  // namespace native
}  // namespace at
