#include "c10/core/Device.h"

#include <cctype>

#include "c10/util/Exception.h"

namespace c10 {

namespace {
constexpr const char* kDeviceStringHelp =
    "a device string is a type optionally followed by ':' and a "
    "non-negative index, e.g. \"cpu\", \"cuda\" or \"cuda:1\"";
}

Device::Device(const std::string& device_string) : type_(DeviceType::CPU) {
  TORCH_CHECK(!device_string.empty(),
              "Device: the device string is empty; ", kDeviceStringHelp, ".");
  const auto colon = device_string.find(':');
  const std::string type_part = device_string.substr(0, colon);
  try {
    type_ = parse_device_type(type_part);
  } catch (const Error&) {
    C10_THROW_ERROR(Error, "Device: invalid device string \"", device_string,
                "\": unknown device type \"", type_part, "\" (expected cpu, "
                "cuda or ", get_privateuse1_backend(true), "); ",
                kDeviceStringHelp, ".");
  }
  if (colon == std::string::npos) {
    index_ = -1;
  } else {
    const std::string index_part = device_string.substr(colon + 1);
    bool digits = !index_part.empty() && index_part.size() <= 3;
    for (char c : index_part) {
      digits = digits && std::isdigit(static_cast<unsigned char>(c));
    }
    // Leading zeros ("cuda:01") are rejected, as PyTorch does.
    digits = digits && !(index_part.size() > 1 && index_part[0] == '0');
    TORCH_CHECK(digits, "Device: invalid device string \"", device_string,
                "\": the index \"", index_part, "\" is not a non-negative "
                "integer below 128; ", kDeviceStringHelp, ".");
    const int index = std::stoi(index_part);
    TORCH_CHECK(index <= 127, "Device: invalid device string \"",
                device_string, "\": index ", index,
                " is too large; the largest device index is 127.");
    index_ = static_cast<DeviceIndex>(index);
  }
  validate();
}

void Device::validate() const {
  TORCH_CHECK(isValidDeviceType(type_), "Device: unknown device type ",
              static_cast<int>(type_), "; expected CPU, CUDA or PrivateUse1.");
  TORCH_CHECK(index_ >= -1, "Device: device index must be -1 (current device) "
              "or non-negative, but got ", static_cast<int>(index_), ".");
  TORCH_CHECK(!is_cpu() || index_ <= 0,
              "Device: a CPU device index must be -1 or 0, but got ",
              static_cast<int>(index_), ". There is only one CPU device.");
}

std::string Device::str() const {
  std::string s = DeviceTypeName(type_, /*lower_case=*/true);
  if (has_index()) {
    s += ':';
    s += std::to_string(static_cast<int>(index_));
  }
  return s;
}

std::ostream& operator<<(std::ostream& out, const Device& device) {
  return out << device.str();
}

}  // namespace c10
