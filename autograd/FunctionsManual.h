// autograd/FunctionsManual.h — helpers the derivative formulas of
// autograd/derivatives.txt call. Each takes the incoming gradient and what
// the forward saved, and returns the gradient of one input.
#pragma once

#include <optional>
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
at::Tensor select_backward(const at::Tensor& grad, c10::IntArrayRef sizes, int64_t dim,
                           int64_t index);
at::Tensor slice_backward(const at::Tensor& grad, c10::IntArrayRef sizes, int64_t dim,
                          std::optional<int64_t> start, std::optional<int64_t> end,
                          int64_t step);
at::Tensor unsqueeze_to(const at::Tensor& grad, c10::IntArrayRef sizes);
at::Tensor unsqueeze_to(const at::Tensor& grad, int64_t dim, c10::IntArrayRef sizes);
at::Tensor diagonal_backward(const at::Tensor& grad, c10::IntArrayRef sizes, int64_t offset,
                             int64_t dim1, int64_t dim2);

// Matrix products.
at::Tensor mm_mat1_backward(const at::Tensor& grad, const at::Tensor& mat2,
                            const at::Scalar& alpha);
at::Tensor mm_mat2_backward(const at::Tensor& grad, const at::Tensor& mat1,
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
