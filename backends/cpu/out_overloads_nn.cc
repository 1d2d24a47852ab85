// out= overloads of the losses, the pools, the softmax backward ops and
// their backward ops (`.out`, `.output`, `.grad_input`), structured or
// hand-written CPU kernels in PyTorch: each runs the functional kernel and
// copies its result into out tensors of the result's own dtype (Note [out=
// overloads that copy] in out_utils.h).
#include <optional>
#include <tuple>

#include "aten/Functions.h"
#include "backends/cpu/out_utils.h"
#include "registration/library.h"

namespace ember::cpu {
namespace {

// Two results into two out tensors of their dtypes; both are checked before
// either is written.
std::tuple<at::Tensor&, at::Tensor&> write_exact2(
    at::Tensor& out0, at::Tensor& out1, const std::tuple<at::Tensor, at::Tensor>& result,
    const char* op, const char* name0, const char* name1) {
  check_out_exact_dtype(out0, std::get<0>(result).scalar_type(), op, name0);
  check_out_exact_dtype(out1, std::get<1>(result).scalar_type(), op, name1);
  copy_to_out(out0, std::get<0>(result), op, name0);
  copy_to_out(out1, std::get<1>(result), op, name1);
  return {out0, out1};
}

// ---- losses ----------------------------------------------------------------------------

at::Tensor& mse_loss_out(const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                         at::Tensor& out) {
  return write_exact(out, at::mse_loss(self, target, reduction), "mse_loss", "out");
}

at::Tensor& mse_loss_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self,
                                         const at::Tensor& target, int64_t reduction,
                                         at::Tensor& grad_input) {
  return write_exact(grad_input, at::mse_loss_backward(grad_output, self, target, reduction),
                     "mse_loss_backward", "grad_input");
}

at::Tensor& nll_loss_out(const at::Tensor& self, const at::Tensor& target,
                         const std::optional<at::Tensor>& weight, int64_t reduction,
                         int64_t ignore_index, at::Tensor& out) {
  return write_exact(out, at::nll_loss(self, target, weight, reduction, ignore_index),
                     "nll_loss", "out");
}

std::tuple<at::Tensor&, at::Tensor&> nll_loss_forward_output(
    const at::Tensor& self, const at::Tensor& target, const std::optional<at::Tensor>& weight,
    int64_t reduction, int64_t ignore_index, at::Tensor& output, at::Tensor& total_weight) {
  return write_exact2(output, total_weight,
                      at::nll_loss_forward(self, target, weight, reduction, ignore_index),
                      "nll_loss_forward", "output", "total_weight");
}

at::Tensor& nll_loss_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self,
                                         const at::Tensor& target,
                                         const std::optional<at::Tensor>& weight,
                                         int64_t reduction, int64_t ignore_index,
                                         const at::Tensor& total_weight,
                                         at::Tensor& grad_input) {
  return write_exact(grad_input,
                     at::nll_loss_backward(grad_output, self, target, weight, reduction,
                                           ignore_index, total_weight),
                     "nll_loss_backward", "grad_input");
}

at::Tensor& nll_loss2d_out(const at::Tensor& self, const at::Tensor& target,
                           const std::optional<at::Tensor>& weight, int64_t reduction,
                           int64_t ignore_index, at::Tensor& out) {
  return write_exact(out, at::nll_loss2d(self, target, weight, reduction, ignore_index),
                     "nll_loss2d", "out");
}

std::tuple<at::Tensor&, at::Tensor&> nll_loss2d_forward_output(
    const at::Tensor& self, const at::Tensor& target, const std::optional<at::Tensor>& weight,
    int64_t reduction, int64_t ignore_index, at::Tensor& output, at::Tensor& total_weight) {
  return write_exact2(output, total_weight,
                      at::nll_loss2d_forward(self, target, weight, reduction, ignore_index),
                      "nll_loss2d_forward", "output", "total_weight");
}

at::Tensor& nll_loss2d_backward_grad_input(const at::Tensor& grad_output,
                                           const at::Tensor& self, const at::Tensor& target,
                                           const std::optional<at::Tensor>& weight,
                                           int64_t reduction, int64_t ignore_index,
                                           const at::Tensor& total_weight,
                                           at::Tensor& grad_input) {
  return write_exact(grad_input,
                     at::nll_loss2d_backward(grad_output, self, target, weight, reduction,
                                             ignore_index, total_weight),
                     "nll_loss2d_backward", "grad_input");
}

at::Tensor& binary_cross_entropy_out(const at::Tensor& self, const at::Tensor& target,
                                     const std::optional<at::Tensor>& weight,
                                     int64_t reduction, at::Tensor& out) {
  return write_exact(out, at::binary_cross_entropy(self, target, weight, reduction),
                     "binary_cross_entropy", "out");
}

at::Tensor& binary_cross_entropy_backward_grad_input(
    const at::Tensor& grad_output, const at::Tensor& self, const at::Tensor& target,
    const std::optional<at::Tensor>& weight, int64_t reduction, at::Tensor& grad_input) {
  return write_exact(
      grad_input,
      at::binary_cross_entropy_backward(grad_output, self, target, weight, reduction),
      "binary_cross_entropy_backward", "grad_input");
}

// ---- pools -----------------------------------------------------------------------------

std::tuple<at::Tensor&, at::Tensor&> max_pool2d_with_indices_out(
    const at::Tensor& self, c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
    c10::IntArrayRef padding, c10::IntArrayRef dilation, bool ceil_mode, at::Tensor& out,
    at::Tensor& indices) {
  return write_exact2(
      out, indices,
      at::max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode),
      "max_pool2d_with_indices", "out", "indices");
}

at::Tensor& max_pool2d_with_indices_backward_grad_input(
    const at::Tensor& grad_output, const at::Tensor& self, c10::IntArrayRef kernel_size,
    c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation,
    bool ceil_mode, const at::Tensor& indices, at::Tensor& grad_input) {
  return write_exact(grad_input,
                     at::max_pool2d_with_indices_backward(grad_output, self, kernel_size,
                                                          stride, padding, dilation,
                                                          ceil_mode, indices),
                     "max_pool2d_with_indices_backward", "grad_input");
}

at::Tensor& avg_pool2d_out(const at::Tensor& self, c10::IntArrayRef kernel_size,
                           c10::IntArrayRef stride, c10::IntArrayRef padding, bool ceil_mode,
                           bool count_include_pad, std::optional<int64_t> divisor_override,
                           at::Tensor& out) {
  return write_exact(out,
                     at::avg_pool2d(self, kernel_size, stride, padding, ceil_mode,
                                    count_include_pad, divisor_override),
                     "avg_pool2d", "out");
}

at::Tensor& avg_pool2d_backward_grad_input(const at::Tensor& grad_output,
                                           const at::Tensor& self,
                                           c10::IntArrayRef kernel_size,
                                           c10::IntArrayRef stride, c10::IntArrayRef padding,
                                           bool ceil_mode, bool count_include_pad,
                                           std::optional<int64_t> divisor_override,
                                           at::Tensor& grad_input) {
  return write_exact(grad_input,
                     at::avg_pool2d_backward(grad_output, self, kernel_size, stride, padding,
                                             ceil_mode, count_include_pad, divisor_override),
                     "avg_pool2d_backward", "grad_input");
}

// adaptive_avg_pool2d.out: a CPU kernel in PyTorch (the functional form is
// composite), writing in the input's dtype.
at::Tensor& adaptive_avg_pool2d_out(const at::Tensor& self, c10::IntArrayRef output_size,
                                    at::Tensor& out) {
  return write_exact(out, at::adaptive_avg_pool2d(self, output_size), "adaptive_avg_pool2d",
                     "out");
}

// ---- softmax.int_out / log_softmax.int_out -----------------------------------------------
// As PyTorch's (composite) kernels: the input converted to `dtype` if given;
// a contiguous out goes to _softmax.out (the result's dtype), any other is
// written with copy_ (any dtype).

template <bool kLog>
at::Tensor& softmax_int_out_impl(const at::Tensor& self, int64_t dim,
                                 std::optional<c10::ScalarType> dtype, at::Tensor& out) {
  const char* op = kLog ? "log_softmax" : "softmax";
  check_out_defined(out, op, "out");
  TORCH_CHECK(self.defined(), op, ": the input tensor is undefined.");
  const at::Tensor x = dtype ? self.to(*dtype) : self;
  if (out.is_contiguous()) {
    return kLog ? at::_log_softmax_out(out, x, dim, false) : at::_softmax_out(out, x, dim, false);
  }
  return copy_to_out(out, kLog ? at::_log_softmax(x, dim, false) : at::_softmax(x, dim, false),
                     op, "out");
}

at::Tensor& softmax_int_out(const at::Tensor& self, int64_t dim,
                            std::optional<c10::ScalarType> dtype, at::Tensor& out) {
  return softmax_int_out_impl<false>(self, dim, dtype, out);
}

at::Tensor& log_softmax_int_out(const at::Tensor& self, int64_t dim,
                                std::optional<c10::ScalarType> dtype, at::Tensor& out) {
  return softmax_int_out_impl<true>(self, dim, dtype, out);
}

// ---- softmax backward ------------------------------------------------------------------
// The result has input_dtype (the dtype of the forward's input).

at::Tensor& softmax_backward_data_out(const at::Tensor& grad_output, const at::Tensor& output,
                                      int64_t dim, c10::ScalarType input_dtype,
                                      at::Tensor& grad_input) {
  return write_exact(grad_input,
                     at::_softmax_backward_data(grad_output, output, dim, input_dtype),
                     "_softmax_backward_data", "grad_input");
}

at::Tensor& log_softmax_backward_data_out(const at::Tensor& grad_output,
                                          const at::Tensor& output, int64_t dim,
                                          c10::ScalarType input_dtype, at::Tensor& out) {
  return write_exact(out, at::_log_softmax_backward_data(grad_output, output, dim, input_dtype),
                     "_log_softmax_backward_data", "out");
}

}  // namespace
}  // namespace ember::cpu

TORCH_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("mse_loss.out", TORCH_FN(ember::cpu::mse_loss_out));
  m.impl("mse_loss_backward.grad_input", TORCH_FN(ember::cpu::mse_loss_backward_grad_input));
  m.impl("nll_loss.out", TORCH_FN(ember::cpu::nll_loss_out));
  m.impl("nll_loss_forward.output", TORCH_FN(ember::cpu::nll_loss_forward_output));
  m.impl("nll_loss_backward.grad_input", TORCH_FN(ember::cpu::nll_loss_backward_grad_input));
  m.impl("nll_loss2d.out", TORCH_FN(ember::cpu::nll_loss2d_out));
  m.impl("nll_loss2d_forward.output", TORCH_FN(ember::cpu::nll_loss2d_forward_output));
  m.impl("nll_loss2d_backward.grad_input",
         TORCH_FN(ember::cpu::nll_loss2d_backward_grad_input));
  m.impl("binary_cross_entropy.out", TORCH_FN(ember::cpu::binary_cross_entropy_out));
  m.impl("binary_cross_entropy_backward.grad_input",
         TORCH_FN(ember::cpu::binary_cross_entropy_backward_grad_input));
  m.impl("max_pool2d_with_indices.out", TORCH_FN(ember::cpu::max_pool2d_with_indices_out));
  m.impl("max_pool2d_with_indices_backward.grad_input",
         TORCH_FN(ember::cpu::max_pool2d_with_indices_backward_grad_input));
  m.impl("avg_pool2d.out", TORCH_FN(ember::cpu::avg_pool2d_out));
  m.impl("avg_pool2d_backward.grad_input",
         TORCH_FN(ember::cpu::avg_pool2d_backward_grad_input));
  m.impl("adaptive_avg_pool2d.out", TORCH_FN(ember::cpu::adaptive_avg_pool2d_out));
  m.impl("softmax.int_out", TORCH_FN(ember::cpu::softmax_int_out));
  m.impl("log_softmax.int_out", TORCH_FN(ember::cpu::log_softmax_int_out));
  m.impl("_softmax_backward_data.out", TORCH_FN(ember::cpu::softmax_backward_data_out));
  m.impl("_log_softmax_backward_data.out",
         TORCH_FN(ember::cpu::log_softmax_backward_data_out));
}
