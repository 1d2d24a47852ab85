// backends/cuda/kernels/unary_kernels.cu — the unary pointwise ops (UnaryOp
// in launch.h: math functions, rounding, activations) and the Bool-valued
// predicates isnan/isinf/logical_not. Transcendental ops are floating only
// (the host promotes integers to Float, as PyTorch does); on integers the
// rounding ops copy, as on the CPU.
#include <cmath>
#include <type_traits>

#include "backends/cuda/kernels/element_ops.cuh"
#include "backends/cuda/kernels/loops.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
struct UnaryFn {
  UnaryOp op;
  OpParams p;
  __device__ void operator()(char* const* ptr) const {
    const T x = *reinterpret_cast<const T*>(ptr[1]);
    *reinterpret_cast<T*>(ptr[0]) = unary_element(op, x, p);
  }
};

template <typename T>
struct PredicateFn {
  PredicateOp op;
  __device__ void operator()(char* const* ptr) const {
    const T x = *reinterpret_cast<const T*>(ptr[1]);
    *reinterpret_cast<bool*>(ptr[0]) = predicate_element(op, x);
  }
};

}  // namespace

std::string launch_unary(const Iteration& it, UnaryOp op, Dtype dtype,
                         const OpParams& params, void* stream) {
  return dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    return launch_elementwise_typed<2, T>(it, UnaryFn<T>{op, params}, stream);
  });
}

std::string launch_predicate(const Iteration& it, PredicateOp op, Dtype dtype,
                             void* stream) {
  return dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    return launch_elementwise<2>(it, PredicateFn<T>{op}, stream);
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
