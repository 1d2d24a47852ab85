// aten/EmptyTensor.h — making a backend's tensors: at::detail::empty_generic
// and empty_strided_generic, and the c10::*_or_default helpers that resolve
// a factory's optional arguments, as libtorch's ATen/EmptyTensor.h and
// c10/core/TensorOptions.h declare them.
//
// A backend's `empty.memory_format` and `empty_strided` kernels are one call
// each (the device's allocator does the rest):
//
//   at::Tensor npu_empty(c10::IntArrayRef size, std::optional<c10::ScalarType> dtype,
//                        std::optional<c10::Layout>, std::optional<c10::Device>,
//                        std::optional<bool>, std::optional<c10::MemoryFormat> format) {
//     return at::Tensor(at::detail::empty_generic(size, &npu_allocator,
//                                      c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
//                                      c10::dtype_or_default(dtype), format));
//   }
//
// The tensor's device is the device of the DataPtr the allocator returns
// (also for 0 bytes), so an allocator for several devices reads the current
// one (c10::impl::getDeviceGuardImpl) when it allocates.
#pragma once

#include <optional>

#include "aten/Tensor.h"
#include "c10/core/Allocator.h"
#include "c10/core/Device.h"
#include "c10/core/DispatchKeySet.h"
#include "c10/core/Layout.h"
#include "c10/core/MemoryFormat.h"
#include "c10/core/ScalarType.h"
#include "c10/util/ArrayRef.h"

namespace c10 {

// c10::dtype_or_default / device_or_default / layout_or_default /
// pinned_memory_or_default
//
// The value of a factory's optional argument, or the default a factory uses
// when it is absent: Float (Ember has no settable default dtype), the CPU,
// Strided, false.
inline ScalarType dtype_or_default(std::optional<ScalarType> dtype) {
  return dtype.value_or(ScalarType::Float);
}
inline Device device_or_default(std::optional<Device> device) {
  return device.value_or(Device(DeviceType::CPU));
}
inline Layout layout_or_default(std::optional<Layout> layout) {
  return layout.value_or(Layout::Strided);
}
inline bool pinned_memory_or_default(std::optional<bool> pinned_memory) {
  return pinned_memory.value_or(false);
}

}  // namespace c10

namespace at {
namespace detail {

// at::detail::computeStorageNbytesContiguous / computeStorageNbytes
//
// The bytes a tensor of `sizes` (and `strides`, from storage offset
// `storage_offset`) with elements of `itemsize` bytes needs. Throws
// c10::Error for negative sizes or strides and for sizes whose byte count
// overflows 64 bits. 0 if any size is 0.
size_t computeStorageNbytesContiguous(IntArrayRef sizes, size_t itemsize);
size_t computeStorageNbytes(IntArrayRef sizes, IntArrayRef strides, size_t itemsize,
                            size_t storage_offset = 0);

// at::detail::empty_generic
//
// A new tensor of `size` and `dtype` over fresh memory from `allocator`
// (uninitialized), with the backend key of `ks` (e.g.
// DispatchKeySet(DispatchKey::PrivateUse1)). Strides are contiguous, or
// NHWC for memory_format ChannelsLast (4 sizes); Preserve is refused, as
// there is no input to preserve. The storage is resizable. Throws c10::Error
// for negative sizes, an undefined dtype, a byte count that overflows, or a
// key set whose backend does not match the allocator's device.
TensorBase empty_generic(IntArrayRef size, c10::Allocator* allocator,
                         c10::DispatchKeySet ks, ScalarType dtype,
                         std::optional<c10::MemoryFormat> memory_format = std::nullopt);

// at::detail::empty_strided_generic
//
// As empty_generic with the given strides (one per size, non-negative); the
// storage holds the furthest element the strides reach.
TensorBase empty_strided_generic(IntArrayRef size, IntArrayRef stride,
                                 c10::Allocator* allocator, c10::DispatchKeySet ks,
                                 ScalarType dtype);

// at::detail::pinned_memory_allocator
//
// The page-locked host allocator `accelerator`'s plugin registered
// (c10::SetPinnedMemoryAllocator; See Note [Pinned memory] in
// aten/ops/conversion.cc), loading that plugin on first use. Throws
// c10::Error naming `op` when there is none. For pin_memory() and the
// factories' pin_memory=true.
c10::Allocator* pinned_memory_allocator(c10::DeviceType accelerator, const char* op);

}  // namespace detail
}  // namespace at
