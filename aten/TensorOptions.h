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
class TensorOptions {
 public:
  TensorOptions() = default;
  /* implicit */ TensorOptions(ScalarType dtype) { dtype_ = dtype; }
  /* implicit */ TensorOptions(Device device) { device_ = device; }
  /* implicit */ TensorOptions(DeviceType type) { device_ = Device(type); }
  /* implicit */ TensorOptions(Layout layout) { layout_ = layout; }

  TensorOptions dtype(std::optional<ScalarType> dtype) const {
    TensorOptions r = *this;
    r.dtype_ = dtype;
    return r;
  }
  TensorOptions device(std::optional<Device> device) const {
    TensorOptions r = *this;
    r.device_ = device;
    return r;
  }
  TensorOptions device(DeviceType type) const { return device(Device(type)); }
  TensorOptions layout(std::optional<Layout> layout) const {
    TensorOptions r = *this;
    r.layout_ = layout;
    return r;
  }
  TensorOptions requires_grad(std::optional<bool> requires_grad) const {
    TensorOptions r = *this;
    r.requires_grad_ = requires_grad;
    return r;
  }
  TensorOptions pinned_memory(std::optional<bool> pinned) const {
    TensorOptions r = *this;
    r.pinned_memory_ = pinned;
    return r;
  }

  // The value, or the default (float32, cpu, strided, false).
  ScalarType dtype() const { return dtype_.value_or(ScalarType::Float); }
  Device device() const { return device_.value_or(Device(DeviceType::CPU)); }
  Layout layout() const { return layout_.value_or(Layout::Strided); }
  bool requires_grad() const { return requires_grad_.value_or(false); }
  bool pinned_memory() const { return pinned_memory_.value_or(false); }

  bool has_dtype() const { return dtype_.has_value(); }
  bool has_device() const { return device_.has_value(); }
  bool has_requires_grad() const { return requires_grad_.has_value(); }

  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  std::optional<Device> device_opt() const { return device_; }
  std::optional<Layout> layout_opt() const { return layout_; }
  std::optional<bool> requires_grad_opt() const { return requires_grad_; }
  std::optional<bool> pinned_memory_opt() const { return pinned_memory_; }

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  std::optional<Layout> layout_;
  std::optional<bool> requires_grad_;
  std::optional<bool> pinned_memory_;
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
