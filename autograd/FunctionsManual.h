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

// |x|' = sign(x) (0 at 0); relu' = 1 where the output is positive.
at::Tensor abs_backward(const at::Tensor& grad, const at::Tensor& self);
at::Tensor relu_backward(const at::Tensor& grad, const at::Tensor& result);

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

}  // namespace details
}  // namespace generated
}  // namespace autograd
}  // namespace torch
