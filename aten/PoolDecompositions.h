// aten/PoolDecompositions.h — max_pool2d_with_indices, avg_pool2d and their
// backward ops written with other ATen ops (a padded copy, the windows as a strided view,
// max over each window; the backward a scatter_add), registered for
// CompositeExplicitAutograd: a backend without its own kernels (CUDA, a
// third party's) gets max, average and adaptive average pooling, while the CPU plugin keeps its loops. The
// checks are shared with the CPU kernels (aten/PoolUtils.h). Declared here
// so that tests can run them on the CPU against the CPU kernels.
#pragma once

#include <optional>
#include <tuple>

#include "aten/Tensor.h"
#include "c10/util/ArrayRef.h"

namespace at {
namespace native {

// The CPU kernel's values and indices (the input's flat h * W + w in its
// plane): ties go to the first element in window order, and a window whose
// elements are all the lowest value names its first element inside the
// input. One difference: a window with several NaNs names the first (the
// CPU kernel names the last); the value is NaN either way. The result is
// contiguous (the CPU kernel keeps a ChannelsLast input's layout).
std::tuple<Tensor, Tensor> max_pool2d_with_indices_decomposed(
    const Tensor& self, c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
    c10::IntArrayRef padding, c10::IntArrayRef dilation, bool ceil_mode);
// grad_input[plane][indices] += grad_output, skipping -1 (an empty window);
// an index outside its plane is the CPU kernel's error.
Tensor max_pool2d_with_indices_backward_decomposed(
    const Tensor& grad_output, const Tensor& self, c10::IntArrayRef kernel_size,
    c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation,
    bool ceil_mode, const Tensor& indices);

// avg_pool2d and its backward: window sums of a zero-padded copy (in double
// for floating dtypes, int64 for Long, which divides truncating as the CPU
// kernel does) over PyTorch's divisor (divisor_override, else the window's
// padded area with count_include_pad, else its elements inside the input);
// a window entirely in the padding gives 0. The backward spreads each
// gradient share over its window with a scatter_add.
Tensor avg_pool2d_decomposed(const Tensor& self, c10::IntArrayRef kernel_size,
                             c10::IntArrayRef stride, c10::IntArrayRef padding, bool ceil_mode,
                             bool count_include_pad, std::optional<int64_t> divisor_override);
Tensor avg_pool2d_backward_decomposed(const Tensor& grad_output, const Tensor& self,
                                      c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
                                      c10::IntArrayRef padding, bool ceil_mode,
                                      bool count_include_pad,
                                      std::optional<int64_t> divisor_override);

// _adaptive_avg_pool2d and its backward: the average over rows, then over
// columns, as products with [out, in] averaging matrices (PyTorch's windows
// start = floor(o * in / out), end = ceil((o + 1) * in / out)); the
// backward the transposed products.
Tensor adaptive_avg_pool2d_decomposed(const Tensor& self, c10::IntArrayRef output_size);
Tensor adaptive_avg_pool2d_backward_decomposed(const Tensor& grad_output, const Tensor& self);

}  // namespace native
}  // namespace at
