// backends/cuda/kernels/pointwise_kernels.cu — the binary pointwise ops on the
// GPU TensorIterator's layout (loops.cuh): arithmetic, maximum/minimum, pow,
// bitwise ops, the one-sided clamps and the activations' backward ops (see
// BinaryOp in launch.h). Instantiated for float, double, int64, int32 and
// bool; an op that a dtype does not have is refused by the host code before
// the launch. Integer arithmetic wraps (computed unsigned), as on the CPU.
#include <cmath>
#include <type_traits>

#include "backends/cuda/kernels/math.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
__device__ T integer_pow(T base, T exponent) {
  if constexpr (std::is_signed<T>::value) {
    if (exponent < 0) {
      if (base == 1) return T(1);
      if (base == T(-1)) return (exponent & 1) ? T(-1) : T(1);
      return T(0);
    }
  }
  using U = typename std::make_unsigned<T>::type;
  U result = 1;
  U b = static_cast<U>(base);
  U e = static_cast<U>(exponent);
  while (e != 0) {
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<T>(result);
}

template <typename T>
__device__ T floating_binary(BinaryOp op, T a, T b, const OpParams& p) {
  switch (op) {
    case BinaryOp::kAdd: return a + T(p.d[0]) * b;
    case BinaryOp::kSub: return a - T(p.d[0]) * b;
    case BinaryOp::kMul: return a * b;
    case BinaryOp::kDiv: return a / b;
    case BinaryOp::kMaximum: return a != a ? a : (a > b ? a : b);
    case BinaryOp::kMinimum: return a != a ? a : (a < b ? a : b);
    case BinaryOp::kPow: return pow(a, b);
    case BinaryOp::kClampMin: return clamp_below(a, b);
    case BinaryOp::kClampMax: return clamp_above(a, b);
    case BinaryOp::kSigmoidBackward: return a * (T(1) - b) * b;
    case BinaryOp::kTanhBackward: return a * (T(1) - b * b);
    case BinaryOp::kSiluBackward: {
      const T s = sigmoid(b);
      return a * s * (T(1) + b * (T(1) - s));
    }
    case BinaryOp::kGeluBackward:
      return a * (p.flag ? gelu_tanh_derivative(b) : gelu_derivative(b));
    case BinaryOp::kEluBackward: {
      const T pos = T(p.d[0]), neg = T(p.d[1]), in = T(p.d[2]);
      if (p.flag) return b <= T(0) ? a * in * (b + neg) : a * pos;
      return b <= T(0) ? a * in * neg * exp(b * in) : a * pos;
    }
    case BinaryOp::kSoftplusBackward: {
      const T beta = T(p.d[0]), threshold = T(p.d[1]);
      const T z = exp(b * beta);
      return b * beta > threshold ? a : a * z / (z + T(1));
    }
    case BinaryOp::kLeakyReluBackward: return b > T(0) ? a : a * T(p.d[0]);
    case BinaryOp::kHardtanhBackward: {
      const double v = static_cast<double>(b);
      return v <= p.d[0] || v >= p.d[1] ? T(0) : a;
    }
    default: return T(0);  // bitwise ops: refused by the host
  }
}

template <typename T>
__device__ T integral_binary(BinaryOp op, T a, T b, const OpParams& p) {
  using U = typename std::make_unsigned<T>::type;
  const U ua = static_cast<U>(a), ub = static_cast<U>(b);
  switch (op) {
    case BinaryOp::kAdd: return static_cast<T>(ua + static_cast<U>(p.i[0]) * ub);
    case BinaryOp::kSub: return static_cast<T>(ua - static_cast<U>(p.i[0]) * ub);
    case BinaryOp::kMul: return static_cast<T>(ua * ub);
    case BinaryOp::kMaximum:
    case BinaryOp::kClampMin: return a > b ? a : b;
    case BinaryOp::kMinimum:
    case BinaryOp::kClampMax: return a < b ? a : b;
    case BinaryOp::kPow: return integer_pow(a, b);
    case BinaryOp::kBitAnd: return a & b;
    case BinaryOp::kBitOr: return a | b;
    case BinaryOp::kBitXor: return a ^ b;
    case BinaryOp::kHardtanhBackward: {
      const double v = static_cast<double>(b);
      return v <= p.d[0] || v >= p.d[1] ? T(0) : a;
    }
    default: return T(0);  // floating ops: promoted or refused by the host
  }
}

__device__ bool bool_binary(BinaryOp op, bool a, bool b, const OpParams& p) {
  switch (op) {
    case BinaryOp::kAdd: return a || (p.i[0] != 0 && b);
    case BinaryOp::kMul:
    case BinaryOp::kMinimum:
    case BinaryOp::kBitAnd: return a && b;
    case BinaryOp::kMaximum:
    case BinaryOp::kBitOr: return a || b;
    case BinaryOp::kBitXor: return a != b;
    default: return false;  // refused by the host
  }
}

template <typename T>
struct BinaryFn {
  BinaryOp op;
  OpParams p;
  __device__ void operator()(char* const* ptr) const {
    const T a = *reinterpret_cast<const T*>(ptr[1]);
    const T b = *reinterpret_cast<const T*>(ptr[2]);
    T r;
    if constexpr (std::is_same<T, bool>::value) {
      r = bool_binary(op, a, b, p);
    } else if constexpr (std::is_floating_point<T>::value) {
      r = floating_binary(op, a, b, p);
    } else {
      r = integral_binary(op, a, b, p);
    }
    *reinterpret_cast<T*>(ptr[0]) = r;
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
