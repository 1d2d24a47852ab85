// The out= kernels of nn ops that cannot be generated from their functional
// form (`autogen`, Note [Generated out= kernels]), registered for
// CompositeExplicitAutograd so that every backend gets them:
//  - softmax.int_out / log_softmax.int_out: the functional forms are
//    composite (a dtype conversion, then _softmax); the out= forms write
//    straight into a contiguous out with _softmax.out, and copy otherwise;
//  - _softmax.out / _log_softmax.out, for backends without their own
//    kernels (the CPU plugin has them);
//  - native_batch_norm.out: the functional call updates the running
//    statistics, so every out tensor is checked before it runs, and
//    save_mean/save_invstd are only written in training (Float for Half and
//    BFloat16 inputs, as PyTorch's statistics).
// Written results follow Note [out= overloads that copy] (aten/CompositeOut.h).
#include <optional>
#include <tuple>

#include "aten/CompositeOut.h"
#include "aten/Functions.h"
#include "aten/Resize.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

// _softmax.out / _log_softmax.out for backends without their own (the CPU
// plugin writes straight into out): the functional result, then out's
// dtype checked (the result's: no casting), resized and written.
template <bool kLog>
Tensor& raw_softmax_out(const Tensor& self, int64_t dim, bool half_to_float, Tensor& out) {
  const char* op = kLog ? "log_softmax" : "softmax";
  const Tensor result =
      kLog ? at::_log_softmax(self, dim, half_to_float) : at::_softmax(self, dim, half_to_float);
  TORCH_CHECK(out.defined(), op, ": the out tensor is undefined; pass a defined tensor.");
  TORCH_CHECK(out.scalar_type() == result.scalar_type(), op, ": expected out of dtype ",
              result.scalar_type(), ", but got ", out.scalar_type(),
              ". Pass an out tensor of the result's dtype.");
  resize_output(out, result.sizes(), op);
  out.copy_(result);
  return out;
}
Tensor& raw_softmax_out_composite(const Tensor& self, int64_t dim, bool half_to_float,
                                  Tensor& out) {
  return raw_softmax_out<false>(self, dim, half_to_float, out);
}
Tensor& raw_log_softmax_out_composite(const Tensor& self, int64_t dim, bool half_to_float,
                                      Tensor& out) {
  return raw_softmax_out<true>(self, dim, half_to_float, out);
}

template <bool kLog>
Tensor& softmax_int_out_impl(c10::DispatchKeySet ks, const Tensor& self, int64_t dim,
                             std::optional<ScalarType> dtype, Tensor& out) {
  const char* op = kLog ? "log_softmax" : "softmax";
  check_out_defined(out, op, "out");
  TORCH_CHECK(self.defined(), op, ": the input tensor is undefined.");
  const Tensor x = dtype ? self.to(*dtype) : self;
  if (out.is_contiguous()) {
    return kLog ? at::_log_softmax_out(out, x, dim, false) : at::_softmax_out(out, x, dim, false);
  }
  return copy_to_out(ks, out, kLog ? at::_log_softmax(x, dim, false) : at::_softmax(x, dim, false),
                     op, "out");
}

Tensor& softmax_int_out(c10::DispatchKeySet ks, const Tensor& self, int64_t dim,
                        std::optional<ScalarType> dtype, Tensor& out) {
  return softmax_int_out_impl<false>(ks, self, dim, dtype, out);
}

Tensor& log_softmax_int_out(c10::DispatchKeySet ks, const Tensor& self, int64_t dim,
                            std::optional<ScalarType> dtype, Tensor& out) {
  return softmax_int_out_impl<true>(ks, self, dim, dtype, out);
}

ScalarType batch_norm_stat_dtype(ScalarType input) {
  return input == c10::kHalf || input == c10::kBFloat16 ? c10::kFloat : input;
}

std::tuple<Tensor&, Tensor&, Tensor&> native_batch_norm_out(
    c10::DispatchKeySet ks, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
    const std::optional<Tensor>& running_var, bool training, double momentum, double eps,
    Tensor& out, Tensor& save_mean, Tensor& save_invstd) {
  const char* op = "native_batch_norm";
  // Checked first: the functional call below updates the running statistics.
  TORCH_CHECK(input.defined(), op, ": input is undefined; pass a defined tensor.");
  check_out_dtype(out, input.scalar_type(), OutDtype::Exact, op, "out");
  const ScalarType stat = batch_norm_stat_dtype(input.scalar_type());
  if (training) {
    check_out_dtype(save_mean, stat, OutDtype::Exact, op, "save_mean");
    check_out_dtype(save_invstd, stat, OutDtype::Exact, op, "save_invstd");
  }
  const auto [y, mean, invstd] = at::native_batch_norm(input, weight, bias, running_mean,
                                                       running_var, training, momentum, eps);
  TORCH_INTERNAL_ASSERT(y.scalar_type() == input.scalar_type() &&
                        (!training || mean.scalar_type() == stat));
  copy_to_out(ks, out, y, op, "out");
  if (training) {
    copy_to_out(ks, save_mean, mean, op, "save_mean");
    copy_to_out(ks, save_invstd, invstd, op, "save_invstd");
  }
  return {out, save_mean, save_invstd};
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("_softmax.out", TORCH_FN(at::native::raw_softmax_out_composite));
  m.impl("_log_softmax.out", TORCH_FN(at::native::raw_log_softmax_out_composite));
  m.impl("softmax.int_out", TORCH_FN(at::native::softmax_int_out));
  m.impl("log_softmax.int_out", TORCH_FN(at::native::log_softmax_int_out));
  m.impl("native_batch_norm.out", TORCH_FN(at::native::native_batch_norm_out));
}
