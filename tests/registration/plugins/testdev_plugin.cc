// tests/registration/plugins/testdev_plugin.cc — libember_testdev.so: the
// backend plugin of a fake device, PrivateUse1 named "testdev", found by
// c10::impl::autoload_backend_plugin through EMBER_PLUGIN_PATH. Its static
// initializer asks for its own backend to be autoloaded, as a plugin whose
// registrations dispatch might, to prove that this does not loop.
#include "c10/core/DeviceType.h"
#include "c10/util/Exception.h"
#include "sdk/plugin.h"
#include "registration/plugin_loader.h"

EMBER_PLUGIN(testdev)

namespace {

struct Init {
  Init() {
    // Guarded the way the registration macros guard their initializers.
    try {
      c10::register_privateuse1_backend("testdev");
      const bool nested =
          c10::impl::autoload_backend_plugin(c10::DeviceType::PrivateUse1);
      TORCH_WARN("testdev plugin initialized; nested autoload returned ",
                 nested ? "true" : "false");
    } catch (...) {
      if (!c10::impl::report_registration_error(std::current_exception())) {
        throw;
      }
    }
  }
};
const Init init;

}  // namespace
