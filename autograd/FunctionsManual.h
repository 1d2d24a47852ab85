// autograd/FunctionsManual.h — helpers the derivative formulas of
// autograd/derivatives.txt call. Each takes the incoming gradient and what
// the forward saved, and returns the gradient of one input.
#pragma once

#include <limits>
#include <optional>
#include <tuple>
#include <vector>

#include "aten/Tensor.h"
#include "autograd/function.h"

namespace torch {
namespace autograd {
namespace generated {
namespace details {

bool any_defined(const variable_list& grads);
// Throws "the derivative for 'op' with respect to 'input' is not
// implemented" (for inputs of a differentiable op without a formula).
[[noreturn]] at::Tensor not_implemented(const char* op, const char* input);
// Undefined gradients of a multi-output Node's defined outputs become zeros
// of the output's shape (formulas then need no special case).
void materialize_grads(const Node& node, variable_list& grads);

// `grad` summed over the dims that broadcasting added or expanded, so that
// it has `shape`.
at::Tensor sum_to(const at::Tensor& grad, c10::IntArrayRef shape);
// grad * s, skipping the multiply when s is 1.
at::Tensor maybe_multiply(const at::Tensor& grad, const at::Scalar& s);

// The gradient of _to_copy (Tensor::to, .cpu(), x.to(device)): `grad` moved
// back to the source's device and converted to its dtype, as PyTorch's
// _to_copy_backward. A gradient that stayed on the destination device would
// be refused by the engine ("… expected device cpu but got npu:0").
at::Tensor _to_copy_backward(const at::Tensor& grad, const at::TensorOptions& self_options);

// d(self*other)/d(self) = grad * other, in self's dtype, summed to shape.
at::Tensor mul_tensor_backward(const at::Tensor& grad, const at::Tensor& other,
                               c10::ScalarType self_dtype);
at::Tensor div_tensor_self_backward(const at::Tensor& grad, const at::Tensor& other,
                                    c10::ScalarType self_dtype);
at::Tensor div_tensor_other_backward(const at::Tensor& grad, const at::Tensor& self,
                                     const at::Tensor& other);
// Gradient for a tensor with `sizes` and `dtype` when the formula produces
// one of another dtype or broadcast shape.
at::Tensor reduce_to(const at::Tensor& grad, c10::IntArrayRef sizes, c10::ScalarType dtype);

// Reductions: grad broadcast back over the reduced dims.
at::Tensor sum_backward(const at::Tensor& grad, c10::IntArrayRef sizes,
                        c10::OptionalIntArrayRef dims, bool keepdim);
at::Tensor mean_backward(const at::Tensor& grad, c10::IntArrayRef sizes,
                         c10::OptionalIntArrayRef dims, int64_t numel, bool keepdim);
// amax/amin and max/min with dim: the gradient goes evenly to the elements
// equal to the extreme value.
at::Tensor evenly_distribute_backward(const at::Tensor& grad, const at::Tensor& self,
                                      const at::Tensor& result, c10::IntArrayRef dims,
                                      bool keepdim);
// Unsqueezes `grad` at the reduced dims (for keepdim=false results).
at::Tensor unsqueeze_multiple(const at::Tensor& t, c10::OptionalIntArrayRef dims,
                              size_t ndim);

// Views.
at::Tensor permute_backwards(const at::Tensor& grad, c10::IntArrayRef dims);
// select/slice/diagonal: their gradients are the ops at::select_backward,
// at::slice_backward and at::diagonal_backward (differentiable in turn).
at::Tensor unsqueeze_to(const at::Tensor& grad, c10::IntArrayRef sizes);
at::Tensor unsqueeze_to(const at::Tensor& grad, int64_t dim, c10::IntArrayRef sizes);

// Matrix products. The gradient of a column-major operand (a transposed
// row-major matrix, e.g. linear's weight.t()) is computed in that layout, so
// that the transpose's backward hands a row-major gradient to the weight's
// AccumulateGrad, which can then keep it without a copy.
// See Note [Gradients in their operand's layout] in FunctionsManual.cc.
at::Tensor mm_mat1_backward(const at::Tensor& grad, const at::Tensor& mat2,
                            c10::IntArrayRef mat1_sizes, c10::IntArrayRef mat1_strides,
                            const at::Scalar& alpha);
at::Tensor mm_mat2_backward(const at::Tensor& grad, const at::Tensor& mat1,
                            c10::IntArrayRef mat2_sizes, c10::IntArrayRef mat2_strides,
                            const at::Scalar& alpha);


// ---- pointwise
at::Tensor pow_backward(const at::Tensor& grad, const at::Tensor& self, const at::Scalar& exponent);
at::Tensor pow_backward_self(const at::Tensor& grad, const at::Tensor& self,
                             const at::Tensor& exponent);
at::Tensor pow_backward_exponent(const at::Tensor& grad, const at::Tensor& self,
                                 const at::Tensor& exponent, const at::Tensor& result);
at::Tensor clamp_backward(const at::Tensor& grad, const at::Tensor& self,
                          const std::optional<at::Scalar>& min,
                          const std::optional<at::Scalar>& max);
at::Tensor bce_with_logits_backward(const at::Tensor& grad, const at::Tensor& self,
                                    const at::Tensor& target,
                                    const std::optional<at::Tensor>& weight,
                                    const std::optional<at::Tensor>& pos_weight,
                                    int64_t reduction);

// ---- reductions
// The gradient of an op that picked `indices` along dim (max.dim, sort,
// topk): grad scattered back to those positions.
at::Tensor value_selecting_reduction_backward(const at::Tensor& grad, int64_t dim,
                                              const at::Tensor& indices,
                                              c10::IntArrayRef sizes, bool keepdim);
at::Tensor prod_backward(const at::Tensor& grad, const at::Tensor& self, const at::Tensor& result);
at::Tensor prod_dim_backward(const at::Tensor& grad, const at::Tensor& self,
                             const at::Tensor& result, int64_t dim, bool keepdim);
at::Tensor cumsum_backward(const at::Tensor& grad, int64_t dim);
at::Tensor var_backward(const at::Tensor& grad, const at::Tensor& self,
                        c10::OptionalIntArrayRef dim, const std::optional<at::Scalar>& correction,
                        bool keepdim);
at::Tensor std_backward(const at::Tensor& result, const at::Tensor& grad, const at::Tensor& self,
                        c10::OptionalIntArrayRef dim, const std::optional<at::Scalar>& correction,
                        bool keepdim);
at::Tensor norm_backward(const at::Tensor& grad, const at::Tensor& self,
                         const std::optional<at::Scalar>& p, const at::Tensor& norm,
                         c10::OptionalIntArrayRef dim, bool keepdim);
at::Tensor logsumexp_backward(const at::Tensor& grad, const at::Tensor& self,
                              const at::Tensor& result, c10::IntArrayRef dim, bool keepdim);

// ---- indexing and joining
at::Tensor index_select_backward(const at::Tensor& grad, c10::IntArrayRef sizes, int64_t dim,
                                 const at::Tensor& index);
std::vector<at::Tensor> cat_backward(const at::Tensor& grad, int64_t dim,
                                     const std::vector<at::Tensor>& tensors);
at::Tensor masked_select_backward(const at::Tensor& grad, const at::Tensor& self,
                                  const at::Tensor& mask);

// ---- convolution
// The bias's sizes for convolution_backward (none without a bias).
c10::OptionalIntArrayRef bias_sizes_opt(const at::Tensor& bias);

// ---- double backward and the newer derivatives (FunctionsManual_double.cc)
// The derivatives of the backward ops themselves, for second derivatives.
// Each is built from differentiable ops only, so third derivatives work too.
// `grad` is the gradient of the backward op's output (the first derivative).

// _softmax_backward_data / _log_softmax_backward_data w.r.t. `output`.
at::Tensor softmax_double_backward(const at::Tensor& grad, const at::Tensor& grad_output,
                                   int64_t dim, const at::Tensor& output);
at::Tensor log_softmax_double_backward(const at::Tensor& grad, const at::Tensor& grad_output,
                                       int64_t dim, const at::Tensor& output);

// mse_loss_backward w.r.t. grad_output, and w.r.t. self (target: its negation).
at::Tensor mse_loss_double_backward_grad_output(const at::Tensor& grad, const at::Tensor& self,
                                                const at::Tensor& target, int64_t reduction);
at::Tensor mse_loss_double_backward(const at::Tensor& grad, const at::Tensor& grad_output,
                                    int64_t reduction);

// binary_cross_entropy w.r.t. target, and binary_cross_entropy_backward
// w.r.t. grad_output, self and target.
at::Tensor binary_cross_entropy_target_backward(const at::Tensor& grad, const at::Tensor& self,
                                                const at::Tensor& target,
                                                const std::optional<at::Tensor>& weight,
                                                int64_t reduction);
at::Tensor binary_cross_entropy_double_backward_grad_output(
    const at::Tensor& grad, const at::Tensor& self, const at::Tensor& target,
    const std::optional<at::Tensor>& weight, int64_t reduction);
at::Tensor binary_cross_entropy_double_backward(const at::Tensor& grad_output,
                                                const at::Tensor& grad, const at::Tensor& self,
                                                const at::Tensor& target,
                                                const std::optional<at::Tensor>& weight,
                                                int64_t reduction);
at::Tensor binary_cross_entropy_double_backward_target(
    const at::Tensor& grad, const at::Tensor& grad_output, const at::Tensor& self,
    const at::Tensor& target, const std::optional<at::Tensor>& weight, int64_t reduction);
// binary_cross_entropy_with_logits w.r.t. target.
at::Tensor bce_with_logits_target_backward(const at::Tensor& grad, const at::Tensor& self,
                                           const at::Tensor& target,
                                           const std::optional<at::Tensor>& weight,
                                           const std::optional<at::Tensor>& pos_weight,
                                           int64_t reduction);

// max_pool2d_with_indices_backward w.r.t. grad_output: `grad` (input-shaped)
// read back at the indices of the maxima.
at::Tensor max_pool_double_backward(const at::Tensor& grad, const at::Tensor& indices);
// The last two sizes (the output size of a 2-d adaptive pool).
std::vector<int64_t> last_two_sizes(c10::IntArrayRef sizes);

// convolution_backward w.r.t. grad_output, input and weight (PyTorch's
// _convolution_double_backward): ggI, ggW and ggb are the gradients of its
// three outputs (any may be undefined).
std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_double_backward(
    const at::Tensor& ggI, const at::Tensor& ggW, const at::Tensor& ggb, const at::Tensor& gO,
    const at::Tensor& weight, const at::Tensor& input, c10::IntArrayRef stride,
    c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed,
    c10::IntArrayRef output_padding, int64_t groups, const std::vector<bool>& output_mask);

// var_mean / std_mean: the sum of the var (std) and mean gradients.
at::Tensor var_mean_backward(const at::Tensor& grad_var, const at::Tensor& grad_mean,
                             const at::Tensor& self, c10::OptionalIntArrayRef dim,
                             const std::optional<at::Scalar>& correction, bool keepdim);
at::Tensor std_mean_backward(const at::Tensor& grad_std, const at::Tensor& grad_mean,
                             const at::Tensor& self, const at::Tensor& std,
                             c10::OptionalIntArrayRef dim,
                             const std::optional<at::Scalar>& correction, bool keepdim);

// scatter.reduce / scatter.value_reduce: reduce="add" only (as scatter_add);
// "multiply" raises NotImplementedError.
at::Tensor scatter_reduce_self_backward(const at::Tensor& grad, c10::string_view reduce);
at::Tensor scatter_reduce_src_backward(const at::Tensor& grad, int64_t dim,
                                       const at::Tensor& index, c10::string_view reduce);

// ---- as_strided
// The gradient of `self.as_strided(sizes, strides, storage_offset)` for a
// `self` of the given geometry: each element of `grad` is added to the
// storage location it was read from (summed where the output overlaps
// itself), and each input element takes the sum at its location (shared
// equally where the input overlaps itself).
at::Tensor as_strided_backward(const at::Tensor& grad, c10::IntArrayRef input_sizes,
                               c10::IntArrayRef input_strides, int64_t input_storage_offset,
                               c10::IntArrayRef sizes, c10::IntArrayRef strides,
                               std::optional<int64_t> storage_offset);

}  // namespace details
}  // namespace generated
}  // namespace autograd
}  // namespace torch
