// aten/Parallel.h — the number of threads intra-op parallel work uses.
//
//   at::set_num_threads(1);          // e.g. for a benchmark pinned to a core
//   int n = at::get_num_threads();   // 1
//
// One process-wide setting. Until it is set, it is OMP_NUM_THREADS when that
// is a positive number, else the number of hardware threads. Backends read
// it before parallel work, and the CPU plugin applies it to OpenMP (and so
// to oneDNN, which Debian builds on OpenMP) on whichever thread runs a
// kernel, so kernels and oneDNN never use more threads than this.
#pragma once

namespace at {

// Sets the number of intra-op threads; n must be positive.
void set_num_threads(int n);
// The number of intra-op threads (see above).
int get_num_threads();

}  // namespace at
