// mse_loss, binary_cross_entropy (and their backward ops) and
// binary_cross_entropy_with_logits as compositions of other ops, for CompositeExplicitAutograd (see aten/LossDecompositions.h).
// Each computes what the CPU plugin's fused loop computes, in the input's
// dtype: tests/aten:decompositions_test compares them.
#include "aten/LossDecompositions.h"

#include <vector>

#include "aten/Functions.h"
#include "aten/Reduction.h"
#include "aten/WrapDimUtils.h"
#include "c10/util/Exception.h"
#include "registration/library.h"

namespace at {
namespace native {

void check_loss_reduction(int64_t reduction, const char* op) {
  TORCH_CHECK(reduction >= 0 && reduction <= 2, op, ": reduction must be 0 "
              "(None), 1 (Mean) or 2 (Sum), but got ", reduction, ".");
}

void check_loss_floating(const Tensor& t, const char* op, const char* what) {
  TORCH_CHECK(c10::isFloatingType(t.scalar_type()), op, ": expected a floating "
              "point ", what, " (Float, Double, Half or BFloat16), but got ",
              t.scalar_type(), ". Convert it first.");
}

void check_loss_same_dtype(const Tensor& a, const Tensor& b, const char* op,
                           const char* what) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), op, ": expected ", what,
              " of the input's dtype ", a.scalar_type(), ", but got ", b.scalar_type(),
              ". Convert it with .to().");
}

void check_bce_inputs(const Tensor& self, const Tensor& target, int64_t reduction,
                      const char* op) {
  TORCH_CHECK(self.defined() && target.defined(), op, ": the input and target tensors "
              "must be defined; pass defined tensors.");
  check_loss_reduction(reduction, op);
  check_loss_floating(self, op, "input");
  TORCH_CHECK(target.sizes() == self.sizes(), op, ": Using a target size (",
              target.sizes(), ") that is different to the input size (", self.sizes(),
              ") is not supported. Please ensure they have the same size.");
  check_loss_same_dtype(self, target, op, "a target");
}

void check_bce_with_logits_inputs(const Tensor& self, const Tensor& target, int64_t reduction,
                                  const char* op) {
  TORCH_CHECK(self.defined() && target.defined(), op, ": the input and target tensors "
              "must be defined; pass defined tensors.");
  check_loss_reduction(reduction, op);
  check_loss_floating(self, op, "input");
  TORCH_CHECK(target.sizes() == self.sizes(), op, ": Target size (", target.sizes(),
              ") must be the same as input size (", self.sizes(), ")");
  check_loss_same_dtype(self, target, op, "a target");
}

void check_broadcasts_to(const Tensor& t, const Tensor& like, const char* op, const char* what) {
  const std::vector<int64_t> shape = at::infer_broadcast_shape(t.sizes(), like.sizes(), op);
  TORCH_CHECK(c10::IntArrayRef(shape) == like.sizes(), op, ": the ", what, " of shape ",
              t.sizes(), " does not broadcast to the input's shape ", like.sizes(),
              "; it must have that shape or one that broadcasts to it.");
}

void throw_bce_input_range(const char* op, int64_t index, double value) {
  TORCH_CHECK(false, op, ": all elements of input should be between 0 "
              "and 1, but element ", index, " is ", value, ". Apply sigmoid first, or use "
              "binary_cross_entropy_with_logits.");
  __builtin_unreachable();
}

namespace {

Tensor apply_reduction(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return at::mean(loss);
  if (reduction == Reduction::None) return loss;
  return at::sum(loss);
}

// The first element of `self` outside [0, 1] (NaN included), found with
// device ops; one read back when there is one.
void check_bce_range(const Tensor& self, const char* op) {
  const Tensor inside = at::logical_and(at::ge(self, 0), at::le(self, 1));
  if (self.numel() == 0 || at::all(inside).item<bool>()) return;
  const Tensor flat = at::logical_not(inside).reshape({-1});
  const int64_t index = at::argmax(flat).item<int64_t>();
  throw_bce_input_range(op, index, self.reshape({-1}).select(0, index).item<double>());
}

}  // namespace

Tensor mse_loss_decomposed(const Tensor& self, const Tensor& target, int64_t reduction) {
  const char* op = "mse_loss";
  TORCH_CHECK(self.defined() && target.defined(), op, ": the input and target tensors "
              "must be defined; pass defined tensors.");
  check_loss_reduction(reduction, op);
  const Tensor d = at::sub(self, target);
  check_loss_floating(d, op, "input");
  return apply_reduction(at::mul(d, d), reduction);
}

Tensor mse_loss_backward_decomposed(const Tensor& grad_output, const Tensor& self,
                                    const Tensor& target, int64_t reduction) {
  const char* op = "mse_loss_backward";
  TORCH_CHECK(grad_output.defined() && self.defined() && target.defined(), op,
              ": grad_output, input and target must be defined; pass defined tensors.");
  check_loss_reduction(reduction, op);
  const Tensor d = at::sub(self, target);
  check_loss_floating(d, op, "input");
  Tensor grad = at::mul(d, grad_output);
  const double norm =
      reduction == Reduction::Mean ? 2.0 / static_cast<double>(grad.numel()) : 2.0;
  return at::mul(grad, norm);
}

Tensor binary_cross_entropy_decomposed(const Tensor& self, const Tensor& target,
                                       const std::optional<Tensor>& weight, int64_t reduction) {
  const char* op = "binary_cross_entropy";
  check_bce_inputs(self, target, reduction, op);
  const bool weighted = weight.has_value() && weight->defined();
  if (weighted) check_broadcasts_to(*weight, self, op, "weight");
  check_bce_range(self, op);
  // PyTorch clamps each log to >= -100, so that x = 0 or 1 gives a finite loss.
  const Tensor log_x = at::clamp_min(at::log(self), -100);
  const Tensor log_1mx = at::clamp_min(at::log1p(at::neg(self)), -100);
  Tensor loss = at::sub(at::mul(at::sub(target, 1), log_1mx), at::mul(target, log_x));
  if (weighted) loss = at::mul(loss, weight->to(self.scalar_type()));
  return apply_reduction(loss, reduction);
}

Tensor binary_cross_entropy_with_logits_decomposed(const Tensor& self, const Tensor& target,
                                                   const std::optional<Tensor>& weight,
                                                   const std::optional<Tensor>& pos_weight,
                                                   int64_t reduction) {
  const char* op = "binary_cross_entropy_with_logits";
  check_bce_with_logits_inputs(self, target, reduction, op);
  const bool weighted = weight.has_value() && weight->defined();
  const bool pos_weighted = pos_weight.has_value() && pos_weight->defined();
  if (weighted) check_broadcasts_to(*weight, self, op, "weight");
  if (pos_weighted) check_broadcasts_to(*pos_weight, self, op, "pos_weight");
  // -log(sigmoid(x)) = softplus(-x) = max(-x, 0) + log1p(exp(-|x|)), which
  // neither overflows nor loses the tail for large |x|.
  const Tensor softplus_neg =
      at::add(at::clamp_min(at::neg(self), 0), at::log1p(at::exp(at::neg(at::abs(self)))));
  Tensor log_weight_term = softplus_neg;
  if (pos_weighted) {
    const Tensor pw = pos_weight->to(self.scalar_type());
    log_weight_term = at::mul(at::add(at::mul(at::sub(pw, 1), target), 1), softplus_neg);
  }
  Tensor loss = at::add(at::mul(at::rsub(target, 1), self), log_weight_term);
  if (weighted) loss = at::mul(loss, weight->to(self.scalar_type()));
  return apply_reduction(loss, reduction);
}

Tensor binary_cross_entropy_backward_decomposed(const Tensor& grad_output, const Tensor& self,
                                                const Tensor& target,
                                                const std::optional<Tensor>& weight,
                                                int64_t reduction) {
  const char* op = "binary_cross_entropy_backward";
  TORCH_CHECK(grad_output.defined(), op, ": the grad_output tensor is undefined; pass a "
              "defined tensor.");
  check_bce_inputs(self, target, reduction, op);
  check_loss_same_dtype(self, grad_output, op, "grad_output");
  check_broadcasts_to(grad_output, self, op, "grad_output");
  const bool weighted = weight.has_value() && weight->defined();
  if (weighted) check_broadcasts_to(*weight, self, op, "weight");
  // grad * (x - t) / max((1 - x) x, 1e-12), PyTorch's bound.
  const Tensor denom = at::clamp_min(at::mul(at::rsub(self, 1), self), 1e-12);
  Tensor grad = at::div(at::mul(grad_output, at::sub(self, target)), denom);
  if (reduction == Reduction::Mean) grad = at::div(grad, static_cast<double>(self.numel()));
  if (weighted) grad = at::mul(grad, weight->to(self.scalar_type()));
  return grad.expand(self.sizes()).contiguous();
}

void check_nll_target_dtype(const Tensor& target, const char* op) {
  TORCH_CHECK(target.scalar_type() == c10::kLong || target.scalar_type() == c10::kByte,
              op, ": expected scalar type Long but found ", target.scalar_type(),
              " for the target; nll_loss takes class indices (Long). For class "
              "probabilities use cross_entropy_loss.");
}

void check_nll_weight(const std::optional<Tensor>& weight, const Tensor& self,
                      int64_t n_classes, const char* op) {
  if (!weight.has_value() || !weight->defined()) return;
  TORCH_CHECK(weight->dim() == 1 && weight->numel() == n_classes, op,
              ": weight tensor should be defined either for all ", n_classes,
              " classes or no classes but got weight tensor of shape: ", weight->sizes());
  TORCH_CHECK(weight->scalar_type() == self.scalar_type(), op, ": expected the weight "
              "to have the input's dtype ", self.scalar_type(), ", but got ",
              weight->scalar_type(), ".");
}

void check_nll2d_shapes(const Tensor& self, const Tensor& target, const char* op) {
  TORCH_CHECK(target.dim() == 3, op, ": only batches of spatial targets supported "
              "(3D tensors) but got targets of dimension: ", target.dim());
  TORCH_CHECK(self.dim() == 4, op, ": only batches of spatial inputs supported (4D "
              "tensors), but got input of dimension: ", self.dim());
  TORCH_CHECK(self.size(0) == target.size(0) && self.size(2) == target.size(1) &&
                  self.size(3) == target.size(2),
              op, ": input and target batch or spatial sizes don't match: target ",
              target.sizes(), ", input ", self.sizes());
}

void check_nll2d_elementwise_grad(const Tensor& grad_output, const Tensor& target,
                                  const char* op) {
  TORCH_CHECK(grad_output.dim() == 3, op, ": grad_output must have same dimension "
              "as target (3) but got dimension: ", grad_output.dim());
  TORCH_CHECK(grad_output.sizes() == target.sizes(), op, ": grad_output sizes don't "
              "match target sizes: target ", target.sizes(), ", grad_output ",
              grad_output.sizes());
}

namespace {

// nll_loss2d's checks, in the CPU kernel's order.
void check_nll2d(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                 int64_t reduction, const char* op) {
  TORCH_CHECK(self.defined(), op, ": the input tensor is undefined; pass a defined tensor.");
  TORCH_CHECK(target.defined(), op, ": the target tensor is undefined; pass a defined tensor.");
  check_loss_reduction(reduction, op);
  check_loss_floating(self, op, "input");
  check_nll_target_dtype(target, op);
  check_nll2d_shapes(self, target, op);
  check_nll_weight(weight, self, self.size(1), op);
}

// [N, C, H, W] as [N * H * W, C], and the target as [N * H * W] Long.
Tensor classes_last(const Tensor& self) {
  return self.permute({0, 2, 3, 1}).reshape({-1, self.size(1)});
}

}  // namespace

std::tuple<Tensor, Tensor> nll_loss2d_forward_decomposed(const Tensor& self, const Tensor& target,
                                                         const std::optional<Tensor>& weight,
                                                         int64_t reduction, int64_t ignore_index) {
  check_nll2d(self, target, weight, reduction, "nll_loss2d_forward");
  auto result = at::nll_loss_forward(classes_last(self), target.reshape({-1}).to(c10::kLong),
                                     weight, reduction, ignore_index);
  Tensor output = std::get<0>(result);
  if (reduction == Reduction::None) output = output.reshape(target.sizes());
  return {output, std::get<1>(result)};
}

Tensor nll_loss2d_backward_decomposed(const Tensor& grad_output, const Tensor& self,
                                      const Tensor& target, const std::optional<Tensor>& weight,
                                      int64_t reduction, int64_t ignore_index,
                                      const Tensor& total_weight) {
  const char* op = "nll_loss2d_backward";
  check_nll2d(self, target, weight, reduction, op);
  TORCH_CHECK(grad_output.defined(), op, ": the grad_output tensor is undefined; pass a "
              "defined tensor.");
  if (reduction == Reduction::None) check_nll2d_elementwise_grad(grad_output, target, op);
  const Tensor g = reduction == Reduction::None ? grad_output.reshape({-1}) : grad_output;
  const Tensor flat = at::nll_loss_backward(g, classes_last(self),
                                            target.reshape({-1}).to(c10::kLong), weight,
                                            reduction, ignore_index, total_weight);
  return flat.reshape({self.size(0), self.size(2), self.size(3), self.size(1)})
      .permute({0, 3, 1, 2})
      .contiguous();
}

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("nll_loss2d_forward", TORCH_FN(nll_loss2d_forward_decomposed));
  m.impl("nll_loss2d_backward", TORCH_FN(nll_loss2d_backward_decomposed));
  m.impl("mse_loss", TORCH_FN(mse_loss_decomposed));
  m.impl("mse_loss_backward", TORCH_FN(mse_loss_backward_decomposed));
  m.impl("binary_cross_entropy", TORCH_FN(binary_cross_entropy_decomposed));
  m.impl("binary_cross_entropy_backward", TORCH_FN(binary_cross_entropy_backward_decomposed));
  m.impl("binary_cross_entropy_with_logits",
         TORCH_FN(binary_cross_entropy_with_logits_decomposed));
}

}  // namespace native
}  // namespace at
