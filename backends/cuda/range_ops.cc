// backends/cuda/range_ops.cc — arange, linspace and eye on the CUDA key.
// Lengths and checks are the core's (aten/FactoryChecks.h), shared with the
// CPU plugin; the values are the CPU's (kernels/range_ops.cuh), for Half,
// BFloat16 and the small integers through their carrier (fill_range).
#include <algorithm>

#include "aten/FactoryChecks.h"
#include "aten/Functions.h"
#include "aten/Resize.h"
#include "aten/Tensor.h"
#include "backends/cuda/CUDAIterator.h"
#include "c10/core/DeviceGuard.h"
#include "c10/util/BFloat16.h"
#include "c10/util/Half.h"
#include "registration/library.h"

namespace ember {
namespace cuda {
namespace {

// Runs the kernel for `a` into out's n elements (through a contiguous
// temporary when out is not contiguous, or not of a kernel dtype: then the
// values are computed in its carrier, kernel_carrier, and converted once,
// which is what the CPU computes for Half, BFloat16 and the small integers).
void fill_range(at::Tensor& out, kernels::RangeArgs a, const char* op) {
  a.n = out.numel();
  if (a.n == 0) return;
  const c10::ScalarType dtype = kernel_carrier(out.scalar_type());
  a.dtype = kernel_dtype(dtype, op);
  const c10::Device device = out.device();
  at::Tensor target = out.is_contiguous() && dtype == out.scalar_type()
                          ? out
                          : empty_cuda(out.sizes(), dtype, device, op);
  a.out = target.data_ptr();
  {
    c10::DeviceGuard guard(device);
    CUDAIterator::check_launch(op, kernels::launch_range(a, current_stream(device)));
  }
  if (!target.is_same(out)) out.copy_(target);
}

// `s` converted to `dtype` as the CPU kernel converts it (Scalar::to<T>),
// then widened to double.
double converted(const c10::Scalar& s, c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kFloat: return static_cast<double>(s.to<float>());
    case c10::kLong: return static_cast<double>(s.to<int64_t>());
    case c10::kInt: return static_cast<double>(s.to<int32_t>());
    case c10::kShort: return static_cast<double>(s.to<int16_t>());
    case c10::kChar: return static_cast<double>(s.to<int8_t>());
    case c10::kByte: return static_cast<double>(s.to<uint8_t>());
    case c10::kHalf: return static_cast<double>(static_cast<float>(s.to<c10::Half>()));
    case c10::kBFloat16: return static_cast<double>(static_cast<float>(s.to<c10::BFloat16>()));
    default: return s.to<double>();
  }
}

at::Tensor& arange_out(const c10::Scalar& start, const c10::Scalar& end, const c10::Scalar& step,
                       at::Tensor& out) {
  const char* op = "arange";
  const c10::ScalarType dtype = out.scalar_type();
  const int64_t size = at::native::arange_length(start, end, step, dtype);
  kernel_dtype(kernel_carrier(dtype), op);
  if (out.numel() != size || out.dim() != 1) at::native::resize_output(out, {size}, op);
  kernels::RangeArgs a;
  if (c10::isIntegralType(dtype, /*includeBool=*/false)) {
    a.op = kernels::RangeOp::kArangeIntegral;
    a.first = static_cast<uint64_t>(start.toLong());
    a.delta = static_cast<uint64_t>(step.toLong());
  } else {
    a.op = kernels::RangeOp::kArangeFloating;
    a.start = start.toDouble();
    a.step = step.toDouble();
  }
  fill_range(out, a, op);
  return out;
}

at::Tensor& linspace_out(const c10::Scalar& start, const c10::Scalar& end, int64_t steps,
                         at::Tensor& out) {
  const char* op = "linspace";
  at::native::check_linspace(steps, out.scalar_type());
  kernel_dtype(kernel_carrier(out.scalar_type()), op);
  at::native::resize_output(out, {steps}, op);
  kernels::RangeArgs a;
  a.op = kernels::RangeOp::kLinspace;
  a.start = converted(start, out.scalar_type());
  a.end = converted(end, out.scalar_type());
  fill_range(out, a, op);
  return out;
}

// Zeros, then ones along the diagonal (a strided view of it).
at::Tensor& eye_m_out(int64_t n, int64_t m, at::Tensor& out) {
  at::native::check_eye(n, m);
  at::native::resize_output(out, {n, m}, "eye");
  if (out.numel() == 0) return out;
  out.fill_(0);
  out.as_strided({std::min(n, m)}, {out.stride(0) + out.stride(1)}, out.storage_offset())
      .fill_(1);
  return out;
}

at::Tensor& eye_out(int64_t n, at::Tensor& out) { return eye_m_out(n, n, out); }

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("arange.start_out", TORCH_FN(arange_out));
  m.impl("linspace.out", TORCH_FN(linspace_out));
  m.impl("eye.out", TORCH_FN(eye_out));
  m.impl("eye.m_out", TORCH_FN(eye_m_out));
}

}  // namespace cuda
}  // namespace ember
