#include "backends/cpu/parallel.h"

#include <omp.h>

#include "aten/Parallel.h"

namespace ember::cpu {

int num_threads() {
  const int want = at::get_num_threads();
  thread_local int applied = 0;
  if (applied != want) {
    omp_set_num_threads(want);
    applied = want;
  }
  return want;
}

}  // namespace ember::cpu
