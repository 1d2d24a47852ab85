// backends/cuda/blas.cc — mm, mm.out, addmm and bmm on CUDA through cuBLAS,
// for Float and Double, and Half and BFloat16 (cublasGemmEx: 16-bit operands
// and result, products accumulated in float, as PyTorch). TF32 is off
// (CUBLAS_DEFAULT_MATH: full FP32 products), as PyTorch's default
// torch.backends.cuda.matmul.allow_tf32 = False.
//
// Note [Row-major GEMM through cuBLAS]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// cuBLAS is column-major. A row-major n×k matrix with strides (k, 1) is the
// column-major k×n matrix of its transpose, so C = A·B (row-major) is
// computed as Cᵀ = Bᵀ·Aᵀ: gemm(m = C's columns, n = C's rows, k, B, A).
// An operand with strides (1, rows) (a transposed view) is passed with
// CUBLAS_OP_T instead of being copied; any other layout is made contiguous.
#include <cublas_v2.h>

#include <algorithm>
#include <cstdint>

#include <mutex>

#include "aten/Functions.h"
#include "aten/LinalgChecks.h"
#include "aten/Resize.h"
#include "aten/Tensor.h"
#include "backends/cuda/CUDAGuardImpl.h"
#include "backends/cuda/CUDAIterator.h"
#include "backends/cuda/stream_ids.h"
#include "c10/core/DeviceGuard.h"
#include "registration/library.h"

namespace ember {
namespace cuda {
namespace {

void check_cublas(cublasStatus_t status, const char* what) {
  TORCH_CHECK(status == CUBLAS_STATUS_SUCCESS, "mm: cuBLAS ", what, " failed: ",
              cublasGetStatusString(status), ".");
}

// One handle per thread and device (cuBLAS handles are not thread-safe);
// never destroyed, as the thread may outlive the plugin's statics.
cublasHandle_t handle(c10::DeviceIndex device) {
  thread_local cublasHandle_t handles[kMaxCudaDevices] = {};
  cublasHandle_t& h = handles[device];
  if (h == nullptr) {
    check_cublas(cublasCreate(&h), "cublasCreate");
    check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  }
  return h;
}

// The calling thread's handle for `device`, set to its current stream (with
// `device` current: the caller holds a DeviceGuard).
cublasHandle_t handle_on_current_stream(c10::Device device) {
  cublasHandle_t h = handle(device.index());
  check_cublas(cublasSetStream(h, static_cast<cudaStream_t>(current_stream(device))),
               "cublasSetStream");
  return h;
}

// A matrix as cuBLAS takes it: the tensor (possibly a contiguous copy), its
// operation and leading dimension, for the row-major trick above.
struct Operand {
  at::Tensor t;
  cublasOperation_t op;
  int64_t ld;
};

Operand operand(const at::Tensor& m) {
  if (m.stride(1) == 1 && m.stride(0) >= std::max<int64_t>(1, m.size(1))) {
    return {m, CUBLAS_OP_N, m.stride(0)};
  }
  if (m.stride(0) == 1 && m.stride(1) >= std::max<int64_t>(1, m.size(0))) {
    return {m, CUBLAS_OP_T, m.stride(1)};
  }
  at::Tensor c = m.contiguous();
  return {c, CUBLAS_OP_N, std::max<int64_t>(1, c.size(1))};
}

// The core's operand checks (as on the CPU), then what cuBLAS here takes:
// a floating dtype, both on one CUDA device.
void check_mm_args(const char* op, const at::Tensor& a, const at::Tensor& b, int64_t dim = 2) {
  at::native::check_matmul_operands(a, b, dim, op);
  TORCH_CHECK_NOT_IMPLEMENTED(
      c10::isFloatingType(a.scalar_type()), op, ": dtype ", a.scalar_type(),
      " is not supported on CUDA yet (Float, Double, Half and BFloat16 are).");
  TORCH_CHECK(a.device() == b.device() && a.is_cuda(), op,
              ": expected both matrices on one CUDA device, got ", a.device(),
              " and ", b.device(), ".");
}

// cuBLAS's name of a 16-bit floating dtype.
cudaDataType_t reduced_type(c10::ScalarType t) {
  return t == c10::kHalf ? CUDA_R_16F : CUDA_R_16BF;
}

// out (contiguous, n×m) = alpha * a·b + beta * out.
void gemm(const at::Tensor& a, const at::Tensor& b, at::Tensor& out, double alpha,
          double beta) {
  const int64_t n = a.size(0), k = a.size(1), m = b.size(1);
  if (n == 0 || m == 0) return;
  c10::DeviceGuard guard(out.device());
  cublasHandle_t h = handle_on_current_stream(out.device());
  const Operand A = operand(a), B = operand(b);
  const int64_t ldc = std::max<int64_t>(1, m);
  if (out.scalar_type() == c10::kFloat) {
    const float fa = static_cast<float>(alpha), fb = static_cast<float>(beta);
    check_cublas(cublasSgemm(h, B.op, A.op, m, n, k, &fa,
                             static_cast<const float*>(B.t.data_ptr()), B.ld,
                             static_cast<const float*>(A.t.data_ptr()), A.ld, &fb,
                             static_cast<float*>(out.data_ptr()), ldc),
                 "cublasSgemm");
  } else if (c10::isReducedFloatingType(out.scalar_type())) {
    const float fa = static_cast<float>(alpha), fb = static_cast<float>(beta);
    const cudaDataType_t dt = reduced_type(out.scalar_type());
    check_cublas(cublasGemmEx(h, B.op, A.op, m, n, k, &fa, B.t.data_ptr(), dt, B.ld,
                              A.t.data_ptr(), dt, A.ld, &fb, out.data_ptr(), dt, ldc,
                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
  } else {
    check_cublas(cublasDgemm(h, B.op, A.op, m, n, k, &alpha,
                             static_cast<const double*>(B.t.data_ptr()), B.ld,
                             static_cast<const double*>(A.t.data_ptr()), A.ld, &beta,
                             static_cast<double*>(out.data_ptr()), ldc),
                 "cublasDgemm");
  }
}

at::Tensor& mm_out(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  check_mm_args("mm", self, mat2);
  at::native::resize_output(out, {self.size(0), mat2.size(1)}, "mm");
  at::Tensor dst = out.is_contiguous()
                       ? out
                       : empty_cuda(out.sizes(), out.scalar_type(), out.device(), "mm");
  if (self.size(1) == 0) {
    dst.fill_(0);
  } else {
    gemm(self, mat2, dst, 1.0, 0.0);
  }
  if (!out.is_contiguous()) out.copy_(dst);
  return out;
}

at::Tensor mm(const at::Tensor& self, const at::Tensor& mat2) {
  check_mm_args("mm", self, mat2);
  at::Tensor out = empty_cuda({self.size(0), mat2.size(1)}, self.scalar_type(),
                              self.device(), "mm");
  return mm_out(self, mat2, out);
}

at::Tensor addmm(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                 const c10::Scalar& beta, const c10::Scalar& alpha) {
  check_mm_args("addmm", mat1, mat2);
  const double b = beta.toDouble();
  at::Tensor out = empty_cuda({mat1.size(0), mat2.size(1)}, mat1.scalar_type(),
                              mat1.device(), "addmm");
  // beta == 0 ignores self entirely (NaNs in it do not propagate), as PyTorch.
  if (b != 0.0) out.copy_(self.expand(out.sizes()));
  if (mat1.size(1) == 0) {
    if (b == 0.0) {
      out.fill_(0);
    } else if (b != 1.0) {
      out.mul_(at::empty({}, at::TensorOptions().dtype(out.scalar_type()))
                   .fill_(b)
                   .to(out.device()));
    }
    return out;
  }
  gemm(mat1, mat2, out, alpha.toDouble(), b);
  return out;
}

// A batch of matrices as cuBLAS's strided-batched GEMM takes it: every
// matrix row- or column-major with one stride between matrices (0 for a
// batch expanded from one matrix), else a contiguous copy.
struct BatchOperand {
  at::Tensor t;
  cublasOperation_t op;
  int64_t ld;
  int64_t batch_stride;
};

BatchOperand batch_operand(const at::Tensor& m) {
  const int64_t rows = m.size(1), cols = m.size(2);
  if (m.stride(2) == 1 && m.stride(1) >= std::max<int64_t>(1, cols)) {
    return {m, CUBLAS_OP_N, m.stride(1), m.stride(0)};
  }
  if (m.stride(1) == 1 && m.stride(2) >= std::max<int64_t>(1, rows)) {
    return {m, CUBLAS_OP_T, m.stride(2), m.stride(0)};
  }
  at::Tensor c = m.contiguous();
  return {c, CUBLAS_OP_N, std::max<int64_t>(1, cols), rows * cols};
}

// bmm: out[i] = a[i]·b[i] for each of the batch, in one strided-batched
// cuBLAS call (Note [Row-major GEMM through cuBLAS] per matrix).
at::Tensor bmm(const at::Tensor& self, const at::Tensor& mat2) {
  check_mm_args("bmm", self, mat2, 3);
  const int64_t batch = self.size(0), n = self.size(1), k = self.size(2), m = mat2.size(2);
  at::Tensor out = empty_cuda({batch, n, m}, self.scalar_type(), self.device(), "bmm");
  if (batch == 0 || n == 0 || m == 0) return out;
  if (k == 0) return out.fill_(0);
  TORCH_CHECK(batch <= INT32_MAX && n <= INT32_MAX && m <= INT32_MAX && k <= INT32_MAX,
              "bmm: sizes above 2^31 - 1 are not supported by cuBLAS; split the batch.");
  c10::DeviceGuard guard(out.device());
  cublasHandle_t h = handle_on_current_stream(out.device());
  const BatchOperand A = batch_operand(self), B = batch_operand(mat2);
  const int64_t ldc = std::max<int64_t>(1, m);
  if (out.scalar_type() == c10::kFloat) {
    const float one = 1, zero = 0;
    check_cublas(cublasSgemmStridedBatched(
                     h, B.op, A.op, m, n, k, &one, static_cast<const float*>(B.t.data_ptr()),
                     B.ld, B.batch_stride, static_cast<const float*>(A.t.data_ptr()), A.ld,
                     A.batch_stride, &zero, static_cast<float*>(out.data_ptr()), ldc, n * m,
                     static_cast<int>(batch)),
                 "cublasSgemmStridedBatched");
  } else if (c10::isReducedFloatingType(out.scalar_type())) {
    const float one = 1, zero = 0;
    const cudaDataType_t dt = reduced_type(out.scalar_type());
    check_cublas(cublasGemmStridedBatchedEx(
                     h, B.op, A.op, m, n, k, &one, B.t.data_ptr(), dt, B.ld, B.batch_stride,
                     A.t.data_ptr(), dt, A.ld, A.batch_stride, &zero, out.data_ptr(), dt, ldc,
                     n * m, static_cast<int>(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmStridedBatchedEx");
  } else {
    const double one = 1, zero = 0;
    check_cublas(cublasDgemmStridedBatched(
                     h, B.op, A.op, m, n, k, &one, static_cast<const double*>(B.t.data_ptr()),
                     B.ld, B.batch_stride, static_cast<const double*>(A.t.data_ptr()), A.ld,
                     A.batch_stride, &zero, static_cast<double*>(out.data_ptr()), ldc, n * m,
                     static_cast<int>(batch)),
                 "cublasDgemmStridedBatched");
  }
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("bmm", TORCH_FN(bmm));
  m.impl("mm", TORCH_FN(mm));
  m.impl("mm.out", TORCH_FN(mm_out));
  m.impl("addmm", TORCH_FN(addmm));
}

}  // namespace cuda
}  // namespace ember
