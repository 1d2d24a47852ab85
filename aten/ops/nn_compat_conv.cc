// conv1d, conv_transpose1d and conv_transpose2d: composites over the
// convolution op, as in PyTorch (CompositeImplicitAutograd). Unbatched
// inputs ([C, L] / [C, H, W]) get a batch dimension for the call.
#include <vector>

#include "aten/Functions.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

// Whether `input` is batched, for a `k`-d convolution named `op`.
bool batched(const Tensor& input, const Tensor& weight, int64_t k, const char* op) {
  TORCH_CHECK(input.defined() && weight.defined(), op,
              ": the input and the weight must be defined tensors.");
  TORCH_CHECK(input.dim() == k + 1 || input.dim() == k + 2, op, ": expected ", k + 1,
              "D (unbatched) or ", k + 2, "D (batched) input, but got input of size: ",
              input.sizes(), ".");
  TORCH_CHECK(weight.dim() == k + 2, op, ": expected a ", k + 2, "-d weight, but got weight "
              "of size ", weight.sizes(), ".");
  return input.dim() == k + 2;
}

Tensor run(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
           IntArrayRef output_padding, int64_t groups, int64_t k, const char* op) {
  const bool is_batched = batched(input, weight, k, op);
  const Tensor x = is_batched ? input : input.unsqueeze(0);
  Tensor y = at::convolution(x, weight, bias, stride, padding, dilation, transposed,
                             output_padding, groups);
  return is_batched ? y : y.squeeze(0);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const int64_t zero = 0;
  return run(input, weight, bias, stride, padding, dilation, false, IntArrayRef(zero), groups,
             1, "conv1d");
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return run(input, weight, bias, stride, padding, dilation, true, output_padding, groups, 1,
             "conv_transpose1d");
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups,
                        IntArrayRef dilation) {
  return run(input, weight, bias, stride, padding, dilation, true, output_padding, groups, 2,
             "conv_transpose2d");
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("conv1d", TORCH_FN(at::native::conv1d));
  m.impl("conv_transpose1d", TORCH_FN(at::native::conv_transpose1d));
  m.impl("conv_transpose2d.input", TORCH_FN(at::native::conv_transpose2d));
}
