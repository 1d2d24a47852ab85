// tests/registration/plugins/good_plugin.cc — libember_testgood.so: a
// well-formed plugin. Its static initializer calls into the core (c10::warn,
// through TORCH_WARN), a symbol it leaves undefined and that resolves against
// the host's libember_core.so, so the test sees the initializer run through
// the warning handler it installed in the host. Also compiled with -c into
// relocatable_object.o, an ELF file that is not a shared object.
#include "c10/util/Exception.h"
#include "sdk/plugin.h"

EMBER_PLUGIN(testgood)

namespace {

struct Init {
  Init() { TORCH_WARN("testgood plugin initialized"); }
};
const Init init;

}  // namespace
