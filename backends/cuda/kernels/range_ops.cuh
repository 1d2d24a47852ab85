// backends/cuda/kernels/range_ops.cuh — element i of arange and linspace on
// CUDA, the CPU plugin's arithmetic term for term (backends/cpu/factories.cc)
// so that both devices give the same values. __host__ __device__:
// range_kernels.cu calls it on the GPU (compiled with --fmad=false, as the
// random kernels: Note [CUDA random numbers equal the CPU's]) and
// //tests/backends/cuda:random_ops_test on the host against the CPU.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backends/cuda/kernels/element_ops.cuh"
#include "backends/cuda/kernels/launch.h"

namespace ember {
namespace cuda {
namespace kernels {
namespace range {

template <typename T>
EMBER_HD T range_element(const RangeArgs& a, int64_t i) {
  switch (a.op) {
    case RangeOp::kArangeIntegral:
      // Wraps into the dtype as PyTorch's integer arithmetic does.
      return static_cast<T>(static_cast<int64_t>(a.first + a.delta * static_cast<uint64_t>(i)));
    case RangeOp::kArangeFloating:
      return static_cast<T>(a.start + a.step * static_cast<double>(i));
    case RangeOp::kLinspace:
      break;
  }
  // Integral results step in double; floating ones in their compute type.
  using S = typename std::conditional<std::is_same<T, float>::value, float, double>::type;
  const S first = static_cast<S>(a.start), last = static_cast<S>(a.end);
  if (a.n == 1) return static_cast<T>(first);
  const S step = (last - first) / static_cast<S>(a.n - 1);
  const S v = i < a.n / 2 ? first + step * static_cast<S>(i)
                          : last - step * static_cast<S>(a.n - i - 1);
  return static_cast<T>(v);
}

}  // namespace range
}  // namespace kernels
}  // namespace cuda
}  // namespace ember
