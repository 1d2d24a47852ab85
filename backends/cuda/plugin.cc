// backends/cuda/plugin.cc — this shared object is Ember's CUDA plugin.
//
// The descriptor the loader reads before running any of the plugin's code
// (See Note [Plugin descriptor]); once per .so. The runtime, the default
// generators, the caching allocator and the kernels register themselves
// from their own files' static initializers.
#include "sdk/plugin.h"

EMBER_PLUGIN(cuda)
