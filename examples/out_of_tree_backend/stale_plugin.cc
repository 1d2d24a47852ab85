// stale_plugin.cc — libember_stale.so, a plugin whose descriptor records an
// SDK fingerprint that is not this core's, as one built against another
// Ember checkout would: the loader must refuse it before running any of its
// code (npu_test.cc, LoaderRefusesAPluginOfAnotherCore). Its descriptor is
// written by hand (ember_plugin(descriptor = False)) with EMBER_PLUGIN's
// underlying macro; a real plugin writes neither.
#include <cstdio>
#include <cstdlib>

#include "registration/plugin_descriptor.h"

EMBER_PLUGIN_DESCRIPTOR(stale, "0000000000000000-built-against-another-core")

namespace {
// Would show that the plugin's code ran.
struct Ran {
  Ran() {
    std::fprintf(stderr, "stale_plugin.cc: a refused plugin's initializer ran\n");
    std::abort();
  }
} ran;
}  // namespace
