// tests/registration/plugins/registration_error_plugin.cc — a plugin whose
// second and third registrations fail. The first one is an RAII object, as
// the registration macros' handles are: when the loader unloads the plugin,
// its destructor runs and says so through the core.
#include <exception>

#include "c10/util/Exception.h"
#include "sdk/plugin.h"
#include "registration/plugin_loader.h"

EMBER_PLUGIN(testregerror)

namespace {

struct Registration {
  Registration() { TORCH_WARN("registration_error plugin: registered"); }
  ~Registration() { TORCH_WARN("registration_error plugin: unregistered"); }
};
const Registration first;

struct FailingRegistration {
  // The shape of the registration macros' guard.
  FailingRegistration() {
    try {
      C10_THROW_ERROR(Error, "duplicate kernel for test::op on CPU");
    } catch (...) {
      if (!c10::impl::report_registration_error(std::current_exception())) {
        throw;
      }
    }
  }
};
const FailingRegistration second;
const FailingRegistration third;

}  // namespace
