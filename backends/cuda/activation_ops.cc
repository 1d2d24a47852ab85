// backends/cuda/activation_ops.cc — the activations on the CUDA key
// (leaky_relu, gelu, silu, elu, softplus, hardtanh, with their in-place and
// out= forms) and the backward ops their autograd formulas call. As
// pointwise_ops.cc: the GPU TensorIterator, the core's argument checks.

#include "aten/PointwiseChecks.h"
#include "backends/cuda/PointwiseSupport.h"
#include "registration/library.h"

namespace ember {
namespace cuda {
namespace {

using namespace pointwise;  // NOLINT: the shared pointwise helpers

// ---- activations -------------------------------------------------------------------------

OpParams slope_params(const c10::Scalar& slope) {
  OpParams p;
  p.d[0] = slope.toDouble();
  return p;
}
OpParams gelu_params(c10::string_view approximate, const char* op) {
  OpParams p;
  p.flag = at::native::gelu_is_tanh(approximate, op) ? 1 : 0;
  return p;
}
OpParams elu_params(const c10::Scalar& alpha, const c10::Scalar& scale,
                    const c10::Scalar& input_scale) {
  OpParams p;
  p.d[0] = scale.toDouble();
  p.d[1] = alpha.toDouble() * scale.toDouble();
  p.d[2] = input_scale.toDouble();
  return p;
}
OpParams pair_params(const c10::Scalar& a, const c10::Scalar& b) {
  OpParams p;
  p.d[0] = a.toDouble();
  p.d[1] = b.toDouble();
  return p;
}

at::Tensor leaky_relu(const at::Tensor& self, const c10::Scalar& slope) {
  return floating_unary("leaky_relu", UnaryOp::kLeakyRelu, at::Tensor(), self,
                        slope_params(slope));
}
at::Tensor& leaky_relu_(at::Tensor& self, const c10::Scalar& slope) {
  floating_unary("leaky_relu_", UnaryOp::kLeakyRelu, self, self, slope_params(slope));
  return self;
}
at::Tensor& leaky_relu_out(const at::Tensor& self, const c10::Scalar& slope, at::Tensor& out) {
  check_out(out, "leaky_relu");
  floating_unary("leaky_relu", UnaryOp::kLeakyRelu, out, self, slope_params(slope));
  return out;
}
at::Tensor gelu(const at::Tensor& self, c10::string_view approximate) {
  return floating_unary("gelu", UnaryOp::kGelu, at::Tensor(), self,
                        gelu_params(approximate, "gelu"));
}
at::Tensor& gelu_(at::Tensor& self, c10::string_view approximate) {
  floating_unary("gelu_", UnaryOp::kGelu, self, self, gelu_params(approximate, "gelu_"));
  return self;
}
at::Tensor& gelu_out(const at::Tensor& self, c10::string_view approximate, at::Tensor& out) {
  check_out(out, "gelu");
  floating_unary("gelu", UnaryOp::kGelu, out, self, gelu_params(approximate, "gelu"));
  return out;
}
at::Tensor silu(const at::Tensor& self) {
  return floating_unary("silu", UnaryOp::kSilu, at::Tensor(), self, OpParams{});
}
at::Tensor& silu_(at::Tensor& self) {
  floating_unary("silu_", UnaryOp::kSilu, self, self, OpParams{});
  return self;
}
at::Tensor& silu_out(const at::Tensor& self, at::Tensor& out) {
  check_out(out, "silu");
  floating_unary("silu", UnaryOp::kSilu, out, self, OpParams{});
  return out;
}
at::Tensor elu(const at::Tensor& self, const c10::Scalar& alpha, const c10::Scalar& scale,
               const c10::Scalar& input_scale) {
  return floating_unary("elu", UnaryOp::kElu, at::Tensor(), self,
                        elu_params(alpha, scale, input_scale));
}
at::Tensor& elu_(at::Tensor& self, const c10::Scalar& alpha, const c10::Scalar& scale,
                 const c10::Scalar& input_scale) {
  floating_unary("elu_", UnaryOp::kElu, self, self, elu_params(alpha, scale, input_scale));
  return self;
}
at::Tensor& elu_out(const at::Tensor& self, const c10::Scalar& alpha,
                    const c10::Scalar& scale, const c10::Scalar& input_scale,
                    at::Tensor& out) {
  check_out(out, "elu");
  floating_unary("elu", UnaryOp::kElu, out, self, elu_params(alpha, scale, input_scale));
  return out;
}
at::Tensor softplus(const at::Tensor& self, const c10::Scalar& beta,
                    const c10::Scalar& threshold) {
  return floating_unary("softplus", UnaryOp::kSoftplus, at::Tensor(), self,
                        pair_params(beta, threshold));
}
at::Tensor& softplus_out(const at::Tensor& self, const c10::Scalar& beta,
                         const c10::Scalar& threshold, at::Tensor& out) {
  check_out(out, "softplus");
  floating_unary("softplus", UnaryOp::kSoftplus, out, self, pair_params(beta, threshold));
  return out;
}

// hardtanh takes every numeric dtype: integral bounds go in i[].
at::Tensor run_hardtanh(const char* op, const at::Tensor& out, const at::Tensor& self,
                        const c10::Scalar& min_val, const c10::Scalar& max_val) {
  at::native::refuse_bool(self, op, "bool tensors are not supported. Convert the tensor "
                          "to a floating dtype first.");
  at::native::check_hardtanh_bounds(self.scalar_type(), min_val, max_val, op);
  OpParams p = pair_params(min_val, max_val);
  if (c10::isIntegralType(self.scalar_type(), /*includeBool=*/false)) {
    // Checked above: the kernel's cast to the dtype gives what the CPU's
    // Scalar conversion gives.
    p.i[0] = min_val.to<int64_t>();
    p.i[1] = max_val.to<int64_t>();
  }
  return unary(op, UnaryOp::kHardtanh, out, self, false, p);
}
at::Tensor hardtanh(const at::Tensor& self, const c10::Scalar& min_val,
                    const c10::Scalar& max_val) {
  return run_hardtanh("hardtanh", at::Tensor(), self, min_val, max_val);
}
at::Tensor& hardtanh_(at::Tensor& self, const c10::Scalar& min_val,
                      const c10::Scalar& max_val) {
  run_hardtanh("hardtanh_", self, self, min_val, max_val);
  return self;
}
at::Tensor& hardtanh_out(const at::Tensor& self, const c10::Scalar& min_val,
                         const c10::Scalar& max_val, at::Tensor& out) {
  check_out(out, "hardtanh");
  run_hardtanh("hardtanh", out, self, min_val, max_val);
  return out;
}

// ---- backward ops: grad (a) and the saved tensor (b) -------------------------------------

at::Tensor backward(const char* op, BinaryOp kind, const at::Tensor& grad,
                    const at::Tensor& saved, const OpParams& p, bool integral_ok = false) {
  return binary(op, kind, at::Tensor(), grad, saved, false, false, [&](c10::ScalarType t) {
    TORCH_CHECK_NOT_IMPLEMENTED(integral_ok || c10::isFloatingType(t), op,
                                ": not implemented for '", t, "'; pass floating tensors.");
    return p;
  });
}
at::Tensor sigmoid_backward(const at::Tensor& grad, const at::Tensor& output) {
  return backward("sigmoid_backward", BinaryOp::kSigmoidBackward, grad, output, OpParams{});
}
at::Tensor tanh_backward(const at::Tensor& grad, const at::Tensor& output) {
  return backward("tanh_backward", BinaryOp::kTanhBackward, grad, output, OpParams{});
}
at::Tensor silu_backward(const at::Tensor& grad, const at::Tensor& self) {
  return backward("silu_backward", BinaryOp::kSiluBackward, grad, self, OpParams{});
}
at::Tensor gelu_backward(const at::Tensor& grad, const at::Tensor& self,
                         c10::string_view approximate) {
  return backward("gelu_backward", BinaryOp::kGeluBackward, grad, self,
                  gelu_params(approximate, "gelu_backward"));
}
at::Tensor elu_backward(const at::Tensor& grad, const c10::Scalar& alpha,
                        const c10::Scalar& scale, const c10::Scalar& input_scale,
                        bool is_result, const at::Tensor& self_or_result) {
  at::native::check_elu_backward(is_result, alpha);
  OpParams p = elu_params(alpha, scale, input_scale);
  p.flag = is_result ? 1 : 0;
  return backward("elu_backward", BinaryOp::kEluBackward, grad, self_or_result, p);
}
at::Tensor softplus_backward(const at::Tensor& grad, const at::Tensor& self,
                             const c10::Scalar& beta, const c10::Scalar& threshold) {
  return backward("softplus_backward", BinaryOp::kSoftplusBackward, grad, self,
                  pair_params(beta, threshold));
}
at::Tensor leaky_relu_backward(const at::Tensor& grad, const at::Tensor& self,
                               const c10::Scalar& slope, bool self_is_result) {
  at::native::check_leaky_relu_backward(self_is_result, slope.toDouble());
  return backward("leaky_relu_backward", BinaryOp::kLeakyReluBackward, grad, self,
                  slope_params(slope));
}
at::Tensor hardtanh_backward(const at::Tensor& grad, const at::Tensor& self,
                             const c10::Scalar& min_val, const c10::Scalar& max_val) {
  return backward("hardtanh_backward", BinaryOp::kHardtanhBackward, grad, self,
                  pair_params(min_val, max_val), /*integral_ok=*/true);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
#define EMBER_CUDA_REGISTER_THREE(name)        \
  m.impl(#name, TORCH_FN(name));               \
  m.impl(#name "_", TORCH_FN(name##_));        \
  m.impl(#name ".out", TORCH_FN(name##_out));
  EMBER_CUDA_REGISTER_THREE(leaky_relu)
  EMBER_CUDA_REGISTER_THREE(gelu)
  EMBER_CUDA_REGISTER_THREE(silu)
  EMBER_CUDA_REGISTER_THREE(elu)
  EMBER_CUDA_REGISTER_THREE(hardtanh)
#undef EMBER_CUDA_REGISTER_THREE
  m.impl("softplus", TORCH_FN(softplus));
  m.impl("softplus.out", TORCH_FN(softplus_out));
  m.impl("sigmoid_backward", TORCH_FN(sigmoid_backward));
  m.impl("tanh_backward", TORCH_FN(tanh_backward));
  m.impl("silu_backward", TORCH_FN(silu_backward));
  m.impl("gelu_backward", TORCH_FN(gelu_backward));
  m.impl("elu_backward", TORCH_FN(elu_backward));
  m.impl("softplus_backward", TORCH_FN(softplus_backward));
  m.impl("leaky_relu_backward", TORCH_FN(leaky_relu_backward));
  m.impl("hardtanh_backward", TORCH_FN(hardtanh_backward));
}

}  // namespace cuda
}  // namespace ember
