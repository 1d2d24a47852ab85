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

}  // namespace native
}  // namespace at
