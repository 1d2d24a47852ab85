// c10/core/Scalar.h — c10::Scalar, one number of any dtype, held by value.
//
// A Scalar is what ops take where PyTorch takes a Python number: the `alpha`
// of add, the value of fill_, the bounds of clamp. It holds a double, an
// int64_t or a bool, and hands the value out as any dtype's C++ type with a
// checked conversion: a value the target cannot hold throws c10::Error instead
// of wrapping or becoming undefined behaviour.
//
//   c10::Scalar alpha = 2;                 // holds int64_t 2, type() == kLong
//   c10::Scalar eps = 1e-5;                // holds double, type() == kDouble
//   float a = alpha.to<float>();           // 2.0f
//   c10::Scalar(300).toByte();             // throws: uint8_t holds [0, 255]
//   std::cout << c10::Scalar(true);        // true
//
// Not a tensor: it has no device and no autograd history. Complex numbers
// and unsigned 64-bit values above INT64_MAX are not representable.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <type_traits>

#include "c10/core/ScalarType.h"
#include "c10/util/BFloat16.h"
#include "c10/util/Exception.h"
#include "c10/util/Half.h"

namespace c10 {

// Note [Scalar conversion rules]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The to*() accessors follow PyTorch's checked conversion ("value cannot be
// converted to type T without overflow"):
//   - A bool converts to anything, as 0 or 1.
//   - An integer converts to a signed integer type if it lies within that
//     type's range. To an unsigned type (uint8_t, bool) it converts if its
//     magnitude is at most the type's maximum, so negative integers wrap
//     modulo 2^bits: Scalar(-1).toByte() == 255, which is what lets
//     `uint8_tensor - 1` work as `uint8_tensor + 255`. Scalar(-256).toByte()
//     throws. Scalar(2).toBool() throws: bool holds [0, 1].
//   - A double converts to an integer type (bool included) if it is not NaN
//     and lies within the type's range; the fractional part is then dropped,
//     rounding toward zero: Scalar(2.7).toLong() == 2, Scalar(-2.7).toLong()
//     == -2, Scalar(0.5).toBool() == true. The range is checked on the value
//     before truncation, as PyTorch does, so Scalar(255.5).toByte() throws.
//     Negative doubles do not wrap: Scalar(-1.0).toByte() throws.
//   - A double converts to float, Half or BFloat16 if it is inf, NaN or a
//     finite value whose magnitude is at most the type's largest finite
//     value; it is then rounded to nearest. Scalar(1e40).toFloat() throws,
//     Scalar(INFINITY).toFloat() is inf, Scalar(1e-50).toFloat() is 0.
//   - An integer converts to float, BFloat16 and double always (rounding to
//     nearest), and to Half if its magnitude is at most 65504.
// A failed conversion throws c10::Error naming the accessor, the value, the
// target type and the range that type holds.

namespace detail {

// The number types Scalar::equal compares with: every arithmetic type but
// bool (which has its own overload), plus Half and BFloat16.
template <typename T>
struct is_scalar_comparable
    : std::integral_constant<bool, (std::is_arithmetic<T>::value &&
                                    !std::is_same<T, bool>::value) ||
                                       std::is_same<T, Half>::value ||
                                       std::is_same<T, BFloat16>::value> {};

}  // namespace detail

// c10::Scalar
//
// A number tagged as floating point (double), integral (int64_t) or boolean.
// Construction picks the tag from the argument's C++ type: floating types
// (float, double, c10::Half, c10::BFloat16) give a double, integer types
// (int8_t to int64_t, uint8_t, `long long`, `size_t`, ...) give an int64_t,
// and bool gives a bool. A bool never becomes an integer, and no other type
// (a pointer, a string literal) becomes a bool: those do not compile.
// Copying is trivial; a Scalar is a value type with no shared state, safe to
// use from any thread.
class Scalar {
 public:
  // c10::Scalar::Scalar()
  //
  // The integer 0, as in PyTorch.
  constexpr Scalar() : Scalar(int64_t{0}) {}

  // c10::Scalar::Scalar(floating point)
  //
  // Holds the value as a double. Exact for every float, Half and BFloat16.
  constexpr Scalar(double value) : tag_(Tag::Double), v_(value) {}
  constexpr Scalar(float value)
      : tag_(Tag::Double), v_(static_cast<double>(value)) {}
  Scalar(Half value)
      : tag_(Tag::Double), v_(static_cast<double>(static_cast<float>(value))) {}
  Scalar(BFloat16 value)
      : tag_(Tag::Double), v_(static_cast<double>(static_cast<float>(value))) {}

  // c10::Scalar::Scalar(integer)
  //
  // Holds the value as an int64_t. One template takes every integer type, so
  // that `int`, `long`, `long long` and `unsigned` all work without
  // ambiguity. An unsigned 64-bit value above INT64_MAX does not fit and
  // throws c10::Error.
  template <typename T, std::enable_if_t<std::is_integral<T>::value &&
                                             !std::is_same<T, bool>::value,
                                         int> = 0>
  constexpr Scalar(T value) : tag_(Tag::Long), v_(integer_value(value)) {}

  // c10::Scalar::Scalar(bool)
  //
  // Holds a bool. A template that accepts only bool itself, so a pointer or
  // anything else that converts to bool is not silently accepted.
  template <typename T, std::enable_if_t<std::is_same<T, bool>::value, int> = 0>
  constexpr Scalar(T value)
      : tag_(Tag::Bool), v_(static_cast<int64_t>(value ? 1 : 0)) {}

  // c10::Scalar::isFloatingPoint / isIntegral / isBoolean / isComplex
  //
  // Which kind of value is held. isIntegral(true) also counts a bool, as
  // c10::isIntegralType does. Ember has no complex Scalars: isComplex() is
  // always false and exists for code written against PyTorch.
  bool isFloatingPoint() const { return tag_ == Tag::Double; }
  bool isIntegral(bool includeBool) const {
    return tag_ == Tag::Long || (includeBool && tag_ == Tag::Bool);
  }
  bool isBoolean() const { return tag_ == Tag::Bool; }
  bool isComplex() const { return false; }

  // c10::Scalar::type
  //
  // The dtype of the held value: kDouble, kLong or kBool. A Scalar made from
  // a float or an int32_t still reports kDouble or kLong, as in PyTorch.
  ScalarType type() const {
    switch (tag_) {
      case Tag::Double:
        return ScalarType::Double;
      case Tag::Long:
        return ScalarType::Long;
      case Tag::Bool:
        break;
    }
    return ScalarType::Bool;
  }

  // c10::Scalar::toDouble / toFloat / toHalf / toBFloat16 / toLong / toInt /
  // toShort / toChar / toByte / toBool
  //
  // The value as the named dtype's C++ type (Char is int8_t, Byte is
  // uint8_t). Throws c10::Error when the value does not fit; see
  // Note [Scalar conversion rules].
  double toDouble() const;
  float toFloat() const;
  Half toHalf() const;
  BFloat16 toBFloat16() const;
  int64_t toLong() const;
  int toInt() const;
  int16_t toShort() const;
  int8_t toChar() const;
  uint8_t toByte() const;
  bool toBool() const;

  // c10::Scalar::to<T>
  //
  // The accessor for C++ type T, for generic code: to<float>() is toFloat().
  // T is one of double, float, Half, BFloat16, int64_t (or another signed
  // 64-bit type such as `long long`), int32_t, int16_t, int8_t, uint8_t or
  // bool; any other T fails to compile.
  template <typename T>
  T to() const;

  // c10::Scalar::operator-
  //
  // The negated value, with the same tag. Throws c10::Error for a bool
  // (PyTorch has no boolean negative) and for INT64_MIN, whose negation
  // does not fit in int64_t.
  Scalar operator-() const;

  // c10::Scalar::equal
  //
  // Whether the held value equals `num` exactly, compared as numbers:
  // Scalar(2).equal(2.0) and Scalar(2.0).equal(2) are true, Scalar(2.5)
  // .equal(2) is false. A bool Scalar equals only a bool, and a bool only a
  // bool Scalar: Scalar(true).equal(1) and Scalar(1).equal(true) are false.
  // No rounding takes part: Scalar(int64_t{1} << 53 | 1).equal(0x1p53) is
  // false although the integer rounds to that double.
  template <typename T,
            std::enable_if_t<detail::is_scalar_comparable<T>::value, int> = 0>
  bool equal(T num) const;
  bool equal(bool num) const { return tag_ == Tag::Bool && (v_.i != 0) == num; }

 private:
  enum class Tag : uint8_t { Double, Long, Bool };

  // Only the member named by tag_ is ever read. A bool is kept in `i`, as
  // 0 or 1.
  union Value {
    double d;
    int64_t i;
    constexpr explicit Value(double x) : d(x) {}
    constexpr explicit Value(int64_t x) : i(x) {}
  };

  template <typename T>
  static constexpr int64_t integer_value(T value) {
    static_assert(sizeof(T) <= sizeof(int64_t),
                  "c10::Scalar: integers wider than 64 bits are not supported");
    if constexpr (std::is_unsigned<T>::value && sizeof(T) == sizeof(int64_t)) {
      if (value > static_cast<T>(std::numeric_limits<int64_t>::max())) {
        report_unsigned_too_large(static_cast<uint64_t>(value));
      }
    }
    return static_cast<int64_t>(value);
  }

  // The conversion behind every to*() accessor; `accessor`, `type_name` and
  // `range` only feed the error message.
  template <typename To>
  To checked_to(const char* accessor, const char* type_name,
                const char* range) const;

  bool equal_integer(int64_t num) const;
  bool equal_unsigned(uint64_t num) const;
  bool equal_floating(double num) const;

  [[noreturn]] C10_NOINLINE C10_COLD static void report_unsigned_too_large(
      uint64_t value);
  [[noreturn]] C10_NOINLINE C10_COLD void report_overflow(
      const char* accessor, const char* type_name, const char* range) const;

  Tag tag_;
  Value v_;
};

// c10::operator<<(std::ostream&, const Scalar&)
//
// Prints the value as PyTorch does, except that a double gets as many digits
// as it needs to read back exactly: integers plainly ("3", "-7"), doubles in
// the shortest form that round-trips ("0.1", "2.5", "2", "1e+40", "inf",
// "nan"), bools as "true" or "false". Ignores the stream's precision flags.
std::ostream& operator<<(std::ostream& out, const Scalar& s);

// c10::toString(const Scalar&)
//
// What operator<< prints, as a string.
std::string toString(const Scalar& s);

// ---------------------------------------------------------------------------
// Implementation. See Note [Scalar conversion rules].

namespace detail {

template <typename T>
struct scalar_dependent_false : std::false_type {};

// Whether integer `v` converts to integer type To.
template <typename To>
constexpr bool scalar_integer_fits(int64_t v) {
  using Limits = std::numeric_limits<To>;
  if constexpr (std::is_same<To, int64_t>::value) {
    return true;
  } else if constexpr (Limits::is_signed) {
    return v >= static_cast<int64_t>(Limits::lowest()) &&
           v <= static_cast<int64_t>(Limits::max());
  } else {
    // Unsigned: negatives wrap, down to minus the maximum.
    constexpr int64_t max = static_cast<int64_t>(Limits::max());
    return v >= -max && v <= max;
  }
}

// Whether double `v` converts to integer type To (bool included).
template <typename To>
bool scalar_double_fits_integer(double v) {
  using Limits = std::numeric_limits<To>;
  static_assert(Limits::digits < 64, "no unsigned 64-bit targets");
  // lowest() is 0 or -2^digits, exact in a double. NaN fails every
  // comparison below, so it never fits.
  constexpr double lowest = static_cast<double>(Limits::lowest());
  if constexpr (Limits::digits <= std::numeric_limits<double>::digits) {
    constexpr double max = static_cast<double>(Limits::max());  // exact
    return v >= lowest && v <= max;
  } else {
    // max() = 2^digits - 1 is not a double; the doubles not above it are
    // exactly those below 2^digits, which is.
    constexpr double max_plus_one =
        static_cast<double>(uint64_t{1} << Limits::digits);
    return v >= lowest && v < max_plus_one;
  }
}

// Whether double `v` converts to a floating type whose largest finite value
// is `max`: inf and NaN always do.
inline bool scalar_double_fits_floating(double v, double max) {
  return !std::isfinite(v) || std::fabs(v) <= max;
}

// Largest finite values, written as hexadecimal literals so no header's
// numeric_limits has to be constexpr-convertible to double.
constexpr double kScalarFloatMax = 0x1.fffffep127;  // FLT_MAX
constexpr double kScalarHalfMax = 0x1.ffcp15;       // 65504
constexpr double kScalarBFloat16Max = 0x1.fep127;   // 0x7F7F

}  // namespace detail

template <typename To>
To Scalar::checked_to(const char* accessor, const char* type_name,
                      const char* range) const {
  switch (tag_) {
    case Tag::Double: {
      const double d = v_.d;
      if constexpr (std::is_same<To, double>::value) {
        return d;
      } else if constexpr (std::is_same<To, float>::value) {
        if (C10_LIKELY(detail::scalar_double_fits_floating(
                d, detail::kScalarFloatMax)))
          return static_cast<float>(d);
      } else if constexpr (std::is_same<To, Half>::value) {
        if (C10_LIKELY(
                detail::scalar_double_fits_floating(d, detail::kScalarHalfMax)))
          return Half(static_cast<float>(d));
      } else if constexpr (std::is_same<To, BFloat16>::value) {
        if (C10_LIKELY(detail::scalar_double_fits_floating(
                d, detail::kScalarBFloat16Max)))
          return BFloat16(static_cast<float>(d));
      } else {
        if (C10_LIKELY(detail::scalar_double_fits_integer<To>(d)))
          return static_cast<To>(d);  // truncates toward zero
      }
      break;
    }
    case Tag::Long:
    case Tag::Bool: {
      // A bool is 0 or 1, which every target holds.
      const int64_t i = v_.i;
      if constexpr (std::is_same<To, double>::value ||
                    std::is_same<To, float>::value) {
        return static_cast<To>(i);
      } else if constexpr (std::is_same<To, Half>::value) {
        if (C10_LIKELY(i >= -65504 && i <= 65504))
          return Half(static_cast<float>(i));
      } else if constexpr (std::is_same<To, BFloat16>::value) {
        return BFloat16(static_cast<float>(i));
      } else if constexpr (std::is_same<To, bool>::value) {
        if (C10_LIKELY(detail::scalar_integer_fits<bool>(i))) return i != 0;
      } else {
        if (C10_LIKELY(detail::scalar_integer_fits<To>(i)))
          return static_cast<To>(i);  // wraps modulo 2^bits if unsigned
      }
      break;
    }
  }
  report_overflow(accessor, type_name, range);
}

inline double Scalar::toDouble() const {
  return checked_to<double>("toDouble", "double", "");
}
inline float Scalar::toFloat() const {
  return checked_to<float>("toFloat", "float",
                           "finite values up to about +-3.40282e+38");
}
inline Half Scalar::toHalf() const {
  return checked_to<Half>("toHalf", "c10::Half",
                          "finite values in [-65504, 65504]");
}
inline BFloat16 Scalar::toBFloat16() const {
  return checked_to<BFloat16>("toBFloat16", "c10::BFloat16",
                              "finite values up to about +-3.38953e+38");
}
inline int64_t Scalar::toLong() const {
  return checked_to<int64_t>("toLong", "int64_t",
                             "[-9223372036854775808, 9223372036854775807]");
}
inline int Scalar::toInt() const {
  return checked_to<int>("toInt", "int", "[-2147483648, 2147483647]");
}
inline int16_t Scalar::toShort() const {
  return checked_to<int16_t>("toShort", "int16_t", "[-32768, 32767]");
}
inline int8_t Scalar::toChar() const {
  return checked_to<int8_t>("toChar", "int8_t", "[-128, 127]");
}
inline uint8_t Scalar::toByte() const {
  return checked_to<uint8_t>("toByte", "uint8_t", "[0, 255]");
}
inline bool Scalar::toBool() const {
  return checked_to<bool>("toBool", "bool", "[0, 1]");
}

template <typename T>
T Scalar::to() const {
  if constexpr (std::is_same<T, double>::value) {
    return toDouble();
  } else if constexpr (std::is_same<T, float>::value) {
    return toFloat();
  } else if constexpr (std::is_same<T, Half>::value) {
    return toHalf();
  } else if constexpr (std::is_same<T, BFloat16>::value) {
    return toBFloat16();
  } else if constexpr (std::is_same<T, bool>::value) {
    return toBool();
  } else if constexpr (std::is_same<T, uint8_t>::value) {
    return toByte();
  } else if constexpr (std::is_same<T, int8_t>::value) {
    return toChar();
  } else if constexpr (std::is_same<T, int16_t>::value) {
    return toShort();
  } else if constexpr (std::is_same<T, int32_t>::value) {
    return toInt();
  } else if constexpr (std::is_integral<T>::value && std::is_signed<T>::value &&
                       sizeof(T) == sizeof(int64_t)) {
    return static_cast<T>(toLong());
  } else {
    static_assert(detail::scalar_dependent_false<T>::value,
                  "c10::Scalar::to<T>: T must be double, float, c10::Half, "
                  "c10::BFloat16, int64_t, int32_t, int16_t, int8_t, uint8_t "
                  "or bool");
  }
}

template <typename T,
          std::enable_if_t<detail::is_scalar_comparable<T>::value, int>>
bool Scalar::equal(T num) const {
  if constexpr (std::is_integral<T>::value && std::is_unsigned<T>::value &&
                sizeof(T) == sizeof(int64_t)) {
    return equal_unsigned(static_cast<uint64_t>(num));
  } else if constexpr (std::is_integral<T>::value) {
    return equal_integer(static_cast<int64_t>(num));
  } else if constexpr (std::is_same<T, Half>::value ||
                       std::is_same<T, BFloat16>::value) {
    return equal_floating(static_cast<double>(static_cast<float>(num)));
  } else {
    static_assert(sizeof(T) <= sizeof(double),
                  "c10::Scalar::equal: long double is not supported");
    return equal_floating(static_cast<double>(num));
  }
}

}  // namespace c10
