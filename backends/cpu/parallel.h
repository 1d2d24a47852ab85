// backends/cpu/parallel.h — how many threads the CPU plugin's parallel loops
// (and oneDNN) use. Internal to the CPU plugin.
#pragma once

namespace ember::cpu {

// at::get_num_threads(), after applying it to the calling thread's OpenMP
// setting when that differs (OpenMP's thread count is per thread, and
// oneDNN reads it when a primitive runs). Call it before any OpenMP region
// or oneDNN primitive; it costs a thread-local compare when nothing changed.
int num_threads();

}  // namespace ember::cpu
