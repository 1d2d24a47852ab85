// Conversions and dtype queries written in terms of other ops, for every
// backend: Tensor::to (all four overloads) and _to_copy, result_type (four
// overloads), allclose. isclose and equal are backend kernels.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "aten/Functions.h"
#include "aten/TypePromotion.h"
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
  TORCH_CHECK(!pin_memory.value_or(false), "_to_copy: pinned memory is not supported "
              "(there is no accelerator to pin for). Pass pin_memory=false.");
  const MemoryFormat format = memory_format.value_or(MemoryFormat::Preserve);
  const TensorOptions options = TensorOptions()
                                    .dtype(dtype.value_or(self.scalar_type()))
                                    .device(device.value_or(self.device()));
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
}

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("_to_copy", TORCH_FN(at::native::_to_copy));
  m.impl("allclose", TORCH_FN(at::native::allclose));
}
