// backends/cuda/CUDAIterator.h — the GPU TensorIterator: at::TensorIteratorBase
// (shapes, broadcasting, type promotion, out= rules, overlap checks) with a
// loop that launches a kernel of kernels/ over the iteration's layout.
//
//   at::Tensor out;
//   CUDAIterator iter(at::TensorIteratorConfig("add")
//                         .add_output(out).add_input(a).add_input(b));
//   iter.run("add", [&](const kernels::Iteration& it, void* stream) {
//     return kernels::launch_binary(it, kernels::BinaryOp::kAdd,
//                                   iter.kernel_dtype(), 1.0, stream);
//   });
//   return iter.output();
#pragma once

#include <cstdint>
#include <string>

#include "aten/TensorIterator.h"
#include "backends/cuda/kernels/launch.h"
#include "c10/core/DeviceGuard.h"
#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"

namespace ember {
namespace cuda {

// ember::cuda::empty_cuda — a contiguous CUDA tensor on `device` (index -1:
// the current device), from the caching allocator.
at::Tensor empty_cuda(c10::IntArrayRef sizes, c10::ScalarType dtype,
                      c10::Device device, const char* op = "empty");

// Which dtypes a kernel is built for: the core five (Float, Double, Long,
// Int, Bool: indexing, nn, random, range, scan kernels) or all ten
// (pointwise, copy_ and the reductions; kernels::Dtype in launch.h).
enum class KernelDtypes { kCore, kAll };

// ember::cuda::kernel_dtype — the kernels' dtype for `type`; throws
// c10::NotImplementedError naming `op`, the dtype and what the op has, for a
// dtype outside `which`.
kernels::Dtype kernel_dtype(c10::ScalarType type, const char* op,
                            KernelDtypes which = KernelDtypes::kCore);

// ember::cuda::kernel_carrier — the core dtype a core-five kernel computes
// a result of `type` in, when converting that result once gives the CPU's
// values: Float for Half and BFloat16, Long for Short, Char and Byte; else
// `type` itself. The samplers and ranges use it (Note [Random numbers of the
// other dtypes on CUDA] in random_ops.cc).
c10::ScalarType kernel_carrier(c10::ScalarType type);

// ember::cuda::scalar_bits — `value` converted to `dtype` as the CPU
// converts it, as the element's bytes in the low bytes of a word (what
// fill_ and scatter's Scalar source hand a kernel).
uint64_t scalar_bits(const c10::Scalar& value, c10::ScalarType dtype);

// ember::cuda::current_stream — the calling thread's current cudaStream_t
// on `device`.
void* current_stream(c10::Device device);

class CUDAIterator : public at::TensorIteratorBase {
 public:
  explicit CUDAIterator(const at::TensorIteratorConfig& config);

  // The layout handed to a kernel (See Note [CUDA offset calculator]).
  kernels::Iteration layout() const;

  // Runs `launch(layout, stream)` on the current stream of the operands'
  // device, with that device current (a kernel must launch on its stream's
  // device), then copies temporaries back; throws if the launch failed.
  template <typename Launch>
  void run(const char* op, Launch&& launch) {
    begin_run();
    if (numel() > 0) {
      c10::DeviceGuard guard(device());
      check_launch(op, launch(layout(), current_stream(device())));
    }
    finish_run();
  }

  static void check_launch(const char* op, const std::string& status);
};

}  // namespace cuda
}  // namespace ember
