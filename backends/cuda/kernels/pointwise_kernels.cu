// backends/cuda/kernels/pointwise_kernels.cu — the binary pointwise ops on the
// GPU TensorIterator's layout (loops.cuh): arithmetic, maximum/minimum, pow,
// bitwise ops, the one-sided clamps and the activations' backward ops (see
// BinaryOp in launch.h). Instantiated for all ten dtypes (Half and BFloat16
// computed in float); an op that a dtype does not have is refused by the host code before
// the launch. Integer arithmetic wraps (computed unsigned), as on the CPU.
#include <cmath>
#include <type_traits>

#include "backends/cuda/kernels/element_ops.cuh"
#include "backends/cuda/kernels/loops.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
struct BinaryFn {
  BinaryOp op;
  OpParams p;
  __device__ void operator()(char* const* ptr) const {
    const T a = *reinterpret_cast<const T*>(ptr[1]);
    const T b = *reinterpret_cast<const T*>(ptr[2]);
    *reinterpret_cast<T*>(ptr[0]) = binary_element(op, a, b, p);
  }
};

}  // namespace

std::string launch_binary(const Iteration& it, BinaryOp op, Dtype dtype,
                          const OpParams& params, void* stream) {
  return dispatch_dtype(dtype, [&](auto tag) {
    using T = decltype(tag);
    return launch_elementwise_typed<3, T>(it, BinaryFn<T>{op, params}, stream);
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
