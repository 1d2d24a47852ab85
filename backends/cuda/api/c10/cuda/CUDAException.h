// <c10/cuda/CUDAException.h> — C10_CUDA_CHECK and C10_CUDA_KERNEL_LAUNCH_CHECK,
// as in libtorch: turn a cudaError_t into a c10::Error that names the error,
// the call and where it was made.
//
//   C10_CUDA_CHECK(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, stream));
//   my_kernel<<<blocks, threads, 0, stream>>>(...);
//   C10_CUDA_KERNEL_LAUNCH_CHECK();
//
// Needs cudart (the program links it, as any program calling CUDA does).
#pragma once

#include <cuda_runtime_api.h>

#include "c10/util/Exception.h"

namespace c10 {
namespace cuda {
namespace detail {

// Throws the c10::Error of C10_CUDA_CHECK. Clears cudart's sticky "last
// error" for non-sticky errors so the next check does not report it again.
[[noreturn]] inline C10_NOINLINE C10_COLD void throwCudaError(
    cudaError_t err, const char* expr, const char* file, int line) {
  (void)cudaGetLastError();
  TORCH_CHECK(false, "CUDA error: ", cudaGetErrorString(err), " (",
              cudaGetErrorName(err), ") from ", expr, " at ", file, ":", line,
              ". CUDA kernel errors may be reported at a later API call; "
              "set CUDA_LAUNCH_BLOCKING=1 to report them where they happen.");
}

}  // namespace detail
}  // namespace cuda
}  // namespace c10

// C10_CUDA_CHECK(expr)
//
// Evaluates `expr` (a cudaError_t) once; throws c10::Error unless it is
// cudaSuccess.
#define C10_CUDA_CHECK(expr)                                                \
  do {                                                                      \
    const cudaError_t c10_cuda_check_err_ = (expr);                         \
    if (C10_UNLIKELY(c10_cuda_check_err_ != cudaSuccess)) {                 \
      ::c10::cuda::detail::throwCudaError(c10_cuda_check_err_, #expr,       \
                                          __FILE__, __LINE__);              \
    }                                                                       \
  } while (0)

// C10_CUDA_KERNEL_LAUNCH_CHECK()
//
// After a <<<...>>> launch: throws if the launch failed (bad configuration,
// no device, too many resources).
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
