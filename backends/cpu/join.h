// backends/cpu/join.h — the CPU plugin's cat.
//
//   at::Tensor ab = ember::cpu::cat({a, b}, /*dim=*/0);
//
// Defined in join.cc, declared in the generated CPUKernels.h; stack is composite
// (aten/ops/indexing.cc) and calls cat.
#pragma once

#include <cstdint>

#include "aten/Tensor.h"
#include "backends/cpu/CPUKernels.h"

namespace ember::cpu {

// cat: the tensors joined along `dim`, in the promoted dtype of all of them
// (torch.result_type). Every tensor has the same number of dims and the
// same sizes except at `dim`; 1-d tensors of size 0 are skipped, as
// PyTorch's legacy rule. 0-d tensors are refused.

}  // namespace ember::cpu
