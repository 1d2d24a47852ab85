// native_batch_norm, native_layer_norm and their backward ops as
// compositions of other ops, for CompositeExplicitAutograd (see
// aten/NormDecompositions.h). The statistics are the mean and the biased
// variance (two passes) of each channel or row in the statistics dtype;
// tests/aten:decompositions_test compares them with the CPU plugin's fused
// kernels.
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

// ---- batch norm ----------------------------------------------------------------------------

BatchNormShape batch_norm_shape(const Tensor& input, const char* op) {
  TORCH_CHECK(input.defined(), op, ": the input tensor is undefined; pass a defined tensor.");
  check_loss_floating(input, op, "input");
  TORCH_CHECK(input.dim() >= 2, op, ": expected an input of at least 2 dimensions "
              "(N, C, ...), but got a ", input.dim(), "-d input of shape ", input.sizes(),
              ".");
  BatchNormShape g;
  g.n = input.size(0);
  g.c = input.size(1);
  for (int64_t d = 2; d < input.dim(); ++d) g.s *= input.size(d);
  return g;
}

void check_batch_norm_channels(const std::optional<Tensor>& t, int64_t c, const char* name,
                               const char* op) {
  if (!present(t)) return;
  TORCH_CHECK(t->numel() == c, op, ": ", name, " should contain ", c, " elements not ",
              t->numel(), " (one per channel, input.size(1)).");
}

void check_batch_norm_forward(const BatchNormShape& g, const std::optional<Tensor>& weight,
                              const std::optional<Tensor>& bias,
                              const std::optional<Tensor>& running_mean,
                              const std::optional<Tensor>& running_var, bool training,
                              const char* op) {
  check_batch_norm_channels(weight, g.c, "weight", op);
  check_batch_norm_channels(bias, g.c, "bias", op);
  check_batch_norm_channels(running_mean, g.c, "running_mean", op);
  check_batch_norm_channels(running_var, g.c, "running_var", op);
  TORCH_CHECK(training || (present(running_mean) && present(running_var)), op,
              ": running_mean and running_var must be defined in evaluation mode "
              "(training=false); pass them, or use training=true.");
}

void check_batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                               const BatchNormShape& g, const std::optional<Tensor>& weight,
                               const std::optional<Tensor>& running_mean,
                               const std::optional<Tensor>& running_var,
                               const std::optional<Tensor>& save_mean,
                               const std::optional<Tensor>& save_invstd, bool train,
                               const std::vector<bool>& output_mask, const char* op) {
  TORCH_CHECK(grad_out.defined(), op, ": the grad_out tensor is undefined; pass a "
              "defined tensor.");
  TORCH_CHECK(grad_out.sizes() == input.sizes(), op, ": grad_out and input must have "
              "the same shape, but got ", grad_out.sizes(), " and ", input.sizes(), ".");
  TORCH_CHECK(output_mask.size() == 3, op, ": output_mask must have 3 entries, but has ",
              output_mask.size(), ".");
  check_batch_norm_channels(weight, g.c, "weight", op);
  if (train) {
    TORCH_CHECK(present(save_mean) && present(save_invstd), op,
                ": save_mean and save_invstd must be defined in training mode; pass "
                "the ones native_batch_norm returned.");
    check_batch_norm_channels(save_mean, g.c, "save_mean", op);
    check_batch_norm_channels(save_invstd, g.c, "save_invstd", op);
  } else {
    TORCH_CHECK(present(running_mean) && present(running_var), op,
                ": running_mean and running_var must be defined in evaluation mode.");
    check_batch_norm_channels(running_mean, g.c, "running_mean", op);
    check_batch_norm_channels(running_var, g.c, "running_var", op);
  }
}

namespace {

// Every dim but the channel dim, and the shape [1, C, 1, ...] that
// broadcasts a per-channel vector over the input.
std::vector<int64_t> batch_norm_reduce_dims(const Tensor& input) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  return dims;
}
std::vector<int64_t> channel_shape(const Tensor& input) {
  std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1);
  shape[1] = input.size(1);
  return shape;
}

// target = (1 - momentum) * target + momentum * value, in double, written
// back in target's dtype.
void blend_in_place(Tensor& target, const Tensor& value, double momentum) {
  const Tensor blended = at::add(at::mul(target.to(c10::kDouble), 1.0 - momentum),
                                 at::mul(value.reshape(target.sizes()).to(c10::kDouble),
                                         momentum));
  target.copy_(blended);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_decomposed(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    bool training, double momentum, double eps) {
  const char* op = "native_batch_norm";
  const BatchNormShape g = batch_norm_shape(input, op);
  check_batch_norm_forward(g, weight, bias, running_mean, running_var, training, op);
  const c10::ScalarType sdt = layer_norm_stat_dtype(input.scalar_type());
  const std::vector<int64_t> dims = batch_norm_reduce_dims(input);
  const std::vector<int64_t> cshape = channel_shape(input);
  const Tensor x = input.to(sdt);
  Tensor mean, invstd, var;
  if (training) {
    mean = at::mean(x, dims, /*keepdim=*/false);
    var = at::var(x, dims, c10::Scalar(int64_t{0}), /*keepdim=*/false);
    invstd = at::rsqrt(at::add(var, eps));
  } else {
    mean = running_mean->reshape({g.c}).to(sdt);
    invstd = at::rsqrt(at::add(running_var->reshape({g.c}).to(sdt), eps));
  }
  // y = (x - mean) * (invstd * w) + b
  const Tensor alpha = present(weight) ? at::mul(invstd, weight->reshape({g.c}).to(sdt)) : invstd;
  Tensor out = at::mul(at::sub(x, mean.reshape(cshape)), alpha.reshape(cshape));
  if (present(bias)) out = at::add(out, bias->reshape(cshape).to(sdt));
  out = out.to(input.scalar_type());
  if (!training) {
    return {out, at::empty({0}, x.options()), at::empty({0}, x.options())};
  }
  // The running variance takes the unbiased estimate: count / (count - 1),
  // NaN for a single value, as in PyTorch.
  const double count = static_cast<double>(g.n * g.s);
  if (present(running_mean)) {
    Tensor rm = *running_mean;
    blend_in_place(rm, mean, momentum);
  }
  if (present(running_var)) {
    Tensor rv = *running_var;
    blend_in_place(rv, at::mul(var.to(c10::kDouble), count / (count - 1.0)), momentum);
  }
  return {out, mean, invstd};
}

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward_decomposed(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd,
    bool train, double eps, const std::vector<bool>& output_mask) {
  const char* op = "native_batch_norm_backward";
  const BatchNormShape g = batch_norm_shape(input, op);
  check_batch_norm_backward(grad_out, input, g, weight, running_mean, running_var, save_mean,
                            save_invstd, train, output_mask, op);
  const c10::ScalarType sdt = layer_norm_stat_dtype(input.scalar_type());
  const std::vector<int64_t> dims = batch_norm_reduce_dims(input);
  const std::vector<int64_t> cshape = channel_shape(input);
  const Tensor mean = (train ? *save_mean : *running_mean).reshape({g.c}).to(sdt);
  const Tensor invstd =
      train ? save_invstd->reshape({g.c}).to(sdt)
            : at::rsqrt(at::add(running_var->reshape({g.c}).to(sdt), eps));
  const Tensor x = input.to(sdt);
  const Tensor dy = grad_out.to(sdt);
  const Tensor xc = at::sub(x, mean.reshape(cshape));
  const Tensor sum_dy = at::sum(dy, dims);
  const Tensor dot = at::sum(at::mul(dy, xc), dims);  // sum dy * (x - mean)
  Tensor grad_input, grad_weight, grad_bias;
  if (output_mask[0]) {
    const Tensor scale =
        present(weight) ? at::mul(invstd, weight->reshape({g.c}).to(sdt)) : invstd;
    Tensor d = dy;
    if (train) {
      // The batch statistics depend on x too: remove the gradient's mean and
      // its projection on the normalized input.
      const double count = static_cast<double>(g.n * g.s);
      const Tensor proj = at::div(at::mul(dot, at::mul(invstd, invstd)), count);
      d = at::sub(at::sub(dy, at::div(sum_dy, count).reshape(cshape)),
                  at::mul(xc, proj.reshape(cshape)));
    }
    grad_input = at::mul(d, scale.reshape(cshape)).to(input.scalar_type());
  }
  const c10::ScalarType pdt = present(weight) ? weight->scalar_type() : sdt;
  if (output_mask[1]) grad_weight = at::mul(dot, invstd).to(pdt);
  if (output_mask[2]) grad_bias = sum_dy.to(pdt);
  return {grad_input, grad_weight, grad_bias};
}

// ---- layer norm ----------------------------------------------------------------------------

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
  m.impl("native_batch_norm", TORCH_FN(native_batch_norm_decomposed));
  m.impl("native_batch_norm_backward", TORCH_FN(native_batch_norm_backward_decomposed));
  m.impl("native_layer_norm", TORCH_FN(native_layer_norm_decomposed));
  m.impl("native_layer_norm_backward", TORCH_FN(native_layer_norm_backward_decomposed));
}

}  // namespace native
}  // namespace at
