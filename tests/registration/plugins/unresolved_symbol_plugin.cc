// tests/registration/plugins/unresolved_symbol_plugin.cc — a plugin that
// calls a function nobody defines. It links (shared objects may have
// undefined symbols unless built with -z defs) but dlopen(RTLD_NOW) fails.
#include "sdk/plugin.h"

EMBER_PLUGIN(unresolved)

extern "C" void ember_test_function_that_does_not_exist();

namespace {

struct Init {
  Init() { ember_test_function_that_does_not_exist(); }
};
const Init init;

}  // namespace
