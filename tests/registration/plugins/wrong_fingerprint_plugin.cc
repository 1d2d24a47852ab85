// tests/registration/plugins/wrong_fingerprint_plugin.cc — a plugin built
// against other core headers: right ABI version, another build fingerprint.
#include "c10/util/Exception.h"
#include "registration/plugin_descriptor.h"

extern "C"
    __attribute__((section(".ember_plugin"), used, EMBER_PLUGIN_NO_REDZONE_
                   visibility("default")))
    const c10::PluginDescriptor ember_plugin_descriptor = {
        c10::kPluginDescriptorMagic, c10::kPluginDescriptorLayout,
        EMBER_ABI_VERSION, "wrongfingerprint", "not-this-core"};

namespace {

struct Init {
  Init() { TORCH_WARN("wrong_fingerprint plugin initialized"); }
};
const Init init;

}  // namespace
