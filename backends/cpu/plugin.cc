// backends/cpu/plugin.cc — this shared object is Ember's CPU plugin.
//
// The descriptor the loader reads from the file before running any of the
// plugin's code (See Note [Plugin descriptor]); once per .so. The kernels
// are registered by the generated RegisterCPU.cc (the `dispatch=CPU:...`
// entries of aten/native_functions; docs/aten.md, "Adding an op").
#include "sdk/plugin.h"

EMBER_PLUGIN(cpu)
