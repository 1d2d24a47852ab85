// backends/cpu/pointwise_isclose.h — the CPU plugin's comparison kernels behind
// at::isclose, at::allclose (composite, over isclose) and at::equal.
//
//   at::Tensor close = ember::cpu::isclose(a, b, 1e-5, 1e-8, false);
//
// Registered for DispatchKey::CPU under the aten operator in each comment.
// Internal to the CPU plugin (tests may call the kernels directly).
#pragma once

#include "aten/Tensor.h"
#include "backends/cpu/CPUKernels.h"

namespace ember::cpu {

// |self - other| <= atol + rtol * |other|, elementwise with broadcasting, or
// equal (so equal infinities are close); NaNs are close to each other only
// with equal_nan. Both inputs must have the same dtype; rtol and atol must
// be >= 0. Bool result. Integers compare exactly as doubles; Half and
// BFloat16 compute in float.

// Whether both have the same sizes and equal elements (after promotion to
// their common dtype; NaN is not equal to NaN). Both must be on the CPU.

}  // namespace ember::cpu
