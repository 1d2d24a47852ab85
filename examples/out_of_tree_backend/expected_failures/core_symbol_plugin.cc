// A plugin that defines a function of the core (c10::deleteNothing, from
// Ember's c10/core/Allocator.cc) itself, as one that linked a core library
// statically would: ember_plugin's build-time check must refuse it.
#include "c10/core/Allocator.h"

namespace c10 {
void deleteNothing(void*) {}
}  // namespace c10
