// backends/cpu/plugin.cc — this shared object is Ember's CPU plugin.
//
// The descriptor the loader reads from the file before running any of the
// plugin's code (See Note [Plugin descriptor]); once per .so. The kernels
// register themselves from the TORCH_LIBRARY_IMPL blocks of the other files.
#include "sdk/plugin.h"

EMBER_PLUGIN(cpu)
