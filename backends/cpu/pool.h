// backends/cpu/pool.h — the CPU plugin's 2-d pooling kernels (defined in
// pool.cc; declared in the generated CPUKernels.h).
//
//   auto [values, indices] = ember::cpu::max_pool2d_with_indices(
//       x, /*kernel_size=*/{2, 2}, /*stride=*/{}, /*padding=*/{0},
//       /*dilation=*/{1}, /*ceil_mode=*/false);
//
// Inputs are [N, C, H, W] or unbatched [C, H, W], of any strides, float32,
// float64, float16 or bfloat16 (the last two compute in float). Parameter
// lists hold one value (used for H and W) or two; an empty stride means the
// kernel size. Each (n, c) plane is pooled by one thread with a plain loop;
// results are contiguous, or channels-last for a channels-last input.
// oneDNN's pooling is not used: its max-pool workspace is not PyTorch's
// indices, and a plane loop is already bound by memory at these sizes.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "aten/Tensor.h"
#include "backends/cpu/CPUKernels.h"
#include "c10/util/ArrayRef.h"

namespace ember::cpu {

// max_pool2d_with_indices: the maxima and, for each, its position h * W + w
// in its input plane (Long). NaN wins, as in PyTorch.
// max_pool2d_with_indices_backward: grad_output scattered (summed) to the
// input positions `indices` name.

// avg_pool2d: window sums divided by divisor_override, else by the window's
// size clipped to the padded input (count_include_pad) or to the input.

// _adaptive_avg_pool2d: output cell (i, j) averages input rows
// [floor(i*H/oh), ceil((i+1)*H/oh)) and the same for columns.

}  // namespace ember::cpu
