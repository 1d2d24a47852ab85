// aten/CPUFallback.h — at::native::cpu_fallback, the boxed fallback that runs
// an operator a backend has no kernel for on the CPU.
//
// A backend registers it once for its key; every op without a kernel of the
// backend's own then runs on the CPU, with tensors copied there and back:
//
//   #include <ATen/native/CPUFallback.h>
//
//   TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
//     m.fallback(torch::CppFunction::makeFromBoxedFunction<&at::native::cpu_fallback>());
//   }
//
// What it does, per call (See Note [The boxed CPU fallback] in CPUFallback.cc):
//  - tensor arguments (also in lists) on any device other than the CPU are
//    copied to the CPU; Device arguments become the CPU;
//  - the op runs below autograd on the CPU copies (autograd is the
//    AutogradPrivateUse1 kernel's business, before the fallback);
//  - arguments the schema marks as written (`Tensor(a!) self`, `Tensor(a!)
//    out`) are copied back into the device tensors, resized first if the op
//    resized them (the backend needs resize_ for that); a return that aliases
//    a written argument is that argument itself, so `add_` returns `self`;
//  - other tensor returns are copied to the device of the first non-CPU
//    tensor argument (or Device argument).
// It refuses, naming the op, what it cannot do faithfully: ops whose
// returns are views of their inputs (`Tensor(a)`: a view of a CPU copy would
// not alias the device tensor) and resize_ itself.
//
// Not for hot paths: each call copies every tensor twice. A warning names
// each op the first time it runs through the fallback (mode kWarnOnce, the
// default); kError makes such a call an error instead (a backend's test of
// its own kernel coverage), kSilent says nothing. The mode starts from
// $EMBER_CPU_FALLBACK ("warn", "error", "silent") and is process-wide.
#pragma once

#include <string>
#include <vector>

#include "registration/Dispatcher.h"
#include "registration/Stack.h"

namespace at {
namespace native {

// at::native::cpu_fallback
//
// The boxed fallback described above, with PyTorch's name and signature
// (PyTorch's `error_on_views` is always on here: views are refused).
// Thread-safe.
void cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// at::native::CpuFallbackMode, set_cpu_fallback_mode, cpu_fallback_mode
//
// What cpu_fallback does before running an op: warn once per op (default),
// nothing, or throw c10::Error (naming the op and the dispatch key to
// register a kernel for). Thread-safe; affects calls that start afterwards.
enum class CpuFallbackMode { kWarnOnce, kSilent, kError };
void set_cpu_fallback_mode(CpuFallbackMode mode);
CpuFallbackMode cpu_fallback_mode();

// at::native::cpu_fallback_ops
//
// The ops that have run through cpu_fallback in this process, sorted, as
// "aten::name.overload": what a backend should implement next.
std::vector<std::string> cpu_fallback_ops();

}  // namespace native
}  // namespace at
