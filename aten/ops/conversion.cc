// Conversions and dtype queries written in terms of other ops, for every
// backend: Tensor::to (all four overloads) and _to_copy, result_type (four
// overloads), allclose. isclose and equal are backend kernels.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "aten/EmptyTensor.h"
#include "aten/Functions.h"
#include "aten/TypePromotion.h"
#include "c10/core/Allocator.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

// ---- to and _to_copy ----------------------------------------------------------------

// Whether the sizes and strides cover exactly numel() elements with no
// element twice (a permutation of contiguous strides): then a copy can keep
// the strides, as PyTorch's memory_format=Preserve does.
bool non_overlapping_and_dense(const Tensor& t) {
  std::vector<int64_t> order(static_cast<size_t>(t.dim()));
  for (size_t d = 0; d < order.size(); ++d) order[d] = static_cast<int64_t>(d);
  const IntArrayRef sizes = t.sizes();
  const IntArrayRef strides = t.strides();
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const size_t ua = static_cast<size_t>(a);
    const size_t ub = static_cast<size_t>(b);
    return strides[ua] < strides[ub] || (strides[ua] == strides[ub] && a > b);
  });
  int64_t expected = 1;
  for (const int64_t d : order) {
    const size_t ud = static_cast<size_t>(d);
    if (sizes[ud] == 1) continue;
    if (strides[ud] != expected) return false;
    expected *= sizes[ud];
  }
  return true;
}

Tensor _to_copy(const Tensor& self, std::optional<ScalarType> dtype,
                std::optional<Layout> layout, std::optional<Device> device,
                std::optional<bool> pin_memory, bool non_blocking,
                std::optional<MemoryFormat> memory_format) {
  TORCH_CHECK(self.defined(), "_to_copy: the input tensor is undefined; pass a "
              "defined tensor.");
  TORCH_CHECK(!layout.has_value() || *layout == Layout::Strided, "_to_copy: layout ",
              *layout, " is not supported; Ember tensors are strided. Pass "
              "at::kStrided or no layout.");
  const Device target = device.value_or(self.device());
  TORCH_CHECK(!pin_memory.value_or(false) || target.is_cpu(), "_to_copy: pin_memory=true "
              "makes a pinned CPU tensor (for copies to an accelerator), but the copy goes to ",
              target, ". Pass pin_memory=false, or copy to the CPU.");
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  const TensorOptions options = TensorOptions()
                                    .dtype(dtype.value_or(self.scalar_type()))
                                    .device(target)
                                    .pinned_memory(pin_memory);
  Tensor result;
  if (format == MemoryFormat::Preserve) {
    result = non_overlapping_and_dense(self)
                 ? at::empty_strided(self.sizes(), self.strides(), options)
                 : at::empty(self.sizes(), options);
  } else {
    result = at::empty(self.sizes(), options, format);
  }
  result.copy_(self, non_blocking);
  return result;
}

// Note [to aliases]
// ~~~~~~~~~~~~~~~~~
// Tensor::to returns `self` itself (no copy, same version counter) when
// nothing would change and copy=false, as PyTorch does; callers that need a
// new tensor pass copy=true.
Tensor to_impl(const Tensor& self, std::optional<ScalarType> dtype,
               std::optional<Layout> layout, std::optional<Device> device,
               std::optional<bool> pin_memory, bool non_blocking, bool copy,
               std::optional<MemoryFormat> memory_format) {
  TORCH_CHECK(self.defined(), "to: the input tensor is undefined; pass a defined tensor.");
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  const bool same = !copy && (!dtype.has_value() || *dtype == self.scalar_type()) &&
                    (!layout.has_value() || *layout == Layout::Strided) &&
                    (!device.has_value() || *device == self.device()) &&
                    (format == MemoryFormat::Preserve ||
                     (format == MemoryFormat::Contiguous && self.is_contiguous()));
  if (same) return self;
  return at::_to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format);
}

Tensor to_dtype_layout(const Tensor& self, std::optional<ScalarType> dtype,
                       std::optional<Layout> layout, std::optional<Device> device,
                       std::optional<bool> pin_memory, bool non_blocking, bool copy,
                       std::optional<MemoryFormat> memory_format) {
  return to_impl(self, dtype, layout, device, pin_memory, non_blocking, copy,
                 memory_format);
}

Tensor to_device(const Tensor& self, Device device, ScalarType dtype, bool non_blocking,
                 bool copy, std::optional<MemoryFormat> memory_format) {
  return to_impl(self, dtype, std::nullopt, device, std::nullopt, non_blocking, copy,
                 memory_format);
}

Tensor to_dtype(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy,
                std::optional<MemoryFormat> memory_format) {
  return to_impl(self, dtype, std::nullopt, std::nullopt, std::nullopt, non_blocking, copy,
                 memory_format);
}

Tensor to_other(const Tensor& self, const Tensor& other, bool non_blocking, bool copy,
                std::optional<MemoryFormat> memory_format) {
  TORCH_CHECK(other.defined(), "to: the `other` tensor is undefined; pass a defined "
              "tensor to take the dtype and device from.");
  return to_impl(self, other.scalar_type(), Layout::Strided, other.device(), std::nullopt,
                 non_blocking, copy, memory_format);
}

// ---- result_type ----------------------------------------------------------------------

// The promotion itself: See Note [Type promotion] in aten/TypePromotion.cc.
template <typename A, typename B>
ScalarType promote_pair(const A& a, const B& b) {
  return at::result_type(update_result_type_state(b, update_result_type_state(a, {})));
}

ScalarType result_type_tensor(const Tensor& tensor, const Tensor& other) {
  return promote_pair(tensor, other);
}

ScalarType result_type_scalar(const Tensor& tensor, const Scalar& other) {
  return promote_pair(tensor, other);
}

ScalarType result_type_scalar_tensor(const Scalar& scalar, const Tensor& tensor) {
  return promote_pair(tensor, scalar);
}

ScalarType result_type_scalar_scalar(const Scalar& scalar1, const Scalar& scalar2) {
  return promote_pair(scalar1, scalar2);
}

// ---- pinned memory ---------------------------------------------------------------------
// Note [Pinned memory]
// ~~~~~~~~~~~~~~~~~~~~
// A pinned tensor is a CPU tensor whose storage comes from the page-locked
// host allocator an accelerator's plugin registers (CUDA's caching host
// allocator, backends/cuda/CachingHostAllocator.h): the device can copy from
// and to it asynchronously (copy_(..., non_blocking=true)). is_pinned()
// recognises such storage by the allocator's deleter; pin_memory() returns
// the tensor itself when it is pinned already, else a pinned copy (same
// strides when they are dense, as _to_copy's Preserve; contiguous
// otherwise), differentiable through copy_. The accelerator is `device`'s
// type, CUDA by default; its plugin is loaded on first use.

DeviceType pinned_for(std::optional<Device> device, const char* op) {
  const DeviceType type = device.has_value() ? device->type() : DeviceType::CUDA;
  TORCH_CHECK(type != DeviceType::CPU, op, ": memory is pinned for copies to an accelerator; "
              "expected an accelerator device (as cuda) or none, got ", *device, ".");
  return type;
}

bool is_pinned(const Tensor& self, std::optional<Device> device) {
  TORCH_CHECK(self.defined(), "is_pinned: the input tensor is undefined; pass a defined tensor.");
  const DeviceType type = pinned_for(device, "is_pinned");
  if (!self.is_cpu() || !self.has_storage()) return false;
  const c10::Allocator* pinned = c10::GetPinnedMemoryAllocator(type);
  return pinned != nullptr && self.storage().data_ptr().get_deleter() == pinned->raw_deleter();
}

Tensor _pin_memory(const Tensor& self, std::optional<Device> device) {
  TORCH_CHECK(self.defined(), "pin_memory: the input tensor is undefined; pass a defined tensor.");
  const DeviceType type = pinned_for(device, "pin_memory");
  TORCH_CHECK(self.is_cpu(), "pin_memory: cannot pin a ", self.device(),
              " tensor; only CPU tensors are pinned (for copies to ", DeviceTypeName(type),
              "). Call it before moving the tensor to the device.");
  c10::Allocator* pinned = at::detail::pinned_memory_allocator(type, "pin_memory");
  const c10::DispatchKeySet cpu(c10::DispatchKey::CPU);
  Tensor result(non_overlapping_and_dense(self)
                    ? at::detail::empty_strided_generic(self.sizes(), self.strides(), pinned,
                                                        cpu, self.scalar_type())
                    : at::detail::empty_generic(self.sizes(), pinned, cpu, self.scalar_type()));
  result.copy_(self);
  return result;
}

Tensor pin_memory(const Tensor& self, std::optional<Device> device) {
  TORCH_CHECK(self.defined(), "pin_memory: the input tensor is undefined; pass a defined tensor.");
  pinned_for(device, "pin_memory");
  if (self.is_pinned(device)) return self;
  return at::_pin_memory(self, device);
}

// ---- allclose ---------------------------------------------------------------------------

bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol,
              bool equal_nan) {
  // item() reads CPU tensors: bring the one flag over first.
  return at::isclose(self, other, rtol, atol, equal_nan).all().to(kCPU).item<bool>();
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("to.dtype_layout", TORCH_FN(at::native::to_dtype_layout));
  m.impl("to.device", TORCH_FN(at::native::to_device));
  m.impl("to.dtype", TORCH_FN(at::native::to_dtype));
  m.impl("to.other", TORCH_FN(at::native::to_other));
  m.impl("result_type.Tensor", TORCH_FN(at::native::result_type_tensor));
  m.impl("result_type.Scalar", TORCH_FN(at::native::result_type_scalar));
  m.impl("result_type.Scalar_Tensor", TORCH_FN(at::native::result_type_scalar_tensor));
  m.impl("result_type.Scalar_Scalar", TORCH_FN(at::native::result_type_scalar_scalar));
  m.impl("is_pinned", TORCH_FN(at::native::is_pinned));
  m.impl("pin_memory", TORCH_FN(at::native::pin_memory));
  m.impl("_pin_memory", TORCH_FN(at::native::_pin_memory));
}

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("_to_copy", TORCH_FN(at::native::_to_copy));
  m.impl("allclose", TORCH_FN(at::native::allclose));
}
