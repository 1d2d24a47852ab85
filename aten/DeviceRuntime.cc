#include "aten/DeviceRuntime.h"

#include "c10/core/impl/DeviceGuardImplInterface.h"
#include "c10/util/Exception.h"
#include "registration/plugin_loader.h"

namespace at {

c10::DeviceIndex device_count(c10::DeviceType type) {
  if (type == c10::kCPU) return 1;
  if (!c10::impl::hasDeviceGuardImpl(type)) {
    try {
      c10::impl::autoload_backend_plugin(type);
    } catch (const c10::Error& e) {
      TORCH_WARN("device_count: the ", c10::DeviceTypeName(type), " plugin was found but "
                 "failed to load, so no ", c10::DeviceTypeName(type), " device is available: ",
                 e.what_without_backtrace());
      return 0;
    }
    if (!c10::impl::hasDeviceGuardImpl(type)) return 0;
  }
  return c10::impl::getDeviceGuardImpl(type)->deviceCount();
}

}  // namespace at
