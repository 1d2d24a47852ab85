// The CPU plugin's factories (empty, empty_strided, and the out= kernels of
// arange, linspace and eye) and the allocation and resizing helpers the
// other kernels use.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "aten/EmptyTensor.h"
#include "aten/FactoryChecks.h"
#include "aten/Resize.h"
#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/random.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/core/CPUAllocator.h"
#include "c10/core/DispatchKeySet.h"
#include "c10/core/Storage.h"
#include "c10/core/StorageImpl.h"
#include "c10/core/StridedExtent.h"
#include "c10/core/TensorImpl.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

void check_dtype(c10::ScalarType dtype, const char* op) {
  TORCH_CHECK(dtype != c10::ScalarType::Undefined &&
                  dtype != c10::ScalarType::NumOptions,
              op, ": expected a dtype such as Float or Long, but got ", dtype,
              ". Pass the dtype of the elements to allocate.");
}

at::Tensor make_tensor(size_t nbytes, c10::ScalarType dtype) {
  c10::Storage storage(c10::make_intrusive<c10::StorageImpl>(
      c10::StorageImpl::use_byte_size_t(), nbytes, c10::GetCPUAllocator(),
      /*resizable=*/true));
  return at::Tensor(c10::make_intrusive<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::CPU), dtype));
}

void check_options(const char* op, std::optional<c10::Layout> layout,
                   std::optional<c10::Device> device) {
  TORCH_CHECK(!layout.has_value() || *layout == c10::Layout::Strided, op,
              ": the CPU backend makes strided tensors only, but layout ",
              static_cast<int>(*layout), " was requested. Pass "
              "layout=Strided or leave it unset.");
  TORCH_CHECK(!device.has_value() || device->is_cpu(), op,
              ": this is the CPU backend's kernel, but device ", *device,
              " was requested. Pass device=cpu, or use that device's "
              "backend.");
}

// pin_memory=true: page-locked memory from the allocator CUDA's plugin
// registers (See Note [Pinned memory] in aten/ops/conversion.cc); else the
// CPU allocator.
c10::Allocator* pinned_allocator(std::optional<bool> pin_memory, const char* op) {
  return pin_memory.value_or(false) ? at::detail::pinned_memory_allocator(c10::kCUDA, op)
                                    : nullptr;
}

}  // namespace

at::Tensor empty_cpu(c10::IntArrayRef sizes, c10::ScalarType dtype,
                     const char* op) {
  check_dtype(dtype, op);
  at::Tensor t = make_tensor(c10::checked_contiguous_nbytes(sizes, c10::elementSize(dtype), op),
                             dtype);
  if (!sizes.empty()) t.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  return t;
}

// Defined here, next to empty_cpu, rather than in TensorIterator.cc: the
// loop driver's target (:support) is below this one.
at::Tensor TensorIterator::allocate(c10::IntArrayRef sizes, c10::ScalarType dtype,
                                   c10::Device device) {
  TORCH_INTERNAL_ASSERT(device.is_cpu(), "ember::cpu::TensorIterator: allocating on ", device);
  return empty_cpu(sizes, dtype);
}

at::Tensor empty_strided_cpu(c10::IntArrayRef sizes, c10::IntArrayRef strides,
                             c10::ScalarType dtype, const char* op) {
  check_dtype(dtype, op);
  at::Tensor t = make_tensor(
      c10::checked_strided_nbytes(sizes, strides, c10::elementSize(dtype), 0, op), dtype);
  t.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides, 0);
  return t;
}

// ---- resize_ ----------------------------------------------------------------------

// Note [resize_ on the CPU]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// As PyTorch's resize_: a tensor that already has `size` keeps its strides
// unless a memory format is given; otherwise it gets the strides of the
// format (contiguous by default, NHWC for ChannelsLast) and its storage
// grows, keeping its bytes, when the new extent plus the storage offset
// needs more. A storage over memory Ember does not own cannot grow.
// Elements are not initialized. The aten helpers (at::native::resize_output
// and resize_out, aten/Resize.h) check and warn before they dispatch here.
at::Tensor& resize_(at::Tensor& self, c10::IntArrayRef size,
                    std::optional<c10::MemoryFormat> memory_format) {
  return at::native::resize_storage_and_shape(
      self, size, memory_format, c10::GetCPUAllocator(),
      [](void* dst, const void* src, size_t n) { std::memcpy(dst, src, n); });
}

// ---- registered kernels ---------------------------------------------------------

at::Tensor empty(c10::IntArrayRef size, std::optional<c10::ScalarType> dtype,
                 std::optional<c10::Layout> layout,
                 std::optional<c10::Device> device,
                 std::optional<bool> pin_memory,
                 std::optional<c10::MemoryFormat> memory_format) {
  check_options("empty", layout, device);
  // c10 has no default-dtype setting yet: the default is Float.
  const c10::ScalarType st = dtype.value_or(c10::kFloat);
  const c10::MemoryFormat format =
      memory_format.value_or(c10::MemoryFormat::Contiguous);
  if (c10::Allocator* pinned = pinned_allocator(pin_memory, "empty")) {
    return at::Tensor(at::detail::empty_generic(
        size, pinned, c10::DispatchKeySet(c10::DispatchKey::CPU), st, format));
  }
  if (format == c10::MemoryFormat::Contiguous) return empty_cpu(size, st, "empty");
  TORCH_CHECK(format == c10::MemoryFormat::ChannelsLast, "empty: memory format ",
              format, " is not supported for a new tensor (there is no input "
              "whose layout to preserve). Pass Contiguous or ChannelsLast.");
  TORCH_CHECK(size.size() == 4, "empty: memory format ChannelsLast needs 4 "
              "sizes (N, C, H, W), but got ", size, ". Pass 4 sizes or use "
              "Contiguous.");
  c10::check_sizes_non_negative(size, "empty");
  // NHWC: C varies fastest, then W, then H, then N.
  const int64_t c = std::max<int64_t>(size[1], 1);
  const int64_t w = std::max<int64_t>(size[3], 1);
  const int64_t h = std::max<int64_t>(size[2], 1);
  const int64_t strides[4] = {h * w * c, 1, w * c, c};
  return empty_strided_cpu(size, strides, st, "empty");
}

at::Tensor empty_strided(c10::IntArrayRef size, c10::IntArrayRef stride,
                         std::optional<c10::ScalarType> dtype,
                         std::optional<c10::Layout> layout,
                         std::optional<c10::Device> device,
                         std::optional<bool> pin_memory) {
  check_options("empty_strided", layout, device);
  if (c10::Allocator* pinned = pinned_allocator(pin_memory, "empty_strided")) {
    return at::Tensor(at::detail::empty_strided_generic(
        size, stride, pinned, c10::DispatchKeySet(c10::DispatchKey::CPU),
        dtype.value_or(c10::kFloat)));
  }
  return empty_strided_cpu(size, stride, dtype.value_or(c10::kFloat));
}

// ---- ranges -----------------------------------------------------------------------

namespace {

// Writes value(i) for i in [0, n) into out (resized to [n] by the caller),
// through a contiguous temporary when out is not contiguous.
template <typename T, typename Value>
void fill_1d(const at::Tensor& out, int64_t n, Value value) {
  at::Tensor dst = out.is_contiguous() ? out : empty_cpu(out.sizes(), out.scalar_type());
  T* data = static_cast<T*>(dst.data_ptr());
  for (int64_t i = 0; i < n; ++i) data[i] = value(i);
  if (!dst.is_same(out)) copy_into(out, dst);
}

}  // namespace

at::Tensor& arange_out(const c10::Scalar& start, const c10::Scalar& end,
                       const c10::Scalar& step, at::Tensor& out) {
  const c10::ScalarType dtype = out.scalar_type();
  const int64_t size = at::native::arange_length(start, end, step, dtype);
  const bool integral = c10::isIntegralType(dtype, /*includeBool=*/false);
  const double xstart = start.toDouble();
  const double xstep = step.toDouble();
  const int64_t istep = integral ? step.toLong() : 0;
  if (out.numel() != size || out.dim() != 1) resize_output(out, {size}, "arange");
  EMBER_DISPATCH_ALL_TYPES_BUT_BOOL(dtype, "arange", [&] {
    if constexpr (std::is_integral_v<scalar_t>) {
      const uint64_t first = static_cast<uint64_t>(start.toLong());
      const uint64_t delta = static_cast<uint64_t>(istep);
      fill_1d<scalar_t>(out, size, [&](int64_t i) {
        // Wraps into the dtype as PyTorch's integer arithmetic does.
        return static_cast<scalar_t>(static_cast<int64_t>(
            first + delta * static_cast<uint64_t>(i)));
      });
    } else {
      fill_1d<scalar_t>(out, size, [&](int64_t i) {
        return static_cast<scalar_t>(xstart + xstep * static_cast<double>(i));
      });
    }
  });
  return out;
}

at::Tensor& linspace_out(const c10::Scalar& start, const c10::Scalar& end,
                         int64_t steps, at::Tensor& out) {
  at::native::check_linspace(steps, out.scalar_type());
  resize_output(out, {steps}, "linspace");
  if (steps == 0) return out;
  EMBER_DISPATCH_ALL_TYPES_BUT_BOOL(out.scalar_type(), "linspace", [&] {
    // Integral results step in double; floating ones in their compute type.
    using step_t = std::conditional_t<std::is_integral_v<scalar_t>, double,
                                      opmath_t<scalar_t>>;
    const auto a = static_cast<step_t>(start.to<scalar_t>());
    const auto b = static_cast<step_t>(end.to<scalar_t>());
    if (steps == 1) {
      fill_1d<scalar_t>(out, 1, [&](int64_t) { return start.to<scalar_t>(); });
      return;
    }
    const step_t step = (b - a) / static_cast<step_t>(steps - 1);
    const int64_t halfway = steps / 2;
    // The second half counts back from end, so both ends are exact.
    fill_1d<scalar_t>(out, steps, [&](int64_t i) {
      const step_t v = i < halfway ? a + step * static_cast<step_t>(i)
                                   : b - step * static_cast<step_t>(steps - i - 1);
      return static_cast<scalar_t>(v);
    });
  });
  return out;
}

at::Tensor& eye_m_out(int64_t n, int64_t m, at::Tensor& out) {
  at::native::check_eye(n, m);
  resize_output(out, {n, m}, "eye");
  if (out.numel() == 0) return out;
  fill_(out, 0);
  const int64_t diag = std::min(n, m);
  const int64_t step = out.stride(0) + out.stride(1);
  EMBER_DISPATCH_ALL_TYPES(out.scalar_type(), "eye", [&] {
    scalar_t* data = static_cast<scalar_t*>(out.data_ptr());
    for (int64_t i = 0; i < diag; ++i) data[i * step] = convert<scalar_t>(1);
  });
  return out;
}

at::Tensor& eye_out(int64_t n, at::Tensor& out) { return eye_m_out(n, n, out); }

}  // namespace ember::cpu
