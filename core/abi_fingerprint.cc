// core/abi_fingerprint.cc — the fingerprint this core was built with.
// See Note [ABI fingerprint] in bazel/abi_fingerprint.py.
#include "registration/plugin_loader.h"
#include "sdk/abi_fingerprint.h"

namespace c10 {

std::string core_build_fingerprint() { return EMBER_BUILD_FINGERPRINT; }

}  // namespace c10
