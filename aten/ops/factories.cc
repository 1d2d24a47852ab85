// Factories written in terms of empty and fill_: one composite kernel for
// every backend.
#include "aten/Functions.h"
#include "aten/Resize.h"
#include "c10/util/Exception.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

// The sizes check of empty, naming the factory the user called (empty's
// own would name empty).
void check_sizes(IntArrayRef sizes, const char* op) {
  for (size_t d = 0; d < sizes.size(); ++d) {
    TORCH_CHECK(sizes[d] >= 0, op, ": sizes must be non-negative, but got ", sizes, " (size ",
                sizes[d], " at dimension ", d, "). Pass sizes >= 0.");
  }
}

TensorOptions options_of(std::optional<ScalarType> dtype, std::optional<Layout> layout,
                         std::optional<Device> device, std::optional<bool> pin_memory) {
  return TensorOptions().dtype(dtype).layout(layout).device(device).pinned_memory(
      pin_memory);
}

Tensor zeros(IntArrayRef size, std::optional<ScalarType> dtype,
             std::optional<Layout> layout, std::optional<Device> device,
             std::optional<bool> pin_memory) {
  check_sizes(size, "zeros");
  return at::empty(size, options_of(dtype, layout, device, pin_memory)).zero_();
}

Tensor ones(IntArrayRef size, std::optional<ScalarType> dtype,
            std::optional<Layout> layout, std::optional<Device> device,
            std::optional<bool> pin_memory) {
  check_sizes(size, "ones");
  return at::empty(size, options_of(dtype, layout, device, pin_memory)).fill_(1);
}

// PyTorch infers the dtype of full() from the fill value when none is given:
// bool -> Bool, integral -> Long, floating -> the default float dtype.
Tensor full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype,
            std::optional<Layout> layout, std::optional<Device> device,
            std::optional<bool> pin_memory) {
  check_sizes(size, "full");
  if (!dtype.has_value()) {
    dtype = fill_value.isBoolean()    ? ScalarType::Bool
            : fill_value.isIntegral(false) ? ScalarType::Long
                                           : ScalarType::Float;
  }
  return at::empty(size, options_of(dtype, layout, device, pin_memory)).fill_(fill_value);
}

Tensor scalar_tensor(const Scalar& s, std::optional<ScalarType> dtype,
                     std::optional<Layout> layout, std::optional<Device> device,
                     std::optional<bool> pin_memory) {
  return at::empty({}, options_of(dtype, layout, device, pin_memory)).fill_(s);
}

// The *_like factories take dtype and device from `self` unless given.
TensorOptions like(const Tensor& self, std::optional<ScalarType> dtype,
                   std::optional<Layout> layout, std::optional<Device> device,
                   std::optional<bool> pin_memory) {
  return options_of(dtype.value_or(self.scalar_type()), layout,
                    device.value_or(self.device()), pin_memory);
}

void check_memory_format(std::optional<MemoryFormat> format, const char* where) {
  TORCH_CHECK(!format.has_value() || *format == MemoryFormat::Contiguous ||
                  *format == MemoryFormat::Preserve,
              where, ": memory format ", *format, " is not supported yet; use "
              "Contiguous or Preserve.");
}

Tensor empty_like(const Tensor& self, std::optional<ScalarType> dtype,
                  std::optional<Layout> layout, std::optional<Device> device,
                  std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  check_memory_format(memory_format, "empty_like");
  const TensorOptions options = like(self, dtype, layout, device, pin_memory);
  // Preserve (the default) keeps the strides of a dense non-overlapping
  // input; Ember keeps them when the input is contiguous and otherwise
  // returns a contiguous tensor.
  return at::empty(self.sizes(), options);
}

Tensor zeros_like(const Tensor& self, std::optional<ScalarType> dtype,
                  std::optional<Layout> layout, std::optional<Device> device,
                  std::optional<bool> pin_memory,
                  std::optional<MemoryFormat> memory_format) {
  return at::empty_like(self, dtype, layout, device, pin_memory, memory_format).zero_();
}

Tensor ones_like(const Tensor& self, std::optional<ScalarType> dtype,
                 std::optional<Layout> layout, std::optional<Device> device,
                 std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return at::empty_like(self, dtype, layout, device, pin_memory, memory_format).fill_(1);
}

Tensor full_like(const Tensor& self, const Scalar& fill_value,
                 std::optional<ScalarType> dtype, std::optional<Layout> layout,
                 std::optional<Device> device, std::optional<bool> pin_memory,
                 std::optional<MemoryFormat> memory_format) {
  return at::empty_like(self, dtype, layout, device, pin_memory, memory_format)
      .fill_(fill_value);
}

Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  check_memory_format(memory_format, "clone");
  Tensor out = at::empty(self.sizes(), self.options());
  out.copy_(self);
  return out;
}

Tensor& zero_(Tensor& self) { return self.fill_(0); }

// ---- ranges and the identity ------------------------------------------------------
// The functional forms allocate an empty result of the right dtype and let
// the backend's out= kernel size and fill it.

Tensor arange_start_step(const Scalar& start, const Scalar& end, const Scalar& step,
                         std::optional<ScalarType> dtype, std::optional<Layout> layout,
                         std::optional<Device> device, std::optional<bool> pin_memory) {
  if (!dtype.has_value()) {
    // PyTorch: Long when start, end and step are all integral (or bool),
    // else the default float dtype.
    const bool any_float =
        start.isFloatingPoint() || end.isFloatingPoint() || step.isFloatingPoint();
    dtype = any_float ? ScalarType::Float : ScalarType::Long;
  }
  Tensor out = at::empty({0}, options_of(dtype, layout, device, pin_memory));
  return at::arange_out(out, start, end, step);
}

Tensor arange_start(const Scalar& start, const Scalar& end,
                    std::optional<ScalarType> dtype, std::optional<Layout> layout,
                    std::optional<Device> device, std::optional<bool> pin_memory) {
  return arange_start_step(start, end, 1, dtype, layout, device, pin_memory);
}

Tensor arange(const Scalar& end, std::optional<ScalarType> dtype,
              std::optional<Layout> layout, std::optional<Device> device,
              std::optional<bool> pin_memory) {
  return arange_start_step(0, end, 1, dtype, layout, device, pin_memory);
}

Tensor& arange_end_out(const Scalar& end, Tensor& out) {
  return at::arange_out(out, 0, end, 1);
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                std::optional<ScalarType> dtype, std::optional<Layout> layout,
                std::optional<Device> device, std::optional<bool> pin_memory) {
  TORCH_CHECK(steps >= 0, "linspace: number of steps must be non-negative, but "
              "got steps=", steps, ".");
  Tensor out = at::empty({steps}, options_of(dtype, layout, device, pin_memory));
  return at::linspace_out(out, start, end, steps);
}

Tensor eye_m(int64_t n, int64_t m, std::optional<ScalarType> dtype,
             std::optional<Layout> layout, std::optional<Device> device,
             std::optional<bool> pin_memory) {
  TORCH_CHECK(n >= 0, "eye: n must be greater or equal to 0, got ", n, ".");
  TORCH_CHECK(m >= 0, "eye: m must be greater or equal to 0, got ", m, ".");
  Tensor out = at::empty({n, m}, options_of(dtype, layout, device, pin_memory));
  return at::eye_out(out, n, m);
}

Tensor eye(int64_t n, std::optional<ScalarType> dtype, std::optional<Layout> layout,
           std::optional<Device> device, std::optional<bool> pin_memory) {
  return eye_m(n, n, dtype, layout, device, pin_memory);
}

}  // namespace
}  // namespace native
}  // namespace at

namespace at {
namespace native {
namespace {

// The factories' out= forms for backends without their own (the CPU plugin
// has kernels): `out` keeps its dtype, is resized as resize_ resizes (no
// warning, as PyTorch's), then filled.
Tensor& filled_out(IntArrayRef size, const Scalar& value, Tensor& out, const char* op) {
  resize_out(out, size, op);
  return out.fill_(value);
}
Tensor& full_out_composite(IntArrayRef size, const Scalar& fill_value, Tensor& out) {
  return filled_out(size, fill_value, out, "full");
}
Tensor& zeros_out_composite(IntArrayRef size, Tensor& out) {
  return filled_out(size, 0, out, "zeros");
}
Tensor& ones_out_composite(IntArrayRef size, Tensor& out) {
  return filled_out(size, 1, out, "ones");
}
Tensor& empty_out_composite(IntArrayRef size, std::optional<c10::MemoryFormat> memory_format,
                            Tensor& out) {
  TORCH_CHECK(!memory_format.has_value(), "empty: 'memory_format' argument is "
              "incompatible with 'out' tensor argument; leave it unset (the out "
              "tensor's strides are kept when its shape already matches).");
  resize_out(out, size, "empty");
  return out;
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("full.out", TORCH_FN(at::native::full_out_composite));
  m.impl("zeros.out", TORCH_FN(at::native::zeros_out_composite));
  m.impl("ones.out", TORCH_FN(at::native::ones_out_composite));
  m.impl("empty.out", TORCH_FN(at::native::empty_out_composite));
}

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("zeros", TORCH_FN(at::native::zeros));
  m.impl("ones", TORCH_FN(at::native::ones));
  m.impl("full", TORCH_FN(at::native::full));
  m.impl("scalar_tensor", TORCH_FN(at::native::scalar_tensor));
  m.impl("empty_like", TORCH_FN(at::native::empty_like));
  m.impl("zeros_like", TORCH_FN(at::native::zeros_like));
  m.impl("ones_like", TORCH_FN(at::native::ones_like));
  m.impl("full_like", TORCH_FN(at::native::full_like));
  m.impl("clone", TORCH_FN(at::native::clone));
  m.impl("zero_", TORCH_FN(at::native::zero_));
  m.impl("arange", TORCH_FN(at::native::arange));
  m.impl("arange.start", TORCH_FN(at::native::arange_start));
  m.impl("arange.start_step", TORCH_FN(at::native::arange_start_step));
  m.impl("arange.out", TORCH_FN(at::native::arange_end_out));
  m.impl("linspace", TORCH_FN(at::native::linspace));
  m.impl("eye", TORCH_FN(at::native::eye));
  m.impl("eye.m", TORCH_FN(at::native::eye_m));
}
