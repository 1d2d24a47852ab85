// aten/Resize.h — resizing an out= argument to the shape an op computes,
// for every backend: the checks and PyTorch's warning here, the storage
// work in the backend's resize_ kernel (reached through the dispatcher).
//
//   at::native::resize_output(out, {2, 3}, "add");   // warns if out had elements
//   at::native::resize_out(out, {2, 3}, "zeros");    // as resize_, no warning
//
// Both name `op` in their errors and are no-ops when `out` already has the
// shape. Safe from any thread for distinct tensors.
#pragma once

#include <functional>
#include <optional>

#include "aten/Tensor.h"
#include "c10/core/Allocator.h"
#include "c10/util/ArrayRef.h"

namespace at {
namespace native {

// at::native::resize_output
//
// PyTorch's resize_output: nothing if `out` already has `shape`; otherwise
// resizes it to `shape` with contiguous strides (at::resize_, its storage
// grown if needed), and warns if it had elements (reusing a non-empty
// output of another shape is deprecated in PyTorch). Returns whether it
// resized.
bool resize_output(const Tensor& out, c10::IntArrayRef shape, const char* op);

// at::native::resize_out
//
// Tensor::resize_ for an out= argument: nothing if `out` already has
// `shape`; otherwise contiguous strides for `shape`, its storage grown if
// needed (refused, naming `op`, when the storage cannot grow). No warning:
// the factories' out= forms (zeros.out, full.out, ...) resize as PyTorch's
// do, with resize_.
void resize_out(const Tensor& out, c10::IntArrayRef shape, const char* op);

// at::native::resize_storage_and_shape
//
// What every backend's resize_ does: checks the sizes and the memory format
// (Contiguous, or ChannelsLast for 4 sizes), grows the storage when it is
// too small (a fresh block from the storage's allocator, or `fallback` when
// it has none; the old bytes moved with `copy_bytes(dst, src, n)`, the
// backend's copy; a storage that is not resizable is refused), then sets
// the sizes and strides. Nothing happens when the sizes already match and
// no format is given.
Tensor& resize_storage_and_shape(Tensor& self, c10::IntArrayRef size,
                                 std::optional<c10::MemoryFormat> memory_format,
                                 c10::Allocator* fallback,
                                 const std::function<void(void*, const void*, size_t)>& copy_bytes);

}  // namespace native
}  // namespace at
