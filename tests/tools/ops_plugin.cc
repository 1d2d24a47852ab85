// A plugin with one op and a CPU kernel, for the ops inspector's test.
#include <torch/library.h>

#include "sdk/plugin.h"

EMBER_PLUGIN(opstool)

namespace {
at::TensorBase double_it(const at::TensorBase& self) { return self; }
}  // namespace

TORCH_LIBRARY(opstool, m) { m.def("double_it(Tensor self) -> Tensor"); }
TORCH_LIBRARY_IMPL(opstool, CPU, m) { m.impl("double_it", &double_it); }
