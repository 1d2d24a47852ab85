// backends/cpu/join.h — the CPU plugin's cat.
//
//   at::Tensor ab = ember::cpu::cat({a, b}, /*dim=*/0);
//
// Registered for DispatchKey::CPU (join.cc); stack is composite
// (aten/ops/indexing.cc) and calls cat.
#pragma once

#include <cstdint>

#include "aten/Tensor.h"

namespace ember::cpu {

// cat: the tensors joined along `dim`, in the promoted dtype of all of them
// (torch.result_type). Every tensor has the same number of dims and the
// same sizes except at `dim`; 1-d tensors of size 0 are skipped, as
// PyTorch's legacy rule. 0-d tensors are refused.
at::Tensor cat(at::TensorList tensors, int64_t dim);                   // cat
at::Tensor& cat_out(at::TensorList tensors, int64_t dim, at::Tensor& out);  // cat.out

}  // namespace ember::cpu
