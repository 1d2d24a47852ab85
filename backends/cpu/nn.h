// backends/cpu/nn.h — the CPU plugin's neural-network kernels: softmax and
// log_softmax (nn_softmax.cc), the losses (nn_loss.cc), batch and layer norm
// (nn_norm.cc) and embedding (nn_embedding.cc).
//
// Each function is registered for DispatchKey::CPU under the aten operator
// named in its comment; its C++ type is the one the dispatcher checks
// against the schema (aten/native_functions/nn.txt). Programs call them
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
#include "c10/core/ScalarType.h"
#include "c10/util/ArrayRef.h"

namespace ember::cpu {

// ---- softmax (nn_softmax.cc): Float, Double, Half, BFloat16 -----------------
// half_to_float: a Half input gives a Float result (only Half may ask).
at::Tensor softmax_cpu(const at::Tensor& self, int64_t dim,
                       bool half_to_float);  // _softmax
at::Tensor& softmax_out_cpu(const at::Tensor& self, int64_t dim,
                            bool half_to_float, at::Tensor& out);  // _softmax.out
at::Tensor log_softmax_cpu(const at::Tensor& self, int64_t dim,
                           bool half_to_float);  // _log_softmax
at::Tensor& log_softmax_out_cpu(const at::Tensor& self, int64_t dim,
                                bool half_to_float,
                                at::Tensor& out);  // _log_softmax.out
// grad_input of softmax/log_softmax from the forward's output; its dtype is
// input_dtype (Half from a Float grad_output when the forward was
// half_to_float).
at::Tensor softmax_backward_cpu(const at::Tensor& grad_output,
                                const at::Tensor& output, int64_t dim,
                                c10::ScalarType input_dtype);  // _softmax_backward_data
at::Tensor log_softmax_backward_cpu(
    const at::Tensor& grad_output, const at::Tensor& output, int64_t dim,
    c10::ScalarType input_dtype);  // _log_softmax_backward_data

// ---- losses (nn_loss.cc): Float, Double, Half, BFloat16 ---------------------
// reduction is at::Reduction (0 None, 1 Mean, 2 Sum). Targets of the nll
// losses are class indices (Long or Byte).
std::tuple<at::Tensor, at::Tensor> nll_loss_forward_cpu(
    const at::Tensor& self, const at::Tensor& target,
    const std::optional<at::Tensor>& weight, int64_t reduction,
    int64_t ignore_index);  // nll_loss_forward
at::Tensor nll_loss_backward_cpu(const at::Tensor& grad_output,
                                 const at::Tensor& self, const at::Tensor& target,
                                 const std::optional<at::Tensor>& weight,
                                 int64_t reduction, int64_t ignore_index,
                                 const at::Tensor& total_weight);  // nll_loss_backward
std::tuple<at::Tensor, at::Tensor> nll_loss2d_forward_cpu(
    const at::Tensor& self, const at::Tensor& target,
    const std::optional<at::Tensor>& weight, int64_t reduction,
    int64_t ignore_index);  // nll_loss2d_forward
at::Tensor nll_loss2d_backward_cpu(const at::Tensor& grad_output,
                                   const at::Tensor& self, const at::Tensor& target,
                                   const std::optional<at::Tensor>& weight,
                                   int64_t reduction, int64_t ignore_index,
                                   const at::Tensor& total_weight);  // nll_loss2d_backward
// self and target broadcast together (type promotion as for sub).
at::Tensor mse_loss_cpu(const at::Tensor& self, const at::Tensor& target,
                        int64_t reduction);  // mse_loss
at::Tensor mse_loss_backward_cpu(const at::Tensor& grad_output,
                                 const at::Tensor& self, const at::Tensor& target,
                                 int64_t reduction);  // mse_loss_backward
// self holds probabilities in [0, 1]; target has self's shape; weight
// broadcasts to it. log is clamped to >= -100, as in PyTorch.
at::Tensor binary_cross_entropy_cpu(const at::Tensor& self, const at::Tensor& target,
                                    const std::optional<at::Tensor>& weight,
                                    int64_t reduction);  // binary_cross_entropy
at::Tensor binary_cross_entropy_backward_cpu(
    const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
    const std::optional<at::Tensor>& weight,
    int64_t reduction);  // binary_cross_entropy_backward
// self holds logits; weight and pos_weight broadcast to self's shape.
at::Tensor binary_cross_entropy_with_logits_cpu(
    const at::Tensor& self, const at::Tensor& target,
    const std::optional<at::Tensor>& weight,
    const std::optional<at::Tensor>& pos_weight,
    int64_t reduction);  // binary_cross_entropy_with_logits

// ---- normalization (nn_norm.cc): Float and Double -------------------------
// input is (N, C, ...). Training: batch statistics, and running_mean/var
// (if given) are updated in place with `momentum` and the unbiased
// variance; returns (out, save_mean, save_invstd). Eval: the running
// statistics; save_mean and save_invstd are empty, as in PyTorch.
std::tuple<at::Tensor, at::Tensor, at::Tensor> native_batch_norm_cpu(
    const at::Tensor& input, const std::optional<at::Tensor>& weight,
    const std::optional<at::Tensor>& bias,
    const std::optional<at::Tensor>& running_mean,
    const std::optional<at::Tensor>& running_var, bool training, double momentum,
    double eps);  // native_batch_norm
// (grad_input, grad_weight, grad_bias); an output whose output_mask entry
// is false is undefined.
std::tuple<at::Tensor, at::Tensor, at::Tensor> native_batch_norm_backward_cpu(
    const at::Tensor& grad_out, const at::Tensor& input,
    const std::optional<at::Tensor>& weight,
    const std::optional<at::Tensor>& running_mean,
    const std::optional<at::Tensor>& running_var,
    const std::optional<at::Tensor>& save_mean,
    const std::optional<at::Tensor>& save_invstd, bool train, double eps,
    const std::vector<bool>& output_mask);  // native_batch_norm_backward
// Normalizes over the trailing dims `normalized_shape`; returns (out, mean,
// rstd), mean and rstd shaped as input with the normalized dims set to 1.
std::tuple<at::Tensor, at::Tensor, at::Tensor> native_layer_norm_cpu(
    const at::Tensor& input, c10::IntArrayRef normalized_shape,
    const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    double eps);  // native_layer_norm
std::tuple<at::Tensor, at::Tensor, at::Tensor> native_layer_norm_backward_cpu(
    const at::Tensor& grad_out, const at::Tensor& input,
    c10::IntArrayRef normalized_shape, const at::Tensor& mean, const at::Tensor& rstd,
    const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    const std::vector<bool>& output_mask);  // native_layer_norm_backward

// ---- embedding (nn_embedding.cc) -------------------------------------------
// Rows of weight (any dtype) picked by Long or Int indices; the result is
// indices.sizes() + [embedding_dim]. padding_idx and scale_grad_by_freq
// only matter for the backward; sparse is accepted and ignored here.
at::Tensor embedding_cpu(const at::Tensor& weight, const at::Tensor& indices,
                         int64_t padding_idx, bool scale_grad_by_freq,
                         bool sparse);  // embedding
// The dense gradient of weight: grad_output rows summed into [num_weights,
// embedding_dim] by index, skipping padding_idx, divided by each index's
// count when scale_grad_by_freq.
at::Tensor embedding_dense_backward_cpu(const at::Tensor& grad_output,
                                        const at::Tensor& indices,
                                        int64_t num_weights, int64_t padding_idx,
                                        bool scale_grad_by_freq);  // embedding_dense_backward

}  // namespace ember::cpu
