// aten/LossDecompositions.h — mse_loss and binary_cross_entropy (and their
// backward ops) written with other ATen ops, registered for
// CompositeExplicitAutograd: a backend without its own kernels (CUDA, a
// third party's) gets them, while the CPU plugin keeps its fused loops.
// The argument checks are shared with the CPU kernels, so both refuse the
// same calls with the same words. Declared here so that tests can run the
// decompositions on the CPU against the CPU kernels.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "aten/Tensor.h"

namespace at {
namespace native {

// ---- checks (the CPU kernels make them too) ------------------------------------------

// reduction is 0 (None), 1 (Mean) or 2 (Sum).
void check_loss_reduction(int64_t reduction, const char* op);
// A floating `what` tensor (Float, Double, Half or BFloat16).
void check_loss_floating(const Tensor& t, const char* op, const char* what);
// `b` (named `what`) has a's dtype.
void check_loss_same_dtype(const Tensor& a, const Tensor& b, const char* op, const char* what);
// binary_cross_entropy's input and target: defined, a known reduction, a
// floating input, a target of the input's size and dtype.
void check_bce_inputs(const Tensor& self, const Tensor& target, int64_t reduction,
                      const char* op);
// binary_cross_entropy_with_logits's input and target: defined, a known
// reduction, a floating input, a target of the input's size and dtype.
void check_bce_with_logits_inputs(const Tensor& self, const Tensor& target, int64_t reduction,
                                  const char* op);
// `t` (named `what`) broadcasts to like's shape; returns that shape check's
// result for the message.
void check_broadcasts_to(const Tensor& t, const Tensor& like, const char* op, const char* what);
// nll_loss's target: class indices (Long, or Byte).
void check_nll_target_dtype(const Tensor& target, const char* op);
// nll_loss's weight, when present: 1-d, one per class, the input's dtype.
void check_nll_weight(const std::optional<Tensor>& weight, const Tensor& self,
                      int64_t n_classes, const char* op);
// nll_loss2d's shapes: a 4-d input [N, C, H, W], a 3-d target [N, H, W].
void check_nll2d_shapes(const Tensor& self, const Tensor& target, const char* op);
// nll_loss2d_backward's grad_output with reduction None: the target's shape.
void check_nll2d_elementwise_grad(const Tensor& grad_output, const Tensor& target,
                                  const char* op);
// The message when an input element is outside [0, 1].
[[noreturn]] void throw_bce_input_range(const char* op, int64_t index, double value);

// ---- the decompositions ----------------------------------------------------------------

Tensor mse_loss_decomposed(const Tensor& self, const Tensor& target, int64_t reduction);
Tensor mse_loss_backward_decomposed(const Tensor& grad_output, const Tensor& self,
                                    const Tensor& target, int64_t reduction);
Tensor binary_cross_entropy_decomposed(const Tensor& self, const Tensor& target,
                                       const std::optional<Tensor>& weight, int64_t reduction);
Tensor binary_cross_entropy_with_logits_decomposed(const Tensor& self, const Tensor& target,
                                                   const std::optional<Tensor>& weight,
                                                   const std::optional<Tensor>& pos_weight,
                                                   int64_t reduction);
Tensor binary_cross_entropy_backward_decomposed(const Tensor& grad_output, const Tensor& self,
                                                const Tensor& target,
                                                const std::optional<Tensor>& weight,
                                                int64_t reduction);
// nll_loss2d through nll_loss on [N * H * W, C] (the class dim moved last).
std::tuple<Tensor, Tensor> nll_loss2d_forward_decomposed(const Tensor& self, const Tensor& target,
                                                         const std::optional<Tensor>& weight,
                                                         int64_t reduction, int64_t ignore_index);
Tensor nll_loss2d_backward_decomposed(const Tensor& grad_output, const Tensor& self,
                                      const Tensor& target, const std::optional<Tensor>& weight,
                                      int64_t reduction, int64_t ignore_index,
                                      const Tensor& total_weight);

}  // namespace native
}  // namespace at
