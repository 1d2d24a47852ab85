// backends/cpu/nn.h — the CPU plugin's neural-network kernels: softmax and
// log_softmax (nn_softmax.cc), the losses (nn_loss.cc), batch and layer norm
// (nn_norm.cc) and embedding (nn_embedding.cc).
//
// Each kernel is declared in the generated CPUKernels.h and registered by
// RegisterCPU.cc, from the `dispatch=CPU:...` entries of
// aten/native_functions/nn.txt. Programs call them
// through at::_softmax, at::nll_loss_forward, …; the user-facing ops
// (softmax, cross_entropy_loss, batch_norm, layer_norm, nll_loss) are
// composites in aten/ops/nn.cc on top of these. Tests may call them
// directly:
//
//   at::Tensor y = ember::cpu::softmax_cpu(x, /*dim=*/-1, /*half_to_float=*/false);
//
// Inputs may have any strides (non-contiguous ones are copied to
// contiguous first). Floating kernels accept Float and Double, and Half and
// BFloat16 where noted (computed in float). Errors throw c10::Error with
// PyTorch's wording where PyTorch has one.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "aten/Tensor.h"
#include "backends/cpu/CPUKernels.h"
#include "c10/core/ScalarType.h"
#include "c10/util/ArrayRef.h"

namespace ember::cpu {

// ---- softmax (nn_softmax.cc): Float, Double, Half, BFloat16 -----------------
// half_to_float: a Half input gives a Float result (only Half may ask).
// grad_input of softmax/log_softmax from the forward's output; its dtype is
// input_dtype (Half from a Float grad_output when the forward was
// half_to_float).

// ---- losses (nn_loss.cc): Float, Double, Half, BFloat16 ---------------------
// reduction is at::Reduction (0 None, 1 Mean, 2 Sum). Targets of the nll
// losses are class indices (Long or Byte).
// self and target broadcast together (type promotion as for sub).
// self holds probabilities in [0, 1]; target has self's shape; weight
// broadcasts to it. log is clamped to >= -100, as in PyTorch.
// self holds logits; weight and pos_weight broadcast to self's shape.

// ---- normalization (nn_norm.cc): Float and Double -------------------------
// input is (N, C, ...). Training: batch statistics, and running_mean/var
// (if given) are updated in place with `momentum` and the unbiased
// variance; returns (out, save_mean, save_invstd). Eval: the running
// statistics; save_mean and save_invstd are empty, as in PyTorch.
// (grad_input, grad_weight, grad_bias); an output whose output_mask entry
// is false is undefined.
// Normalizes over the trailing dims `normalized_shape`; returns (out, mean,
// rstd), mean and rstd shaped as input with the normalized dims set to 1.

// ---- embedding (nn_embedding.cc) -------------------------------------------
// Rows of weight (any dtype) picked by Long or Int indices; the result is
// indices.sizes() + [embedding_dim]. padding_idx and scale_grad_by_freq
// only matter for the backward; sparse is accepted and ignored here.
// The dense gradient of weight: grad_output rows summed into [num_weights,
// embedding_dim] by index, skipping padding_idx, divided by each index's
// count when scale_grad_by_freq.

}  // namespace ember::cpu
