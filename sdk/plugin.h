// sdk/plugin.h — EMBER_PLUGIN, the one line that makes a shared object an
// Ember plugin.
//
// A plugin (a backend, or a library of custom ops) writes this once, in any
// one source file, at file scope:
//
//   #include "sdk/plugin.h"
//
//   EMBER_PLUGIN(npu)
//
// and names the shared object libember_<name>.so if it is a backend that
// should be loaded automatically (see c10::autoload_backend_plugin). The
// descriptor it defines records EMBER_ABI_VERSION and the fingerprint of the
// SDK headers the plugin is compiled against; the loader reads both from the
// file before running any of the plugin's code and refuses a plugin built
// against another ABI. See Note [Plugin descriptor] in
// registration/plugin_descriptor.h and Note [ABI fingerprint] in
// bazel/abi_fingerprint.py.
#pragma once

#include "registration/plugin_descriptor.h"
#include "sdk/abi_fingerprint.h"  // EMBER_BUILD_FINGERPRINT, generated

static_assert(sizeof(EMBER_BUILD_FINGERPRINT) <= ::c10::kPluginFingerprintSize,
              "EMBER_BUILD_FINGERPRINT does not fit the descriptor; shorten "
              "the generated fingerprint or bump the descriptor layout");

// EMBER_PLUGIN(name)
//
// Defines the plugin's descriptor (See Note [Plugin descriptor]). `name` is
// an identifier, at most 63 characters, e.g. `cpu`; a backend plugin uses its
// device's lower-case name. Write it exactly once per shared object, at file
// scope (a trailing `;` is allowed): a second one is a duplicate-symbol link
// error.
#define EMBER_PLUGIN(name) EMBER_PLUGIN_DESCRIPTOR(name, EMBER_BUILD_FINGERPRINT)
