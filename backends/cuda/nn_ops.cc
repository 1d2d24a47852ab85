// backends/cuda/nn_ops.cc — the CUDA kernels a classifier's training step
// needs beyond ops.cc and blas.cc: _softmax/_log_softmax and their backward,
// nll_loss_forward/backward, threshold_backward (ReLU's gradient), mean.
// Device code in kernels/nn_kernels.cu. Checks and messages follow the CPU
// plugin's.
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>

#include "aten/Functions.h"
#include "aten/SoftmaxChecks.h"
#include "aten/Tensor.h"
#include "aten/WrapDimUtils.h"
#include "backends/cuda/CUDAIterator.h"
#include "c10/core/DeviceGuard.h"
#include "registration/library.h"

namespace ember {
namespace cuda {
namespace {

kernels::Dtype floating_dtype(const at::Tensor& t, const char* op, const char* what) {
  TORCH_CHECK(c10::isFloatingType(t.scalar_type()), op, ": expected ", what,
              " of a floating dtype (Float, Double, Half or BFloat16) on CUDA, but got ",
              t.scalar_type(), ". Convert it with .to(torch::kFloat).");
  return kernel_dtype(t.scalar_type(), op, KernelDtypes::kAll);
}

void check_on_device(const at::Tensor& t, const at::Tensor& like, const char* op,
                     const char* what) {
  TORCH_CHECK(t.device() == like.device(), op, ": expected ", what, " on ", like.device(),
              " (the input's device), but it is on ", t.device(),
              ". Move it with .to(input.device()).");
}

// ---- softmax ------------------------------------------------------------------------

// `t` with dimension `d` moved last, contiguous.
at::Tensor dim_last(const at::Tensor& t, int64_t d) {
  const int64_t last = t.dim() - 1;
  return d == last ? t.contiguous() : t.transpose(d, last).contiguous();
}

// The inverse of dim_last for a result computed in that layout.
at::Tensor dim_back(const at::Tensor& t, int64_t d) {
  const int64_t last = t.dim() - 1;
  return d == last ? t : t.transpose(d, last).contiguous();
}

// A contiguous tensor as rows of its last dimension, one block per row.
std::pair<int64_t, int64_t> rows_and_cols(const at::Tensor& t, const char* op) {
  const int64_t cols = t.size(t.dim() - 1);
  const int64_t rows = cols == 0 ? 0 : t.numel() / cols;
  TORCH_CHECK(rows <= std::numeric_limits<int32_t>::max(), op, ": ", rows,
              " rows are more than the CUDA kernel's 2^31 - 1.");
  return {rows, cols};
}

at::Tensor softmax_forward(const at::Tensor& self, int64_t dim, bool half_to_float, bool log,
                           const char* op) {
  const kernels::Dtype kd = floating_dtype(self, op, "an input");
  // half_to_float: the kernel reads Half and writes Float, computed in float
  // (the CPU's float arithmetic, unrounded).
  const c10::ScalarType result_type = at::native::softmax_result_dtype(self, half_to_float, op);
  const at::Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  const int64_t d = at::maybe_wrap_dim(dim, x.dim(), op);
  const at::Tensor moved = dim_last(x, d);
  at::Tensor out = empty_cuda(moved.sizes(), result_type, moved.device(), op);
  const auto [rows, cols] = rows_and_cols(moved, op);
  c10::DeviceGuard guard(self.device());
  CUDAIterator::check_launch(op, kernels::launch_softmax(moved.data_ptr(), out.data_ptr(), rows,
                                                         cols, log, kd, half_to_float,
                                                         current_stream(self.device())));
  at::Tensor result = dim_back(out, d);
  return self.dim() == 0 ? result.reshape({}) : result;
}

at::Tensor softmax_backward(const at::Tensor& grad_output, const at::Tensor& output,
                            int64_t dim, c10::ScalarType input_dtype, bool log,
                            const char* op) {
  TORCH_CHECK(grad_output.sizes() == output.sizes(), op, ": grad_output and output must "
              "have the same shape, but got ", grad_output.sizes(), " and ", output.sizes(),
              ".");
  TORCH_CHECK(grad_output.scalar_type() == output.scalar_type(), op, ": grad_output and "
              "output must have the same dtype, but got ", grad_output.scalar_type(), " and ",
              output.scalar_type(), ".");
  // half_to_float: computed in float and rounded to Half once.
  const bool half_to_float =
      at::native::softmax_backward_half_to_float(grad_output, input_dtype, op);
  check_on_device(output, grad_output, op, "output");
  const kernels::Dtype kd = floating_dtype(grad_output, op, "grad_output");
  const at::Tensor g0 = grad_output.dim() == 0 ? grad_output.reshape({1}) : grad_output;
  const at::Tensor y0 = output.dim() == 0 ? output.reshape({1}) : output;
  const int64_t d = at::maybe_wrap_dim(dim, g0.dim(), op);
  const at::Tensor g = dim_last(g0, d), y = dim_last(y0, d);
  at::Tensor gi = empty_cuda(g.sizes(), half_to_float ? c10::kHalf : g.scalar_type(),
                             g.device(), op);
  const auto [rows, cols] = rows_and_cols(g, op);
  c10::DeviceGuard guard(g.device());
  CUDAIterator::check_launch(
      op, kernels::launch_softmax_backward(g.data_ptr(), y.data_ptr(), gi.data_ptr(), rows,
                                           cols, log, kd, half_to_float,
                                           current_stream(g.device())));
  at::Tensor result = dim_back(gi, d);
  if (grad_output.dim() == 0) result = result.reshape({});
  return result;
}

at::Tensor softmax(const at::Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_forward(self, dim, half_to_float, false, "softmax");
}
at::Tensor log_softmax(const at::Tensor& self, int64_t dim, bool half_to_float) {
  return softmax_forward(self, dim, half_to_float, true, "log_softmax");
}
at::Tensor softmax_backward_data(const at::Tensor& grad_output, const at::Tensor& output,
                                 int64_t dim, c10::ScalarType input_dtype) {
  return softmax_backward(grad_output, output, dim, input_dtype, false,
                          "_softmax_backward_data");
}
at::Tensor log_softmax_backward_data(const at::Tensor& grad_output, const at::Tensor& output,
                                     int64_t dim, c10::ScalarType input_dtype) {
  return softmax_backward(grad_output, output, dim, input_dtype, true,
                          "_log_softmax_backward_data");
}

// ---- nll_loss -----------------------------------------------------------------------

// Checks nll_loss's operands (input (C) or (N, C), int64 target () or (N),
// weight (C)) and fills the kernel's arguments.
kernels::NllArgs nll_args(const at::Tensor& self, const at::Tensor& target,
                          const std::optional<at::Tensor>& weight, int64_t reduction,
                          int64_t ignore_index, const char* op, at::Tensor& x,
                          at::Tensor& t, at::Tensor& w) {
  TORCH_CHECK(self.dim() == 1 || self.dim() == 2, op, ": expected input of 1 or 2 "
              "dimensions ((C) or (N, C)), but got ", self.dim(), " dimensions (sizes ",
              self.sizes(), ").");
  TORCH_CHECK(target.dim() == self.dim() - 1, op, ": expected a target of ",
              self.dim() - 1, " dimensions for an input of sizes ", self.sizes(),
              ", but got sizes ", target.sizes(), ".");
  TORCH_CHECK(self.dim() == 1 || target.size(0) == self.size(0), op, ": Expected input "
              "batch_size (", self.size(0), ") to match target batch_size (",
              target.size(0), ").");
  TORCH_CHECK(target.scalar_type() == c10::kLong, op, ": expected a target of dtype Long "
              "(class indices), but got ", target.scalar_type(), ". Convert it with "
              ".to(torch::kLong).");
  TORCH_CHECK(reduction >= 0 && reduction <= 2, op, ": reduction must be 0 (none), 1 "
              "(mean) or 2 (sum), but got ", reduction, ".");
  check_on_device(target, self, op, "the target");
  kernels::NllArgs a;
  a.dtype = floating_dtype(self, op, "an input");
  a.classes = self.size(self.dim() - 1);
  a.n = self.dim() == 1 ? 1 : self.size(0);
  x = self.contiguous();
  t = target.contiguous();
  if (weight.has_value() && weight->defined()) {
    TORCH_CHECK(weight->dim() == 1 && weight->numel() == a.classes, op, ": weight tensor "
                "should be defined either for all ", a.classes, " classes or no classes but "
                "got weight tensor of shape: ", weight->sizes());
    TORCH_CHECK(weight->scalar_type() == self.scalar_type(), op, ": expected weight of "
                "the input's dtype ", self.scalar_type(), ", but got ",
                weight->scalar_type(), ".");
    check_on_device(*weight, self, op, "the weight");
    w = weight->contiguous();
    a.weight = w.data_ptr();
  }
  a.input = x.data_ptr();
  a.target = t.data_ptr<int64_t>();
  a.reduction = static_cast<int>(reduction);
  a.ignore_index = ignore_index;
  return a;
}

std::tuple<at::Tensor, at::Tensor> nll_loss_forward(const at::Tensor& self,
                                                    const at::Tensor& target,
                                                    const std::optional<at::Tensor>& weight,
                                                    int64_t reduction, int64_t ignore_index) {
  const char* op = "nll_loss_forward";
  at::Tensor x, t, w;
  const kernels::NllArgs a = nll_args(self, target, weight, reduction, ignore_index, op, x, t, w);
  const bool per_sample = reduction == 0 && self.dim() == 2;
  at::Tensor out = per_sample ? empty_cuda({a.n}, self.scalar_type(), self.device(), op)
                              : empty_cuda({}, self.scalar_type(), self.device(), op);
  at::Tensor total_weight = empty_cuda({}, self.scalar_type(), self.device(), op);
  at::Tensor bad = at::full({1}, std::numeric_limits<int64_t>::min(),
                            at::TensorOptions().dtype(c10::kLong).device(self.device()));
  {
    c10::DeviceGuard guard(self.device());
    CUDAIterator::check_launch(
        op, kernels::launch_nll_forward(a, out.data_ptr(), total_weight.data_ptr(),
                                        bad.data_ptr<int64_t>(), current_stream(self.device())));
  }
  // Note [CUDA nll_loss target check]
  // ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  // A class index outside [0, C) is an error, as on the CPU; PyTorch's CUDA
  // kernel stops at a device-side assert, which leaves the context unusable.
  // Here the kernel records the first bad target and the host reads it (one
  // 8-byte copy, which waits for the kernel): a clear c10::Error, and the
  // device stays usable. The loss is usually read each step anyway.
  const int64_t first_bad = bad.item<int64_t>();
  TORCH_CHECK(first_bad == std::numeric_limits<int64_t>::min(), op, ": Target ", first_bad,
              " is out of bounds: class indices must be in [0, ", a.classes, ") or equal "
              "ignore_index (", ignore_index, ").");
  return {out, total_weight};
}

at::Tensor nll_loss_backward(const at::Tensor& grad_output, const at::Tensor& self,
                             const at::Tensor& target, const std::optional<at::Tensor>& weight,
                             int64_t reduction, int64_t ignore_index,
                             const at::Tensor& total_weight) {
  const char* op = "nll_loss_backward";
  at::Tensor x, t, w;
  const kernels::NllArgs a = nll_args(self, target, weight, reduction, ignore_index, op, x, t, w);
  const bool per_sample = reduction == 0 && self.dim() == 2;
  TORCH_CHECK(per_sample ? (grad_output.dim() == 1 && grad_output.size(0) == a.n)
                         : grad_output.numel() == 1,
              op, ": expected grad_output of ", per_sample ? "shape (N)" : "one element",
              " for this reduction, but got sizes ", grad_output.sizes(), ".");
  TORCH_CHECK(total_weight.numel() == 1, op, ": expected total_weight to be a single "
              "element tensor, got: ", total_weight.sizes());
  TORCH_CHECK(grad_output.scalar_type() == self.scalar_type() &&
                  total_weight.scalar_type() == self.scalar_type(),
              op, ": expected grad_output and total_weight of the input's dtype ",
              self.scalar_type(), ", but got ", grad_output.scalar_type(), " and ",
              total_weight.scalar_type(), ".");
  check_on_device(grad_output, self, op, "grad_output");
  check_on_device(total_weight, self, op, "total_weight");
  const at::Tensor go = grad_output.contiguous();
  at::Tensor grad_input = empty_cuda(self.sizes(), self.scalar_type(), self.device(), op);
  grad_input.zero_();
  c10::DeviceGuard guard(self.device());
  CUDAIterator::check_launch(
      op, kernels::launch_nll_backward(a, go.data_ptr(), total_weight.data_ptr(),
                                       grad_input.data_ptr(), current_stream(self.device())));
  return grad_input;
}

// ---- threshold_backward, mean -----------------------------------------------------------

at::Tensor threshold_backward(const at::Tensor& grad_output, const at::Tensor& self,
                              const c10::Scalar& threshold) {
  const char* op = "threshold_backward";
  at::Tensor out;
  CUDAIterator iter(at::TensorIteratorConfig(op)
                        .add_output(out)
                        .add_input(grad_output)
                        .add_input(self));
  const kernels::Dtype dtype = kernel_dtype(iter.common_dtype(), op, KernelDtypes::kAll);
  TORCH_CHECK_NOT_IMPLEMENTED(dtype != kernels::Dtype::kBool, op,
                              ": Bool operands are not supported on CUDA.");
  const double t = threshold.toDouble();
  iter.run(op, [&](const kernels::Iteration& it, void* stream) {
    return kernels::launch_threshold_backward(it, dtype, t, stream);
  });
  return iter.output();
}

// result *= factor, in place (result is a fresh contiguous tensor).
void scale_(at::Tensor& result, double factor, const char* op) {
  const kernels::Dtype dtype = floating_dtype(result, op, "a result");
  CUDAIterator iter(at::TensorIteratorConfig(op)
                        .add_output(result)
                        .add_input(result)
                        .check_mem_overlap(false));
  iter.run(op, [&](const kernels::Iteration& it, void* stream) {
    return kernels::launch_scale(it, dtype, factor, stream);
  });
}

void check_mean_dtype(const at::Tensor& self, std::optional<c10::ScalarType> dtype) {
  const c10::ScalarType t = dtype.value_or(self.scalar_type());
  TORCH_CHECK(c10::isFloatingType(t), "mean(): could not infer output dtype. Input dtype "
              "must be either a floating point or complex dtype. Got: ", t);
}

at::Tensor mean(const at::Tensor& self, std::optional<c10::ScalarType> dtype) {
  check_mean_dtype(self, dtype);
  at::Tensor result = at::sum(self, dtype);
  // The mean of no elements is NaN, as 0/0.
  scale_(result, 1.0 / static_cast<double>(self.numel()), "mean");
  return result;
}

at::Tensor mean_dim(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                    std::optional<c10::ScalarType> dtype) {
  check_mean_dtype(self, dtype);
  at::Tensor result = at::sum(self, dim, keepdim, dtype);
  int64_t count = 1;
  if (!dim.has_value() || dim->empty()) {
    count = self.numel();
  } else {
    for (int64_t d : *dim) count *= self.dim() == 0 ? 1 : self.size(at::maybe_wrap_dim(d, self.dim(), "mean"));
  }
  scale_(result, 1.0 / static_cast<double>(count), "mean");
  return result;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("_softmax", TORCH_FN(softmax));
  m.impl("_log_softmax", TORCH_FN(log_softmax));
  m.impl("_softmax_backward_data", TORCH_FN(softmax_backward_data));
  m.impl("_log_softmax_backward_data", TORCH_FN(log_softmax_backward_data));
  m.impl("nll_loss_forward", TORCH_FN(nll_loss_forward));
  m.impl("nll_loss_backward", TORCH_FN(nll_loss_backward));
  m.impl("threshold_backward", TORCH_FN(threshold_backward));
  m.impl("mean", TORCH_FN(mean));
  m.impl("mean.dim", TORCH_FN(mean_dim));
}

}  // namespace cuda
}  // namespace ember
