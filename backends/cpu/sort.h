// backends/cpu/sort.h — the CPU plugin's sort and topk.
//
//   auto [values, indices] = ember::cpu::sort_stable(x, true, -1, false);
//
// Defined in sort.cc, declared in the generated CPUKernels.h; sort and sort.values are
// composite (aten/ops/indexing.cc) and call the stable overloads. Indices
// are Long positions along `dim`. NaN orders above every number (last when
// ascending, first when descending, as PyTorch). Half and BFloat16 compare
// as float.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "aten/Tensor.h"
#include "backends/cpu/CPUKernels.h"

namespace ember::cpu {

// sort: every slice along `dim` sorted. The sort is always stable (equal
// values keep their order), which `stable=false` also allows.

// topk: the k largest (or smallest) elements of every slice along `dim`,
// 0 <= k <= size. Results are in order (largest first, or smallest first)
// whether or not `sorted` is set; equal values come in index order. Not for
// Bool, as in PyTorch.

}  // namespace ember::cpu
