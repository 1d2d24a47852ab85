// The Scalar overloads of the arithmetic ops, rsub and where's Scalar
// overloads: each scalar becomes a 0-dim "wrapped number" tensor, which
// type promotion treats as a Python number, then the Tensor overload runs
// (so autograd sees the Tensor op).
#include <optional>

#include "aten/ScalarOps.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

// On the CPU and on CUDA the wrapped number is a CPU tensor: CUDA kernels
// take 0-dim CPU operands by value (Note [CPU scalars on a device]), which
// saves an allocation and a fill kernel per call. Other devices get it on
// their own device, as their iterators expect.
Tensor wrap(const Scalar& s, const Tensor& like) {
  return wrapped_scalar_tensor(s, like.is_cuda() ? Device(kCPU) : like.device());
}

Tensor add_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return at::add(self, wrap(other, self), alpha);
}
Tensor& add__scalar(Tensor& self, const Scalar& other, const Scalar& alpha) {
  return self.add_(wrap(other, self), alpha);
}
Tensor sub_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return at::sub(self, wrap(other, self), alpha);
}
Tensor& sub__scalar(Tensor& self, const Scalar& other, const Scalar& alpha) {
  return self.sub_(wrap(other, self), alpha);
}
Tensor mul_scalar(const Tensor& self, const Scalar& other) {
  return at::mul(self, wrap(other, self));
}
Tensor& mul__scalar(Tensor& self, const Scalar& other) {
  return self.mul_(wrap(other, self));
}
Tensor div_scalar(const Tensor& self, const Scalar& other) {
  return at::div(self, wrap(other, self));
}
Tensor& div__scalar(Tensor& self, const Scalar& other) {
  return self.div_(wrap(other, self));
}
Tensor div_scalar_mode(const Tensor& self, const Scalar& other,
                       std::optional<c10::string_view> rounding_mode) {
  return at::div(self, wrap(other, self), rounding_mode);
}
Tensor& div__scalar_mode(Tensor& self, const Scalar& other,
                         std::optional<c10::string_view> rounding_mode) {
  return self.div_(wrap(other, self), rounding_mode);
}

// rsub: other - alpha * self.
Tensor rsub_tensor(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return at::sub(other, self, alpha);
}
Tensor rsub_scalar(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return at::sub(wrap(other, self), self, alpha);
}

Tensor where_scalar_self(const Tensor& condition, const Scalar& self, const Tensor& other) {
  return at::where(condition, wrap(self, other), other);
}
Tensor where_scalar_other(const Tensor& condition, const Tensor& self, const Scalar& other) {
  return at::where(condition, self, wrap(other, self));
}
Tensor where_scalar(const Tensor& condition, const Scalar& self, const Scalar& other) {
  return at::where(condition, wrap(self, condition), wrap(other, condition));
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("add.Scalar", TORCH_FN(at::native::add_scalar));
  m.impl("add_.Scalar", TORCH_FN(at::native::add__scalar));
  m.impl("sub.Scalar", TORCH_FN(at::native::sub_scalar));
  m.impl("sub_.Scalar", TORCH_FN(at::native::sub__scalar));
  m.impl("mul.Scalar", TORCH_FN(at::native::mul_scalar));
  m.impl("mul_.Scalar", TORCH_FN(at::native::mul__scalar));
  m.impl("div.Scalar", TORCH_FN(at::native::div_scalar));
  m.impl("div_.Scalar", TORCH_FN(at::native::div__scalar));
  m.impl("div.Scalar_mode", TORCH_FN(at::native::div_scalar_mode));
  m.impl("div_.Scalar_mode", TORCH_FN(at::native::div__scalar_mode));
  m.impl("rsub.Tensor", TORCH_FN(at::native::rsub_tensor));
  m.impl("rsub.Scalar", TORCH_FN(at::native::rsub_scalar));
  m.impl("where.ScalarSelf", TORCH_FN(at::native::where_scalar_self));
  m.impl("where.ScalarOther", TORCH_FN(at::native::where_scalar_other));
  m.impl("where.Scalar", TORCH_FN(at::native::where_scalar));
}
