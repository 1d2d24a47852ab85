// Fuzz target: the plugin loader's reading of an ELF file's headers and
// .ember_plugin descriptor (c10::impl::inspect_plugin), which runs before
// any plugin code and must refuse every malformed file with a c10::Error.
// Nothing is loaded: inspect_plugin only reads.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "c10/util/Exception.h"
#include "registration/plugin_loader.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static ember_fuzz::MemoryFile in;
  try {
    const c10::PluginInfo info = c10::impl::inspect_plugin(in.write(data, size));
    if (info.name.empty() || info.name.size() >= 64 || info.fingerprint.size() >= 128) {
      std::abort();
    }
  } catch (const c10::Error&) {
  }
  return 0;
}
