// aten/NormDecompositions.h — native_layer_norm and its backward written with
// other ATen ops, registered for CompositeExplicitAutograd: a backend without
// its own kernels (CUDA, a third party's) gets layer norm, while the CPU
// plugin keeps its fused loops. The shape checks are shared with the CPU
// kernels. Declared here so that tests can run the decompositions on the
// CPU against the CPU kernels.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "aten/Tensor.h"

namespace at {
namespace native {

// layer_norm's geometry: the input as m rows of n normalized elements, and
// the shape of mean and rstd (the leading dims, then 1s). Checks the input
// (defined, floating), normalized_shape against the input's trailing dims,
// and weight's and bias's shapes, in PyTorch's words.
struct LayerNormShape {
  int64_t m = 1;
  int64_t n = 1;
  std::vector<int64_t> stat_shape;
};
LayerNormShape layer_norm_shape(const Tensor& input, c10::IntArrayRef normalized_shape,
                                const std::optional<Tensor>& weight,
                                const std::optional<Tensor>& bias, const char* op);
// native_layer_norm_backward's other arguments against that geometry.
void check_layer_norm_backward(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                               const Tensor& rstd, const LayerNormShape& g,
                               const std::vector<bool>& output_mask, const char* op);
// The dtype of mean, rstd (and of the parameters' gradients without a
// weight): Float for Half and BFloat16 inputs, else the input's.
c10::ScalarType layer_norm_stat_dtype(c10::ScalarType input);

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_decomposed(
    const Tensor& input, c10::IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& bias, double eps);
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_decomposed(
    const Tensor& grad_out, const Tensor& input, c10::IntArrayRef normalized_shape,
    const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& bias, const std::vector<bool>& output_mask);

}  // namespace native
}  // namespace at
