// backends/cuda/kernels/element_ops.cuh — the element functions of the
// pointwise and reduction kernels: what one output element is, given its
// inputs (BinaryOp, UnaryOp, CompareOp, TernaryOp, PredicateOp in launch.h),
// and the max/min rule of the reductions. Written as the CPU plugin computes
// them, so that both devices agree to rounding. They are __host__ __device__:
// the kernels call them on the GPU, and //tests/backends/cuda:element_ops_test
// (g++, no GPU) checks every op and dtype against the CPU plugin in CI.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "backends/cuda/kernels/dtypes.cuh"
#include "backends/cuda/kernels/launch.h"

#ifdef __CUDACC__
#define EMBER_HD __host__ __device__ __forceinline__
#else
#define EMBER_HD inline
#endif

namespace ember {
namespace cuda {
namespace kernels {

#ifndef __CUDACC__
// On the host the math functions are <cmath>'s overloads (nvcc declares its
// own for float and double).
using std::ceil;
using std::copysign;
using std::cos;
using std::erfc;
using std::exp;
using std::expm1;
using std::fabs;
using std::floor;
using std::fmod;
using std::isinf;
using std::log;
using std::log1p;
using std::nearbyint;
using std::pow;
using std::sin;
using std::sqrt;
using std::tanh;
using std::trunc;
#endif

constexpr double kSqrt1_2 = 0.70710678118654752440;     // 1 / sqrt(2)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;   // 1 / sqrt(2 pi)
constexpr double kGeluCubic = 0.044715;

// x itself when it is NaN, else `value` (integers have no NaN).
template <typename T>
EMBER_HD T nan_or(T x, T value) {
  if constexpr (std::is_floating_point<T>::value) {
    return x != x ? x : value;
  } else {
    return value;
  }
}
// max(x, lo) and min(x, hi); a NaN in either gives NaN (clamp's rule).
template <typename T>
EMBER_HD T clamp_below(T x, T lo) {
  return nan_or(lo, nan_or(x, x < lo ? lo : x));
}
template <typename T>
EMBER_HD T clamp_above(T x, T hi) {
  return nan_or(hi, nan_or(x, x > hi ? hi : x));
}

template <typename T>
EMBER_HD T sigmoid(T x) {
  return T(1) / (T(1) + exp(-x));
}

template <typename T>
EMBER_HD T gelu(T x) {
  return T(0.5) * x * erfc(-x * T(kSqrt1_2));
}
template <typename T>
EMBER_HD T gelu_tanh(T x) {
  const T inner = T(kSqrt2OverPi) * (x + T(kGeluCubic) * x * x * x);
  return T(0.5) * x * (T(1) + tanh(inner));
}
template <typename T>
EMBER_HD T gelu_derivative(T x) {
  const T cdf = T(0.5) * erfc(-x * T(kSqrt1_2));
  const T pdf = T(kInvSqrt2Pi) * exp(T(-0.5) * x * x);
  return cdf + x * pdf;
}
template <typename T>
EMBER_HD T gelu_tanh_derivative(T x) {
  const T inner = T(kSqrt2OverPi) * (x + T(kGeluCubic) * x * x * x);
  const T t = tanh(inner);
  const T d_inner = T(kSqrt2OverPi) * (T(1) + T(3 * kGeluCubic) * x * x);
  return T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * d_inner;
}

// ---- binary ------------------------------------------------------------------------

template <typename T>
EMBER_HD T integer_pow(T base, T exponent) {
  if constexpr (std::is_signed<T>::value) {
    if (exponent < 0) {
      if (base == 1) return T(1);
      if (base == T(-1)) return (exponent & 1) ? T(-1) : T(1);
      return T(0);
    }
  }
  using U = wrap_t<T>;
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

// Python's floor division of floats: the quotient of the exact remainder
// decomposition (plain floor(a / b) is off by one when a / b rounds up to an
// integer); division by zero gives a / b.
template <typename T>
EMBER_HD T floor_divide_floating(T a, T b) {
  if (b == T(0)) return a / b;
  const T mod = fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && (b < T(0)) != (mod < T(0))) div -= T(1);
  if (div == T(0)) return copysign(T(0), a / b);
  T floordiv = floor(div);
  if (div - floordiv > T(0.5)) floordiv += T(1);
  return floordiv;
}

template <typename T>
EMBER_HD T floating_binary(BinaryOp op, T a, T b, const OpParams& p) {
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
    case BinaryOp::kDivTrunc: return trunc(a / b);
    case BinaryOp::kDivFloor: return floor_divide_floating(a, b);
    case BinaryOp::kFmod:
    case BinaryOp::kRemainder: {
      T r = fmod(a, b);
      if (op == BinaryOp::kRemainder && r != T(0) && ((b < T(0)) != (r < T(0)))) r += b;
      return r;
    }
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
EMBER_HD T integral_binary(BinaryOp op, T a, T b, const OpParams& p) {
  using U = wrap_t<T>;
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
    case BinaryOp::kDivTrunc:
    case BinaryOp::kDivFloor: {
      if (b == T(0)) {
        if (p.zero_division != nullptr) *p.zero_division = 1u;
        return T(0);
      }
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1)) return static_cast<T>(U(0) - ua);  // INT_MIN / -1 wraps
      }
      T q = static_cast<T>(a / b);
      if constexpr (std::is_signed<T>::value) {
        const T r = static_cast<T>(a % b);
        if (op == BinaryOp::kDivFloor && r != T(0) && ((r < T(0)) != (b < T(0)))) {
          q = static_cast<T>(q - 1);
        }
      }
      return q;
    }
    case BinaryOp::kFmod:
    case BinaryOp::kRemainder: {
      if (b == T(0)) {
        if (p.zero_division != nullptr) *p.zero_division = 1u;
        return T(0);
      }
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1)) return T(0);  // INT_MIN % -1 overflows
      }
      T r = static_cast<T>(a % b);
      if constexpr (std::is_signed<T>::value) {
        if (op == BinaryOp::kRemainder && r != T(0) && ((r < T(0)) != (b < T(0)))) {
          r = static_cast<T>(r + b);
        }
      }
      return r;
    }
    case BinaryOp::kHardtanhBackward: {
      const double v = static_cast<double>(b);
      return v <= p.d[0] || v >= p.d[1] ? T(0) : a;
    }
    default: return T(0);  // floating ops: promoted or refused by the host
  }
}

EMBER_HD bool bool_binary(BinaryOp op, bool a, bool b, const OpParams& p) {
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
EMBER_HD T binary_value(BinaryOp op, T a, T b, const OpParams& p) {
  if constexpr (std::is_same<T, bool>::value) {
    return bool_binary(op, a, b, p);
  } else if constexpr (std::is_floating_point<T>::value) {
    return floating_binary(op, a, b, p);
  } else {
    return integral_binary(op, a, b, p);
  }
}

// ---- unary and predicates ------------------------------------------------------------

template <typename T>
EMBER_HD T floating_unary(UnaryOp op, T x, const OpParams& p) {
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
EMBER_HD T integral_unary(UnaryOp op, T x, const OpParams& p) {
  using U = wrap_t<T>;
  switch (op) {
    case UnaryOp::kRelu: return x > T(0) ? x : T(0);
    case UnaryOp::kNeg: return static_cast<T>(U(0) - static_cast<U>(x));
    case UnaryOp::kAbs:
      if constexpr (std::is_unsigned<T>::value) {
        return x;
      } else {
        return x < T(0) ? static_cast<T>(U(0) - static_cast<U>(x)) : x;
      }
    case UnaryOp::kSign:
      if constexpr (std::is_unsigned<T>::value) {
        return T(x != T(0));
      } else {
        return T((T(0) < x) - (x < T(0)));
      }
    case UnaryOp::kBitwiseNot: return static_cast<T>(~x);
    case UnaryOp::kHardtanh: {
      const T lo = static_cast<T>(p.i[0]), hi = static_cast<T>(p.i[1]);
      return x < lo ? lo : (x > hi ? hi : x);
    }
    default: return x;  // rounding: integers are whole already
  }
}

template <typename T>
EMBER_HD T unary_value(UnaryOp op, T x, const OpParams& p) {
  if constexpr (std::is_same<T, bool>::value) {
    // abs, sign, the rounding ops: a bool is its own value.
    return op == UnaryOp::kBitwiseNot ? !x : x;
  } else if constexpr (std::is_floating_point<T>::value) {
    return floating_unary(op, x, p);
  } else {
    return integral_unary(op, x, p);
  }
}

template <typename T>
EMBER_HD bool predicate_value(PredicateOp op, T x) {
  switch (op) {
    case PredicateOp::kLogicalNot: return !(x != T(0));
    case PredicateOp::kIsnan:
      if constexpr (std::is_floating_point<T>::value) return x != x;
      return false;
    case PredicateOp::kIsinf:
      if constexpr (std::is_floating_point<T>::value) return isinf(x);
      return false;
  }
  return false;
}

// ---- comparisons, where and three inputs ---------------------------------------------

template <typename T>
EMBER_HD bool compare_value(CompareOp op, T a, T b) {
  switch (op) {
    case CompareOp::kEq: return a == b;
    case CompareOp::kNe: return a != b;
    case CompareOp::kLt: return a < b;
    case CompareOp::kLe: return a <= b;
    case CompareOp::kGt: return a > b;
    case CompareOp::kGe: return a >= b;
    case CompareOp::kLogicalAnd: return (a != T(0)) && (b != T(0));
    case CompareOp::kLogicalOr: return (a != T(0)) || (b != T(0));
    case CompareOp::kLogicalXor: return (a != T(0)) != (b != T(0));
  }
  return false;
}

// kClamp, kAddcmul, kAddcdiv, kLerp (kWhere selects, in WhereFn).
template <typename T>
EMBER_HD T ternary_value(TernaryOp op, T x, T y, T z, const OpParams& p) {
  T r = x;
  if constexpr (std::is_floating_point<T>::value) {
    switch (op) {
      case TernaryOp::kClamp: r = clamp_above(clamp_below(x, y), z); break;
      case TernaryOp::kAddcmul: r = x + T(p.d[0]) * y * z; break;
      case TernaryOp::kAddcdiv: r = x + T(p.d[0]) * y / z; break;
      case TernaryOp::kLerp: {
        const T diff = y - x;
        r = fabs(z) < T(0.5) ? x + z * diff : y - diff * (T(1) - z);
        break;
      }
      default: break;
    }
  } else if constexpr (!std::is_same<T, bool>::value) {
    using U = wrap_t<T>;
    switch (op) {
      case TernaryOp::kClamp: r = clamp_above(clamp_below(x, y), z); break;
      case TernaryOp::kAddcmul:
        r = static_cast<T>(static_cast<U>(x) +
                           static_cast<U>(p.i[0]) * static_cast<U>(y) * static_cast<U>(z));
        break;
      default: break;  // floating only: refused by the host
    }
  }
  return r;
}

// ---- one element of a kernel, on the stored type -------------------------------------

// What the pointwise kernels store, given their operands' stored values: the
// op computed in opmath_t<T> and rounded once (Note [Half and BFloat16 on
// CUDA] in dtypes.cuh; for the other dtypes opmath_t<T> is T).
template <typename T>
EMBER_HD T binary_element(BinaryOp op, T a, T b, const OpParams& p) {
  using C = opmath_t<T>;
  return T(binary_value<C>(op, static_cast<C>(a), static_cast<C>(b), p));
}
template <typename T>
EMBER_HD T unary_element(UnaryOp op, T x, const OpParams& p) {
  using C = opmath_t<T>;
  return T(unary_value<C>(op, static_cast<C>(x), p));
}
template <typename T>
EMBER_HD bool predicate_element(PredicateOp op, T x) {
  using C = opmath_t<T>;
  return predicate_value<C>(op, static_cast<C>(x));
}
template <typename T>
EMBER_HD bool compare_element(CompareOp op, T a, T b) {
  using C = opmath_t<T>;
  return compare_value<C>(op, static_cast<C>(a), static_cast<C>(b));
}
template <typename T>
EMBER_HD T ternary_element(TernaryOp op, T x, T y, T z, const OpParams& p) {
  using C = opmath_t<T>;
  return T(ternary_value<C>(op, static_cast<C>(x), static_cast<C>(y), static_cast<C>(z), p));
}

// ---- scatter's reductions -------------------------------------------------------------

// One step of scatter's reduce='add' / 'multiply' (and scatter_add), as the
// CPU plugin's combine: Bool or / and; integers wrapping (two's
// complement); floating types in opmath_t<T>, rounded once to T. The
// kernels apply it atomically, in any order of the contributions.
template <typename T>
EMBER_HD T scatter_combine(T a, T b, bool add) {
  if constexpr (std::is_same<T, bool>::value) {
    return add ? (a || b) : (a && b);
  } else if constexpr (std::is_integral<T>::value) {
    using W = wrap_t<T>;
    return static_cast<T>(add ? static_cast<W>(static_cast<W>(a) + static_cast<W>(b))
                              : static_cast<W>(static_cast<W>(a) * static_cast<W>(b)));
  } else {
    using C = opmath_t<T>;
    return T(add ? static_cast<C>(a) + static_cast<C>(b) : static_cast<C>(a) * static_cast<C>(b));
  }
}

// ---- reductions ---------------------------------------------------------------------

template <typename T>
EMBER_HD bool is_nan(T v) {
  if constexpr (std::is_floating_point<T>::value) {
    return v != v;
  } else {
    return false;
  }
}

// Whether (b, ib) replaces (a, ia) as the max (kMax) or min: NaN wins, then
// the larger (smaller) value, then the earlier position. Any order of
// combining gives the first position of the extreme.
template <bool kMax, typename T>
EMBER_HD bool better(T a, int64_t ia, T b, int64_t ib) {
  const bool na = is_nan(a), nb = is_nan(b);
  if (na || nb) return nb && (!na || ib < ia);
  if (kMax ? b > a : b < a) return true;
  return b == a && ib < ia;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
