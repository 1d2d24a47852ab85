// backends/cpu/tensor_utils.h — making, resizing and converting CPU tensors
// inside the CPU plugin (the registered kernels are in kernels.h).
//
//   at::Tensor t = ember::cpu::empty_cpu({2, 3}, c10::kFloat);
//   ember::cpu::resize_output(out, {2, 3}, "add");   // at::native::resize_output
//
// Internal to the plugin: other code gets tensors through at::empty.
#pragma once

#include <cstdint>

#include "aten/Resize.h"
#include "aten/Tensor.h"
#include "c10/core/ScalarType.h"
#include "c10/util/ArrayRef.h"

namespace ember::cpu {

// ember::cpu::empty_cpu
//
// A new contiguous CPU tensor of `sizes` and `dtype`, uninitialized, over a
// resizable storage from c10::GetCPUAllocator(). `op` names the caller in
// errors (negative sizes, sizes too large to allocate).
at::Tensor empty_cpu(c10::IntArrayRef sizes, c10::ScalarType dtype,
                     const char* op = "empty");

// ember::cpu::empty_strided_cpu
//
// As empty_cpu, with the given strides (non-negative); the storage holds
// exactly the elements the strides reach.
at::Tensor empty_strided_cpu(c10::IntArrayRef sizes, c10::IntArrayRef strides,
                             c10::ScalarType dtype,
                             const char* op = "empty_strided");

// ember::cpu::resize_output
//
// at::native::resize_output (aten/Resize.h): nothing if `out` already has
// `shape`; otherwise resizes it to `shape` with contiguous strides through
// the dispatcher's resize_, and warns if it had elements (reusing a
// non-empty output of another shape is deprecated in PyTorch). Returns
// whether it resized.
inline bool resize_output(const at::Tensor& out, c10::IntArrayRef shape,
                          const char* op) {
  return at::native::resize_output(out, shape, op);
}

// ember::cpu::copy_into
//
// copy_(dst, src) for a `dst` the caller holds by const reference (the
// handle is not changed, only the elements).
void copy_into(const at::Tensor& dst, const at::Tensor& src);

// ember::cpu::cast_element
//
// Converts one element of dtype `src_type` at `src` to `dst_type` at `dst`,
// as copy_ does.
void cast_element(void* dst, c10::ScalarType dst_type, const void* src,
                  c10::ScalarType src_type);

}  // namespace ember::cpu
