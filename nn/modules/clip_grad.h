// nn/modules/clip_grad.h — torch::nn::utils::clip_grad_norm_,
// clip_grad_value_, parameters_to_vector and vector_to_parameters, as
// libtorch's torch/nn/utils/{clip_grad,convert_parameters}.h.
//
//   loss.backward();
//   torch::nn::utils::clip_grad_norm_(model->parameters(), /*max_norm=*/1.0);
//   optimizer.step();
//
// Parameters without a gradient are skipped. Gradients are changed in
// place (no autograd history).
#pragma once

#include <initializer_list>
#include <vector>

#include "nn/types.h"

namespace torch {
namespace nn {
namespace utils {

// Scales the gradients so that their joint norm_type-norm (norm of the
// per-tensor norms; infinity: the largest |element|) is at most max_norm,
// multiplying by max_norm / (norm + 1e-6) when it is larger. Returns the
// norm before clipping. error_if_nonfinite: a NaN or infinite norm throws
// (otherwise the gradients are scaled by it anyway, as libtorch).
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

// Clamps every gradient element to [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);

// The parameters flattened and joined into one 1-d tensor, and back
// (vector_to_parameters copies slices of vec into the parameters).
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace utils
}  // namespace nn
}  // namespace torch
