// backends/cpu/pointwise.h — the CPU plugin's pointwise kernels beyond the
// arithmetic of kernels.h, as plain C++ functions.
//
// Each is defined in pointwise_*.cc, declared with its schema's C++ type in
// the generated CPUKernels.h and registered for DispatchKey::CPU by the
// generated RegisterCPU.cc (`dispatch=CPU:...` in
// aten/native_functions/pointwise.txt); this header says what they do. Programs call them through
// at::sin, Tensor::clamp_, …; tests of the plugin may call them directly:
//
//   at::Tensor y = ember::cpu::clamp(x, /*min=*/0, /*max=*/std::nullopt);
//
// Naming: `op` is the functional form, `op_` in place, `op_out` the out=
// form; a `_scalar` / `_tensor` suffix picks the Scalar or Tensor overload
// where both exist. Every kernel broadcasts, follows PyTorch's type
// promotion and accepts any strides; errors throw c10::Error. Which dtypes
// each accepts is in docs/ops/pointwise.md.
#pragma once

#include <cstdint>
#include <optional>

#include "aten/Tensor.h"
#include "backends/cpu/CPUKernels.h"
#include "c10/core/Scalar.h"
#include "c10/util/StringUtil.h"

namespace ember::cpu {

// ---- div with rounding_mode (pointwise_arith.cc) ---------------------------
// rounding_mode: none (true division), "trunc" or "floor"; integer inputs
// stay integral with "trunc"/"floor", and integer division by zero throws
// (ZeroDivisionError).

// ---- unary (pointwise_unary.cc) --------------------------------------------
// Each `name` has name(self), name_(self) and name_out(self, out),
// registered as `name`, `name_` and `name.out`.
// Same dtype: neg (not Bool), abs, sign, floor/ceil/round/trunc (integers
// unchanged, not Bool).
// Floating results: integral and bool inputs give Float.
// Bool result (in place: self's dtype).

// ---- binary (pointwise_binary.cc) --------------------------------------------
// Ops with Tensor and Scalar overloads: name (name.Tensor), name_scalar
// (name.Scalar), name_ / name_scalar_ (name_.Tensor / name_.Scalar),
// name_out / name_scalar_out (name.Tensor_out / name.Scalar_out).
// Comparisons: Bool results (in place: self's dtype).
// fmod: sign of the dividend; remainder: sign of the divisor. Not Bool.
// Tensor-only ops: name, name_ (name_), name_out (name.out; for pow
// pow.Tensor_Tensor, pow_.Tensor, pow.Tensor_Tensor_out).

// ---- where, clamp, addcmul, addcdiv, lerp (pointwise_ternary.cc) -------------
// clamp_min / clamp_max: name, name_, name_out (Scalar bound); name_tensor,
// name_tensor_, name_tensor_out (Tensor bound).
// addcmul: self + value * tensor1 * tensor2; addcdiv: self + value *
// tensor1 / tensor2 (not for two integral tensors).

// ---- activations and their backward ops (pointwise_activation.cc) -----------
// Floating dtypes only, except hardtanh and threshold_backward /
// hardtanh_backward (every numeric dtype).

}  // namespace ember::cpu
