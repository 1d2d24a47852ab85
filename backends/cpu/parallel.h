// backends/cpu/parallel.h — how many threads the CPU plugin's parallel loops
// (and oneDNN) use, and from what output size its elementwise loops write
// around the caches. The loops themselves: parallel_loops.h. Internal to the
// CPU plugin.
#pragma once

#include <cstdint>

namespace ember::cpu {

// at::get_num_threads(), after applying it to the calling thread's OpenMP
// setting when that differs (OpenMP's thread count is per thread, and
// oneDNN reads it when a primitive runs). Call it before any OpenMP region
// or oneDNN primitive; it costs a read of OpenMP's setting when nothing
// changed.
int num_threads();

// The output size in bytes from which elementwise kernels write their
// output with non-temporal (streaming) stores: the last-level cache's size
// (sysconf), 32 MiB where the system does not say; EMBER_STREAMING_STORE_BYTES
// (a positive byte count) overrides it, for tests. Read once. See Note
// [Streaming stores] in pointwise_loops.h.
int64_t streaming_store_bytes();

}  // namespace ember::cpu
