// More of the out= forms PyTorch autogenerates (`autogen:` in
// native_functions.yaml) for ops Ember has: _to_copy, clone, masked_fill,
// relu, rsub,
// isnan/isinf, native_dropout(_backward), the view backward ops, embedding,
// convolution and binary_cross_entropy_with_logits. Each runs the functional
// op and copies with copy_ dtype rules, resizing as resize_output does (Note
// [out= overloads that copy] in out_utils.h).
#include <optional>
#include <tuple>

#include "aten/Functions.h"
#include "backends/cpu/out_utils.h"
#include "registration/library.h"

namespace ember::cpu {
namespace {

// The out form has no dtype/layout/device arguments: the copy into out
// converts to out's dtype.
at::Tensor& to_copy_out(const at::Tensor& self, bool non_blocking,
                        std::optional<c10::MemoryFormat> memory_format, at::Tensor& out) {
  return copy_to_out(out,
                     at::_to_copy(self, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                  non_blocking, memory_format),
                     "_to_copy", "out");
}

at::Tensor& clone_out(const at::Tensor& self, std::optional<c10::MemoryFormat> memory_format,
                      at::Tensor& out) {
  return copy_to_out(out, at::clone(self, memory_format), "clone", "out");
}

at::Tensor& masked_fill_scalar_out(const at::Tensor& self, const at::Tensor& mask,
                                   const c10::Scalar& value, at::Tensor& out) {
  return copy_to_out(out, at::masked_fill(self, mask, value), "masked_fill", "out");
}

at::Tensor& masked_fill_tensor_out(const at::Tensor& self, const at::Tensor& mask,
                                   const at::Tensor& value, at::Tensor& out) {
  return copy_to_out(out, at::masked_fill(self, mask, value), "masked_fill", "out");
}

at::Tensor& relu_out(const at::Tensor& self, at::Tensor& out) {
  return copy_to_out(out, at::relu(self), "relu", "out");
}

at::Tensor& rsub_tensor_out(const at::Tensor& self, const at::Tensor& other,
                            const c10::Scalar& alpha, at::Tensor& out) {
  return copy_to_out(out, at::rsub(self, other, alpha), "rsub", "out");
}

at::Tensor& rsub_scalar_out(const at::Tensor& self, const c10::Scalar& other,
                            const c10::Scalar& alpha, at::Tensor& out) {
  return copy_to_out(out, at::rsub(self, other, alpha), "rsub", "out");
}

at::Tensor& isnan_out(const at::Tensor& self, at::Tensor& out) {
  return copy_to_out(out, at::isnan(self), "isnan", "out");
}

at::Tensor& isinf_out(const at::Tensor& self, at::Tensor& out) {
  return copy_to_out(out, at::isinf(self), "isinf", "out");
}

std::tuple<at::Tensor&, at::Tensor&> native_dropout_out(const at::Tensor& input, double p,
                                                        std::optional<bool> train,
                                                        at::Tensor& out0, at::Tensor& out1) {
  const char* op = "native_dropout";
  // Checked before drawing, so that a refused call leaves the generator alone.
  check_out_defined(out0, op, "out0");
  check_out_defined(out1, op, "out1");
  const auto [output, mask] = at::native_dropout(input, p, train);
  copy_to_out(out0, output, op, "out0");
  copy_to_out(out1, mask, op, "out1");
  return {out0, out1};
}

at::Tensor& native_dropout_backward_out(const at::Tensor& grad_output, const at::Tensor& mask,
                                        double scale, at::Tensor& out) {
  return copy_to_out(out, at::native_dropout_backward(grad_output, mask, scale),
                     "native_dropout_backward", "out");
}

at::Tensor& select_backward_out(const at::Tensor& grad_output, c10::IntArrayRef input_sizes,
                                int64_t dim, int64_t index, at::Tensor& out) {
  return copy_to_out(out, at::select_backward(grad_output, input_sizes, dim, index),
                     "select_backward", "out");
}

at::Tensor& slice_backward_out(const at::Tensor& grad_output, c10::IntArrayRef input_sizes,
                               int64_t dim, int64_t start, int64_t end, int64_t step,
                               at::Tensor& out) {
  return copy_to_out(out, at::slice_backward(grad_output, input_sizes, dim, start, end, step),
                     "slice_backward", "out");
}

at::Tensor& diagonal_backward_out(const at::Tensor& grad_output, c10::IntArrayRef input_sizes,
                                  int64_t offset, int64_t dim1, int64_t dim2,
                                  at::Tensor& out) {
  return copy_to_out(out, at::diagonal_backward(grad_output, input_sizes, offset, dim1, dim2),
                     "diagonal_backward", "out");
}

at::Tensor& embedding_out(const at::Tensor& weight, const at::Tensor& indices,
                          int64_t padding_idx, bool scale_grad_by_freq, bool sparse,
                          at::Tensor& out) {
  return copy_to_out(out, at::embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse),
                     "embedding", "out");
}

at::Tensor& convolution_out(const at::Tensor& input, const at::Tensor& weight,
                            const std::optional<at::Tensor>& bias, c10::IntArrayRef stride,
                            c10::IntArrayRef padding, c10::IntArrayRef dilation,
                            bool transposed, c10::IntArrayRef output_padding, int64_t groups,
                            at::Tensor& out) {
  return copy_to_out(out,
                     at::convolution(input, weight, bias, stride, padding, dilation,
                                     transposed, output_padding, groups),
                     "convolution", "out");
}

at::Tensor& binary_cross_entropy_with_logits_out(const at::Tensor& self,
                                                 const at::Tensor& target,
                                                 const std::optional<at::Tensor>& weight,
                                                 const std::optional<at::Tensor>& pos_weight,
                                                 int64_t reduction, at::Tensor& out) {
  return copy_to_out(out,
                     at::binary_cross_entropy_with_logits(self, target, weight, pos_weight,
                                                          reduction),
                     "binary_cross_entropy_with_logits", "out");
}

}  // namespace
}  // namespace ember::cpu

TORCH_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("_to_copy.out", TORCH_FN(ember::cpu::to_copy_out));
  m.impl("clone.out", TORCH_FN(ember::cpu::clone_out));
  m.impl("masked_fill.Scalar_out", TORCH_FN(ember::cpu::masked_fill_scalar_out));
  m.impl("masked_fill.Tensor_out", TORCH_FN(ember::cpu::masked_fill_tensor_out));
  m.impl("relu.out", TORCH_FN(ember::cpu::relu_out));
  m.impl("rsub.Tensor_out", TORCH_FN(ember::cpu::rsub_tensor_out));
  m.impl("rsub.Scalar_out", TORCH_FN(ember::cpu::rsub_scalar_out));
  m.impl("isnan.out", TORCH_FN(ember::cpu::isnan_out));
  m.impl("isinf.out", TORCH_FN(ember::cpu::isinf_out));
  m.impl("native_dropout.out", TORCH_FN(ember::cpu::native_dropout_out));
  m.impl("native_dropout_backward.out", TORCH_FN(ember::cpu::native_dropout_backward_out));
  m.impl("select_backward.out", TORCH_FN(ember::cpu::select_backward_out));
  m.impl("slice_backward.out", TORCH_FN(ember::cpu::slice_backward_out));
  m.impl("diagonal_backward.out", TORCH_FN(ember::cpu::diagonal_backward_out));
  m.impl("embedding.out", TORCH_FN(ember::cpu::embedding_out));
  m.impl("convolution.out", TORCH_FN(ember::cpu::convolution_out));
  m.impl("binary_cross_entropy_with_logits.out",
         TORCH_FN(ember::cpu::binary_cross_entropy_with_logits_out));
}
