#include "c10/core/DeviceType.h"

#include <atomic>
#include <cctype>
#include <mutex>

#include "c10/util/Exception.h"

namespace c10 {
namespace {

// Note [PrivateUse1 name]
// ~~~~~~~~~~~~~~~~~~~~~~~
// The name is written once under the mutex, then published by a release
// store of `privateuse1_named`; readers that see `true` with an acquire load
// also see the finished string, so reading takes no lock.
std::mutex privateuse1_mutex;
std::string privateuse1_name;  // guarded as described above
std::atomic<bool> privateuse1_named{false};

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string DeviceTypeName(DeviceType type, bool lower_case) {
  switch (type) {
    case DeviceType::CPU:
      return lower_case ? "cpu" : "CPU";
    case DeviceType::CUDA:
      return lower_case ? "cuda" : "CUDA";
    case DeviceType::PrivateUse1:
      return get_privateuse1_backend(lower_case);
  }
  C10_THROW_ERROR(Error, "DeviceTypeName: unknown device type ",
              static_cast<int>(type), "; expected one of 0 (CPU), 1 (CUDA), ",
              "2 (PrivateUse1).");
}

bool isValidDeviceType(DeviceType type) {
  const int v = static_cast<int>(type);
  return v >= 0 && v < kNumDeviceTypes;
}

std::ostream& operator<<(std::ostream& out, DeviceType type) {
  return out << DeviceTypeName(type, /*lower_case=*/true);
}

void register_privateuse1_backend(const std::string& name) {
  TORCH_CHECK(!name.empty(),
              "register_privateuse1_backend: the name is empty; pass the "
              "lower-case name users will write in device strings, e.g. \"npu\".");
  for (char c : name) {
    TORCH_CHECK(std::islower(static_cast<unsigned char>(c)) ||
                    std::isdigit(static_cast<unsigned char>(c)) || c == '_',
                "register_privateuse1_backend: invalid name \"", name,
                "\"; use lower-case letters, digits and '_' only.");
  }
  TORCH_CHECK(name != "cpu" && name != "cuda",
              "register_privateuse1_backend: \"", name,
              "\" is a built-in device type; choose another name.");
  std::lock_guard<std::mutex> lock(privateuse1_mutex);
  if (privateuse1_named.load(std::memory_order_relaxed)) {
    TORCH_CHECK(privateuse1_name == name,
                "register_privateuse1_backend: PrivateUse1 is already named \"",
                privateuse1_name, "\"; cannot rename it to \"", name,
                "\". Only one third-party backend can own PrivateUse1 per "
                "process.");
    return;
  }
  privateuse1_name = name;
  privateuse1_named.store(true, std::memory_order_release);
}

std::string get_privateuse1_backend(bool lower_case) {
  if (privateuse1_named.load(std::memory_order_acquire)) {
    return lower_case ? privateuse1_name : upper(privateuse1_name);
  }
  return lower_case ? "privateuseone" : "PrivateUse1";
}

DeviceType parse_device_type(const std::string& name) {
  if (name == "cpu") return DeviceType::CPU;
  if (name == "cuda") return DeviceType::CUDA;
  if (name == get_privateuse1_backend(true)) return DeviceType::PrivateUse1;
  C10_THROW_ERROR(Error, "Device: unknown device type \"", name,
              "\"; expected one of cpu, cuda, ", get_privateuse1_backend(true),
              ".");
}

}  // namespace c10
