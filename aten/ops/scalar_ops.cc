// The Scalar overloads of the arithmetic ops: the scalar becomes a 0-dim
// "wrapped number" tensor, which type promotion treats as a Python number,
// then the Tensor overload runs.
#include "aten/ScalarOps.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

Tensor add_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return at::add(self, wrapped_scalar_tensor(other, self.device()), alpha);
}
Tensor sub_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return at::sub(self, wrapped_scalar_tensor(other, self.device()), alpha);
}
Tensor mul_scalar(const Tensor& self, const Scalar& other) {
  return at::mul(self, wrapped_scalar_tensor(other, self.device()));
}
Tensor div_scalar(const Tensor& self, const Scalar& other) {
  return at::div(self, wrapped_scalar_tensor(other, self.device()));
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("add.Scalar", TORCH_FN(at::native::add_scalar));
  m.impl("sub.Scalar", TORCH_FN(at::native::sub_scalar));
  m.impl("mul.Scalar", TORCH_FN(at::native::mul_scalar));
  m.impl("div.Scalar", TORCH_FN(at::native::div_scalar));
}
