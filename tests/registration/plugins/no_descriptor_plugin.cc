// tests/registration/plugins/no_descriptor_plugin.cc — a shared object
// without EMBER_PLUGIN: the loader must refuse it without running it.
#include "c10/util/Exception.h"

namespace {

struct Init {
  Init() { TORCH_WARN("no_descriptor plugin initialized"); }
};
const Init init;

}  // namespace
