// c10/core/Device.h — a device: a type plus an optional index.
//
//   c10::Device d("cuda:1");   // type CUDA, index 1
//   c10::Device cpu(c10::kCPU);  // index -1: "the current one"
//   std::cout << d;            // prints "cuda:1"
//
// Devices are small values, cheap to copy and compare.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "c10/core/DeviceType.h"

namespace c10 {

// c10::DeviceIndex
//
// -1 means "no particular device" (the current one); CPU is always -1 or 0.
using DeviceIndex = int8_t;

// c10::Device
struct Device {
  // Checks that the index is -1 or non-negative, and that a CPU index is -1
  // or 0.
  /* implicit */ Device(DeviceType type, DeviceIndex index = -1)
      : type_(type), index_(index) {
    validate();
  }

  // Parses "cpu", "cuda", "cuda:1", "<privateuse1 name>:0". Throws c10::Error
  // that quotes the string and says what a device string looks like.
  /* implicit */ Device(const std::string& device_string);
  /* implicit */ Device(const char* device_string)
      : Device(std::string(device_string)) {}

  bool operator==(const Device& other) const noexcept {
    return type_ == other.type_ && index_ == other.index_;
  }
  bool operator!=(const Device& other) const noexcept {
    return !(*this == other);
  }

  DeviceType type() const noexcept { return type_; }
  DeviceIndex index() const noexcept { return index_; }
  bool has_index() const noexcept { return index_ != -1; }
  void set_index(DeviceIndex index) {
    index_ = index;
    validate();
  }

  bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }
  bool is_privateuseone() const noexcept {
    return type_ == DeviceType::PrivateUse1;
  }

  // "cpu", "cuda:1", …
  std::string str() const;

 private:
  void validate() const;

  DeviceType type_;
  DeviceIndex index_ = -1;
};

std::ostream& operator<<(std::ostream& out, const Device& device);

}  // namespace c10

namespace std {
template <>
struct hash<c10::Device> {
  size_t operator()(c10::Device d) const noexcept {
    return (static_cast<size_t>(static_cast<uint8_t>(d.type())) << 8) |
           static_cast<uint8_t>(d.index());
  }
};
}  // namespace std
