// registration/plugin_file.h — a plugin's descriptor, read from its ELF file
// without loading it: the loader checks the descriptor (ABI version, the
// core's fingerprint, the machine) before dlopen runs any of the plugin's
// code, and //tools:ops lists plugins the same way. Internal to the loader.
#pragma once

#include <string>

#include "registration/plugin_descriptor.h"

namespace c10 {
namespace impl {

// The .ember_plugin section of the shared object at `path`. Throws c10::Error
// naming what is wrong: not a file, not a 64-bit ELF shared object of this
// machine and byte order, no or a damaged descriptor.
PluginDescriptor read_plugin_descriptor(const std::string& path);

// strerror's text for `err`, thread-safe.
std::string errno_text(int err);

}  // namespace impl
}  // namespace c10
