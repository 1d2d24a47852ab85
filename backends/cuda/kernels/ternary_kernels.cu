// backends/cuda/kernels/ternary_kernels.cu — comparisons and logical binary
// ops (Bool results), where, clamp with both bounds, addcmul, addcdiv and
// lerp (TernaryOp in launch.h). Instantiated for all ten dtypes (Half and BFloat16
// computed in float).
#include <cmath>
#include <type_traits>

#include "backends/cuda/kernels/element_ops.cuh"
#include "backends/cuda/kernels/loops.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
struct CompareFn {
  CompareOp op;
  __device__ void operator()(char* const* ptr) const {
    const T a = *reinterpret_cast<const T*>(ptr[1]);
    const T b = *reinterpret_cast<const T*>(ptr[2]);
    *reinterpret_cast<bool*>(ptr[0]) = compare_element(op, a, b);
  }
};

template <typename T>
struct WhereFn {
  __device__ void operator()(char* const* ptr) const {
    const bool c = *reinterpret_cast<const bool*>(ptr[1]);
    *reinterpret_cast<T*>(ptr[0]) = *reinterpret_cast<const T*>(c ? ptr[2] : ptr[3]);
  }
};

template <typename T>
struct TernaryFn {
  TernaryOp op;
  OpParams p;
  __device__ void operator()(char* const* ptr) const {
    const T x = *reinterpret_cast<const T*>(ptr[1]);
    const T y = *reinterpret_cast<const T*>(ptr[2]);
    const T z = *reinterpret_cast<const T*>(ptr[3]);
    *reinterpret_cast<T*>(ptr[0]) = ternary_element(op, x, y, z, p);
  }
};

}  // namespace

std::string launch_compare(const Iteration& it, CompareOp op, Dtype dtype, void* stream) {
  return dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    return launch_elementwise<3>(it, CompareFn<T>{op}, stream);
  });
}

std::string launch_ternary(const Iteration& it, TernaryOp op, Dtype dtype,
                           const OpParams& params, void* stream) {
  return dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    if (op == TernaryOp::kWhere) return launch_elementwise<4>(it, WhereFn<T>{}, stream);
    return launch_elementwise_typed<4, T>(it, TernaryFn<T>{op, params}, stream);
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
