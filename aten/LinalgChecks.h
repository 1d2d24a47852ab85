// aten/LinalgChecks.h — the operand checks of the matrix products (mm, bmm,
// addmm) that every backend makes, written once so that the CPU and CUDA
// plugins refuse the same calls with the same words.
#pragma once

#include <cstdint>

#include "aten/Tensor.h"

namespace at {
namespace native {

// a and b are `dim`-d (2: matrices, 3: batches of them) of one dtype, not
// Bool, with a's columns equal to b's rows and (3-d) equal batch sizes.
void check_matmul_operands(const Tensor& a, const Tensor& b, int64_t dim, const char* where);

}  // namespace native
}  // namespace at
