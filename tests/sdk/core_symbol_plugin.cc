// A plugin that defines a function of the core (c10::deleteNothing, from
// c10/core/Allocator.cc) itself, as one that linked a core library
// statically would: ember_plugin's check must refuse it.
#include "c10/core/Allocator.h"
#include "sdk/plugin.h"

EMBER_PLUGIN(core_symbol)

namespace c10 {
void deleteNothing(void*) {}
}  // namespace c10
