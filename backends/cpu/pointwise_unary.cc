// The CPU plugin's unary pointwise kernels, each with its in-place `_` and
// out= forms: neg, abs, sign, relu, floor, ceil, round (and round.decimals),
// trunc keep the dtype; exp, log, sqrt, log1p, expm1, rsqrt, reciprocal, sin,
// cos, tanh, sigmoid give Float for integral and bool inputs; logical_not,
// isnan and isinf give Bool.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "aten/PointwiseChecks.h"
#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/eltwise_onednn.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/pointwise.h"
#include "backends/cpu/pointwise_loops.h"
#include "backends/cpu/pointwise_math.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

// ---- drivers ------------------------------------------------------------------
//
// Each takes the output (undefined: allocate one) and returns the result.

// Keeps the dtype; `f` gets and returns the element type itself. Set says
// which dtypes are accepted.
template <TypeSet Set, typename F>
at::Tensor unary_same(const char* op, const at::Tensor& out, const at::Tensor& self,
                      const F& f) {
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(self));
  dispatch_type_set<Set>(iter.common_dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_loop<T, T>(iter, [&f](T x) { return f(x); });
  });
  return iter.output();
}

// A floating function: integral and bool inputs compute in Float; `f`
// gets and returns opmath_t (float for Half and BFloat16).
template <typename F>
at::Tensor unary_float(const char* op, const at::Tensor& out, const at::Tensor& self,
                       const F& f) {
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(self)
                          .promote_integer_inputs_to_float(true));
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    unary_loop<scalar_t, scalar_t>(iter, [&f](scalar_t x) {
      return static_cast<scalar_t>(f(static_cast<acc_t>(x)));
    });
  });
  return iter.output();
}

// Bool results from any dtype.
template <typename F>
at::Tensor unary_to_bool(const char* op, const at::Tensor& out, const at::Tensor& self,
                         const F& f) {
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(self)
                          .declare_static_dtype(c10::kBool));
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), op, [&] {
    unary_loop<bool, scalar_t>(iter, [&f](scalar_t x) {
      return f(static_cast<opmath_t<scalar_t>>(x));
    });
  });
  return iter.output();
}


// ---- the ops ---------------------------------------------------------------------

at::Tensor run_neg(const char* op, const at::Tensor& out, const at::Tensor& self) {
  at::native::check_neg(self, op);
  return unary_same<TypeSet::kAllButBool>(op, out, self, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(wrap_t<T>(0) - static_cast<wrap_t<T>>(x));
    } else {
      return static_cast<T>(-static_cast<opmath_t<T>>(x));
    }
  });
}

at::Tensor run_abs(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return unary_same<TypeSet::kAll>(op, out, self, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) {
      return x;
    } else if constexpr (std::is_integral_v<T>) {
      return x < 0 ? static_cast<T>(wrap_t<T>(0) - static_cast<wrap_t<T>>(x)) : x;
    } else {
      return static_cast<T>(std::abs(static_cast<opmath_t<T>>(x)));
    }
  });
}

// sign: -1, 0 or 1 in the input's dtype (NaN gives 0, as (0 < x) - (x < 0)
// does); a bool is its own sign.
at::Tensor run_sign(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return unary_same<TypeSet::kAll>(op, out, self, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool>) {
      return x;
    } else {
      using acc_t = opmath_t<T>;
      const acc_t v = static_cast<acc_t>(x);
      return static_cast<T>(static_cast<acc_t>((acc_t(0) < v) - (v < acc_t(0))));
    }
  });
}

at::Tensor run_relu(const char* op, const at::Tensor& out, const at::Tensor& self) {
  at::native::check_relu(self, op);
  return unary_same<TypeSet::kAllButBool>(op, out, self, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_unsigned_v<T>) {
      return x;
    } else {
      // `x < 0` is false for NaN, which therefore passes through.
      return static_cast<opmath_t<T>>(x) < 0 ? T(0) : x;
    }
  });
}

// floor, ceil, round, trunc: integers are returned unchanged; bool is
// refused, as in PyTorch.
template <typename F>
at::Tensor rounding(const char* op, const at::Tensor& out, const at::Tensor& self,
                    const F& f) {
  at::native::check_rounding(self, op);
  return unary_same<TypeSet::kAllButBool>(op, out, self, [&f](auto x) {
    using T = decltype(x);
    if constexpr (std::is_integral_v<T>) {
      return x;
    } else {
      return static_cast<T>(f(static_cast<opmath_t<T>>(x)));
    }
  });
}

at::Tensor run_floor(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return rounding(op, out, self, [](auto x) { return std::floor(x); });
}
at::Tensor run_ceil(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return rounding(op, out, self, [](auto x) { return std::ceil(x); });
}
// Half-way cases round to even, as PyTorch (and nearbyint) do.
at::Tensor run_round(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return rounding(op, out, self, [](auto x) { return std::nearbyint(x); });
}
at::Tensor run_trunc(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return rounding(op, out, self, [](auto x) { return std::trunc(x); });
}

// round(x, decimals): x scaled by 10^decimals, rounded half to even, scaled
// back (for negative decimals, divided first so that the scale stays exact).
// Floating dtypes only, as in PyTorch.
at::Tensor run_round_decimals(const char* op, const at::Tensor& out,
                              const at::Tensor& self, int64_t decimals) {
  at::native::check_round_decimals(self, op);
  const bool negative = decimals < 0;
  const double scale = std::pow(10.0, static_cast<double>(negative ? -decimals : decimals));
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(self));
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const auto s = static_cast<acc_t>(scale);
    unary_loop<scalar_t, scalar_t>(iter, [negative, s](scalar_t x) {
      const auto v = static_cast<acc_t>(x);
      return static_cast<scalar_t>(negative ? std::nearbyint(v / s) * s
                                            : std::nearbyint(v * s) / s);
    });
  });
  return iter.output();
}

// The floating functions. float32 exp, tanh and sigmoid use the
// vectorizable forms of pointwise_math.h (See Note [Vectorizable exp]);
// tanh uses oneDNN for large contiguous tensors (See Note [oneDNN eltwise]).
// exp and sigmoid do not: oneDNN 2.6's JIT exp turns NaN into inf, and its
// sigmoid flushes results below 1.2e-38 to zero (for a 1.3x gain).
at::Tensor run_exp(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return unary_float(op, out, self, [](auto x) { return math::exp(x); });
}
at::Tensor run_log(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return unary_float(op, out, self, [](auto x) { return std::log(x); });
}
at::Tensor run_sqrt(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return unary_float(op, out, self, [](auto x) { return std::sqrt(x); });
}
at::Tensor run_log1p(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return unary_float(op, out, self, [](auto x) { return std::log1p(x); });
}
at::Tensor run_expm1(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return unary_float(op, out, self, [](auto x) { return std::expm1(x); });
}
at::Tensor run_rsqrt(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return unary_float(op, out, self, [](auto x) {
    using T = decltype(x);
    return T(1) / std::sqrt(x);
  });
}
at::Tensor run_reciprocal(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return unary_float(op, out, self, [](auto x) {
    using T = decltype(x);
    return T(1) / x;
  });
}
at::Tensor run_sin(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return unary_float(op, out, self, [](auto x) { return std::sin(x); });
}
at::Tensor run_cos(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return unary_float(op, out, self, [](auto x) { return std::cos(x); });
}
at::Tensor run_tanh(const char* op, const at::Tensor& out, const at::Tensor& self) {
  at::Tensor r = onednn_unary(dnnl::algorithm::eltwise_tanh, 0.f, 0.f, out, self);
  if (r.defined()) return r;
  return unary_float(op, out, self, [](auto x) { return math::tanh(x); });
}
at::Tensor run_sigmoid(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return unary_float(op, out, self, [](auto x) { return math::sigmoid(x); });
}

at::Tensor run_logical_not(const char* op, const at::Tensor& out, const at::Tensor& self) {
  return unary_to_bool(op, out, self, [](auto x) { return !(x != decltype(x)(0)); });
}

at::Tensor run_bitwise_not(const char* op, const at::Tensor& out, const at::Tensor& self) {
  at::native::check_bitwise_not(self, op);
  return unary_same<TypeSet::kAll>(op, out, self, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool>) {
      return !x;
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(~x);
    } else {
      return x;  // not reached: refused above
    }
  });
}

}  // namespace

// ---- the registered kernels -------------------------------------------------------

// name(self), name_(self) and name_out(self, out) from run_name.
#define EMBER_UNARY_KERNELS_(name)                                        \
  at::Tensor name(const at::Tensor& self) {                               \
    return run_##name(#name, at::Tensor(), self);                         \
  }                                                                       \
  at::Tensor& name##_(at::Tensor& self) {                                 \
    run_##name(#name "_", self, self);                                    \
    return self;                                                          \
  }                                                                       \
  at::Tensor& name##_out(const at::Tensor& self, at::Tensor& out) {       \
    check_out(out, #name);                                                \
    run_##name(#name, out, self);                                         \
    return out;                                                           \
  }
EMBER_UNARY_KERNELS_(neg)
EMBER_UNARY_KERNELS_(abs)
EMBER_UNARY_KERNELS_(sign)
EMBER_UNARY_KERNELS_(floor)
EMBER_UNARY_KERNELS_(ceil)
EMBER_UNARY_KERNELS_(round)
EMBER_UNARY_KERNELS_(trunc)
EMBER_UNARY_KERNELS_(exp)
EMBER_UNARY_KERNELS_(log)
EMBER_UNARY_KERNELS_(sqrt)
EMBER_UNARY_KERNELS_(log1p)
EMBER_UNARY_KERNELS_(expm1)
EMBER_UNARY_KERNELS_(rsqrt)
EMBER_UNARY_KERNELS_(reciprocal)
EMBER_UNARY_KERNELS_(sin)
EMBER_UNARY_KERNELS_(cos)
EMBER_UNARY_KERNELS_(tanh)
EMBER_UNARY_KERNELS_(sigmoid)
EMBER_UNARY_KERNELS_(logical_not)
EMBER_UNARY_KERNELS_(bitwise_not)
#undef EMBER_UNARY_KERNELS_

at::Tensor relu(const at::Tensor& self) { return run_relu("relu", at::Tensor(), self); }
at::Tensor& relu_(at::Tensor& self) {
  run_relu("relu_", self, self);
  return self;
}

at::Tensor round_decimals(const at::Tensor& self, int64_t decimals) {
  return run_round_decimals("round", at::Tensor(), self, decimals);
}
at::Tensor& round_decimals_(at::Tensor& self, int64_t decimals) {
  run_round_decimals("round_", self, self, decimals);
  return self;
}
at::Tensor& round_decimals_out(const at::Tensor& self, int64_t decimals, at::Tensor& out) {
  check_out(out, "round");
  run_round_decimals("round", out, self, decimals);
  return out;
}

at::Tensor isnan(const at::Tensor& self) {
  return unary_to_bool("isnan", at::Tensor(), self, [](auto x) { return x != x; });
}

at::Tensor isinf(const at::Tensor& self) {
  return unary_to_bool("isinf", at::Tensor(), self, [](auto x) {
    if constexpr (std::is_floating_point_v<decltype(x)>) {
      return std::isinf(x);
    } else {
      return false;
    }
  });
}

}  // namespace ember::cpu
