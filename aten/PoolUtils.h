// aten/PoolUtils.h — the 2-d pooling ops' geometry and argument checks, which
// every backend makes alike (the CPU plugin's kernels and the core's
// decompositions, aten/PoolDecompositions.h), in PyTorch's words.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "aten/Tensor.h"
#include "c10/util/ArrayRef.h"

namespace at {
namespace native {

// Which integer dtypes a pooling op takes besides the floating ones:
// avg_pool2d and its backward take Long, max_pool2d_with_indices every
// integer dtype, the rest none.
enum class PoolIntegers { kNone, kLong, kAll };

// A 3-d (unbatched) or 4-d input with non-empty non-batch dims, of a dtype
// the op takes.
void check_pool_input(const Tensor& self, const char* op,
                      PoolIntegers ints = PoolIntegers::kNone);

// PyTorch's pooling output size: rounded down, or up with ceil_mode unless
// the last window would start in the right padding.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil);

// The input as `planes` planes of H x W, the windows (kernel, stride,
// padding, dilation) and the output (OH x OW per plane, out_shape).
struct PoolGeometry {
  int64_t planes = 0, H = 0, W = 0, OH = 0, OW = 0;
  int64_t kH = 1, kW = 1, sH = 1, sW = 1, pH = 0, pW = 0, dH = 1, dW = 1;
  std::vector<int64_t> out_shape;
};
// Parses and checks the parameters (one or two ints each; stride empty:
// the kernel size) and the input.
PoolGeometry pool_geometry(const Tensor& self, c10::IntArrayRef kernel_size,
                           c10::IntArrayRef stride, c10::IntArrayRef padding,
                           c10::IntArrayRef dilation, bool ceil_mode, const char* op,
                           PoolIntegers ints = PoolIntegers::kNone);
// adaptive_avg_pool2d's geometry: output_size of 2 values >= 0 (no windows:
// the planes' shares of the input are PyTorch's start = floor(o * in / out),
// end = ceil((o + 1) * in / out)); and its backward's, from grad_output
// (same number of dims, the pooling's output shape, self's dtype).
PoolGeometry adaptive_pool_geometry(const Tensor& self, c10::IntArrayRef output_size,
                                    const char* op);
PoolGeometry adaptive_pool_backward_geometry(const Tensor& grad_output, const Tensor& self,
                                             const char* op);
// avg_pool2d's divisor_override, when given, is not 0.
void check_avg_divisor(std::optional<int64_t> divisor_override, const char* op);
// A backward op's grad_output: the forward's output shape, self's dtype.
void check_pool_grad(const Tensor& grad, const Tensor& self, const std::vector<int64_t>& shape,
                     const char* op);
// max_pool2d_with_indices_backward's indices: Long, of the output's shape.
void check_max_pool_indices(const Tensor& indices, const std::vector<int64_t>& shape,
                            const char* op);
// An index outside its input plane (and not -1, the mark of an empty window).
[[noreturn]] void throw_max_pool_index(const char* op, int64_t index, int64_t position,
                                       const PoolGeometry& g);

}  // namespace native
}  // namespace at
