// backends/cuda/kernels/sum_plan.h — how the CUDA sum over dimensions of a
// contiguous tensor runs without moving its elements (Note [CUDA sum over
// dimensions] in backends/cuda/reduce_ops.cc): a sequence of stages, each
// summing the middle dimension of an [outer, rows, inner] view of the
// previous stage's result. Plain C++, so that
// //tests/backends/cuda:sum_plan_test checks plans against the CPU's sum.
#pragma once

#include <cstdint>
#include <vector>

namespace ember {
namespace cuda {
namespace kernels {

// One stage: sum over `rows` of the contiguous [outer, rows, inner] array;
// its result is the contiguous [outer, inner] array the next stage reads.
// inner == 1 is a sum of rows (launch_sum_rows), else of the middle
// dimension (launch_sum_middle).
struct SumStage {
  int64_t outer = 1;
  int64_t rows = 1;
  int64_t inner = 1;
};

// The stages that sum a contiguous tensor of `sizes` over the dimensions set
// in `reduce` (one flag per dimension): each run of adjacent reduced
// dimensions is one stage, the innermost run first (so earlier stages shrink
// what later ones read). Empty when some stage would sum a middle dimension
// with fewer than `min_inner` columns (too few for coalesced reads: the
// caller moves the reduced dimensions last instead) or when nothing is
// reduced.
inline std::vector<SumStage> plan_sum(std::vector<int64_t> sizes, std::vector<bool> reduce,
                                      int64_t min_inner) {
  std::vector<SumStage> stages;
  for (;;) {
    int64_t end = static_cast<int64_t>(reduce.size());
    while (end > 0 && !reduce[static_cast<size_t>(end - 1)]) --end;
    if (end == 0) break;  // nothing left to reduce
    int64_t begin = end;
    while (begin > 0 && reduce[static_cast<size_t>(begin - 1)]) --begin;
    SumStage s;
    for (int64_t d = 0; d < begin; ++d) s.outer *= sizes[static_cast<size_t>(d)];
    for (int64_t d = begin; d < end; ++d) s.rows *= sizes[static_cast<size_t>(d)];
    for (size_t d = static_cast<size_t>(end); d < sizes.size(); ++d) s.inner *= sizes[d];
    if (s.inner > 1 && s.inner < min_inner) return {};
    stages.push_back(s);
    sizes.erase(sizes.begin() + begin, sizes.begin() + end);
    reduce.erase(reduce.begin() + begin, reduce.begin() + end);
  }
  return stages;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
