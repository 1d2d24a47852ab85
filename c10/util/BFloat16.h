// c10/util/BFloat16.h — c10::BFloat16, the "brain floating point" type.
//
// A BFloat16 is the top 16 bits of an IEEE 754 binary32: 1 sign bit, float's
// 8 exponent bits and 7 mantissa bits. It has float's range with much less
// precision, so it overflows where Half would but loses more per rounding.
// Like c10::Half it is storage only: operations convert to float, compute
// there and round back (See Note [Half arithmetic goes through float] in
// c10/util/Half.h; the argument holds for BFloat16 too).
//
//   c10::BFloat16 b = 3.14159f;          // rounds to 3.140625
//   float f = b;                         // exact: append 16 zero bits
//   c10::BFloat16 one(0x3F80, c10::BFloat16::from_bits());
//
// Not for binary16: see c10/util/Half.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <type_traits>

namespace c10 {
namespace detail {

// c10::detail::f32_from_bits
//
// The float whose top 16 bits are `bits` and whose low 16 bits are zero:
// the exact value of the BFloat16 with that pattern (NaN payloads included).
inline float f32_from_bits(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof(f));
  return f;
}

// c10::detail::bits_from_f32
//
// The top 16 bits of `f`: truncation toward zero. Can turn a NaN whose payload
// sits in the low bits into an infinity; use round_to_nearest_even unless you
// know `f` is already representable.
inline uint16_t bits_from_f32(float f) {
  uint32_t wide;
  std::memcpy(&wide, &f, sizeof(wide));
  return static_cast<uint16_t>(wide >> 16);
}

// c10::detail::round_to_nearest_even
//
// The bit pattern of the BFloat16 nearest to `f`, ties to even. Finite values
// beyond the largest BFloat16 round to ±inf exactly when IEEE rounding says
// so (at or above max + half an ulp). A NaN stays a NaN: it keeps its sign
// and top payload bits and gets the quiet bit, so it cannot become inf.
inline uint16_t round_to_nearest_even(float f) {
  uint32_t wide;
  std::memcpy(&wide, &f, sizeof(wide));
  if ((wide & 0x7FFFFFFFu) > 0x7F800000u) {  // NaN.
    return static_cast<uint16_t>((wide >> 16) | 0x0040u);
  }
  // Add just under half an ulp of the result, plus one more if the kept part
  // is odd; carries ripple into the exponent (and from the largest finite
  // value into inf). Cannot overflow 32 bits: the magnitude is at most
  // 0x7F800000 here.
  const uint32_t odd = (wide >> 16) & 1u;
  return static_cast<uint16_t>((wide + 0x7FFFu + odd) >> 16);
}

}  // namespace detail

// c10::BFloat16
//
// A bfloat16 value. Trivial like a built-in type: `BFloat16 b;` leaves `x`
// uninitialized and `BFloat16 b{};` is +0. Converts implicitly to and from
// float, as PyTorch's does.
struct alignas(2) BFloat16 {
  // The bit pattern: the top half of the equivalent float's.
  uint16_t x;

  // c10::BFloat16::from_bits
  //
  // Tag for the constructor that takes a bit pattern instead of a value.
  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return from_bits_t(); }

  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  BFloat16(float value) : x(detail::round_to_nearest_even(value)) {}

  operator float() const { return detail::f32_from_bits(x); }
};

static_assert(sizeof(BFloat16) == 2, "c10::BFloat16 must be exactly 16 bits");
static_assert(std::is_trivial<BFloat16>::value,
              "c10::BFloat16 must be trivial so tensor storage can hold it "
              "as raw memory");

// The operators mirror c10::Half's: BFloat16 with BFloat16 or any integer
// gives BFloat16, with float gives float, with double gives double, and
// comparisons go through float.

// c10::operator+ / - / * / (BFloat16, BFloat16)
inline BFloat16 operator+(const BFloat16& a, const BFloat16& b) {
  return static_cast<float>(a) + static_cast<float>(b);
}
inline BFloat16 operator-(const BFloat16& a, const BFloat16& b) {
  return static_cast<float>(a) - static_cast<float>(b);
}
inline BFloat16 operator*(const BFloat16& a, const BFloat16& b) {
  return static_cast<float>(a) * static_cast<float>(b);
}
inline BFloat16 operator/(const BFloat16& a, const BFloat16& b) {
  return static_cast<float>(a) / static_cast<float>(b);
}

// c10::operator-(BFloat16)
//
// Flips the sign bit, as IEEE 754 negation does (also for NaN and zero).
inline BFloat16 operator-(const BFloat16& a) {
  return BFloat16(static_cast<uint16_t>(a.x ^ 0x8000u), BFloat16::from_bits());
}

// c10::operator+= / -= / *= / /= (BFloat16&, BFloat16)
inline BFloat16& operator+=(BFloat16& a, const BFloat16& b) {
  return a = a + b;
}
inline BFloat16& operator-=(BFloat16& a, const BFloat16& b) {
  return a = a - b;
}
inline BFloat16& operator*=(BFloat16& a, const BFloat16& b) {
  return a = a * b;
}
inline BFloat16& operator/=(BFloat16& a, const BFloat16& b) {
  return a = a / b;
}

// BFloat16 with float gives float. (`float_acc += h` needs no overload: the
// built-in float += float is the best match.)
inline float operator+(BFloat16 a, float b) {
  return static_cast<float>(a) + b;
}
inline float operator-(BFloat16 a, float b) {
  return static_cast<float>(a) - b;
}
inline float operator*(BFloat16 a, float b) {
  return static_cast<float>(a) * b;
}
inline float operator/(BFloat16 a, float b) {
  return static_cast<float>(a) / b;
}
inline float operator+(float a, BFloat16 b) {
  return a + static_cast<float>(b);
}
inline float operator-(float a, BFloat16 b) {
  return a - static_cast<float>(b);
}
inline float operator*(float a, BFloat16 b) {
  return a * static_cast<float>(b);
}
inline float operator/(float a, BFloat16 b) {
  return a / static_cast<float>(b);
}

// BFloat16 with double gives double.
inline double operator+(BFloat16 a, double b) {
  return static_cast<double>(a) + b;
}
inline double operator-(BFloat16 a, double b) {
  return static_cast<double>(a) - b;
}
inline double operator*(BFloat16 a, double b) {
  return static_cast<double>(a) * b;
}
inline double operator/(BFloat16 a, double b) {
  return static_cast<double>(a) / b;
}
inline double operator+(double a, BFloat16 b) {
  return a + static_cast<double>(b);
}
inline double operator-(double a, BFloat16 b) {
  return a - static_cast<double>(b);
}
inline double operator*(double a, BFloat16 b) {
  return a * static_cast<double>(b);
}
inline double operator/(double a, BFloat16 b) {
  return a / static_cast<double>(b);
}

// BFloat16 with any integer gives BFloat16.
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline BFloat16 operator+(BFloat16 a, I b) {
  return a + BFloat16(static_cast<float>(b));
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline BFloat16 operator-(BFloat16 a, I b) {
  return a - BFloat16(static_cast<float>(b));
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline BFloat16 operator*(BFloat16 a, I b) {
  return a * BFloat16(static_cast<float>(b));
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline BFloat16 operator/(BFloat16 a, I b) {
  return a / BFloat16(static_cast<float>(b));
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline BFloat16 operator+(I a, BFloat16 b) {
  return BFloat16(static_cast<float>(a)) + b;
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline BFloat16 operator-(I a, BFloat16 b) {
  return BFloat16(static_cast<float>(a)) - b;
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline BFloat16 operator*(I a, BFloat16 b) {
  return BFloat16(static_cast<float>(a)) * b;
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline BFloat16 operator/(I a, BFloat16 b) {
  return BFloat16(static_cast<float>(a)) / b;
}

// c10::operator<<(std::ostream&, BFloat16)
//
// Prints the value as a float would print ("1.5", "inf", "nan").
inline std::ostream& operator<<(std::ostream& out, const BFloat16& value) {
  return out << static_cast<float>(value);
}

}  // namespace c10

namespace std {

// std::numeric_limits<c10::BFloat16>
//
// The bfloat16 format's properties; the values are exact bit patterns.
template <>
class numeric_limits<c10::BFloat16> {
 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr auto has_denorm = std::denorm_present;
  static constexpr bool has_denorm_loss = false;
  static constexpr auto round_style = std::round_to_nearest;
  static constexpr bool is_iec559 = false;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = 8;
  static constexpr int digits10 = 2;
  static constexpr int max_digits10 = 4;
  static constexpr int radix = 2;
  static constexpr int min_exponent = -125;
  static constexpr int min_exponent10 = -37;
  static constexpr int max_exponent = 128;
  static constexpr int max_exponent10 = 38;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;

  // 2^-126, the smallest positive normal (as for float).
  static constexpr c10::BFloat16 min() {
    return {0x0080, c10::BFloat16::from_bits()};
  }
  static constexpr c10::BFloat16 lowest() {
    return {0xFF7F, c10::BFloat16::from_bits()};
  }
  // (2 - 2^-7) * 2^127, about 3.39e38.
  static constexpr c10::BFloat16 max() {
    return {0x7F7F, c10::BFloat16::from_bits()};
  }
  // 2^-7, the gap between 1 and the next BFloat16.
  static constexpr c10::BFloat16 epsilon() {
    return {0x3C00, c10::BFloat16::from_bits()};
  }
  static constexpr c10::BFloat16 round_error() {
    return {0x3F00, c10::BFloat16::from_bits()};
  }
  static constexpr c10::BFloat16 infinity() {
    return {0x7F80, c10::BFloat16::from_bits()};
  }
  static constexpr c10::BFloat16 quiet_NaN() {
    return {0x7FC0, c10::BFloat16::from_bits()};
  }
  static constexpr c10::BFloat16 signaling_NaN() {
    return {0x7FA0, c10::BFloat16::from_bits()};
  }
  // 2^-133, the smallest positive subnormal.
  static constexpr c10::BFloat16 denorm_min() {
    return {0x0001, c10::BFloat16::from_bits()};
  }
};

}  // namespace std
