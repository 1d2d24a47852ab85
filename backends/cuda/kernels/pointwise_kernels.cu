// backends/cuda/kernels/pointwise_kernels.cu — add/sub/mul/div and the unary
// ops on the GPU TensorIterator's layout (loops.cuh). Binary ops are
// instantiated for float, double, int64 and int32; the transcendental unary
// ops for float and double only (the host code promotes integers to float,
// as PyTorch does).
#include <cmath>
#include <type_traits>

#include "backends/cuda/kernels/loops.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
struct BinaryFn {
  BinaryOp op;
  T alpha;
  __device__ void operator()(char* const* p) const {
    const T a = *reinterpret_cast<const T*>(p[1]);
    const T b = *reinterpret_cast<const T*>(p[2]);
    T r;
    switch (op) {
      case BinaryOp::kAdd: r = a + alpha * b; break;
      case BinaryOp::kSub: r = a - alpha * b; break;
      case BinaryOp::kMul: r = a * b; break;
      default: r = a / b; break;
    }
    *reinterpret_cast<T*>(p[0]) = r;
  }
};

template <typename T>
struct UnaryFn {
  UnaryOp op;
  __device__ void operator()(char* const* p) const {
    const T x = *reinterpret_cast<const T*>(p[1]);
    T r;
    if constexpr (std::is_floating_point<T>::value) {
      switch (op) {
        case UnaryOp::kRelu: r = x > T(0) ? x : T(0); break;
        case UnaryOp::kNeg: r = -x; break;
        case UnaryOp::kAbs: r = fabs(x); break;
        case UnaryOp::kExp: r = exp(x); break;
        case UnaryOp::kLog: r = log(x); break;
        case UnaryOp::kSqrt: r = sqrt(x); break;
        case UnaryOp::kTanh: r = tanh(x); break;
        default: r = T(1) / (T(1) + exp(-x)); break;
      }
    } else {
      switch (op) {
        case UnaryOp::kRelu: r = x > T(0) ? x : T(0); break;
        case UnaryOp::kNeg: r = -x; break;
        default: r = x < T(0) ? -x : x; break;  // kAbs
      }
    }
    *reinterpret_cast<T*>(p[0]) = r;
  }
};

}  // namespace

std::string launch_binary(const Iteration& it, BinaryOp op, Dtype dtype,
                          double alpha, void* stream) {
  switch (dtype) {
    case Dtype::kFloat:
      return launch_elementwise_typed<3, float>(it, BinaryFn<float>{op, static_cast<float>(alpha)}, stream);
    case Dtype::kDouble:
      return launch_elementwise_typed<3, double>(it, BinaryFn<double>{op, alpha}, stream);
    case Dtype::kLong:
      return launch_elementwise_typed<3, int64_t>(it, BinaryFn<int64_t>{op, static_cast<int64_t>(alpha)}, stream);
    case Dtype::kInt:
      return launch_elementwise_typed<3, int32_t>(it, BinaryFn<int32_t>{op, static_cast<int32_t>(alpha)}, stream);
    case Dtype::kBool:
      break;
  }
  return "binary ops are not instantiated for bool on CUDA";
}

std::string launch_unary(const Iteration& it, UnaryOp op, Dtype dtype, void* stream) {
  switch (dtype) {
    case Dtype::kFloat: return launch_elementwise_typed<2, float>(it, UnaryFn<float>{op}, stream);
    case Dtype::kDouble: return launch_elementwise_typed<2, double>(it, UnaryFn<double>{op}, stream);
    case Dtype::kLong: return launch_elementwise_typed<2, int64_t>(it, UnaryFn<int64_t>{op}, stream);
    case Dtype::kInt: return launch_elementwise_typed<2, int32_t>(it, UnaryFn<int32_t>{op}, stream);
    case Dtype::kBool: break;
  }
  return "unary ops are not instantiated for bool on CUDA";
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
