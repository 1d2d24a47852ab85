// aten/FactoryChecks.h — the argument checks and sizes of the range
// factories (arange, linspace, eye) that every backend makes before it
// fills its output, written once so that the CPU and CUDA plugins refuse
// the same calls with the same words and agree on arange's length.
#pragma once

#include <cstdint>

#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"

namespace at {
namespace native {

// The number of elements arange(start, end, step) gives in `dtype`: for an
// integral dtype the bounds and step as integers (truncated, as PyTorch),
// ceil((end - start) / step); for a floating one the same in double.
// Refuses Bool, non-finite bounds, a zero step, a step whose sign does not
// lead from start to end, and lengths past int64.
int64_t arange_length(const c10::Scalar& start, const c10::Scalar& end,
                      const c10::Scalar& step, c10::ScalarType dtype);
// linspace: steps >= 0 and not Bool.
void check_linspace(int64_t steps, c10::ScalarType dtype);
// eye: n >= 0 and m >= 0.
void check_eye(int64_t n, int64_t m);

}  // namespace native
}  // namespace at
