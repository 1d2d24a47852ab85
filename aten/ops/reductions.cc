// Reduction overloads written in terms of others: the `unbiased` spellings
// of var/std/var_mean/std_mean (unbiased = correction 1, else 0), and the
// norm overloads without dims or dtype. One composite kernel for every
// backend, as in PyTorch.
#include "aten/Functions.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

std::optional<Scalar> correction_of(bool unbiased) {
  return Scalar(unbiased ? int64_t{1} : int64_t{0});
}

Tensor var(const Tensor& self, bool unbiased) {
  return at::var(self, std::nullopt, correction_of(unbiased), false);
}

Tensor var_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return at::var(self, dim, correction_of(unbiased), keepdim);
}

Tensor std(const Tensor& self, bool unbiased) {
  return at::std(self, std::nullopt, correction_of(unbiased), false);
}

Tensor std_dim(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return at::std(self, dim, correction_of(unbiased), keepdim);
}

std::tuple<Tensor, Tensor> var_mean(const Tensor& self, bool unbiased) {
  return at::var_mean(self, std::nullopt, correction_of(unbiased), false);
}

std::tuple<Tensor, Tensor> var_mean_dim(const Tensor& self, OptionalIntArrayRef dim,
                                        bool unbiased, bool keepdim) {
  return at::var_mean(self, dim, correction_of(unbiased), keepdim);
}

std::tuple<Tensor, Tensor> std_mean(const Tensor& self, bool unbiased) {
  return at::std_mean(self, std::nullopt, correction_of(unbiased), false);
}

std::tuple<Tensor, Tensor> std_mean_dim(const Tensor& self, OptionalIntArrayRef dim,
                                        bool unbiased, bool keepdim) {
  return at::std_mean(self, dim, correction_of(unbiased), keepdim);
}

// Over every dim: an empty dim list.
Tensor norm_scalar(const Tensor& self, const Scalar& p) {
  return at::norm(self, std::optional<Scalar>(p), IntArrayRef{}, false);
}

Tensor norm_dtype(const Tensor& self, const std::optional<Scalar>& p, ScalarType dtype) {
  return at::norm(self, p, IntArrayRef{}, false, dtype);
}

// The Frobenius norm of a tensor over `dim` is its 2-norm there.
Tensor frobenius_norm(const Tensor& self, IntArrayRef dim, bool keepdim) {
  TORCH_CHECK(!dim.empty(), "frobenius_norm: expected at least one dim; pass the "
              "dims to reduce, e.g. {0, 1}.");
  return at::norm(self, std::optional<Scalar>(2), dim, keepdim);
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("var", TORCH_FN(at::native::var));
  m.impl("var.dim", TORCH_FN(at::native::var_dim));
  m.impl("std", TORCH_FN(at::native::std));
  m.impl("std.dim", TORCH_FN(at::native::std_dim));
  m.impl("var_mean", TORCH_FN(at::native::var_mean));
  m.impl("var_mean.dim", TORCH_FN(at::native::var_mean_dim));
  m.impl("std_mean", TORCH_FN(at::native::std_mean));
  m.impl("std_mean.dim", TORCH_FN(at::native::std_mean_dim));
  m.impl("norm.Scalar", TORCH_FN(at::native::norm_scalar));
  m.impl("norm.ScalarOpt_dtype", TORCH_FN(at::native::norm_dtype));
  m.impl("frobenius_norm.dim", TORCH_FN(at::native::frobenius_norm));
}
