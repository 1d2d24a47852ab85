// backends/cuda/kernels/unary_kernels.cu — the unary pointwise ops (UnaryOp
// in launch.h: math functions, rounding, activations) and the Bool-valued
// predicates isnan/isinf/logical_not. Transcendental ops are floating only
// (the host promotes integers to Float, as PyTorch does); on integers the
// rounding ops copy, as on the CPU.
#include <cmath>
#include <type_traits>

#include "backends/cuda/kernels/math.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename T>
__device__ T floating_unary(UnaryOp op, T x, const OpParams& p) {
  switch (op) {
    case UnaryOp::kRelu: return x < T(0) ? T(0) : x;  // NaN passes, as on the CPU
    case UnaryOp::kNeg: return -x;
    case UnaryOp::kAbs: return fabs(x);
    case UnaryOp::kExp: return exp(x);
    case UnaryOp::kLog: return log(x);
    case UnaryOp::kSqrt: return sqrt(x);
    case UnaryOp::kTanh: return tanh(x);
    case UnaryOp::kSigmoid: return sigmoid(x);
    case UnaryOp::kSign: return T((T(0) < x) - (x < T(0)));
    case UnaryOp::kFloor: return floor(x);
    case UnaryOp::kCeil: return ceil(x);
    case UnaryOp::kRound: return nearbyint(x);
    case UnaryOp::kRoundDecimals: {
      const T s = T(p.d[0]);
      return p.flag ? nearbyint(x / s) * s : nearbyint(x * s) / s;
    }
    case UnaryOp::kTrunc: return trunc(x);
    case UnaryOp::kLog1p: return log1p(x);
    case UnaryOp::kExpm1: return expm1(x);
    case UnaryOp::kRsqrt: return T(1) / sqrt(x);
    case UnaryOp::kReciprocal: return T(1) / x;
    case UnaryOp::kSin: return sin(x);
    case UnaryOp::kCos: return cos(x);
    case UnaryOp::kLeakyRelu: return x > T(0) ? x : x * T(p.d[0]);
    case UnaryOp::kGelu: return p.flag ? gelu_tanh(x) : gelu(x);
    case UnaryOp::kSilu: return x * sigmoid(x);
    case UnaryOp::kElu:
      return x > T(0) ? x * T(p.d[0]) : T(p.d[1]) * expm1(x * T(p.d[2]));
    case UnaryOp::kSoftplus: {
      const T beta = T(p.d[0]);
      return x * beta > T(p.d[1]) ? x : log1p(exp(x * beta)) / beta;
    }
    case UnaryOp::kHardtanh: {
      if (x != x) return x;
      const T lo = T(p.d[0]), hi = T(p.d[1]);
      return x < lo ? lo : (x > hi ? hi : x);
    }
    default: return x;  // kBitwiseNot: refused by the host
  }
}

template <typename T>
__device__ T integral_unary(UnaryOp op, T x, const OpParams& p) {
  using U = typename std::make_unsigned<T>::type;
  switch (op) {
    case UnaryOp::kRelu: return x > T(0) ? x : T(0);
    case UnaryOp::kNeg: return static_cast<T>(U(0) - static_cast<U>(x));
    case UnaryOp::kAbs: return x < T(0) ? static_cast<T>(U(0) - static_cast<U>(x)) : x;
    case UnaryOp::kSign: return T((T(0) < x) - (x < T(0)));
    case UnaryOp::kBitwiseNot: return static_cast<T>(~x);
    case UnaryOp::kHardtanh: {
      const T lo = static_cast<T>(p.i[0]), hi = static_cast<T>(p.i[1]);
      return x < lo ? lo : (x > hi ? hi : x);
    }
    default: return x;  // rounding: integers are whole already
  }
}

template <typename T>
struct UnaryFn {
  UnaryOp op;
  OpParams p;
  __device__ void operator()(char* const* ptr) const {
    const T x = *reinterpret_cast<const T*>(ptr[1]);
    T r;
    if constexpr (std::is_same<T, bool>::value) {
      // abs, sign, the rounding ops: a bool is its own value.
      r = op == UnaryOp::kBitwiseNot ? !x : x;
    } else if constexpr (std::is_floating_point<T>::value) {
      r = floating_unary(op, x, p);
    } else {
      r = integral_unary(op, x, p);
    }
    *reinterpret_cast<T*>(ptr[0]) = r;
  }
};

template <typename T>
struct PredicateFn {
  PredicateOp op;
  __device__ void operator()(char* const* ptr) const {
    const T x = *reinterpret_cast<const T*>(ptr[1]);
    bool r = false;
    switch (op) {
      case PredicateOp::kLogicalNot: r = !(x != T(0)); break;
      case PredicateOp::kIsnan:
        if constexpr (std::is_floating_point<T>::value) r = x != x;
        break;
      case PredicateOp::kIsinf:
        if constexpr (std::is_floating_point<T>::value) r = isinf(x);
        break;
    }
    *reinterpret_cast<bool*>(ptr[0]) = r;
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
