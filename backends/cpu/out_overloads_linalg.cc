// out= forms of the matrix products that run the functional op and copy
// (Note [out= overloads that copy] in out_utils.h). In PyTorch bmm.out,
// addmm.out and baddbmm.out are structured kernels, mv.out goes through the
// structured addmv.out, matmul.out and linear.out through mm/bmm/addmm.out,
// and dot.out checks the dtype itself: all want the result's dtype.
// outer.out is mul.out on a column and a row, so its out may have any dtype
// the result can be cast to. mm.out has its own kernel (matmul.cc).
#include <optional>

#include "aten/Functions.h"
#include "backends/cpu/out_utils.h"
#include "registration/library.h"

namespace ember::cpu {
namespace {

at::Tensor& bmm_out(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  return write_exact(out, at::bmm(self, mat2), "bmm", "out");
}

at::Tensor& addmm_out(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                      const c10::Scalar& beta, const c10::Scalar& alpha, at::Tensor& out) {
  return write_exact(out, at::addmm(self, mat1, mat2, beta, alpha), "addmm", "out");
}

at::Tensor& baddbmm_out(const at::Tensor& self, const at::Tensor& batch1,
                        const at::Tensor& batch2, const c10::Scalar& beta,
                        const c10::Scalar& alpha, at::Tensor& out) {
  return write_exact(out, at::baddbmm(self, batch1, batch2, beta, alpha), "baddbmm", "out");
}

at::Tensor& mv_out(const at::Tensor& self, const at::Tensor& vec, at::Tensor& out) {
  return write_exact(out, at::mv(self, vec), "mv", "out");
}

at::Tensor& dot_out(const at::Tensor& self, const at::Tensor& tensor, at::Tensor& out) {
  return write_exact(out, at::dot(self, tensor), "dot", "out");
}

at::Tensor& matmul_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  return write_exact(out, at::matmul(self, other), "matmul", "out");
}

at::Tensor& linear_out(const at::Tensor& input, const at::Tensor& weight,
                       const std::optional<at::Tensor>& bias, at::Tensor& out) {
  return write_exact(out, at::linear(input, weight, bias), "linear", "out");
}

at::Tensor& outer_out(const at::Tensor& self, const at::Tensor& vec2, at::Tensor& out) {
  return write_castable(out, at::outer(self, vec2), "outer", "out");
}

}  // namespace
}  // namespace ember::cpu

TORCH_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("bmm.out", TORCH_FN(ember::cpu::bmm_out));
  m.impl("addmm.out", TORCH_FN(ember::cpu::addmm_out));
  m.impl("baddbmm.out", TORCH_FN(ember::cpu::baddbmm_out));
  m.impl("mv.out", TORCH_FN(ember::cpu::mv_out));
  m.impl("dot.out", TORCH_FN(ember::cpu::dot_out));
  m.impl("outer.out", TORCH_FN(ember::cpu::outer_out));
  m.impl("matmul.out", TORCH_FN(ember::cpu::matmul_out));
  m.impl("linear.out", TORCH_FN(ember::cpu::linear_out));
}
