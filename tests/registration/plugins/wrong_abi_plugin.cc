// tests/registration/plugins/wrong_abi_plugin.cc — a plugin built for Ember
// ABI version 999: the descriptor is written by hand, as EMBER_PLUGIN would
// write it for another version of Ember.
#include "c10/util/Exception.h"
#include "sdk/plugin.h"

extern "C"
    __attribute__((section(".ember_plugin"), used, EMBER_PLUGIN_NO_REDZONE_
                   visibility("default")))
    const c10::PluginDescriptor ember_plugin_descriptor = {
        c10::kPluginDescriptorMagic, c10::kPluginDescriptorLayout, 999,
        "wrongabi", EMBER_BUILD_FINGERPRINT};

namespace {

struct Init {
  Init() { TORCH_WARN("wrong_abi plugin initialized"); }
};
const Init init;

}  // namespace
