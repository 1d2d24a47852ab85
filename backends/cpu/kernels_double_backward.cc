// select_backward, slice_backward and diagonal_backward on the CPU: a zero
// tensor of the forward input's sizes with the incoming gradient written
// into the view the forward op took. They are ops of their own (not helpers
// of autograd/FunctionsManual.cc) so that autograd/derivatives.txt can give
// them a derivative (the forward view of the gradient): see
// Note [Double backward through views] in autograd/FunctionsManual.cc.
#include <cstdint>
#include <string>

#include "aten/Functions.h"
#include "c10/util/Exception.h"
#include "registration/library.h"

namespace ember::cpu {
namespace {

// Writes `grad` into `view` (a view of a fresh zero tensor) after checking
// that its shape is the one the forward op produced from `input_sizes`.
void write_grad(const at::Tensor& view, const at::Tensor& grad, const char* op,
                c10::IntArrayRef input_sizes) {
  TORCH_CHECK(grad.defined(), op, ": expected a defined grad_output, but got an undefined "
              "tensor. Pass the gradient of the forward op's output.");
  TORCH_CHECK(view.sizes() == grad.sizes(), op, ": grad_output of sizes ", grad.sizes(),
              " does not match the forward output's sizes ", view.sizes(),
              " for an input of sizes ", input_sizes,
              ". Pass the gradient of the forward op's output and that op's input sizes.");
  view.copy_(grad);
}

at::Tensor select_backward(const at::Tensor& grad_output, c10::IntArrayRef input_sizes,
                           int64_t dim, int64_t index) {
  at::Tensor out = at::zeros(input_sizes, grad_output.options());
  write_grad(out.select(dim, index), grad_output, "select_backward", input_sizes);
  return out;
}

at::Tensor slice_backward(const at::Tensor& grad_output, c10::IntArrayRef input_sizes,
                          int64_t dim, int64_t start, int64_t end, int64_t step) {
  at::Tensor out = at::zeros(input_sizes, grad_output.options());
  write_grad(out.slice(dim, start, end, step), grad_output, "slice_backward", input_sizes);
  return out;
}

at::Tensor diagonal_backward(const at::Tensor& grad_output, c10::IntArrayRef input_sizes,
                             int64_t offset, int64_t dim1, int64_t dim2) {
  at::Tensor out = at::zeros(input_sizes, grad_output.options());
  write_grad(out.diagonal(offset, dim1, dim2), grad_output, "diagonal_backward", input_sizes);
  return out;
}

}  // namespace
}  // namespace ember::cpu

TORCH_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("select_backward", TORCH_FN(ember::cpu::select_backward));
  m.impl("slice_backward", TORCH_FN(ember::cpu::slice_backward));
  m.impl("diagonal_backward", TORCH_FN(ember::cpu::diagonal_backward));
}
