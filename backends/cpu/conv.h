// backends/cpu/conv.h — the CPU plugin's convolution kernels (defined in
// conv.cc; declared in the generated CPUKernels.h).
//
//   at::Tensor y = ember::cpu::convolution(x, w, b, {1, 1}, {1, 1}, {1, 1},
//                                          /*transposed=*/false, {0, 0}, 1);
//
// 1-d and 2-d convolutions (3-d and 4-d inputs), grouped, strided, padded
// and dilated, plain and transposed, float32 and float64. Parameter lists
// may hold one value, used for every spatial dim, as in PyTorch. float32
// uses oneDNN (conv_onednn.cc) except for transposed and empty cases;
// everything else runs the plain loops of conv_plain.cc. Inputs of any
// strides; a channels-last input gives a channels-last result.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "aten/Tensor.h"
#include "backends/cpu/CPUKernels.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/OptionalArrayRef.h"

namespace ember::cpu {

// convolution

// convolution_backward: (grad_input, grad_weight, grad_bias); an entry whose
// output_mask is false is an undefined tensor. grad_bias sums grad_output
// over every dim but the channels.

}  // namespace ember::cpu
