#include "backends/cpu/TensorIterator.h"

#include <algorithm>

#include "backends/cpu/parallel_loops.h"
#include "c10/util/Exception.h"

namespace ember::cpu {

// Note [Intra-op parallelism]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// From kParallelGrain elements on, the linear index range [0, numel) is cut
// into one contiguous block per thread (at::get_num_threads() of them,
// through ember::cpu::num_threads()) and each block is walked serially. Blocks may
// start in the middle of a row, which serial_for_each handles. Below the
// grain, starting threads costs more than it saves. Inside an enclosing
// OpenMP region the loop runs serially (no nested teams). A loop must not
// throw: an exception cannot leave an OpenMP region. kParallelGrain and the
// team size are parallel_loops.h's, shared by every loop of the plugin (See Note
// [One thread count for every loop]).

void TensorIterator::run(LoopFn* fn, void* ctx) {
  begin_run();
  const int64_t total = numel();
  if (total > 0) {
    parallel_chunks(parallel_threads(total, total), total,
                    [&](int64_t, int64_t begin, int64_t end) {
                      serial_for_each(fn, ctx, begin, end);
                    });
  }
  finish_run();
}

void TensorIterator::serial_for_each(LoopFn* fn, void* ctx, int64_t begin,
                                     int64_t end) const {
  if (begin >= end) return;
  const c10::IntArrayRef sizes = this->sizes();
  const size_t nd = sizes.size();
  const size_t nops = num_operands();
  char* ptrs[kMaxOperands];
  int64_t inner[kMaxOperands];
  if (nd == 1) {
    for (size_t k = 0; k < nops; ++k) {
      inner[k] = strides(k)[0];
      ptrs[k] = data(k) + begin * inner[k];
    }
    fn(ctx, ptrs, inner, end - begin);
    return;
  }
  // Byte offsets rather than pointers, so no pointer ever steps outside its
  // buffer while carrying into the next row.
  DimVector index;
  index.resize(nd);
  int64_t offsets[kMaxOperands] = {};
  int64_t rest = begin;
  for (size_t d = 0; d < nd; ++d) {
    index[d] = rest % sizes[d];
    rest /= sizes[d];
    for (size_t k = 0; k < nops; ++k) offsets[k] += index[d] * strides(k)[d];
  }
  for (size_t k = 0; k < nops; ++k) inner[k] = strides(k)[0];
  while (true) {
    const int64_t n = std::min(sizes[0] - index[0], end - begin);
    for (size_t k = 0; k < nops; ++k) ptrs[k] = data(k) + offsets[k];
    fn(ctx, ptrs, inner, n);
    begin += n;
    if (begin >= end) return;
    index[0] += n;
    for (size_t k = 0; k < nops; ++k) offsets[k] += n * inner[k];
    for (size_t d = 0; index[d] == sizes[d] && d + 1 < nd; ++d) {
      index[d] = 0;
      ++index[d + 1];
      for (size_t k = 0; k < nops; ++k) {
        offsets[k] += strides(k)[d + 1] - sizes[d] * strides(k)[d];
      }
    }
  }
}

}  // namespace ember::cpu
