// The CPU plugin's pointwise kernels with up to three inputs: where, clamp
// (Scalar and Tensor bounds), clamp_min, clamp_max, addcmul, addcdiv and lerp,
// with their in-place `_` and out= forms.
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "aten/PointwiseChecks.h"
#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/pointwise.h"
#include "backends/cpu/pointwise_loops.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

// ---- where ------------------------------------------------------------------------

at::Tensor run_where(const char* op, const at::Tensor& out, const at::Tensor& condition,
                     const at::Tensor& self, const at::Tensor& other) {
  at::native::check_where_condition(condition, op);
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(condition)
                          .add_input(self).add_input(other).keep_input_dtype(0));
  EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), op, [&] {
    ternary_loop<scalar_t, bool, scalar_t, scalar_t>(
        iter, [](bool c, scalar_t a, scalar_t b) { return c ? a : b; });
  });
  return iter.output();
}

// ---- clamp ---------------------------------------------------------------------------
//
// min(max(x, lo), hi) in the promoted dtype of x and the bounds given; a
// NaN in x or in a bound gives NaN. lo > hi gives hi everywhere, as in
// PyTorch.

template <typename T>
inline T nan_or(T x, T value) {
  if constexpr (std::is_floating_point_v<T>) {
    return x != x ? x : value;
  } else {
    return value;
  }
}

template <typename T>
inline T clamp_below(T x, T lo) {  // max(x, lo)
  return nan_or(lo, nan_or(x, x < lo ? lo : x));
}
template <typename T>
inline T clamp_above(T x, T hi) {  // min(x, hi)
  return nan_or(hi, nan_or(x, x > hi ? hi : x));
}

at::Tensor run_clamp(const char* op, const at::Tensor& out, const at::Tensor& self,
                     const at::Tensor* min, const at::Tensor* max) {
  at::native::check_clamp_args(min != nullptr, max != nullptr, self, op);
  TensorIteratorConfig config(op);
  config.add_output(out).add_input(self);
  if (min != nullptr) config.add_input(*min);
  if (max != nullptr) config.add_input(*max);
  TensorIterator iter(config);
  EMBER_DISPATCH_ALL_TYPES_BUT_BOOL(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    auto v = [](scalar_t x) { return static_cast<acc_t>(x); };
    if (min != nullptr && max != nullptr) {
      ternary_loop<scalar_t, scalar_t, scalar_t, scalar_t>(
          iter, [&v](scalar_t x, scalar_t lo, scalar_t hi) {
            return static_cast<scalar_t>(clamp_above(clamp_below(v(x), v(lo)), v(hi)));
          });
    } else if (min != nullptr) {
      binary_loop<scalar_t, scalar_t>(iter, [&v](scalar_t x, scalar_t lo) {
        return static_cast<scalar_t>(clamp_below(v(x), v(lo)));
      });
    } else {
      binary_loop<scalar_t, scalar_t>(iter, [&v](scalar_t x, scalar_t hi) {
        return static_cast<scalar_t>(clamp_above(v(x), v(hi)));
      });
    }
  });
  return iter.output();
}

// The bounds as wrapped numbers, so that they promote as Python numbers do.
struct ScalarBounds {
  ScalarBounds(const std::optional<c10::Scalar>& min, const std::optional<c10::Scalar>& max,
               const char* op) {
    if (min.has_value()) lo = wrap_scalar(*min, op);
    if (max.has_value()) hi = wrap_scalar(*max, op);
  }
  const at::Tensor* min() const { return lo.defined() ? &lo : nullptr; }
  const at::Tensor* max() const { return hi.defined() ? &hi : nullptr; }
  at::Tensor lo, hi;
};

const at::Tensor* defined_or_null(const std::optional<at::Tensor>& t) {
  return t.has_value() && t->defined() ? &*t : nullptr;
}

// ---- addcmul / addcdiv -------------------------------------------------------------


at::Tensor run_addcmul(const char* op, const at::Tensor& out, const at::Tensor& self,
                       const at::Tensor& t1, const at::Tensor& t2,
                       const c10::Scalar& value) {
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(self)
                          .add_input(t1).add_input(t2));
  at::native::check_addc_value(iter.common_dtype(), value, op);
  EMBER_DISPATCH_ALL_TYPES_BUT_BOOL(iter.common_dtype(), op, [&] {
    if constexpr (std::is_integral_v<scalar_t>) {
      using U = wrap_t<scalar_t>;
      const auto w = static_cast<U>(value.toLong());
      ternary_loop<scalar_t, scalar_t, scalar_t, scalar_t>(
          iter, [w](scalar_t a, scalar_t b, scalar_t c) {
            return static_cast<scalar_t>(static_cast<U>(a) +
                                         w * static_cast<U>(b) * static_cast<U>(c));
          });
    } else {
      using acc_t = opmath_t<scalar_t>;
      const auto w = value.to<acc_t>();
      ternary_loop<scalar_t, scalar_t, scalar_t, scalar_t>(
          iter, [w](scalar_t a, scalar_t b, scalar_t c) {
            return static_cast<scalar_t>(static_cast<acc_t>(a) + w * static_cast<acc_t>(b) *
                                                                     static_cast<acc_t>(c));
          });
    }
  });
  return iter.output();
}

at::Tensor run_addcdiv(const char* op, const at::Tensor& out, const at::Tensor& self,
                       const at::Tensor& t1, const at::Tensor& t2,
                       const c10::Scalar& value) {
  at::native::check_addcdiv_operands(t1, t2, op);
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(self)
                          .add_input(t1).add_input(t2));
  at::native::check_addc_value(iter.common_dtype(), value, op);
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const auto w = value.to<acc_t>();
    ternary_loop<scalar_t, scalar_t, scalar_t, scalar_t>(
        iter, [w](scalar_t a, scalar_t b, scalar_t c) {
          return static_cast<scalar_t>(static_cast<acc_t>(a) + w * static_cast<acc_t>(b) /
                                                                   static_cast<acc_t>(c));
        });
  });
  return iter.output();
}

// ---- lerp ----------------------------------------------------------------------------
//
// self + weight * (end - self), evaluated from the nearer end so that
// weight 1 gives exactly `end`. self, end (and a weight tensor) must share
// a floating dtype, as in PyTorch.

template <typename T>
inline T lerp_value(T a, T b, T w) {
  return std::abs(w) < T(0.5) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
}


at::Tensor run_lerp_scalar(const char* op, const at::Tensor& out, const at::Tensor& self,
                           const at::Tensor& end, const c10::Scalar& weight) {
  at::native::check_lerp_dtype(self, end, "end", op);
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(self)
                          .add_input(end));
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    const auto w = static_cast<acc_t>(weight.toDouble());
    binary_loop<scalar_t, scalar_t>(iter, [w](scalar_t a, scalar_t b) {
      return static_cast<scalar_t>(
          lerp_value(static_cast<acc_t>(a), static_cast<acc_t>(b), w));
    });
  });
  return iter.output();
}

at::Tensor run_lerp_tensor(const char* op, const at::Tensor& out, const at::Tensor& self,
                           const at::Tensor& end, const at::Tensor& weight) {
  at::native::check_lerp_dtype(self, end, "end", op);
  at::native::check_lerp_dtype(self, weight, "weight", op);
  TensorIterator iter(TensorIteratorConfig(op).add_output(out).add_input(self)
                          .add_input(end).add_input(weight));
  EMBER_DISPATCH_FLOATING_TYPES(iter.common_dtype(), op, [&] {
    using acc_t = opmath_t<scalar_t>;
    ternary_loop<scalar_t, scalar_t, scalar_t, scalar_t>(
        iter, [](scalar_t a, scalar_t b, scalar_t w) {
          return static_cast<scalar_t>(lerp_value(
              static_cast<acc_t>(a), static_cast<acc_t>(b), static_cast<acc_t>(w)));
        });
  });
  return iter.output();
}

}  // namespace

// ---- where ---------------------------------------------------------------------------

at::Tensor where_self(const at::Tensor& condition, const at::Tensor& self,
                      const at::Tensor& other) {
  return run_where("where", at::Tensor(), condition, self, other);
}
at::Tensor& where_self_out(const at::Tensor& condition, const at::Tensor& self,
                           const at::Tensor& other, at::Tensor& out) {
  check_out(out, "where");
  run_where("where", out, condition, self, other);
  return out;
}

// ---- clamp ---------------------------------------------------------------------------

at::Tensor clamp(const at::Tensor& self, const std::optional<c10::Scalar>& min,
                 const std::optional<c10::Scalar>& max) {
  const ScalarBounds b(min, max, "clamp");
  return run_clamp("clamp", at::Tensor(), self, b.min(), b.max());
}
at::Tensor& clamp_(at::Tensor& self, const std::optional<c10::Scalar>& min,
                   const std::optional<c10::Scalar>& max) {
  const ScalarBounds b(min, max, "clamp_");
  run_clamp("clamp_", self, self, b.min(), b.max());
  return self;
}
at::Tensor& clamp_out(const at::Tensor& self, const std::optional<c10::Scalar>& min,
                      const std::optional<c10::Scalar>& max, at::Tensor& out) {
  check_out(out, "clamp");
  const ScalarBounds b(min, max, "clamp");
  run_clamp("clamp", out, self, b.min(), b.max());
  return out;
}
at::Tensor clamp_tensor(const at::Tensor& self, const std::optional<at::Tensor>& min,
                        const std::optional<at::Tensor>& max) {
  return run_clamp("clamp", at::Tensor(), self, defined_or_null(min), defined_or_null(max));
}
at::Tensor& clamp_tensor_(at::Tensor& self, const std::optional<at::Tensor>& min,
                          const std::optional<at::Tensor>& max) {
  run_clamp("clamp_", self, self, defined_or_null(min), defined_or_null(max));
  return self;
}
at::Tensor& clamp_tensor_out(const at::Tensor& self, const std::optional<at::Tensor>& min,
                             const std::optional<at::Tensor>& max, at::Tensor& out) {
  check_out(out, "clamp");
  run_clamp("clamp", out, self, defined_or_null(min), defined_or_null(max));
  return out;
}

// clamp_min / clamp_max: one bound.
#define EMBER_CLAMP_ONE_SIDE_(name, is_min)                                              \
  at::Tensor name(const at::Tensor& self, const c10::Scalar& bound) {                    \
    const at::Tensor b = wrap_scalar(bound, #name);                                      \
    return run_clamp(#name, at::Tensor(), self, is_min ? &b : nullptr,                   \
                     is_min ? nullptr : &b);                                             \
  }                                                                                      \
  at::Tensor& name##_(at::Tensor& self, const c10::Scalar& bound) {                      \
    const at::Tensor b = wrap_scalar(bound, #name "_");                                  \
    run_clamp(#name "_", self, self, is_min ? &b : nullptr, is_min ? nullptr : &b);      \
    return self;                                                                         \
  }                                                                                      \
  at::Tensor& name##_out(const at::Tensor& self, const c10::Scalar& bound,               \
                         at::Tensor& out) {                                              \
    check_out(out, #name);                                                               \
    const at::Tensor b = wrap_scalar(bound, #name);                                      \
    run_clamp(#name, out, self, is_min ? &b : nullptr, is_min ? nullptr : &b);           \
    return out;                                                                          \
  }                                                                                      \
  at::Tensor name##_tensor(const at::Tensor& self, const at::Tensor& bound) {            \
    return run_clamp(#name, at::Tensor(), self, is_min ? &bound : nullptr,               \
                     is_min ? nullptr : &bound);                                         \
  }                                                                                      \
  at::Tensor& name##_tensor_(at::Tensor& self, const at::Tensor& bound) {                \
    run_clamp(#name "_", self, self, is_min ? &bound : nullptr, is_min ? nullptr : &bound); \
    return self;                                                                         \
  }                                                                                      \
  at::Tensor& name##_tensor_out(const at::Tensor& self, const at::Tensor& bound,         \
                                at::Tensor& out) {                                       \
    check_out(out, #name);                                                               \
    run_clamp(#name, out, self, is_min ? &bound : nullptr, is_min ? nullptr : &bound);   \
    return out;                                                                          \
  }
EMBER_CLAMP_ONE_SIDE_(clamp_min, true)
EMBER_CLAMP_ONE_SIDE_(clamp_max, false)
#undef EMBER_CLAMP_ONE_SIDE_

// ---- addcmul / addcdiv / lerp -------------------------------------------------------

#define EMBER_ADDC_KERNELS_(name)                                                        \
  at::Tensor name(const at::Tensor& self, const at::Tensor& tensor1,                     \
                  const at::Tensor& tensor2, const c10::Scalar& value) {                 \
    return run_##name(#name, at::Tensor(), self, tensor1, tensor2, value);               \
  }                                                                                      \
  at::Tensor& name##_(at::Tensor& self, const at::Tensor& tensor1,                       \
                      const at::Tensor& tensor2, const c10::Scalar& value) {             \
    run_##name(#name "_", self, self, tensor1, tensor2, value);                          \
    return self;                                                                         \
  }                                                                                      \
  at::Tensor& name##_out(const at::Tensor& self, const at::Tensor& tensor1,              \
                         const at::Tensor& tensor2, const c10::Scalar& value,            \
                         at::Tensor& out) {                                              \
    check_out(out, #name);                                                               \
    run_##name(#name, out, self, tensor1, tensor2, value);                               \
    return out;                                                                          \
  }
EMBER_ADDC_KERNELS_(addcmul)
EMBER_ADDC_KERNELS_(addcdiv)
#undef EMBER_ADDC_KERNELS_

at::Tensor lerp_scalar(const at::Tensor& self, const at::Tensor& end,
                       const c10::Scalar& weight) {
  return run_lerp_scalar("lerp", at::Tensor(), self, end, weight);
}
at::Tensor& lerp_scalar_(at::Tensor& self, const at::Tensor& end, const c10::Scalar& weight) {
  run_lerp_scalar("lerp_", self, self, end, weight);
  return self;
}
at::Tensor& lerp_scalar_out(const at::Tensor& self, const at::Tensor& end,
                            const c10::Scalar& weight, at::Tensor& out) {
  check_out(out, "lerp");
  run_lerp_scalar("lerp", out, self, end, weight);
  return out;
}
at::Tensor lerp_tensor(const at::Tensor& self, const at::Tensor& end,
                       const at::Tensor& weight) {
  return run_lerp_tensor("lerp", at::Tensor(), self, end, weight);
}
at::Tensor& lerp_tensor_(at::Tensor& self, const at::Tensor& end, const at::Tensor& weight) {
  run_lerp_tensor("lerp_", self, self, end, weight);
  return self;
}
at::Tensor& lerp_tensor_out(const at::Tensor& self, const at::Tensor& end,
                            const at::Tensor& weight, at::Tensor& out) {
  check_out(out, "lerp");
  run_lerp_tensor("lerp", out, self, end, weight);
  return out;
}

}  // namespace ember::cpu
