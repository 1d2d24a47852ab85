// The out= forms PyTorch autogenerates (`autogen:`) for the convolution,
// adaptive pooling and embedding backward ops: each runs the functional
// kernel and copies its results with copy_ dtype rules, resizing as
// resize_output does (Note [out= overloads that copy] in out_utils.h).
// convolution_backward.out writes all three results, so its output_mask
// must be all true.
#include <tuple>
#include <vector>

#include "aten/Functions.h"
#include "backends/cpu/out_utils.h"
#include "registration/library.h"

namespace ember::cpu {
namespace {

std::tuple<at::Tensor&, at::Tensor&, at::Tensor&> convolution_backward_out(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight,
    c10::OptionalIntArrayRef bias_sizes, c10::IntArrayRef stride, c10::IntArrayRef padding,
    c10::IntArrayRef dilation, bool transposed, c10::IntArrayRef output_padding,
    int64_t groups, const std::vector<bool>& output_mask, at::Tensor& out0,
    at::Tensor& out1, at::Tensor& out2) {
  const char* op = "convolution_backward";
  check_mask_all_true(output_mask, op);
  return copy_to_outs(out0, out1, out2,
                      at::convolution_backward(grad_output, input, weight, bias_sizes, stride,
                                               padding, dilation, transposed, output_padding,
                                               groups, output_mask),
                      op);
}

at::Tensor& adaptive_avg_pool2d_impl_out(const at::Tensor& self, c10::IntArrayRef output_size,
                                         at::Tensor& out) {
  return copy_to_out(out, at::_adaptive_avg_pool2d(self, output_size),
                     "_adaptive_avg_pool2d", "out");
}

at::Tensor& adaptive_avg_pool2d_backward_out(const at::Tensor& grad_output,
                                             const at::Tensor& self, at::Tensor& out) {
  return copy_to_out(out, at::_adaptive_avg_pool2d_backward(grad_output, self),
                     "_adaptive_avg_pool2d_backward", "out");
}

at::Tensor& embedding_dense_backward_out(const at::Tensor& grad_output,
                                         const at::Tensor& indices, int64_t num_weights,
                                         int64_t padding_idx, bool scale_grad_by_freq,
                                         at::Tensor& out) {
  return copy_to_out(out,
                     at::embedding_dense_backward(grad_output, indices, num_weights,
                                                  padding_idx, scale_grad_by_freq),
                     "embedding_dense_backward", "out");
}

}  // namespace
}  // namespace ember::cpu

TORCH_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("convolution_backward.out", TORCH_FN(ember::cpu::convolution_backward_out));
  m.impl("_adaptive_avg_pool2d.out", TORCH_FN(ember::cpu::adaptive_avg_pool2d_impl_out));
  m.impl("_adaptive_avg_pool2d_backward.out",
         TORCH_FN(ember::cpu::adaptive_avg_pool2d_backward_out));
  m.impl("embedding_dense_backward.out", TORCH_FN(ember::cpu::embedding_dense_backward_out));
}
