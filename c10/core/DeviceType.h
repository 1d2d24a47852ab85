// c10/core/DeviceType.h — the kinds of device a tensor can live on.
//
// Ember knows CPU, CUDA and PrivateUse1, the slot a third-party backend
// takes. Such a backend may give PrivateUse1 its own name once, e.g. "npu",
// so that users write `Device("npu:0")` and messages say "npu":
//
//   c10::register_privateuse1_backend("npu");
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace c10 {

// c10::DeviceType
//
// The numbering is part of the plugin ABI: do not reorder.
enum class DeviceType : int8_t {
  CPU = 0,
  CUDA = 1,
  PrivateUse1 = 2,
};

constexpr int kNumDeviceTypes = 3;

constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kPrivateUse1 = DeviceType::PrivateUse1;

// c10::DeviceTypeName
//
// "CPU", "CUDA", or PrivateUse1's registered name ("PrivateUse1" until one is
// registered); lower case on request ("cpu", "cuda", "privateuseone"), as used
// in device strings.
std::string DeviceTypeName(DeviceType type, bool lower_case = false);

// c10::isValidDeviceType
bool isValidDeviceType(DeviceType type);

std::ostream& operator<<(std::ostream& out, DeviceType type);

// c10::register_privateuse1_backend
//
// Renames PrivateUse1 for the rest of the process. Allowed once; registering
// the same name again is a no-op, a different name is an error. Thread-safe.
// The name must be lower-case letters, digits or '_' and must not clash with a
// built-in device name.
void register_privateuse1_backend(const std::string& name);

// c10::get_privateuse1_backend
//
// The registered name in lower case, or "privateuseone" if none.
std::string get_privateuse1_backend(bool lower_case = true);

// c10::parse_device_type
//
// The device type named by `name` ("cpu", "cuda", or PrivateUse1's name);
// throws c10::Error listing the known names otherwise.
DeviceType parse_device_type(const std::string& name);

}  // namespace c10
