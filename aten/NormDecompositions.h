// aten/NormDecompositions.h — native_batch_norm, native_layer_norm and their
// backward ops written with other ATen ops, registered for
// CompositeExplicitAutograd: a backend without its own kernels (CUDA, a
// third party's) gets batch and layer norm, while the CPU plugin keeps its
// fused loops. The argument checks are shared with the CPU
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

// batch_norm's geometry: the input seen as [n, c, s] (s the product of the
// dims after the channel dim). Checks the input (defined, floating, at
// least 2 dims) in PyTorch's words.
struct BatchNormShape {
  int64_t n = 1;
  int64_t c = 1;
  int64_t s = 1;
};
BatchNormShape batch_norm_shape(const Tensor& input, const char* op);
// A per-channel tensor (weight, bias, running or saved statistics), when
// present, has c elements.
void check_batch_norm_channels(const std::optional<Tensor>& t, int64_t c, const char* name,
                               const char* op);
// native_batch_norm's parameters against that geometry; evaluation mode
// needs the running statistics.
void check_batch_norm_forward(const BatchNormShape& g, const std::optional<Tensor>& weight,
                              const std::optional<Tensor>& bias,
                              const std::optional<Tensor>& running_mean,
                              const std::optional<Tensor>& running_var, bool training,
                              const char* op);
// native_batch_norm_backward's other arguments: grad_out's shape, the mask,
// and the statistics the mode needs (saved ones in training, running ones
// in evaluation).
void check_batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                               const BatchNormShape& g, const std::optional<Tensor>& weight,
                               const std::optional<Tensor>& running_mean,
                               const std::optional<Tensor>& running_var,
                               const std::optional<Tensor>& save_mean,
                               const std::optional<Tensor>& save_invstd, bool train,
                               const std::vector<bool>& output_mask, const char* op);

// Training: batch statistics over every dim but 1 (mean and biased
// variance, two passes), running statistics updated in place with the
// unbiased variance; evaluation: the running statistics, and empty saved
// ones, as the CPU kernel returns.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_decomposed(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    bool training, double momentum, double eps);
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward_decomposed(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd,
    bool train, double eps, const std::vector<bool>& output_mask);

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_decomposed(
    const Tensor& input, c10::IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& bias, double eps);
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_decomposed(
    const Tensor& grad_out, const Tensor& input, c10::IntArrayRef normalized_shape,
    const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& bias, const std::vector<bool>& output_mask);

}  // namespace native
}  // namespace at
