// aten/SoftmaxChecks.h — the dtype rules of _softmax/_log_softmax and their
// backward with half_to_float that every backend makes, written once so that
// the CPU and CUDA plugins accept and refuse the same calls with the same
// words.
#pragma once

#include "aten/Tensor.h"
#include "c10/core/ScalarType.h"

namespace at {
namespace native {

// The forward's result dtype: Float for a Half input with half_to_float
// (the rows computed in float and not rounded back), else the input's.
// Throws unless half_to_float comes with a Half input.
c10::ScalarType softmax_result_dtype(const Tensor& self, bool half_to_float, const char* op);

// Whether a backward is the half_to_float case (a Float grad_output of a
// Half input: the gradient computed in float and rounded to Half once).
// Throws unless input_dtype is grad_output's dtype or that case.
bool softmax_backward_half_to_float(const Tensor& grad_output, c10::ScalarType input_dtype,
                                    const char* op);

}  // namespace native
}  // namespace at
