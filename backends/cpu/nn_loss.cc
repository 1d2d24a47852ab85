// The losses on the CPU: nll_loss(2d)_forward/backward, mse_loss(+backward),
// binary_cross_entropy(+backward), binary_cross_entropy_with_logits.
//
// Losses are memory-bound and usually small next to the layers that feed
// them, so the loops are serial over contiguous operands (a non-contiguous
// input is copied first); elementwise losses are reduced with at::sum /
// at::mean (double accumulation for float32).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include "aten/Functions.h"
#include "aten/Reduction.h"
#include "aten/WrapDimUtils.h"
#include "backends/cpu/TensorIterator.h"
#include "aten/LossDecompositions.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/nn.h"
#include "backends/cpu/nn_utils.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

constexpr int64_t kNone = at::Reduction::None, kMean = at::Reduction::Mean;

// The elementwise loss reduced as `reduction` asks.
at::Tensor apply_reduction(const at::Tensor& loss, int64_t reduction) {
  if (reduction == kMean) return at::mean(loss);
  if (reduction == kNone) return loss;
  return at::sum(loss);
}

// ---- nll_loss -------------------------------------------------------------------------
//
// Both nll_loss (input [C] or [N, C]) and nll_loss2d (input [N, C, H, W])
// see the input as [N, C, S] and the target as [N, S] (S = 1 or H * W).

struct NllShape {
  int64_t n, c, s;
  bool elementwise;  // reduction None with a batch: one loss per target
};

using at::native::check_nll_weight;

void check_target_dtype(const at::Tensor& target, const char* op) {
  at::native::check_nll_target_dtype(target, op);
}

void check_nll_inputs(const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                      const char* op) {
  nn::check_defined(self, op, "input");
  nn::check_defined(target, op, "target");
  nn::check_reduction(reduction, op);
  nn::check_floating(self, op, "input");
  check_target_dtype(target, op);
}

NllShape nll1d_shape(const at::Tensor& self, const at::Tensor& target,
                     const std::optional<at::Tensor>& weight, int64_t reduction,
                     const char* op) {
  check_nll_inputs(self, target, reduction, op);
  TORCH_CHECK(self.dim() > 0 && self.dim() <= 2, op, ": input tensor should be 1D "
              "or 2D, but got a ", self.dim(), "-d input of shape ", self.sizes(),
              ". Use nll_loss_nd (or nll_loss2d) for [N, C, d1, ...] inputs.");
  TORCH_CHECK(target.dim() <= 1, op, ": 0D or 1D target tensor expected, "
              "multi-target not supported (got a target of shape ", target.sizes(), ").");
  const bool no_batch_dim = self.dim() == 1 && target.dim() == 0;
  TORCH_CHECK(no_batch_dim || self.size(0) == target.size(0), op,
              ": size mismatch (got input: ", self.sizes(), ", target: ",
              target.sizes(), ")");
  const int64_t c = self.size(-1);
  check_nll_weight(weight, self, c, op);
  const int64_t n = self.dim() == 1 ? 1 : self.size(0);
  return {n, c, 1, reduction == kNone && self.dim() == 2};
}

NllShape nll2d_shape(const at::Tensor& self, const at::Tensor& target,
                     const std::optional<at::Tensor>& weight, int64_t reduction,
                     const char* op) {
  check_nll_inputs(self, target, reduction, op);
  at::native::check_nll2d_shapes(self, target, op);
  check_nll_weight(weight, self, self.size(1), op);
  return {self.size(0), self.size(1), self.size(2) * self.size(3), reduction == kNone};
}

// Every target is a class or ignore_index. Runs before any output is written.
template <typename index_t>
void check_targets(const index_t* t, int64_t count, int64_t n_classes, int64_t ignore_index) {
  for (int64_t i = 0; i < count; ++i) {
    const int64_t v = static_cast<int64_t>(t[i]);
    if (v == ignore_index) continue;
    TORCH_CHECK_INDEX(v >= 0 && v < n_classes, "Target ", v, " is out of bounds.");
  }
}

template <typename F>
void with_target(const at::Tensor& target, const F& f) {
  if (target.scalar_type() == c10::kByte) {
    f(static_cast<const uint8_t*>(target.data_ptr()));
  } else {
    f(static_cast<const int64_t*>(target.data_ptr()));
  }
}

std::tuple<at::Tensor, at::Tensor> nll_forward(const at::Tensor& self,
                                               const at::Tensor& target,
                                               const std::optional<at::Tensor>& weight,
                                               int64_t reduction, int64_t ignore_index,
                                               const NllShape& g, c10::IntArrayRef out_shape,
                                               const char* op) {
  const at::Tensor x = nn::contiguous(self);
  const at::Tensor t = nn::contiguous(target);
  const at::Tensor w = nn::present(weight) ? nn::contiguous(*weight) : at::Tensor();
  at::Tensor output = empty_cpu(g.elementwise ? out_shape : c10::IntArrayRef{},
                                self.scalar_type(), op);
  at::Tensor total_weight = empty_cpu({}, self.scalar_type(), op);
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    using acc_t = nn::acc_type_t<scalar_t>;
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    const scalar_t* wp = w.defined() ? static_cast<const scalar_t*>(w.data_ptr()) : nullptr;
    scalar_t* op_ = static_cast<scalar_t*>(output.data_ptr());
    with_target(t, [&](const auto* tp) {
      check_targets(tp, g.n * g.s, g.c, ignore_index);
      acc_t sum = 0, wsum = 0;
      for (int64_t i = 0; i < g.n; ++i) {
        for (int64_t k = 0; k < g.s; ++k) {
          const int64_t v = static_cast<int64_t>(tp[i * g.s + k]);
          acc_t loss = 0;
          if (v != ignore_index) {
            const acc_t wv = wp ? static_cast<acc_t>(wp[v]) : acc_t(1);
            loss = -wv * static_cast<acc_t>(xp[(i * g.c + v) * g.s + k]);
            wsum += wv;
          }
          if (g.elementwise) {
            op_[i * g.s + k] = static_cast<scalar_t>(loss);
          } else {
            sum += loss;
          }
        }
      }
      if (g.elementwise) {
        *static_cast<scalar_t*>(total_weight.data_ptr()) = scalar_t(0);
        return;
      }
      *static_cast<scalar_t*>(total_weight.data_ptr()) = static_cast<scalar_t>(wsum);
      // Mean over no (unignored) targets is 0 / 0 = NaN, as in PyTorch.
      *op_ = static_cast<scalar_t>(reduction == kMean ? sum / wsum : sum);
    });
  });
  return {output, total_weight};
}

at::Tensor nll_backward(const at::Tensor& grad_output, const at::Tensor& self,
                        const at::Tensor& target, const std::optional<at::Tensor>& weight,
                        int64_t reduction, int64_t ignore_index,
                        const at::Tensor& total_weight, const NllShape& g, const char* op) {
  nn::check_defined(grad_output, op, "grad_output");
  nn::check_defined(total_weight, op, "total_weight");
  TORCH_CHECK(total_weight.numel() == 1, op, ": expected total_weight to be a single "
              "element tensor, got: ", total_weight.sizes(), " (", total_weight.numel(),
              " elements)");
  if (!g.elementwise) {
    TORCH_CHECK(grad_output.dim() <= 1 && grad_output.numel() == 1, op,
                ": Expected a single element grad_output tensor, but got: ",
                grad_output.sizes());
  }
  TORCH_CHECK(grad_output.scalar_type() == self.scalar_type(), op, ": expected "
              "grad_output of the input's dtype ", self.scalar_type(), ", but got ",
              grad_output.scalar_type(), ".");
  const at::Tensor x = nn::contiguous(self);
  const at::Tensor t = nn::contiguous(target);
  const at::Tensor go = nn::contiguous(grad_output);
  const at::Tensor w = nn::present(weight) ? nn::contiguous(*weight) : at::Tensor();
  at::Tensor grad_input = empty_cpu(self.sizes(), self.scalar_type(), op);
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    scalar_t* gi = static_cast<scalar_t*>(grad_input.data_ptr());
    std::fill(gi, gi + grad_input.numel(), scalar_t(0));
    const scalar_t* gp = static_cast<const scalar_t*>(go.data_ptr());
    const scalar_t* wp = w.defined() ? static_cast<const scalar_t*>(w.data_ptr()) : nullptr;
    acc_t scale = 1;
    if (!g.elementwise) {
      scale = static_cast<acc_t>(gp[0]);
      if (reduction == kMean) scale /= total_weight.item<acc_t>();
    }
    with_target(t, [&](const auto* tp) {
      check_targets(tp, g.n * g.s, g.c, ignore_index);
      for (int64_t i = 0; i < g.n; ++i) {
        for (int64_t k = 0; k < g.s; ++k) {
          const int64_t v = static_cast<int64_t>(tp[i * g.s + k]);
          if (v == ignore_index) continue;
          const acc_t wv = wp ? static_cast<acc_t>(wp[v]) : acc_t(1);
          const acc_t gv = g.elementwise ? static_cast<acc_t>(gp[i * g.s + k]) : scale;
          gi[(i * g.c + v) * g.s + k] = static_cast<scalar_t>(-wv * gv);
        }
      }
    });
  });
  return grad_input;
}

// ---- elementwise losses ---------------------------------------------------------------

// `t` converted to `like`'s dtype and broadcast to its shape, contiguous.
at::Tensor broadcast_like(const at::Tensor& t, const at::Tensor& like, const char* op,
                          const char* what) {
  at::native::check_broadcasts_to(t, like, op, what);
  if (t.sizes() == like.sizes() && t.scalar_type() == like.scalar_type()) {
    return nn::contiguous(t);
  }
  at::Tensor r = empty_cpu(like.sizes(), like.scalar_type(), op);
  copy_into(r, t);
  return r;
}

void check_same_dtype(const at::Tensor& a, const at::Tensor& b, const char* op,
                      const char* what) {
  at::native::check_loss_same_dtype(a, b, op, what);
}

void check_bce_inputs(const at::Tensor& self, const at::Tensor& target, int64_t reduction,
                      const char* op) {
  nn::check_defined(self, op, "input");
  nn::check_defined(target, op, "target");
  at::native::check_bce_inputs(self, target, reduction, op);
}

}  // namespace

// ---- nll_loss kernels -------------------------------------------------------------------

std::tuple<at::Tensor, at::Tensor> nll_loss_forward_cpu(
    const at::Tensor& self, const at::Tensor& target, const std::optional<at::Tensor>& weight,
    int64_t reduction, int64_t ignore_index) {
  const char* op = "nll_loss_forward";
  const NllShape g = nll1d_shape(self, target, weight, reduction, op);
  return nll_forward(self, target, weight, reduction, ignore_index, g, target.sizes(), op);
}

at::Tensor nll_loss_backward_cpu(const at::Tensor& grad_output, const at::Tensor& self,
                                 const at::Tensor& target,
                                 const std::optional<at::Tensor>& weight, int64_t reduction,
                                 int64_t ignore_index, const at::Tensor& total_weight) {
  const char* op = "nll_loss_backward";
  const NllShape g = nll1d_shape(self, target, weight, reduction, op);
  if (g.elementwise) {
    nn::check_defined(grad_output, op, "grad_output");
    TORCH_CHECK(grad_output.dim() == 1 && grad_output.size(0) == g.n, op,
                ": Expected a tensor of dimension 1 and tensor.size[0] == ", g.n,
                " but got: dimension ", grad_output.dim(), " and tensor.size[0] == ",
                grad_output.dim() > 0 ? grad_output.size(0) : 1);
  }
  return nll_backward(grad_output, self, target, weight, reduction, ignore_index,
                      total_weight, g, op);
}

std::tuple<at::Tensor, at::Tensor> nll_loss2d_forward_cpu(
    const at::Tensor& self, const at::Tensor& target, const std::optional<at::Tensor>& weight,
    int64_t reduction, int64_t ignore_index) {
  const char* op = "nll_loss2d_forward";
  const NllShape g = nll2d_shape(self, target, weight, reduction, op);
  return nll_forward(self, target, weight, reduction, ignore_index, g, target.sizes(), op);
}

at::Tensor nll_loss2d_backward_cpu(const at::Tensor& grad_output, const at::Tensor& self,
                                   const at::Tensor& target,
                                   const std::optional<at::Tensor>& weight,
                                   int64_t reduction, int64_t ignore_index,
                                   const at::Tensor& total_weight) {
  const char* op = "nll_loss2d_backward";
  const NllShape g = nll2d_shape(self, target, weight, reduction, op);
  if (g.elementwise) {
    nn::check_defined(grad_output, op, "grad_output");
    at::native::check_nll2d_elementwise_grad(grad_output, target, op);
  }
  return nll_backward(grad_output, self, target, weight, reduction, ignore_index,
                      total_weight, g, op);
}

// ---- mse_loss ---------------------------------------------------------------------------

at::Tensor mse_loss_cpu(const at::Tensor& self, const at::Tensor& target, int64_t reduction) {
  const char* op = "mse_loss";
  nn::check_defined(self, op, "input");
  nn::check_defined(target, op, "target");
  nn::check_reduction(reduction, op);
  at::Tensor loss;
  TensorIterator iter(TensorIteratorConfig(op).add_output(loss).add_input(self).add_input(target));
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    iter.for_each([](char** data, const int64_t* strides, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const acc_t d =
            static_cast<acc_t>(*reinterpret_cast<const scalar_t*>(data[1] + i * strides[1])) -
            static_cast<acc_t>(*reinterpret_cast<const scalar_t*>(data[2] + i * strides[2]));
        *reinterpret_cast<scalar_t*>(data[0] + i * strides[0]) = static_cast<scalar_t>(d * d);
      }
    });
  });
  return apply_reduction(iter.output(), reduction);
}

at::Tensor mse_loss_backward_cpu(const at::Tensor& grad_output, const at::Tensor& self,
                                 const at::Tensor& target, int64_t reduction) {
  const char* op = "mse_loss_backward";
  nn::check_defined(grad_output, op, "grad_output");
  nn::check_defined(self, op, "input");
  nn::check_defined(target, op, "target");
  nn::check_reduction(reduction, op);
  at::Tensor grad_input;
  TensorIterator iter(TensorIteratorConfig(op)
                          .add_output(grad_input)
                          .add_input(self)
                          .add_input(target)
                          .add_input(grad_output));
  const double norm = reduction == kMean ? 2.0 / static_cast<double>(iter.numel()) : 2.0;
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const acc_t k = static_cast<acc_t>(norm);
    iter.for_each([k](char** data, const int64_t* strides, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const acc_t x = static_cast<acc_t>(*reinterpret_cast<const scalar_t*>(data[1] + i * strides[1]));
        const acc_t y = static_cast<acc_t>(*reinterpret_cast<const scalar_t*>(data[2] + i * strides[2]));
        const acc_t g = static_cast<acc_t>(*reinterpret_cast<const scalar_t*>(data[3] + i * strides[3]));
        *reinterpret_cast<scalar_t*>(data[0] + i * strides[0]) =
            static_cast<scalar_t>(k * (x - y) * g);
      }
    });
  });
  return iter.output();
}

// ---- binary_cross_entropy ------------------------------------------------------------------

at::Tensor binary_cross_entropy_cpu(const at::Tensor& self, const at::Tensor& target,
                                    const std::optional<at::Tensor>& weight,
                                    int64_t reduction) {
  const char* op = "binary_cross_entropy";
  check_bce_inputs(self, target, reduction, op);
  const at::Tensor x = nn::contiguous(self);
  const at::Tensor t = nn::contiguous(target);
  const at::Tensor w = nn::present(weight) ? broadcast_like(*weight, self, op, "weight")
                                           : at::Tensor();
  at::Tensor loss = empty_cpu(self.sizes(), self.scalar_type(), op);
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    const scalar_t* tp = static_cast<const scalar_t*>(t.data_ptr());
    const scalar_t* wp = w.defined() ? static_cast<const scalar_t*>(w.data_ptr()) : nullptr;
    scalar_t* lp = static_cast<scalar_t*>(loss.data_ptr());
    const int64_t n = self.numel();
    for (int64_t i = 0; i < n; ++i) {
      const acc_t xv = static_cast<acc_t>(xp[i]);
      if (!(xv >= 0 && xv <= 1)) at::native::throw_bce_input_range(op, i, xv);
    }
    for (int64_t i = 0; i < n; ++i) {
      const acc_t xv = static_cast<acc_t>(xp[i]), tv = static_cast<acc_t>(tp[i]);
      // PyTorch clamps each log to >= -100, so that x = 0 or 1 gives a
      // finite loss.
      const acc_t log_x = std::max(std::log(xv), acc_t(-100));
      const acc_t log_1mx = std::max(std::log1p(-xv), acc_t(-100));
      acc_t l = (tv - 1) * log_1mx - tv * log_x;
      if (wp) l *= static_cast<acc_t>(wp[i]);
      lp[i] = static_cast<scalar_t>(l);
    }
  });
  return apply_reduction(loss, reduction);
}

at::Tensor binary_cross_entropy_backward_cpu(const at::Tensor& grad_output,
                                             const at::Tensor& self, const at::Tensor& target,
                                             const std::optional<at::Tensor>& weight,
                                             int64_t reduction) {
  const char* op = "binary_cross_entropy_backward";
  nn::check_defined(grad_output, op, "grad_output");
  check_bce_inputs(self, target, reduction, op);
  check_same_dtype(self, grad_output, op, "grad_output");
  const at::Tensor x = nn::contiguous(self);
  const at::Tensor t = nn::contiguous(target);
  const at::Tensor g = broadcast_like(grad_output, self, op, "grad_output");
  const at::Tensor w = nn::present(weight) ? broadcast_like(*weight, self, op, "weight")
                                           : at::Tensor();
  at::Tensor grad_input = empty_cpu(self.sizes(), self.scalar_type(), op);
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    const scalar_t* tp = static_cast<const scalar_t*>(t.data_ptr());
    const scalar_t* gp = static_cast<const scalar_t*>(g.data_ptr());
    const scalar_t* wp = w.defined() ? static_cast<const scalar_t*>(w.data_ptr()) : nullptr;
    scalar_t* gi = static_cast<scalar_t*>(grad_input.data_ptr());
    const int64_t n = self.numel();
    const acc_t norm = reduction == kMean ? acc_t(1) / static_cast<acc_t>(n) : acc_t(1);
    constexpr acc_t kEps = acc_t(1e-12);  // PyTorch's bound on x (1 - x)
    for (int64_t i = 0; i < n; ++i) {
      const acc_t xv = static_cast<acc_t>(xp[i]), tv = static_cast<acc_t>(tp[i]);
      acc_t r = static_cast<acc_t>(gp[i]) * (xv - tv) / std::max((1 - xv) * xv, kEps) * norm;
      if (wp) r *= static_cast<acc_t>(wp[i]);
      gi[i] = static_cast<scalar_t>(r);
    }
  });
  return grad_input;
}

at::Tensor binary_cross_entropy_with_logits_cpu(const at::Tensor& self,
                                                const at::Tensor& target,
                                                const std::optional<at::Tensor>& weight,
                                                const std::optional<at::Tensor>& pos_weight,
                                                int64_t reduction) {
  const char* op = "binary_cross_entropy_with_logits";
  nn::check_defined(self, op, "input");
  nn::check_defined(target, op, "target");
  at::native::check_bce_with_logits_inputs(self, target, reduction, op);
  const at::Tensor x = nn::contiguous(self);
  const at::Tensor t = nn::contiguous(target);
  const at::Tensor w = nn::present(weight) ? broadcast_like(*weight, self, op, "weight")
                                           : at::Tensor();
  const at::Tensor pw = nn::present(pos_weight)
                            ? broadcast_like(*pos_weight, self, op, "pos_weight")
                            : at::Tensor();
  at::Tensor loss = empty_cpu(self.sizes(), self.scalar_type(), op);
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    const scalar_t* tp = static_cast<const scalar_t*>(t.data_ptr());
    const scalar_t* wp = w.defined() ? static_cast<const scalar_t*>(w.data_ptr()) : nullptr;
    const scalar_t* pp = pw.defined() ? static_cast<const scalar_t*>(pw.data_ptr()) : nullptr;
    scalar_t* lp = static_cast<scalar_t*>(loss.data_ptr());
    const int64_t n = self.numel();
    for (int64_t i = 0; i < n; ++i) {
      const acc_t xv = static_cast<acc_t>(xp[i]), tv = static_cast<acc_t>(tp[i]);
      // -log(sigmoid(x)) = softplus(-x) = max(-x, 0) + log1p(exp(-|x|)),
      // which neither overflows nor loses the tail for large |x|.
      const acc_t softplus_neg = std::max(-xv, acc_t(0)) + std::log1p(std::exp(-std::abs(xv)));
      const acc_t log_weight = pp ? 1 + (static_cast<acc_t>(pp[i]) - 1) * tv : acc_t(1);
      acc_t l = (1 - tv) * xv + log_weight * softplus_neg;
      if (wp) l *= static_cast<acc_t>(wp[i]);
      lp[i] = static_cast<scalar_t>(l);
    }
  });
  return apply_reduction(loss, reduction);
}

}  // namespace ember::cpu
