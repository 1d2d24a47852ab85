// The `.grad_input` out= forms of the activations' backward ops. PyTorch
// computes them with a TensorIterator, so grad_input may have any dtype the
// result can be cast to (a Float gradient into a Double grad_input, not into
// a Long one), and is resized as resize_output does. Each runs the
// functional backward and copies (Note [out= overloads that copy] in
// out_utils.h).
#include "aten/Functions.h"
#include "backends/cpu/out_utils.h"
#include "registration/library.h"

namespace ember::cpu {
namespace {

at::Tensor& threshold_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self,
                                          const c10::Scalar& threshold,
                                          at::Tensor& grad_input) {
  return write_castable(grad_input, at::threshold_backward(grad_output, self, threshold),
                        "threshold_backward", "grad_input");
}

at::Tensor& sigmoid_backward_grad_input(const at::Tensor& grad_output,
                                        const at::Tensor& output, at::Tensor& grad_input) {
  return write_castable(grad_input, at::sigmoid_backward(grad_output, output),
                        "sigmoid_backward", "grad_input");
}

at::Tensor& tanh_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& output,
                                     at::Tensor& grad_input) {
  return write_castable(grad_input, at::tanh_backward(grad_output, output),
                        "tanh_backward", "grad_input");
}

at::Tensor& gelu_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self,
                                     c10::string_view approximate, at::Tensor& grad_input) {
  return write_castable(grad_input, at::gelu_backward(grad_output, self, approximate),
                        "gelu_backward", "grad_input");
}

at::Tensor& silu_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self,
                                     at::Tensor& grad_input) {
  return write_castable(grad_input, at::silu_backward(grad_output, self),
                        "silu_backward", "grad_input");
}

at::Tensor& elu_backward_grad_input(const at::Tensor& grad_output, const c10::Scalar& alpha,
                                    const c10::Scalar& scale, const c10::Scalar& input_scale,
                                    bool is_result, const at::Tensor& self_or_result,
                                    at::Tensor& grad_input) {
  return write_castable(grad_input,
                        at::elu_backward(grad_output, alpha, scale, input_scale, is_result,
                                         self_or_result),
                        "elu_backward", "grad_input");
}

at::Tensor& softplus_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self,
                                         const c10::Scalar& beta, const c10::Scalar& threshold,
                                         at::Tensor& grad_input) {
  return write_castable(grad_input, at::softplus_backward(grad_output, self, beta, threshold),
                        "softplus_backward", "grad_input");
}

at::Tensor& leaky_relu_backward_grad_input(const at::Tensor& grad_output,
                                           const at::Tensor& self,
                                           const c10::Scalar& negative_slope,
                                           bool self_is_result, at::Tensor& grad_input) {
  return write_castable(
      grad_input, at::leaky_relu_backward(grad_output, self, negative_slope, self_is_result),
      "leaky_relu_backward", "grad_input");
}

at::Tensor& hardtanh_backward_grad_input(const at::Tensor& grad_output, const at::Tensor& self,
                                         const c10::Scalar& min_val,
                                         const c10::Scalar& max_val, at::Tensor& grad_input) {
  return write_castable(grad_input, at::hardtanh_backward(grad_output, self, min_val, max_val),
                        "hardtanh_backward", "grad_input");
}

}  // namespace
}  // namespace ember::cpu

TORCH_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("threshold_backward.grad_input", TORCH_FN(ember::cpu::threshold_backward_grad_input));
  m.impl("sigmoid_backward.grad_input", TORCH_FN(ember::cpu::sigmoid_backward_grad_input));
  m.impl("tanh_backward.grad_input", TORCH_FN(ember::cpu::tanh_backward_grad_input));
  m.impl("gelu_backward.grad_input", TORCH_FN(ember::cpu::gelu_backward_grad_input));
  m.impl("silu_backward.grad_input", TORCH_FN(ember::cpu::silu_backward_grad_input));
  m.impl("elu_backward.grad_input", TORCH_FN(ember::cpu::elu_backward_grad_input));
  m.impl("softplus_backward.grad_input", TORCH_FN(ember::cpu::softplus_backward_grad_input));
  m.impl("leaky_relu_backward.grad_input",
         TORCH_FN(ember::cpu::leaky_relu_backward_grad_input));
  m.impl("hardtanh_backward.grad_input", TORCH_FN(ember::cpu::hardtanh_backward_grad_input));
}
