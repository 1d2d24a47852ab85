// A backend plugin for the one-core test: kernels for PrivateUse1, named
// "onecore" by the test, registered with the same macros a user writes.
#include <torch/library.h>

#include "sdk/plugin.h"

EMBER_PLUGIN(onecore)

namespace {
at::TensorBase tagged(const at::TensorBase& self, int64_t tag) {
  static_cast<float*>(self.data_ptr())[0] = static_cast<float>(tag);
  return self;
}
}  // namespace

TORCH_LIBRARY_IMPL(onecore_ops, PrivateUse1, m) { m.impl("tag", &tagged); }
