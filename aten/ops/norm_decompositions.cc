// native_layer_norm and its backward as compositions of other ops, for
// CompositeExplicitAutograd (see aten/NormDecompositions.h). The statistics
// are the mean and the biased variance (two passes) of each row in the
// statistics dtype; tests/aten:decompositions_test compares them with
// the CPU plugin's fused kernels.
#include "aten/NormDecompositions.h"

#include <sstream>

#include "aten/Functions.h"
#include "aten/LossDecompositions.h"
#include "c10/util/Exception.h"
#include "registration/library.h"

namespace at {
namespace native {

namespace {
bool present(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }
}  // namespace

c10::ScalarType layer_norm_stat_dtype(c10::ScalarType input) {
  return input == c10::kHalf || input == c10::kBFloat16 ? c10::kFloat : input;
}

LayerNormShape layer_norm_shape(const Tensor& input, c10::IntArrayRef normalized_shape,
                                const std::optional<Tensor>& weight,
                                const std::optional<Tensor>& bias, const char* op) {
  TORCH_CHECK(input.defined(), op, ": the input tensor is undefined; pass a defined tensor.");
  check_loss_floating(input, op, "input");
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  TORCH_CHECK(nd >= 1, op, ": Expected normalized_shape to be at least 1-dimensional, "
              "i.e., containing at least one element, but got normalized_shape = ",
              normalized_shape);
  TORCH_CHECK(!present(weight) || weight->sizes() == normalized_shape, op,
              ": Expected weight to be of same shape as normalized_shape, but got weight "
              "of shape ", weight->sizes(), " and normalized_shape = ", normalized_shape);
  TORCH_CHECK(!present(bias) || bias->sizes() == normalized_shape, op,
              ": Expected bias to be of same shape as normalized_shape, but got bias of "
              "shape ", bias->sizes(), " and normalized_shape = ", normalized_shape);
  const int64_t ndim = input.dim();
  bool ok = ndim >= nd;
  for (int64_t i = 0; ok && i < nd; ++i) {
    ok = input.size(ndim - nd + i) == normalized_shape[static_cast<size_t>(i)];
  }
  if (!ok) {
    std::ostringstream expected;
    expected << "[*";
    for (const int64_t s : normalized_shape) expected << ", " << s;
    expected << "]";
    TORCH_CHECK(false, op, ": Given normalized_shape=", normalized_shape,
                ", expected input with shape ", expected.str(),
                ", but got input of size", input.sizes());
  }
  LayerNormShape s;
  for (int64_t d = 0; d < ndim; ++d) {
    if (d < ndim - nd) {
      s.m *= input.size(d);
      s.stat_shape.push_back(input.size(d));
    } else {
      s.n *= input.size(d);
      s.stat_shape.push_back(1);
    }
  }
  return s;
}

void check_layer_norm_backward(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                               const Tensor& rstd, const LayerNormShape& g,
                               const std::vector<bool>& output_mask, const char* op) {
  TORCH_CHECK(grad_out.defined() && mean.defined() && rstd.defined(), op,
              ": grad_out, mean and rstd must be defined tensors.");
  TORCH_CHECK(grad_out.sizes() == input.sizes(), op, ": grad_out and input must have "
              "the same shape, but got ", grad_out.sizes(), " and ", input.sizes(), ".");
  TORCH_CHECK(mean.numel() == g.m && rstd.numel() == g.m, op, ": mean and rstd must "
              "have one element per normalized row (", g.m, "), but have ", mean.numel(),
              " and ", rstd.numel(), "; pass the ones native_layer_norm returned.");
  TORCH_CHECK(output_mask.size() == 3, op, ": output_mask must have 3 entries, but has ",
              output_mask.size(), ".");
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_decomposed(
    const Tensor& input, c10::IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& bias, double eps) {
  const char* op = "native_layer_norm";
  const LayerNormShape g = layer_norm_shape(input, normalized_shape, weight, bias, op);
  const c10::ScalarType sdt = layer_norm_stat_dtype(input.scalar_type());
  const Tensor x = input.reshape({g.m, g.n}).to(sdt);
  const Tensor mean = at::mean(x, {1}, /*keepdim=*/true);
  const Tensor var = at::var(x, at::IntArrayRef{1}, c10::Scalar(int64_t{0}), /*keepdim=*/true);
  const Tensor rstd = at::rsqrt(at::add(var, eps));
  Tensor out = at::mul(at::sub(x, mean), rstd);
  if (present(weight)) out = at::mul(out, weight->reshape({g.n}).to(sdt));
  if (present(bias)) out = at::add(out, bias->reshape({g.n}).to(sdt));
  return {out.reshape(input.sizes()).to(input.scalar_type()), mean.reshape(g.stat_shape),
          rstd.reshape(g.stat_shape)};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_decomposed(
    const Tensor& grad_out, const Tensor& input, c10::IntArrayRef normalized_shape,
    const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& bias, const std::vector<bool>& output_mask) {
  const char* op = "native_layer_norm_backward";
  const LayerNormShape g = layer_norm_shape(input, normalized_shape, weight, bias, op);
  check_layer_norm_backward(grad_out, input, mean, rstd, g, output_mask, op);
  const c10::ScalarType sdt = layer_norm_stat_dtype(input.scalar_type());
  const Tensor x = input.reshape({g.m, g.n}).to(sdt);
  const Tensor dy = grad_out.reshape({g.m, g.n}).to(sdt);
  const Tensor mu = mean.reshape({g.m, 1}).to(sdt);
  const Tensor rs = rstd.reshape({g.m, 1}).to(sdt);
  const Tensor xhat = at::mul(at::sub(x, mu), rs);
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    // dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * w.
    const Tensor gw = present(weight) ? at::mul(dy, weight->reshape({g.n}).to(sdt)) : dy;
    const Tensor mean_g = at::mean(gw, {1}, true);
    const Tensor mean_gx = at::mean(at::mul(gw, xhat), {1}, true);
    grad_input = at::mul(rs, at::sub(at::sub(gw, mean_g), at::mul(xhat, mean_gx)))
                     .reshape(input.sizes())
                     .to(input.scalar_type());
  }
  const c10::ScalarType pdt = present(weight) ? weight->scalar_type() : sdt;
  if (output_mask[1]) {
    grad_weight = at::sum(at::mul(dy, xhat), {0}).reshape(normalized_shape).to(pdt);
  }
  if (output_mask[2]) grad_bias = at::sum(dy, {0}).reshape(normalized_shape).to(pdt);
  return {grad_input, grad_weight, grad_bias};
}

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("native_layer_norm", TORCH_FN(native_layer_norm_decomposed));
  m.impl("native_layer_norm_backward", TORCH_FN(native_layer_norm_backward_decomposed));
}

}  // namespace native
}  // namespace at
