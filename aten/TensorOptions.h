// aten/TensorOptions.h — the options of a new tensor: dtype, device, layout,
// requires_grad, as in PyTorch.
//
//   auto t = at::empty({2, 3}, at::TensorOptions().dtype(at::kDouble));
//   auto u = at::zeros({4}, at::dtype(at::kInt).device(at::kCPU));
//
// A small value type; each setter returns a modified copy.
#pragma once

#include <optional>
#include <ostream>

#include "c10/core/Device.h"
#include "c10/core/Layout.h"
#include "c10/core/MemoryFormat.h"
#include "c10/core/ScalarType.h"

namespace at {

using c10::Device;
using c10::DeviceType;
using c10::kCPU;
using c10::kCUDA;
using c10::ScalarType;
using c10::kBFloat16;
using c10::kBool;
using c10::kByte;
using c10::kChar;
using c10::kDouble;
using c10::kFloat;
using c10::kHalf;
using c10::kInt;
using c10::kLong;
using c10::kShort;
using c10::BFloat16;
using c10::Half;

// at::TensorOptions
//
// Each field is a value plus a "set" flag (not std::optional: GCC's
// -Wmaybe-uninitialized misfires on copies of optionals under sanitizers).
class TensorOptions {
 public:
  TensorOptions() = default;
  /* implicit */ TensorOptions(ScalarType dtype) { set_dtype(dtype); }
  /* implicit */ TensorOptions(Device device) { set_device(device); }
  /* implicit */ TensorOptions(DeviceType type) { set_device(Device(type)); }
  /* implicit */ TensorOptions(Layout layout) { set_layout(layout); }

  TensorOptions dtype(std::optional<ScalarType> dtype) const {
    TensorOptions r = *this;
    r.has_dtype_ = dtype.has_value();
    if (dtype) r.dtype_ = *dtype;
    return r;
  }
  TensorOptions device(std::optional<Device> device) const {
    TensorOptions r = *this;
    r.has_device_ = device.has_value();
    if (device) r.device_ = *device;
    return r;
  }
  TensorOptions device(DeviceType type) const { return device(Device(type)); }
  TensorOptions layout(std::optional<Layout> layout) const {
    TensorOptions r = *this;
    r.has_layout_ = layout.has_value();
    if (layout) r.layout_ = *layout;
    return r;
  }
  TensorOptions requires_grad(std::optional<bool> requires_grad) const {
    TensorOptions r = *this;
    r.has_requires_grad_ = requires_grad.has_value();
    r.requires_grad_ = requires_grad.value_or(false);
    return r;
  }
  TensorOptions pinned_memory(std::optional<bool> pinned) const {
    TensorOptions r = *this;
    r.has_pinned_memory_ = pinned.has_value();
    r.pinned_memory_ = pinned.value_or(false);
    return r;
  }

  // The value, or the default (float32, cpu, strided, false).
  ScalarType dtype() const { return dtype_; }
  Device device() const { return device_; }
  Layout layout() const { return layout_; }
  bool requires_grad() const { return requires_grad_; }
  bool pinned_memory() const { return pinned_memory_; }

  bool has_dtype() const { return has_dtype_; }
  bool has_device() const { return has_device_; }
  bool has_requires_grad() const { return has_requires_grad_; }

  std::optional<ScalarType> dtype_opt() const {
    return has_dtype_ ? std::optional<ScalarType>(dtype_) : std::nullopt;
  }
  std::optional<Device> device_opt() const {
    return has_device_ ? std::optional<Device>(device_) : std::nullopt;
  }
  std::optional<Layout> layout_opt() const {
    return has_layout_ ? std::optional<Layout>(layout_) : std::nullopt;
  }
  std::optional<bool> requires_grad_opt() const {
    return has_requires_grad_ ? std::optional<bool>(requires_grad_) : std::nullopt;
  }
  std::optional<bool> pinned_memory_opt() const {
    return has_pinned_memory_ ? std::optional<bool>(pinned_memory_) : std::nullopt;
  }

 private:
  void set_dtype(ScalarType d) { dtype_ = d; has_dtype_ = true; }
  void set_device(Device d) { device_ = d; has_device_ = true; }
  void set_layout(Layout l) { layout_ = l; has_layout_ = true; }

  Device device_{DeviceType::CPU};
  ScalarType dtype_ = ScalarType::Float;
  Layout layout_ = Layout::Strided;
  bool requires_grad_ = false;
  bool pinned_memory_ = false;
  bool has_dtype_ = false;
  bool has_device_ = false;
  bool has_layout_ = false;
  bool has_requires_grad_ = false;
  bool has_pinned_memory_ = false;
};

std::ostream& operator<<(std::ostream& out, const TensorOptions& options);

// at::dtype / at::device / at::layout / at::requires_grad
inline TensorOptions dtype(ScalarType dtype) { return TensorOptions().dtype(dtype); }
inline TensorOptions device(Device device) { return TensorOptions().device(device); }
inline TensorOptions layout(Layout layout) { return TensorOptions().layout(layout); }
inline TensorOptions requires_grad(bool requires_grad = true) {
  return TensorOptions().requires_grad(requires_grad);
}

}  // namespace at
