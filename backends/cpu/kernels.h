// backends/cpu/kernels.h — the CPU plugin's kernels, as plain C++ functions:
// the conventions of all of them, and what the arithmetic, copy, basic
// reduction and factory kernels do.
//
// Every kernel is declared, with its schema's C++ type, in the generated
// CPUKernels.h (included here) and registered for DispatchKey::CPU by the
// generated RegisterCPU.cc, both from the `dispatch=CPU:...` entries of
// aten/native_functions (docs/aten.md, "Adding an op"). Programs call them
// through at::add, Tensor::add_, … ; tests of the plugin may call them
// directly:
//
//   at::Tensor c = ember::cpu::add(a, b, /*alpha=*/1);
//
// Every kernel takes CPU tensors of any strides (broadcast and
// non-contiguous included) and follows PyTorch's type promotion. Errors
// throw c10::Error. Kernels do not bump version counters (the
// ADInplaceOrView layer does, as in PyTorch).
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "aten/Tensor.h"
#include "backends/cpu/CPUKernels.h"
#include "c10/core/Device.h"
#include "c10/core/Layout.h"
#include "c10/core/MemoryFormat.h"
#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/OptionalArrayRef.h"

namespace ember::cpu {

// ---- arithmetic (pointwise_arith.cc) -------------------------------------
// add: self + alpha * other. Bool tensors: logical or (with alpha true).

// sub: self - alpha * other. Bool tensors are refused, as in PyTorch.

// mul: self * other. Bool tensors: logical and.

// div: true division; integral and bool inputs give Float.

// relu; not for Bool. The other unary ops and the comparisons are described
// in pointwise.h.

// ---- fill and copy (copy.cc) ----------------------------------------------
// Every element of self becomes `value` (checked conversion: a value the
// dtype cannot hold throws). Allowed on expanded tensors.
// self = src broadcast to self's shape, converted to self's dtype. src may
// alias or overlap self. non_blocking has no effect on the CPU.

// ---- reductions (reductions_sum_minmax.cc) -----------------------------------
// `dim` lists are wrapped (negative dims count from the end) and must not
// repeat a dim; none or an empty list reduces every dim. keepdim leaves the
// reduced dims in the result with size 1.
//
// sum: integral and bool inputs give Long unless `dtype` is given; the input
// is converted to `dtype` before summing. An empty sum is 0.
// mean: the input (or `dtype`) must be floating. An empty mean is NaN.
// amax/amin: the input's dtype; NaN if any reduced element is NaN. Reduced
// dims must have elements.
// max.dim/min.dim: values and Long indices along `dim` (the first position
// of the extreme value, or of the first NaN).
// argmax/argmin: the indices of max.dim/min.dim; without `dim`, the position
// in the flattened tensor (keepdim then gives all dims size 1).

// ---- factories (factories.cc) -----------------------------------------------
// dtype defaults to Float; layout must be Strided, device the CPU,
// pin_memory false; memory_format Contiguous (default) or ChannelsLast (4-d).

}  // namespace ember::cpu
