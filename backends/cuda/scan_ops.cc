// backends/cuda/scan_ops.cc — cumsum (functional, in place, out=) on the
// CUDA key: the input converted to the result's dtype and made contiguous,
// then one thread per line along the scanned dim, adding in the CPU's order
// and accumulator (double for Float and Double, float for Half and
// BFloat16, wrapping unsigned for integers), so the values are the CPU's
// (kernels/reduce_kernels.cu). Every dtype.
// Lines of 1024 elements or more that are contiguous, or fewer than 2^16,
// take a chunked parallel scan instead (Note [CUDA long cumsum] in
// kernels/launch.h): integers and Bool still the CPU's exactly, floating
// types summed in another order, so within the accumulator's roundings.
#include <optional>

#include "aten/Functions.h"
#include "aten/ReduceUtils.h"
#include "aten/Tensor.h"
#include "aten/WrapDimUtils.h"
#include "backends/cuda/CUDAIterator.h"
#include "c10/core/DeviceGuard.h"
#include "registration/library.h"

namespace ember {
namespace cuda {
namespace {

// Lines at least this long take the chunked scan when they are contiguous
// rows or fewer than kFewLines (a thread each would leave the GPU idle).
constexpr int64_t kLongLine = 1024;
constexpr int64_t kFewLines = int64_t{1} << 16;

at::Tensor cumsum_as(const at::Tensor& self, int64_t dim, c10::ScalarType out_type,
                     const char* op) {
  const int64_t d = at::maybe_wrap_dim(dim, self.dim(), op);
  const kernels::Dtype kd = kernel_dtype(out_type, op, KernelDtypes::kAll);
  at::Tensor out = empty_cuda(self.sizes(), out_type, self.device(), op);
  if (self.numel() == 0) return out;
  if (self.dim() == 0) {
    out.copy_(self);
    return out;
  }
  const at::Tensor src = self.to(out_type).contiguous();
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= self.size(k);
  for (int64_t k = d + 1; k < self.dim(); ++k) inner *= self.size(k);
  const int64_t n = self.size(d);
  c10::DeviceGuard guard(self.device());
  // Long lines: the chunked scan (Note [CUDA long cumsum]) over contiguous
  // rows, when they are rows already or too few for a thread each.
  if (n >= kLongLine && (inner == 1 || outer * inner < kFewLines)) {
    const bool rows_already = inner == 1;
    const at::Tensor rows =
        rows_already ? src : src.reshape({outer, n, inner}).transpose(1, 2).contiguous();
    at::Tensor scanned =
        rows_already ? out : empty_cuda(rows.sizes(), out_type, self.device(), op);
    size_t bytes = 0;
    CUDAIterator::check_launch(
        op, kernels::cumsum_rows_workspace_bytes(outer * inner, n, kd, &bytes));
    const at::Tensor workspace =
        empty_cuda({static_cast<int64_t>(bytes)}, c10::kByte, self.device(), op);
    CUDAIterator::check_launch(
        op, kernels::launch_cumsum_rows(rows.data_ptr(), scanned.data_ptr(), outer * inner, n,
                                        kd, workspace.data_ptr(),
                                        current_stream(self.device())));
    if (!rows_already) out.reshape({outer, n, inner}).copy_(scanned.transpose(1, 2));
    return out;
  }
  CUDAIterator::check_launch(op, kernels::launch_cumsum(src.data_ptr(), out.data_ptr(), outer,
                                                        self.size(d), inner, kd,
                                                        current_stream(self.device())));
  return out;
}

at::Tensor cumsum(const at::Tensor& self, int64_t dim, std::optional<c10::ScalarType> dtype) {
  TORCH_CHECK(self.defined(), "cumsum: the input tensor is undefined; pass a defined tensor.");
  return cumsum_as(self, dim, at::native::cumsum_result_type(self, dtype), "cumsum");
}

at::Tensor& cumsum_(at::Tensor& self, int64_t dim, std::optional<c10::ScalarType> dtype) {
  TORCH_CHECK(self.defined(), "cumsum_: the input tensor is undefined; pass a defined tensor.");
  at::native::check_scan_dtype_arg(dtype, self, "cumsum_");
  self.copy_(cumsum_as(self, dim, self.scalar_type(), "cumsum_"));
  return self;
}

at::Tensor& cumsum_out(const at::Tensor& self, int64_t dim, std::optional<c10::ScalarType> dtype,
                       at::Tensor& out) {
  TORCH_CHECK(self.defined(), "cumsum: the input tensor is undefined; pass a defined tensor.");
  TORCH_CHECK(out.defined(), "cumsum: the out tensor is undefined; pass a defined tensor.");
  at::native::check_scan_dtype_arg(dtype, out, "cumsum");
  return at::native::reduce_write_out(out, cumsum_as(self, dim, out.scalar_type(), "cumsum"),
                                      "cumsum");
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("cumsum", TORCH_FN(cumsum));
  m.impl("cumsum_", TORCH_FN(cumsum_));
  m.impl("cumsum.out", TORCH_FN(cumsum_out));
}

}  // namespace cuda
}  // namespace ember
