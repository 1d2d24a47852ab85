// c10/util/Half.h — c10::Half, the IEEE 754 binary16 ("float16") type.
//
// A Half is 16 bits of storage: 1 sign bit, 5 exponent bits and 10 mantissa
// bits. It has no arithmetic of its own: every operation converts to float,
// computes there and rounds back (See Note [Half arithmetic goes through
// float]). Use it for storing tensor elements; accumulate in float.
//
//   c10::Half h = 0.1f;   // nearest half, ties to even: 0.0999755859375
//   float f = h;          // exact
//   c10::Half one(0x3C00, c10::Half::from_bits());  // 1.0 from its pattern
//
// Conversions are written with integer bit manipulation, so results do not
// depend on the host's floating-point environment or on F16C being present.
// Not for bfloat16: see c10/util/BFloat16.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <ostream>
#include <type_traits>

namespace c10 {
namespace detail {

// c10::detail::fp32_from_bits / c10::detail::fp32_to_bits
//
// Reinterpret between a float and its IEEE 754 binary32 bit pattern.
inline float fp32_from_bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

inline uint32_t fp32_to_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

// c10::detail::fp16_ieee_to_fp32_value
//
// The float whose value equals the half with bit pattern `h`. Exact for every
// pattern: binary32 holds every binary16 value, subnormals included. A NaN
// keeps its sign and payload (shifted into the top mantissa bits), so a
// signaling NaN stays signaling here.
inline float fp16_ieee_to_fp32_value(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1Fu) {  // Inf or NaN.
    return fp32_from_bits(sign | 0x7F800000u | (mantissa << 13));
  }
  if (exponent != 0) {  // Normal: rebias the exponent from 15 to 127.
    return fp32_from_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  }
  if (mantissa == 0) {  // ±0.
    return fp32_from_bits(sign);
  }
  // Subnormal: the value is (mantissa / 1024) * 2^-14. Shift the leading one
  // up to the implicit-bit position (bit 10), lowering the exponent once per
  // shift; float has the range to hold the result as a normal number.
  uint32_t biased_exponent = 113;  // 2^-14 in binary32's bias.
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --biased_exponent;
  }
  return fp32_from_bits(sign | (biased_exponent << 23) |
                        ((mantissa & 0x3FFu) << 13));
}

// c10::detail::fp16_ieee_from_fp32_value
//
// The bit pattern of the half nearest to `f`, ties to even (IEEE 754's
// default rounding). Magnitudes at or above 65520 (halfway between the
// largest half, 65504, and 2^16) become ±inf; magnitudes at or below 2^-25
// (half the smallest subnormal) become ±0. A NaN stays a NaN: it keeps its
// sign and the top 10 bits of its payload and is made quiet, which also
// guarantees a nonzero mantissa, so it can never turn into an infinity.
inline uint16_t fp16_ieee_from_fp32_value(float f) {
  const uint32_t bits = fp32_to_bits(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7FFFFFFFu;

  if (magnitude > 0x7F800000u) {  // NaN.
    return static_cast<uint16_t>(sign | 0x7E00u | ((magnitude >> 13) & 0x3FFu));
  }
  if (magnitude >= 0x477FF000u) {  // >= 65520.0f, including inf.
    return static_cast<uint16_t>(sign | 0x7C00u);
  }
  if (magnitude >= 0x38800000u) {  // >= 2^-14: a normal half.
    // Round the 23-bit mantissa to 10 bits, ties to even: add just under half
    // an ulp, plus one more if the kept part is odd. A carry out of the
    // mantissa correctly bumps the exponent.
    const uint32_t odd = (magnitude >> 13) & 1u;
    const uint32_t rounded = magnitude + 0xFFFu + odd;
    // Rebias the exponent from 127 to 15.
    return static_cast<uint16_t>(sign | ((rounded - (112u << 23)) >> 13));
  }
  if (magnitude <= 0x33000000u) {  // <= 2^-25: ties to even round to zero.
    return sign;
  }
  // A subnormal half counts units of 2^-24. The float is (implicit one plus
  // mantissa) * 2^(exponent - 150), so that count is the 24-bit significand
  // shifted right by 126 - exponent, which is in [14, 24] here.
  const uint32_t exponent = magnitude >> 23;
  const uint32_t significand = (magnitude & 0x7FFFFFu) | 0x800000u;
  const uint32_t shift = 126u - exponent;
  uint32_t units = significand >> shift;
  const uint32_t remainder = significand & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1u);
  if (remainder > halfway || (remainder == halfway && (units & 1u) != 0)) {
    ++units;  // May reach 0x400, the smallest normal: still correct.
  }
  return static_cast<uint16_t>(sign | units);
}

}  // namespace detail

// c10::Half
//
// A binary16 value. Trivial like a built-in type: `Half h;` leaves `x`
// uninitialized and `Half h{};` is +0. Converts implicitly to and from float,
// as PyTorch's does, so it can be used where a float is expected.
struct alignas(2) Half {
  // The bit pattern.
  uint16_t x;

  // c10::Half::from_bits
  //
  // Tag for the constructor that takes a bit pattern instead of a value.
  struct from_bits_t {};
  static constexpr from_bits_t from_bits() { return from_bits_t(); }

  Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  Half(float value) : x(detail::fp16_ieee_from_fp32_value(value)) {}

  operator float() const { return detail::fp16_ieee_to_fp32_value(x); }
};

static_assert(sizeof(Half) == 2, "c10::Half must be exactly 16 bits");
static_assert(std::is_trivial<Half>::value,
              "c10::Half must be trivial so tensor storage can hold it as raw "
              "memory");

// Note [Half arithmetic goes through float]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Half op Half converts both operands to float, computes in float and rounds
// the result back to Half. This double rounding never changes the answer for
// +, -, * and /: float's 24-bit significand is at least 2 * 11 + 2 bits, and
// with that much headroom rounding to float and then to half gives the
// correctly rounded half result (Figueroa, "When is double rounding
// innocuous?", 1995). The same holds for BFloat16 (8-bit significand).
//
// Mixed operands follow PyTorch's C++ types: with a float the result is
// float, with a double it is double, with any integer it is Half. Integers
// are matched by one template so `h + 1u` or `h + size_t{2}` is not
// ambiguous. Comparisons need no operators of their own: both sides convert
// to float, so NaN compares unequal to everything and -0 == +0.

// c10::operator+ / - / * / (Half, Half)
inline Half operator+(const Half& a, const Half& b) {
  return static_cast<float>(a) + static_cast<float>(b);
}
inline Half operator-(const Half& a, const Half& b) {
  return static_cast<float>(a) - static_cast<float>(b);
}
inline Half operator*(const Half& a, const Half& b) {
  return static_cast<float>(a) * static_cast<float>(b);
}
inline Half operator/(const Half& a, const Half& b) {
  return static_cast<float>(a) / static_cast<float>(b);
}

// c10::operator-(Half)
//
// Flips the sign bit, as IEEE 754 negation does (also for NaN and zero).
inline Half operator-(const Half& a) {
  return Half(static_cast<uint16_t>(a.x ^ 0x8000u), Half::from_bits());
}

// c10::operator+= / -= / *= / /= (Half&, Half)
inline Half& operator+=(Half& a, const Half& b) { return a = a + b; }
inline Half& operator-=(Half& a, const Half& b) { return a = a - b; }
inline Half& operator*=(Half& a, const Half& b) { return a = a * b; }
inline Half& operator/=(Half& a, const Half& b) { return a = a / b; }

// Half with float gives float. (`float_acc += h` needs no overload: the
// built-in float += float is the best match.)
inline float operator+(Half a, float b) { return static_cast<float>(a) + b; }
inline float operator-(Half a, float b) { return static_cast<float>(a) - b; }
inline float operator*(Half a, float b) { return static_cast<float>(a) * b; }
inline float operator/(Half a, float b) { return static_cast<float>(a) / b; }
inline float operator+(float a, Half b) { return a + static_cast<float>(b); }
inline float operator-(float a, Half b) { return a - static_cast<float>(b); }
inline float operator*(float a, Half b) { return a * static_cast<float>(b); }
inline float operator/(float a, Half b) { return a / static_cast<float>(b); }

// Half with double gives double.
inline double operator+(Half a, double b) { return static_cast<double>(a) + b; }
inline double operator-(Half a, double b) { return static_cast<double>(a) - b; }
inline double operator*(Half a, double b) { return static_cast<double>(a) * b; }
inline double operator/(Half a, double b) { return static_cast<double>(a) / b; }
inline double operator+(double a, Half b) { return a + static_cast<double>(b); }
inline double operator-(double a, Half b) { return a - static_cast<double>(b); }
inline double operator*(double a, Half b) { return a * static_cast<double>(b); }
inline double operator/(double a, Half b) { return a / static_cast<double>(b); }

// Half with any integer gives Half.
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline Half operator+(Half a, I b) {
  return a + Half(static_cast<float>(b));
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline Half operator-(Half a, I b) {
  return a - Half(static_cast<float>(b));
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline Half operator*(Half a, I b) {
  return a * Half(static_cast<float>(b));
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline Half operator/(Half a, I b) {
  return a / Half(static_cast<float>(b));
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline Half operator+(I a, Half b) {
  return Half(static_cast<float>(a)) + b;
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline Half operator-(I a, Half b) {
  return Half(static_cast<float>(a)) - b;
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline Half operator*(I a, Half b) {
  return Half(static_cast<float>(a)) * b;
}
template <typename I, typename = std::enable_if_t<std::is_integral<I>::value>>
inline Half operator/(I a, Half b) {
  return Half(static_cast<float>(a)) / b;
}

// c10::operator<<(std::ostream&, Half)
//
// Prints the value as a float would print ("1.5", "inf", "nan").
inline std::ostream& operator<<(std::ostream& out, const Half& value) {
  return out << static_cast<float>(value);
}

}  // namespace c10

// std::numeric_limits<c10::Half>
//
// The binary16 format's properties; the values are exact bit patterns.
namespace std {
template <>
class numeric_limits<c10::Half> {
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
  static constexpr bool is_iec559 = true;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = 11;
  static constexpr int digits10 = 3;
  static constexpr int max_digits10 = 5;
  static constexpr int radix = 2;
  static constexpr int min_exponent = -13;
  static constexpr int min_exponent10 = -4;
  static constexpr int max_exponent = 16;
  static constexpr int max_exponent10 = 4;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;

  // 2^-14, the smallest positive normal.
  static constexpr c10::Half min() { return {0x0400, c10::Half::from_bits()}; }
  static constexpr c10::Half lowest() {
    return {0xFBFF, c10::Half::from_bits()};
  }
  // 65504.
  static constexpr c10::Half max() { return {0x7BFF, c10::Half::from_bits()}; }
  // 2^-10, the gap between 1 and the next half.
  static constexpr c10::Half epsilon() {
    return {0x1400, c10::Half::from_bits()};
  }
  static constexpr c10::Half round_error() {
    return {0x3800, c10::Half::from_bits()};
  }
  static constexpr c10::Half infinity() {
    return {0x7C00, c10::Half::from_bits()};
  }
  static constexpr c10::Half quiet_NaN() {
    return {0x7E00, c10::Half::from_bits()};
  }
  static constexpr c10::Half signaling_NaN() {
    return {0x7D00, c10::Half::from_bits()};
  }
  // 2^-24, the smallest positive subnormal.
  static constexpr c10::Half denorm_min() {
    return {0x0001, c10::Half::from_bits()};
  }
};
}  // namespace std
