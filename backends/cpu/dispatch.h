// backends/cpu/dispatch.h — from a runtime dtype to a kernel instantiated for
// its C++ type, and the element conversions kernels share.
//
//   EMBER_DISPATCH_ALL_TYPES(iter.common_dtype(), "add", [&] {
//     run_add<scalar_t>(iter, alpha);      // scalar_t is the dtype's C++ type
//   });
//
// The cases are generated from C10_FORALL_SCALAR_TYPES, so a new dtype
// reaches every kernel that dispatches over all types. A dtype outside the
// macro's set throws c10::Error naming the op and the dtype. Internal to the
// CPU plugin.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "c10/core/ScalarType.h"
#include "c10/util/BFloat16.h"
#include "c10/util/Exception.h"
#include "c10/util/Half.h"

namespace ember::cpu {

// ember::cpu::TypeTag<T> — carries a C++ type through a generic lambda.
template <typename T>
struct TypeTag {
  using type = T;
};

// The dtype sets the dispatch macros accept.
enum class TypeSet {
  kAll,            // the ten dtypes
  kAllButBool,     // the nine numeric ones
  kFloating,       // Float, Double, Half, BFloat16
};

constexpr bool in_type_set(TypeSet set, c10::ScalarType t) {
  switch (set) {
    case TypeSet::kAll:
      return true;
    case TypeSet::kAllButBool:
      return t != c10::ScalarType::Bool;
    case TypeSet::kFloating:
      return c10::isFloatingType(t);
  }
  return false;
}

namespace detail {

[[noreturn]] void dispatch_fail(const char* op, c10::ScalarType t, TypeSet set);

}  // namespace detail

// ember::cpu::dispatch_type_set<Set>(dtype, op, f)
//
// Calls `f(TypeTag<T>{})` with T the C++ type of `dtype`, instantiating `f`
// only for the dtypes in Set. Every instantiation must return the same type.
template <TypeSet Set, typename F>
auto dispatch_type_set(c10::ScalarType dtype, const char* op, F&& f) {
  switch (dtype) {
#define EMBER_DISPATCH_CASE_(cpp_type, name)                        \
  case c10::ScalarType::name:                                      \
    if constexpr (in_type_set(Set, c10::ScalarType::name)) {       \
      return f(TypeTag<cpp_type>{});                               \
    }                                                              \
    break;
    C10_FORALL_SCALAR_TYPES(EMBER_DISPATCH_CASE_)
#undef EMBER_DISPATCH_CASE_
    default:
      break;
  }
  detail::dispatch_fail(op, dtype, Set);
}

}  // namespace ember::cpu

// EMBER_DISPATCH_ALL_TYPES(dtype, "op", [&] { … scalar_t … })
// EMBER_DISPATCH_ALL_TYPES_BUT_BOOL(dtype, "op", [&] { … })
// EMBER_DISPATCH_FLOATING_TYPES(dtype, "op", [&] { … })
//
// Runs the lambda with `scalar_t` naming the C++ type of `dtype`. The
// lambda is pasted inside a generic lambda that declares scalar_t, which is
// how the X-macro list can generate the cases without seeing the lambda.
#define EMBER_DISPATCH_TYPE_SET_(SET, TYPE, NAME, ...)                     \
  ::ember::cpu::dispatch_type_set<SET>(                                    \
      TYPE, NAME, [&](auto ember_type_tag_) {                              \
        using scalar_t = typename decltype(ember_type_tag_)::type;         \
        return (__VA_ARGS__)();                                            \
      })
#define EMBER_DISPATCH_ALL_TYPES(TYPE, NAME, ...) \
  EMBER_DISPATCH_TYPE_SET_(::ember::cpu::TypeSet::kAll, TYPE, NAME, __VA_ARGS__)
#define EMBER_DISPATCH_ALL_TYPES_BUT_BOOL(TYPE, NAME, ...)                 \
  EMBER_DISPATCH_TYPE_SET_(::ember::cpu::TypeSet::kAllButBool, TYPE, NAME, \
                           __VA_ARGS__)
#define EMBER_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)                   \
  EMBER_DISPATCH_TYPE_SET_(::ember::cpu::TypeSet::kFloating, TYPE, NAME, \
                           __VA_ARGS__)

namespace ember::cpu {

template <typename T>
constexpr bool is_reduced_float_v =
    std::is_same_v<T, c10::Half> || std::is_same_v<T, c10::BFloat16>;

// ember::cpu::opmath_t<T> — the type arithmetic on T is done in: float for
// Half and BFloat16 (as PyTorch does), T itself otherwise.
template <typename T>
using opmath_t = std::conditional_t<is_reduced_float_v<T>, float, T>;

// ember::cpu::is_nan(v) — std::isnan for floating types, false for the
// others (which std::isnan does not take, and whose v != v a compiler
// flags as a self-comparison).
template <typename T>
inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v != v;
  } else {
    (void)v;
    return false;
  }
}

// ember::cpu::lowest_value<T>() / highest_value<T>() — below / above every
// value of T: -inf / inf for floating types, the extreme values otherwise
// (the identity of max / min).
template <typename T>
constexpr T lowest_value() {
  using L = std::numeric_limits<T>;
  if constexpr (L::has_infinity) {
    return -L::infinity();
  } else {
    return L::lowest();
  }
}
template <typename T>
constexpr T highest_value() {
  using L = std::numeric_limits<T>;
  if constexpr (L::has_infinity) {
    return L::infinity();
  } else {
    return L::max();
  }
}

// ember::cpu::wrap_t<T> — an unsigned type for wrapping integer arithmetic.
// Signed overflow is undefined behaviour; PyTorch's results wrap, so
// integer kernels compute in unsigned types (never narrower than unsigned
// int, so that the operands are not promoted back to signed int) and
// convert back, which wraps.
template <typename T>
using wrap_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                  std::make_unsigned_t<T>>;

// A floating value converted to an integral type without undefined
// behaviour: truncated toward zero to int64 (NaN and values outside int64
// map to INT64_MIN, what x86's conversion instruction gives), then wrapped
// to the target's width, as PyTorch does for uint8 (-2.5 -> 254). A plain
// static_cast of an out-of-range value is undefined (UBSan's
// float-cast-overflow).
template <typename To>
inline To floating_to_integral(double d) {
  constexpr double kTwo63 = 9223372036854775808.0;
  const int64_t i =
      d >= -kTwo63 && d < kTwo63 ? static_cast<int64_t>(d) : std::numeric_limits<int64_t>::min();
  return static_cast<To>(static_cast<wrap_t<To>>(static_cast<uint64_t>(i)));
}

// ember::cpu::convert<To>(from) — one element from one dtype to another,
// as copy_ and type promotion do: numbers keep their value where the target
// holds it (floating to integral truncates toward zero, out-of-range values
// wrap: See floating_to_integral), anything nonzero is true, Half and
// BFloat16 go through float.
template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<opmath_t<From>>(v) != opmath_t<From>(0);
  } else if constexpr (std::is_integral_v<To> &&
                       (is_reduced_float_v<From> || std::is_floating_point_v<From>)) {
    return floating_to_integral<To>(static_cast<double>(static_cast<opmath_t<From>>(v)));
  } else if constexpr (is_reduced_float_v<From>) {
    return static_cast<To>(static_cast<float>(v));
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ember::cpu
