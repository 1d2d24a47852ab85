// backends/cpu/parallel_loops.h — the CPU plugin's one way of splitting a
// loop among OpenMP threads: the team size (parallel_threads), contiguous
// pieces (parallel_chunks, parallel_for). Every parallel loop of the plugin
// goes through these. Include it only from targets compiled with -fopenmp.
// Internal to the CPU plugin.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "backends/cpu/parallel.h"

namespace ember::cpu {

// Below this much work (elements touched, or multiply-adds) a parallel loop
// runs on the calling thread alone: starting a team costs more than it
// saves. The TensorIterator, the reductions and every kernel's own loop use
// it (See Note [Intra-op parallelism] in TensorIterator.cc).
constexpr int64_t kParallelGrain = 32768;

// Note [One thread count for every loop]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every parallel loop of the plugin takes its team size from num_threads(),
// never from omp_get_max_threads() alone: OpenMP's setting is per thread,
// and a thread that has run no kernel yet (a DataLoader's worker, an
// autograd device thread, an RPC thread) still has OpenMP's default, all
// cores. Loops that read OpenMP's setting directly ran on two threads on a
// training loader thread under --threads=1, whose second thread then spun
// in libgomp's barrier between batches, taking the core the training thread
// was meant to have (ember::cpu loops had up to six copies of this choice,
// some capped at two threads whatever the machine). The team is at most
// the number of pieces there are.

// ember::cpu::parallel_threads(work, pieces)
//
// The team size for `work` split into at most `pieces` independent pieces:
// 1 below kParallelGrain, for a single piece, or inside an enclosing
// OpenMP region (no nested teams); else min(num_threads(), pieces).
inline int parallel_threads(int64_t work, int64_t pieces) {
  if (work < kParallelGrain || pieces < 2 || omp_in_parallel()) return 1;
  return static_cast<int>(std::min<int64_t>(num_threads(), pieces));
}

// ember::cpu::parallel_chunks(chunks, n, f)
//
// Calls f(chunk, begin, end) for `chunks` contiguous pieces of [0, n), on
// `chunks` OpenMP threads when chunks > 1 (give it parallel_threads(...)).
// f must not throw: an exception cannot leave an OpenMP region.
template <typename F>
void parallel_chunks(int64_t chunks, int64_t n, const F& f) {
  if (chunks <= 1) {
    f(int64_t{0}, int64_t{0}, n);
    return;
  }
#pragma omp parallel for num_threads(static_cast<int>(chunks)) schedule(static, 1)
  for (int64_t c = 0; c < chunks; ++c) f(c, n * c / chunks, n * (c + 1) / chunks);
}

// ember::cpu::parallel_for(n, work, f)
//
// Calls f(begin, end) over contiguous pieces of [0, n), one per thread of
// parallel_threads(work, n). `work` is the whole loop's cost (elements
// touched). f must not throw.
template <typename F>
void parallel_for(int64_t n, int64_t work, const F& f) {
  if (n <= 0) return;
  parallel_chunks(parallel_threads(work, n), n,
                  [&](int64_t, int64_t begin, int64_t end) {
                    if (begin < end) f(begin, end);
                  });
}

}  // namespace ember::cpu
