// backends/cuda/reduce_ops.cc — the reductions on the CUDA key: sum (all
// elements and over dimensions, out=), prod, max/min (all, over a dim with
// positions), amax/amin, argmax/argmin, var/std (and var_mean/std_mean), all
// and any, with their out= forms. Argument handling (dim masks, shapes,
// empty reductions, out=) is the core's (aten/ReduceUtils.h), shared with the
// CPU plugin. The input is made a contiguous rows×cols matrix, reduced
// dimensions last, and each row reduced by one block (Note [CUDA sum over
// dimensions], Note [CUDA row reductions] in kernels/launch.h).
#include <algorithm>
#include <optional>
#include <tuple>
#include <vector>

#include "aten/Functions.h"
#include "aten/ReduceUtils.h"
#include "aten/Tensor.h"
#include "backends/cuda/CUDAIterator.h"
#include "backends/cuda/kernels/sum_plan.h"
#include "c10/core/DeviceGuard.h"
#include "registration/library.h"

namespace ember {
namespace cuda {
namespace {

using kernels::ReduceOp;
using kernels::RowReduce;

void check_input(const at::Tensor& self, const char* op) {
  TORCH_CHECK(self.defined(), op, ": the input tensor is undefined; pass a "
              "defined tensor.");
}

// Note [CUDA sum over dimensions]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A contiguous input is summed where it lies (kernels/sum_plan.h): each run
// of adjacent reduced dimensions is one stage over an [outer, rows, inner]
// view, the innermost run first, a trailing run by one block per row
// (launch_sum_rows), any other by 32 columns per block (launch_sum_middle,
// Note [CUDA middle sums]); so bias gradients (sum over dim 0) and batch
// statistics (over 0, 2, 3 of NCHW) read their input once, with no copy.
// Stages after the first read the previous stage's accumulators. A middle
// stage with fewer than 32 columns, or a non-contiguous input, takes the
// general path: the kept dimensions moved first and the reduced ones last,
// made contiguous (one device copy unless it already is), each row of the
// rows×cols matrix reduced by one block. Deterministic either way: the
// same input gives the same bits on every run.
struct Rows {
  at::Tensor matrix;
  int64_t rows = 1;
  int64_t cols = 1;
};
Rows rows_of(const at::Tensor& self, const std::vector<bool>& mask) {
  Rows r;
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!mask[d]) {
      perm.push_back(d);
      r.rows *= self.size(d);
    }
  }
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (mask[d]) {
      perm.push_back(d);
      r.cols *= self.size(d);
    }
  }
  r.matrix = self.dim() == 0 ? self.contiguous() : self.permute(perm).contiguous();
  return r;
}

void launch(const char* op, c10::Device device, const RowReduce& r, ReduceOp kind) {
  c10::DeviceGuard guard(device);
  CUDAIterator::check_launch(op, kernels::launch_reduce_rows(r, kind, current_stream(device)));
}

// One long row is cut into chunks of this many elements, reduced in a first
// launch; the chunks' partials make the second launch's row.
constexpr int64_t kChunk = 16384;

// Reduces each row of `m` into `values` (and `indices` for kMax/kMin when
// given). `partial` is the dtype of the kernel's values (the accumulation
// type for kProd), which a second launch over a long row's chunks reads.
void reduce_rows(const char* op, ReduceOp kind, const Rows& m, at::Tensor* values,
                 at::Tensor* indices, c10::ScalarType partial) {
  const c10::Device device = m.matrix.device();
  RowReduce r;
  r.in = m.matrix.data_ptr();
  r.dtype = kernel_dtype(m.matrix.scalar_type(), op, KernelDtypes::kAll);
  r.rows = m.rows;
  r.cols = m.cols;
  r.n = m.rows * m.cols;
  if (m.rows == 1 && m.cols > 2 * kChunk) {
    const int64_t chunks = (m.cols + kChunk - 1) / kChunk;
    at::Tensor part_values = empty_cuda({chunks}, partial, device, op);
    at::Tensor part_indices;
    if (indices != nullptr) part_indices = empty_cuda({chunks}, c10::kLong, device, op);
    r.rows = chunks;
    r.cols = kChunk;
    r.flat_positions = true;
    r.values = part_values.data_ptr();
    r.indices = indices != nullptr ? part_indices.data_ptr<int64_t>() : nullptr;
    launch(op, device, r, kind);
    RowReduce second;
    second.in = part_values.data_ptr();
    second.in_indices = r.indices;
    second.dtype = kernel_dtype(partial, op, KernelDtypes::kAll);
    second.rows = 1;
    second.cols = chunks;
    second.n = chunks;
    second.values = values != nullptr ? values->data_ptr() : nullptr;
    second.indices = indices != nullptr ? indices->data_ptr<int64_t>() : nullptr;
    launch(op, device, second, kind);
    return;
  }
  r.values = values != nullptr ? values->data_ptr() : nullptr;
  r.indices = indices != nullptr ? indices->data_ptr<int64_t>() : nullptr;
  launch(op, device, r, kind);
}

// A middle stage needs a warp's worth of columns for coalesced reads.
constexpr int64_t kMinMiddleColumns = 32;

// Runs the stages of a plan (Note [CUDA sum over dimensions]) over the
// contiguous `input`, each into a new flat tensor of dtype `partial` that
// the next one reads; run(stage, in, out) launches one. The last stage's
// output.
template <typename Run>
at::Tensor run_stages(const std::vector<kernels::SumStage>& stages, const at::Tensor& input,
                      c10::ScalarType partial, const char* op, Run&& run) {
  at::Tensor in = input;
  for (const kernels::SumStage& st : stages) {
    at::Tensor out = empty_cuda({st.outer * st.inner}, partial, input.device(), op);
    run(st, in, out);
    in = out;
  }
  return in;
}

// prod, max/min (values), all/any over the dims of `mask` of a contiguous
// input, where it lies (Note [CUDA sum over dimensions]: the same stages as
// sum, middle ones through launch_reduce_middle, trailing ones by row), into
// a tensor of dtype `partial` (the kernels' values: see launch.h) shaped
// `out_shape`. False, with nothing done, where the stages have no middle
// one (the general path reads such an input without a copy too) or the
// input is not contiguous.
bool reduce_in_place(const char* op, ReduceOp kind, const at::Tensor& input,
                     const std::vector<bool>& mask, c10::ScalarType partial,
                     const std::vector<int64_t>& out_shape, at::Tensor* result) {
  if (!input.is_contiguous() || input.dim() == 0) return false;
  const std::vector<kernels::SumStage> stages =
      kernels::plan_sum(input.sizes().vec(), mask, kMinMiddleColumns);
  bool middle = false;
  for (const kernels::SumStage& st : stages) middle = middle || st.inner > 1;
  if (!middle) return false;
  const c10::Device device = input.device();
  c10::DeviceGuard guard(device);
  const auto stage = [&](const kernels::SumStage& st, const at::Tensor& in, at::Tensor& out) {
    if (st.inner == 1) {
      Rows m;
      m.matrix = in.reshape({st.outer, st.rows});
      m.rows = st.outer;
      m.cols = st.rows;
      reduce_rows(op, kind, m, &out, nullptr, partial);
      return;
    }
    const kernels::Dtype kd = kernel_dtype(in.scalar_type(), op, KernelDtypes::kAll);
    size_t bytes = 0;
    CUDAIterator::check_launch(op, kernels::reduce_middle_workspace_bytes(
                                       st.outer, st.rows, st.inner, kind, kd, &bytes));
    const at::Tensor workspace =
        bytes > 0 ? empty_cuda({static_cast<int64_t>(bytes)}, c10::kByte, device, op)
                  : at::Tensor();
    CUDAIterator::check_launch(
        op, kernels::launch_reduce_middle(in.data_ptr(), out.data_ptr(),
                                          bytes > 0 ? workspace.data_ptr() : nullptr, st.outer,
                                          st.rows, st.inner, kind, kd, current_stream(device)));
  };
  *result = run_stages(stages, input, partial, op, stage).reshape(out_shape);
  return true;
}

// ---- sum ----------------------------------------------------------------------------------

// What the sum kernels write: int64 for integers and Bool, float for Half
// and BFloat16 (converted to the result's dtype after), else the dtype.
c10::ScalarType sum_acc_type(c10::ScalarType input) {
  if (c10::isIntegralType(input, /*includeBool=*/true)) return c10::kLong;
  return c10::isReducedFloatingType(input) ? c10::kFloat : input;
}

at::Tensor sum(const at::Tensor& self, std::optional<c10::ScalarType> dtype) {
  const c10::ScalarType in_type = self.scalar_type();
  const bool integral = c10::isIntegralType(in_type, /*includeBool=*/true);
  const c10::ScalarType out_type = dtype.value_or(integral ? c10::kLong : in_type);
  // Integers accumulate in int64 from their own dtype; a requested dtype
  // converts the input first, as on the CPU.
  const at::Tensor input =
      (dtype.has_value() && *dtype != in_type) ? self.to(out_type).contiguous()
                                               : self.contiguous();
  const c10::ScalarType acc_type = sum_acc_type(input.scalar_type());
  const kernels::Dtype kd = kernel_dtype(input.scalar_type(), "sum", KernelDtypes::kAll);
  at::Tensor out = empty_cuda({}, acc_type, self.device(), "sum");
  at::Tensor workspace = empty_cuda({kernels::sum_workspace_elems(input.numel())},
                                    acc_type, self.device(), "sum");
  c10::DeviceGuard guard(self.device());
  CUDAIterator::check_launch(
      "sum", kernels::launch_sum(input.data_ptr(), out.data_ptr(), workspace.data_ptr(),
                                 input.numel(), kd, current_stream(self.device())));
  return acc_type == out_type ? out : out.to(out_type);
}

at::Tensor sum_dim(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                   std::optional<c10::ScalarType> dtype) {
  check_input(self, "sum");
  const std::vector<bool> mask = at::native::reduce_dim_mask(self, dim, "sum");
  const c10::ScalarType in_type = self.scalar_type();
  const bool integral = c10::isIntegralType(in_type, /*includeBool=*/true);
  const c10::ScalarType out_type = dtype.value_or(integral ? c10::kLong : in_type);
  const at::Tensor input =
      (dtype.has_value() && *dtype != in_type) ? self.to(out_type) : self;
  const c10::ScalarType acc_type = sum_acc_type(input.scalar_type());
  const kernels::Dtype kd = kernel_dtype(input.scalar_type(), "sum", KernelDtypes::kAll);
  const std::vector<int64_t> out_shape = at::native::reduce_shape(self, mask, keepdim);
  c10::DeviceGuard guard(self.device());
  void* stream = current_stream(self.device());
  const std::vector<kernels::SumStage> stages =
      input.is_contiguous() && input.dim() > 0
          ? kernels::plan_sum(input.sizes().vec(), mask, kMinMiddleColumns)
          : std::vector<kernels::SumStage>();
  if (!stages.empty()) {
    const auto stage = [&](const kernels::SumStage& st, const at::Tensor& in, at::Tensor& out) {
      // The first stage reads the input's dtype, later ones the accumulators.
      const kernels::Dtype in_kd = kernel_dtype(in.scalar_type(), "sum", KernelDtypes::kAll);
      if (st.inner == 1) {
        CUDAIterator::check_launch("sum", kernels::launch_sum_rows(in.data_ptr(), out.data_ptr(),
                                                                   st.outer, st.rows, in_kd,
                                                                   stream));
        return;
      }
      const int64_t elems = kernels::sum_middle_workspace_elems(st.outer, st.rows, st.inner);
      const at::Tensor workspace =
          elems > 0 ? empty_cuda({elems}, acc_type, self.device(), "sum") : at::Tensor();
      CUDAIterator::check_launch(
          "sum", kernels::launch_sum_middle(in.data_ptr(), out.data_ptr(),
                                            elems > 0 ? workspace.data_ptr() : nullptr, st.outer,
                                            st.rows, st.inner, in_kd, stream));
    };
    const at::Tensor out = run_stages(stages, input, acc_type, "sum", stage).reshape(out_shape);
    return acc_type == out_type ? out : out.to(out_type);
  }
  const Rows m = rows_of(input, mask);
  at::Tensor out = empty_cuda(out_shape, acc_type, self.device(), "sum");
  CUDAIterator::check_launch(
      "sum", kernels::launch_sum_rows(m.matrix.data_ptr(), out.data_ptr(), m.rows, m.cols,
                                      kd, stream));
  return acc_type == out_type ? out : out.to(out_type);
}

at::Tensor& sum_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                    std::optional<c10::ScalarType> dtype, at::Tensor& out) {
  // Without `dtype`, the sum is computed in out's dtype (as PyTorch).
  TORCH_CHECK(out.defined(), "sum: the out tensor is undefined; pass a defined tensor.");
  return at::native::reduce_write_out(
      out, sum_dim(self, dim, keepdim, dtype.value_or(out.scalar_type())), "sum");
}

at::Tensor& mean_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                     std::optional<c10::ScalarType> dtype, at::Tensor& out) {
  TORCH_CHECK(out.defined(), "mean: the out tensor is undefined; pass a defined tensor.");
  return at::native::reduce_write_out(
      out, at::mean(self, dim, keepdim, dtype.value_or(out.scalar_type())), "mean");
}

// ---- max / min ---------------------------------------------------------------------------

at::Tensor amax_or_amin(const char* op, ReduceOp kind, const at::Tensor& self,
                        c10::IntArrayRef dims, bool keepdim) {
  check_input(self, op);
  TORCH_CHECK(!dims.empty() || self.numel() != 0, op, "(): Expected reduction dim "
              "to be specified for input.numel() == 0. Specify the reduction dim "
              "with the 'dim' argument.");
  const std::vector<bool> mask = at::native::reduce_dim_mask(self, dims, op);
  at::native::reduce_check_nonempty(self, mask, op);
  const std::vector<int64_t> shape = at::native::reduce_shape(self, mask, keepdim);
  at::Tensor out;
  if (reduce_in_place(op, kind, self, mask, self.scalar_type(), shape, &out)) return out;
  out = empty_cuda(shape, self.scalar_type(), self.device(), op);
  reduce_rows(op, kind, rows_of(self, mask), &out, nullptr, self.scalar_type());
  return out;
}
at::Tensor amax(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim) {
  return amax_or_amin("amax", ReduceOp::kMax, self, dim, keepdim);
}
at::Tensor amin(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim) {
  return amax_or_amin("amin", ReduceOp::kMin, self, dim, keepdim);
}
at::Tensor& amax_out(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim,
                     at::Tensor& out) {
  return at::native::reduce_write_out(out, cuda::amax(self, dim, keepdim), "amax");
}
at::Tensor& amin_out(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim,
                     at::Tensor& out) {
  return at::native::reduce_write_out(out, cuda::amin(self, dim, keepdim), "amin");
}
at::Tensor max_all(const at::Tensor& self) {
  return amax_or_amin("max", ReduceOp::kMax, self, {}, false);
}
at::Tensor min_all(const at::Tensor& self) {
  return amax_or_amin("min", ReduceOp::kMin, self, {}, false);
}
at::Tensor& max_all_out(const at::Tensor& self, at::Tensor& out) {
  return at::native::reduce_write_out(out, max_all(self), "max");
}
at::Tensor& min_all_out(const at::Tensor& self, at::Tensor& out) {
  return at::native::reduce_write_out(out, min_all(self), "min");
}

// Values (unless `values` is null) and int64 positions along one dim.
void indexed_reduce(const char* op, ReduceOp kind, const at::Tensor& self, int64_t dim,
                    bool keepdim, at::Tensor* values, at::Tensor* indices) {
  check_input(self, op);
  const std::vector<bool> mask = at::native::reduce_one_dim_mask(self, dim, op);
  at::native::reduce_check_nonempty(self, mask, op);
  const std::vector<int64_t> shape = at::native::reduce_shape(self, mask, keepdim);
  if (values != nullptr) *values = empty_cuda(shape, self.scalar_type(), self.device(), op);
  *indices = empty_cuda(shape, c10::kLong, self.device(), op);
  reduce_rows(op, kind, rows_of(self, mask), values, indices, self.scalar_type());
}
std::tuple<at::Tensor, at::Tensor> max_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  at::Tensor values, indices;
  indexed_reduce("max", ReduceOp::kMax, self, dim, keepdim, &values, &indices);
  return {values, indices};
}
std::tuple<at::Tensor, at::Tensor> min_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  at::Tensor values, indices;
  indexed_reduce("min", ReduceOp::kMin, self, dim, keepdim, &values, &indices);
  return {values, indices};
}

at::Tensor arg_extreme(const char* op, ReduceOp kind, const at::Tensor& self,
                       std::optional<int64_t> dim, bool keepdim) {
  check_input(self, op);
  at::Tensor indices;
  if (dim.has_value()) {
    indexed_reduce(op, kind, self, *dim, keepdim, nullptr, &indices);
    return indices;
  }
  TORCH_CHECK(self.numel() != 0, op, "(): Expected reduction dim to be specified "
              "for input.numel() == 0. Pass a dim, or a tensor with elements.");
  // Positions in the flattened tensor: one row of every element.
  Rows m;
  m.matrix = self.contiguous();
  m.cols = self.numel();
  const std::vector<int64_t> shape(keepdim ? static_cast<size_t>(self.dim()) : 0, 1);
  indices = empty_cuda(shape, c10::kLong, self.device(), op);
  reduce_rows(op, kind, m, nullptr, &indices, self.scalar_type());
  return indices;
}
at::Tensor argmax(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme("argmax", ReduceOp::kMax, self, dim, keepdim);
}
at::Tensor argmin(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme("argmin", ReduceOp::kMin, self, dim, keepdim);
}
at::Tensor& argmax_out(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim,
                       at::Tensor& out) {
  return at::native::reduce_write_out(out, cuda::argmax(self, dim, keepdim), "argmax");
}
at::Tensor& argmin_out(const at::Tensor& self, std::optional<int64_t> dim, bool keepdim,
                       at::Tensor& out) {
  return at::native::reduce_write_out(out, cuda::argmin(self, dim, keepdim), "argmin");
}

// ---- prod -----------------------------------------------------------------------------------

at::Tensor prod_impl(const at::Tensor& self, const std::vector<bool>& mask, bool keepdim,
                     std::optional<c10::ScalarType> dtype) {
  const char* op = "prod";
  const c10::ScalarType in_type = self.scalar_type();
  const bool integral = c10::isIntegralType(in_type, /*includeBool=*/true);
  const c10::ScalarType out_type = dtype.value_or(integral ? c10::kLong : in_type);
  // Integers multiply in int64 from their own dtype; otherwise the input is
  // converted to the result's dtype first, as on the CPU.
  const at::Tensor src =
      integral && c10::isIntegralType(out_type, true) ? self : self.to(out_type);
  const c10::ScalarType acc_type =
      c10::isFloatingType(src.scalar_type()) ? src.scalar_type() : c10::kLong;
  const std::vector<int64_t> shape = at::native::reduce_shape(self, mask, keepdim);
  at::Tensor out;
  // In place where the partials are exact in their type (not Half/BFloat16).
  const bool exact = acc_type == c10::kFloat || acc_type == c10::kDouble || acc_type == c10::kLong;
  if (!exact || !reduce_in_place(op, ReduceOp::kProd, src, mask, acc_type, shape, &out)) {
    out = empty_cuda(shape, acc_type, self.device(), op);
    reduce_rows(op, ReduceOp::kProd, rows_of(src, mask), &out, nullptr, acc_type);
  }
  return acc_type == out_type ? out : out.to(out_type);
}
at::Tensor prod(const at::Tensor& self, std::optional<c10::ScalarType> dtype) {
  check_input(self, "prod");
  return prod_impl(self, at::native::reduce_dim_mask(self, std::nullopt, "prod"), false,
                   dtype);
}
at::Tensor prod_dim(const at::Tensor& self, int64_t dim, bool keepdim,
                    std::optional<c10::ScalarType> dtype) {
  check_input(self, "prod");
  return prod_impl(self, at::native::reduce_one_dim_mask(self, dim, "prod"), keepdim, dtype);
}
at::Tensor& prod_out(const at::Tensor& self, int64_t dim, bool keepdim,
                     std::optional<c10::ScalarType> dtype, at::Tensor& out) {
  TORCH_CHECK(out.defined(), "prod: the out tensor is undefined; pass a defined tensor.");
  return at::native::reduce_write_out(
      out, prod_dim(self, dim, keepdim, dtype.value_or(out.scalar_type())), "prod");
}

// ---- var and std --------------------------------------------------------------------------

at::Tensor var_std(const char* op, bool take_sqrt, const at::Tensor& self,
                   at::OptionalIntArrayRef dims, const std::optional<c10::Scalar>& correction,
                   bool keepdim, at::Tensor* mean_out) {
  check_input(self, op);
  at::native::check_var_dtype(self, op);
  const std::vector<bool> mask = at::native::reduce_dim_mask(self, dims, op);
  const double c = correction.has_value() ? correction->toDouble() : 1.0;
  const std::vector<int64_t> shape = at::native::reduce_shape(self, mask, keepdim);
  at::Tensor out = empty_cuda(shape, self.scalar_type(), self.device(), op);
  if (mean_out != nullptr) *mean_out = empty_cuda(shape, self.scalar_type(), self.device(), op);
  const Rows m = rows_of(self, mask);
  at::native::warn_var_dof(op, m.rows, m.cols, c);
  RowReduce r;
  r.in = m.matrix.data_ptr();
  r.dtype = kernel_dtype(self.scalar_type(), op, KernelDtypes::kAll);
  r.rows = m.rows;
  r.cols = m.cols;
  r.n = m.rows * m.cols;
  r.values = out.data_ptr();
  r.mean = mean_out != nullptr ? mean_out->data_ptr() : nullptr;
  r.divisor = std::max(0.0, static_cast<double>(m.cols) - c);
  r.take_sqrt = take_sqrt;
  launch(op, self.device(), r, ReduceOp::kVar);
  return out;
}
at::Tensor var_correction(const at::Tensor& self, at::OptionalIntArrayRef dim,
                          const std::optional<c10::Scalar>& correction, bool keepdim) {
  return var_std("var", false, self, dim, correction, keepdim, nullptr);
}
at::Tensor& var_correction_out(const at::Tensor& self, at::OptionalIntArrayRef dim,
                               const std::optional<c10::Scalar>& correction, bool keepdim,
                               at::Tensor& out) {
  return at::native::reduce_write_out(out, var_correction(self, dim, correction, keepdim),
                                      "var");
}
at::Tensor& var_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool unbiased,
                    bool keepdim, at::Tensor& out) {
  return var_correction_out(self, dim, at::native::unbiased_to_correction(unbiased), keepdim, out);
}
at::Tensor std_correction(const at::Tensor& self, at::OptionalIntArrayRef dim,
                          const std::optional<c10::Scalar>& correction, bool keepdim) {
  return var_std("std", true, self, dim, correction, keepdim, nullptr);
}
at::Tensor& std_correction_out(const at::Tensor& self, at::OptionalIntArrayRef dim,
                               const std::optional<c10::Scalar>& correction, bool keepdim,
                               at::Tensor& out) {
  return at::native::reduce_write_out(out, std_correction(self, dim, correction, keepdim),
                                      "std");
}
at::Tensor& std_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool unbiased,
                    bool keepdim, at::Tensor& out) {
  return std_correction_out(self, dim, at::native::unbiased_to_correction(unbiased), keepdim, out);
}
std::tuple<at::Tensor, at::Tensor> var_mean_correction(
    const at::Tensor& self, at::OptionalIntArrayRef dim,
    const std::optional<c10::Scalar>& correction, bool keepdim) {
  at::Tensor mean;
  at::Tensor var = var_std("var_mean", false, self, dim, correction, keepdim, &mean);
  return {var, mean};
}
std::tuple<at::Tensor, at::Tensor> std_mean_correction(
    const at::Tensor& self, at::OptionalIntArrayRef dim,
    const std::optional<c10::Scalar>& correction, bool keepdim) {
  at::Tensor mean;
  at::Tensor std = var_std("std_mean", true, self, dim, correction, keepdim, &mean);
  return {std, mean};
}

// ---- all and any ---------------------------------------------------------------------------

at::Tensor logical_reduce(const char* op, ReduceOp kind, const at::Tensor& self,
                          const std::vector<bool>& mask, bool keepdim) {
  const std::vector<int64_t> shape = at::native::reduce_shape(self, mask, keepdim);
  at::Tensor out;
  if (reduce_in_place(op, kind, self, mask, c10::kBool, shape, &out)) return out;
  out = empty_cuda(shape, c10::kBool, self.device(), op);
  reduce_rows(op, kind, rows_of(self, mask), &out, nullptr, c10::kBool);
  return out;
}

#define EMBER_CUDA_LOGICAL_REDUCTION(name, kind)                                           \
  at::Tensor name(const at::Tensor& self) {                                                \
    check_input(self, #name);                                                              \
    return logical_reduce(#name, kind, self,                                               \
                          at::native::reduce_dim_mask(self, std::nullopt, #name), false);  \
  }                                                                                        \
  at::Tensor name##_dim(const at::Tensor& self, int64_t dim, bool keepdim) {               \
    check_input(self, #name);                                                              \
    return logical_reduce(#name, kind, self,                                               \
                          at::native::reduce_one_dim_mask(self, dim, #name), keepdim);     \
  }                                                                                        \
  at::Tensor name##_dims(const at::Tensor& self, at::OptionalIntArrayRef dim,              \
                         bool keepdim) {                                                   \
    check_input(self, #name);                                                              \
    return logical_reduce(#name, kind, self, at::native::reduce_dim_mask(self, dim, #name), \
                          keepdim);                                                        \
  }                                                                                        \
  at::Tensor& name##_out(const at::Tensor& self, int64_t dim, bool keepdim,                \
                         at::Tensor& out) {                                                \
    return at::native::logical_write_out(out, cuda::name##_dim(self, dim, keepdim), #name);      \
  }                                                                                        \
  at::Tensor& name##_all_out(const at::Tensor& self, at::Tensor& out) {                    \
    return at::native::logical_write_out(out, cuda::name(self), #name);                          \
  }
EMBER_CUDA_LOGICAL_REDUCTION(all, ReduceOp::kAll)
EMBER_CUDA_LOGICAL_REDUCTION(any, ReduceOp::kAny)
#undef EMBER_CUDA_LOGICAL_REDUCTION

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("sum", TORCH_FN(sum));
  m.impl("sum.dim_IntList", TORCH_FN(sum_dim));
  m.impl("sum.IntList_out", TORCH_FN(sum_out));
  m.impl("mean.out", TORCH_FN(mean_out));
  m.impl("amax", TORCH_FN(amax));
  m.impl("amin", TORCH_FN(amin));
  m.impl("amax.out", TORCH_FN(amax_out));
  m.impl("amin.out", TORCH_FN(amin_out));
  m.impl("max", TORCH_FN(max_all));
  m.impl("min", TORCH_FN(min_all));
  m.impl("max.unary_out", TORCH_FN(max_all_out));
  m.impl("min.unary_out", TORCH_FN(min_all_out));
  m.impl("max.dim", TORCH_FN(max_dim));
  m.impl("min.dim", TORCH_FN(min_dim));
  m.impl("argmax", TORCH_FN(argmax));
  m.impl("argmin", TORCH_FN(argmin));
  m.impl("argmax.out", TORCH_FN(argmax_out));
  m.impl("argmin.out", TORCH_FN(argmin_out));
  m.impl("prod", TORCH_FN(prod));
  m.impl("prod.dim_int", TORCH_FN(prod_dim));
  m.impl("prod.int_out", TORCH_FN(prod_out));
  m.impl("var.correction", TORCH_FN(var_correction));
  m.impl("var.correction_out", TORCH_FN(var_correction_out));
  m.impl("var.out", TORCH_FN(var_out));
  m.impl("std.correction", TORCH_FN(std_correction));
  m.impl("std.correction_out", TORCH_FN(std_correction_out));
  m.impl("std.out", TORCH_FN(std_out));
  m.impl("var_mean.correction", TORCH_FN(var_mean_correction));
  m.impl("std_mean.correction", TORCH_FN(std_mean_correction));
  m.impl("all", TORCH_FN(all));
  m.impl("all.dim", TORCH_FN(all_dim));
  m.impl("all.dims", TORCH_FN(all_dims));
  m.impl("all.out", TORCH_FN(all_out));
  m.impl("all.all_out", TORCH_FN(all_all_out));
  m.impl("any", TORCH_FN(any));
  m.impl("any.dim", TORCH_FN(any_dim));
  m.impl("any.dims", TORCH_FN(any_dims));
  m.impl("any.out", TORCH_FN(any_out));
  m.impl("any.all_out", TORCH_FN(any_all_out));
}

}  // namespace cuda
}  // namespace ember
