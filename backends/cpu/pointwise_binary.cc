// The CPU plugin's binary pointwise kernels: the comparisons eq, ne, lt,
// le, gt, ge and logical_and/or/xor (Bool results), bitwise_and/or/xor, pow, maximum, minimum,
// fmod and remainder; each with its Tensor and Scalar overloads, in-place `_`
// and out= forms as PyTorch has them. A Scalar operand takes part in type
// promotion as a wrapped number (wrap_scalar).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "aten/PointwiseChecks.h"
#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/pointwise.h"
#include "backends/cpu/pointwise_loops.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

TensorIteratorConfig binary_config(const char* op, const at::Tensor& out,
                                   const at::Tensor& self, const at::Tensor& other) {
  TensorIteratorConfig config(op);
  config.add_output(out).add_input(self).add_input(other);
  return config;
}

// Inputs promoted to their common dtype, kept by the result; `f` gets and
// returns the element type (it converts to opmath_t itself).
template <TypeSet Set, typename F>
at::Tensor binary_same(const char* op, const at::Tensor& out, const at::Tensor& self,
                       const at::Tensor& other, const F& f) {
  TensorIterator iter(binary_config(op, out, self, other));
  dispatch_type_set<Set>(iter.common_dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    binary_loop<T, T>(iter, [&f](T x, T y) { return f(x, y); });
  });
  return iter.output();
}

// Inputs promoted to their common dtype, Bool result; `f` gets opmath_t.
template <typename F>
at::Tensor binary_to_bool(const char* op, const at::Tensor& out, const at::Tensor& self,
                          const at::Tensor& other, const F& f) {
  TensorIterator iter(binary_config(op, out, self, other).declare_static_dtype(c10::kBool));
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    binary_loop<bool, scalar_t>(iter, [&f](scalar_t x, scalar_t y) {
      return f(static_cast<acc_t>(x), static_cast<acc_t>(y));
    });
  });
  return iter.output();
}


// ---- comparisons and logical ops ------------------------------------------------

#define EMBER_COMPARISON_(name, expr)                                               \
  at::Tensor run_##name(const char* op, const at::Tensor& out, const at::Tensor& a, \
                        const at::Tensor& b) {                                      \
    return binary_to_bool(op, out, a, b, [](auto x, auto y) { return expr; });      \
  }
EMBER_COMPARISON_(eq, x == y)
EMBER_COMPARISON_(ne, x != y)
EMBER_COMPARISON_(lt, x < y)
EMBER_COMPARISON_(le, x <= y)
EMBER_COMPARISON_(gt, x > y)
EMBER_COMPARISON_(ge, x >= y)
EMBER_COMPARISON_(logical_and, (x != decltype(x)(0)) && (y != decltype(y)(0)))
EMBER_COMPARISON_(logical_or, (x != decltype(x)(0)) || (y != decltype(y)(0)))
EMBER_COMPARISON_(logical_xor, (x != decltype(x)(0)) != (y != decltype(y)(0)))
#undef EMBER_COMPARISON_

// ---- bitwise_and / or / xor: integral and bool dtypes --------------------------------

template <typename F>
at::Tensor run_bitwise(const char* op, const at::Tensor& out, const at::Tensor& a,
                       const at::Tensor& b, const F& f) {
  TensorIterator iter(binary_config(op, out, a, b));
  const c10::ScalarType dtype = iter.common_dtype();
  at::native::check_bitwise_dtype(dtype, op);
  dispatch_type_set<TypeSet::kAll>(dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      binary_loop<T, T>(iter, [&f](T x, T y) { return static_cast<T>(f(x, y)); });
    }
  });
  return iter.output();
}
at::Tensor run_bitwise_and(const char* op, const at::Tensor& out, const at::Tensor& a,
                           const at::Tensor& b) {
  return run_bitwise(op, out, a, b, [](auto x, auto y) { return x & y; });
}
at::Tensor run_bitwise_or(const char* op, const at::Tensor& out, const at::Tensor& a,
                          const at::Tensor& b) {
  return run_bitwise(op, out, a, b, [](auto x, auto y) { return x | y; });
}
at::Tensor run_bitwise_xor(const char* op, const at::Tensor& out, const at::Tensor& a,
                           const at::Tensor& b) {
  return run_bitwise(op, out, a, b, [](auto x, auto y) { return x ^ y; });
}

// ---- maximum / minimum: NaN propagates; bool is or / and ---------------------

template <bool kMax>
at::Tensor run_extremum(const char* op, const at::Tensor& out, const at::Tensor& a,
                        const at::Tensor& b) {
  return binary_same<TypeSet::kAll>(op, out, a, b, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool>) {
      return kMax ? (x || y) : (x && y);
    } else {
      using acc_t = opmath_t<T>;
      const auto u = static_cast<acc_t>(x);
      const auto v = static_cast<acc_t>(y);
      // If u is NaN, u; if v is NaN, the comparison is false and gives v.
      return static_cast<T>(u != u ? u : (kMax ? (u > v ? u : v) : (u < v ? u : v)));
    }
  });
}
at::Tensor run_maximum(const char* op, const at::Tensor& out, const at::Tensor& a,
                       const at::Tensor& b) {
  return run_extremum<true>(op, out, a, b);
}
at::Tensor run_minimum(const char* op, const at::Tensor& out, const at::Tensor& a,
                       const at::Tensor& b) {
  return run_extremum<false>(op, out, a, b);
}

// ---- fmod / remainder -------------------------------------------------------------
//
// fmod's result has the sign of the dividend (C's fmod, truncated
// division); remainder's has the sign of the divisor (Python's %, floored
// division). Integer division by zero is PyTorch's ZeroDivisionError;
// floating division by zero gives NaN.

template <bool kFloored>
at::Tensor run_modulo(const char* op, const at::Tensor& out, const at::Tensor& a,
                      const at::Tensor& b) {
  at::native::refuse_bool_pair(a, b, op);
  ZeroDivisionFlag zero;
  at::Tensor result = binary_same<TypeSet::kAllButBool>(op, out, a, b, [&zero](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_integral_v<T>) {
      if (y == 0) {
        zero.raise();
        return T(0);
      }
      if constexpr (std::is_signed_v<T>) {
        if (y == T(-1)) return T(0);  // INT_MIN % -1 overflows
      }
      T r = static_cast<T>(x % y);
      if constexpr (kFloored && std::is_signed_v<T>) {
        if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<T>(r + y);
      }
      return r;
    } else {
      using acc_t = opmath_t<T>;
      const auto u = static_cast<acc_t>(x);
      const auto v = static_cast<acc_t>(y);
      acc_t r = std::fmod(u, v);
      if (kFloored && r != 0 && ((v < 0) != (r < 0))) r += v;
      return static_cast<T>(r);
    }
  });
  zero.throw_if_raised(op);
  return result;
}
at::Tensor run_fmod(const char* op, const at::Tensor& out, const at::Tensor& a,
                    const at::Tensor& b) {
  return run_modulo<false>(op, out, a, b);
}
at::Tensor run_remainder(const char* op, const at::Tensor& out, const at::Tensor& a,
                         const at::Tensor& b) {
  return run_modulo<true>(op, out, a, b);
}

// ---- pow ----------------------------------------------------------------------------

// Integer powers by squaring, wrapping on overflow. A negative exponent
// gives 1 for base 1, +-1 for base -1 and 0 otherwise (the integer part of
// base^exponent), as PyTorch does for tensor exponents.
template <typename T>
inline T integer_pow(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == 1) return T(1);
      if (base == T(-1)) return (exponent & 1) ? T(-1) : T(1);
      return T(0);
    }
  }
  using U = wrap_t<T>;
  U result = 1;
  U b = static_cast<U>(base);
  auto e = static_cast<std::make_unsigned_t<T>>(exponent);
  while (e != 0) {
    if (e & 1u) result = static_cast<U>(result * b);
    b = static_cast<U>(b * b);
    e = static_cast<decltype(e)>(e >> 1);
  }
  return static_cast<T>(result);
}

at::Tensor run_pow(const char* op, const at::Tensor& out, const at::Tensor& a,
                   const at::Tensor& b) {
  at::native::refuse_bool_pair(a, b, op);
  return binary_same<TypeSet::kAllButBool>(op, out, a, b, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_integral_v<T>) {
      return integer_pow(x, y);
    } else {
      using acc_t = opmath_t<T>;
      return static_cast<T>(std::pow(static_cast<acc_t>(x), static_cast<acc_t>(y)));
    }
  });
}

// pow with a Scalar exponent: the exponents PyTorch special-cases get
// loops without a pow call (x * x vectorizes; pow does not).
at::Tensor run_pow_scalar_exponent(const char* op, const at::Tensor& out,
                                   const at::Tensor& self, const c10::Scalar& exponent) {
  const at::Tensor e = wrap_scalar(exponent, op);
  TensorIterator iter(binary_config(op, out, self, e));
  const c10::ScalarType dtype = iter.common_dtype();
  at::native::check_pow_scalar_exponent(dtype, exponent, op);
  if (c10::isIntegralType(dtype, /*includeBool=*/false)) {
    EMBER_DISPATCH_ALL_TYPES_BUT_BOOL(dtype, op, [&] {
      if constexpr (std::is_integral_v<scalar_t>) {
        binary_loop<scalar_t, scalar_t>(
            iter, [](scalar_t x, scalar_t y) { return integer_pow(x, y); });
      }
    });
    return iter.output();
  }
  const double ev = exponent.isBoolean() ? (exponent.toBool() ? 1.0 : 0.0)
                                         : exponent.toDouble();
  EMBER_DISPATCH_FLOATING_TYPES(dtype, op, [&] {
    using acc_t = opmath_t<scalar_t>;
    auto run = [&](auto f) {
      binary_loop<scalar_t, scalar_t>(iter, [&f](scalar_t x, scalar_t) {
        return static_cast<scalar_t>(f(static_cast<acc_t>(x)));
      });
    };
    if (ev == 2) {
      run([](acc_t x) { return x * x; });
    } else if (ev == 3) {
      run([](acc_t x) { return x * x * x; });
    } else if (ev == 0.5) {
      run([](acc_t x) { return std::sqrt(x); });
    } else if (ev == -0.5) {
      run([](acc_t x) { return acc_t(1) / std::sqrt(x); });
    } else if (ev == -1) {
      run([](acc_t x) { return acc_t(1) / x; });
    } else if (ev == -2) {
      run([](acc_t x) { return acc_t(1) / (x * x); });
    } else {
      const auto p = static_cast<acc_t>(ev);
      run([p](acc_t x) { return std::pow(x, p); });
    }
  });
  return iter.output();
}

}  // namespace

// ---- the registered kernels ---------------------------------------------------------

// For an op with Tensor and Scalar overloads: name(self, other),
// name_scalar(self, other), name_ and name_scalar_ (in place), name_out and
// name_scalar_out, from run_name.
#define EMBER_BINARY_KERNELS_(name)                                                    \
  at::Tensor name(const at::Tensor& self, const at::Tensor& other) {                   \
    return run_##name(#name, at::Tensor(), self, other);                               \
  }                                                                                    \
  at::Tensor name##_scalar(const at::Tensor& self, const c10::Scalar& other) {         \
    return run_##name(#name, at::Tensor(), self, wrap_scalar(other, #name));           \
  }                                                                                    \
  at::Tensor& name##_(at::Tensor& self, const at::Tensor& other) {                     \
    run_##name(#name "_", self, self, other);                                          \
    return self;                                                                       \
  }                                                                                    \
  at::Tensor& name##_scalar_(at::Tensor& self, const c10::Scalar& other) {             \
    run_##name(#name "_", self, self, wrap_scalar(other, #name "_"));                  \
    return self;                                                                       \
  }                                                                                    \
  at::Tensor& name##_out(const at::Tensor& self, const at::Tensor& other,              \
                         at::Tensor& out) {                                            \
    check_out(out, #name);                                                             \
    run_##name(#name, out, self, other);                                               \
    return out;                                                                        \
  }                                                                                    \
  at::Tensor& name##_scalar_out(const at::Tensor& self, const c10::Scalar& other,      \
                                at::Tensor& out) {                                     \
    check_out(out, #name);                                                             \
    run_##name(#name, out, self, wrap_scalar(other, #name));                           \
    return out;                                                                        \
  }
EMBER_BINARY_KERNELS_(eq)
EMBER_BINARY_KERNELS_(ne)
EMBER_BINARY_KERNELS_(lt)
EMBER_BINARY_KERNELS_(le)
EMBER_BINARY_KERNELS_(gt)
EMBER_BINARY_KERNELS_(ge)
EMBER_BINARY_KERNELS_(fmod)
EMBER_BINARY_KERNELS_(remainder)
EMBER_BINARY_KERNELS_(bitwise_and)
EMBER_BINARY_KERNELS_(bitwise_or)
EMBER_BINARY_KERNELS_(bitwise_xor)
#undef EMBER_BINARY_KERNELS_

// Tensor-only ops: name, name_ (in place), name_out.
#define EMBER_TENSOR_BINARY_KERNELS_(name)                                             \
  at::Tensor name(const at::Tensor& self, const at::Tensor& other) {                   \
    return run_##name(#name, at::Tensor(), self, other);                               \
  }                                                                                    \
  at::Tensor& name##_(at::Tensor& self, const at::Tensor& other) {                     \
    run_##name(#name "_", self, self, other);                                          \
    return self;                                                                       \
  }                                                                                    \
  at::Tensor& name##_out(const at::Tensor& self, const at::Tensor& other,              \
                         at::Tensor& out) {                                            \
    check_out(out, #name);                                                             \
    run_##name(#name, out, self, other);                                               \
    return out;                                                                        \
  }
EMBER_TENSOR_BINARY_KERNELS_(logical_and)
EMBER_TENSOR_BINARY_KERNELS_(logical_or)
EMBER_TENSOR_BINARY_KERNELS_(logical_xor)
EMBER_TENSOR_BINARY_KERNELS_(pow)
#undef EMBER_TENSOR_BINARY_KERNELS_

at::Tensor maximum(const at::Tensor& self, const at::Tensor& other) {
  return run_maximum("maximum", at::Tensor(), self, other);
}
at::Tensor& maximum_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  check_out(out, "maximum");
  run_maximum("maximum", out, self, other);
  return out;
}
at::Tensor minimum(const at::Tensor& self, const at::Tensor& other) {
  return run_minimum("minimum", at::Tensor(), self, other);
}
at::Tensor& minimum_out(const at::Tensor& self, const at::Tensor& other, at::Tensor& out) {
  check_out(out, "minimum");
  run_minimum("minimum", out, self, other);
  return out;
}

at::Tensor pow_tensor_scalar(const at::Tensor& self, const c10::Scalar& exponent) {
  return run_pow_scalar_exponent("pow", at::Tensor(), self, exponent);
}
at::Tensor& pow_tensor_scalar_out(const at::Tensor& self, const c10::Scalar& exponent,
                                  at::Tensor& out) {
  check_out(out, "pow");
  run_pow_scalar_exponent("pow", out, self, exponent);
  return out;
}
at::Tensor& pow_scalar_(at::Tensor& self, const c10::Scalar& exponent) {
  run_pow_scalar_exponent("pow_", self, self, exponent);
  return self;
}
at::Tensor pow_scalar_base(const c10::Scalar& self, const at::Tensor& exponent) {
  return run_pow("pow", at::Tensor(), wrap_scalar(self, "pow"), exponent);
}
at::Tensor& pow_scalar_base_out(const c10::Scalar& self, const at::Tensor& exponent,
                                at::Tensor& out) {
  check_out(out, "pow");
  run_pow("pow", out, wrap_scalar(self, "pow"), exponent);
  return out;
}

at::Tensor remainder_scalar_tensor(const c10::Scalar& self, const at::Tensor& other) {
  return run_remainder("remainder", at::Tensor(), wrap_scalar(self, "remainder"), other);
}

}  // namespace ember::cpu
