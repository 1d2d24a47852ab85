// Tests for c10::Half and c10::BFloat16: exact bit patterns of conversions
// (rounding, overflow, subnormals, NaN, infinities, zeros), exhaustive round
// trips and rounding boundaries, operators and numeric_limits.
#include "c10/util/Half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>

#include "c10/util/BFloat16.h"

namespace {

using c10::BFloat16;
using c10::Half;

uint32_t bits_of(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

float float_of(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

uint16_t half_bits(float f) {
  return c10::detail::fp16_ieee_from_fp32_value(f);
}
float half_value(uint16_t h) { return c10::detail::fp16_ieee_to_fp32_value(h); }
uint16_t bf16_bits(float f) { return c10::detail::round_to_nearest_even(f); }
float bf16_value(uint16_t b) { return c10::detail::f32_from_bits(b); }

bool is_half_nan(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF); }
bool is_bf16_nan(uint16_t b) { return (b & 0x7F80) == 0x7F80 && (b & 0x7F); }

// The value of a binary16 pattern computed from the IEEE 754 definition in
// double, independent of the bit tricks under test. Not for NaN.
double half_reference_value(uint16_t h) {
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  const double magnitude =
      exponent == 0x1F ? std::numeric_limits<double>::infinity()
      : exponent == 0  ? std::ldexp(mantissa, -24)
                       : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

// ---------------------------------------------------------------- Half

TEST(Half, ExactValuesHaveTheirIeeeBitPatterns) {
  EXPECT_EQ(half_bits(1.0f), 0x3C00);
  EXPECT_EQ(half_bits(-2.0f), 0xC000);
  EXPECT_EQ(half_bits(0.5f), 0x3800);
  EXPECT_EQ(half_bits(65504.0f), 0x7BFF);
  EXPECT_EQ(half_bits(-65504.0f), 0xFBFF);
  EXPECT_EQ(half_bits(std::ldexp(1.0f, -14)), 0x0400);  // Smallest normal.
  EXPECT_EQ(half_value(0x3C00), 1.0f);
  EXPECT_EQ(half_value(0xC000), -2.0f);
  EXPECT_EQ(half_value(0x7BFF), 65504.0f);
  EXPECT_EQ(half_value(0x3555), 0.333251953125f);
}

TEST(Half, OverflowRoundsToInfinityFrom65520) {
  EXPECT_EQ(half_bits(65519.0f), 0x7BFF);
  EXPECT_EQ(half_bits(std::nextafter(65520.0f, 0.0f)), 0x7BFF);
  // 65520 is halfway between 65504 (odd mantissa) and 2^16: ties to even.
  EXPECT_EQ(half_bits(65520.0f), 0x7C00);
  EXPECT_EQ(half_bits(-65520.0f), 0xFC00);
  EXPECT_EQ(half_bits(1e10f), 0x7C00);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::max()), 0x7C00);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::lowest()), 0xFC00);
}

TEST(Half, SubnormalsConvertBothWays) {
  EXPECT_EQ(half_bits(std::ldexp(1.0f, -24)), 0x0001);  // Smallest subnormal.
  EXPECT_EQ(half_bits(std::ldexp(1023.0f, -24)), 0x03FF);  // Largest.
  EXPECT_EQ(half_bits(-std::ldexp(5.0f, -24)), 0x8005);
  EXPECT_EQ(half_value(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(half_value(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(half_value(0x8200), -std::ldexp(1.0f, -15));
}

TEST(Half, SubnormalTiesRoundToEven) {
  // 2^-25 is halfway between 0 and 2^-24: the even neighbour is 0.
  EXPECT_EQ(half_bits(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(half_bits(-std::ldexp(1.0f, -25)), 0x8000);
  EXPECT_EQ(half_bits(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  // 3 * 2^-25 is 1.5 units of 2^-24: the even neighbour is 2 units, 2^-23.
  EXPECT_EQ(half_bits(std::ldexp(3.0f, -25)), 0x0002);
  EXPECT_EQ(half_value(0x0002), std::ldexp(1.0f, -23));
  // 5 * 2^-25 is 2.5 units: rounds down to 2.
  EXPECT_EQ(half_bits(std::ldexp(5.0f, -25)), 0x0002);
  // 1023.5 units: rounds up into the smallest normal.
  EXPECT_EQ(half_bits(std::ldexp(2047.0f, -25)), 0x0400);
}

TEST(Half, TinyValuesUnderflowToSignedZero) {
  EXPECT_EQ(half_bits(1e-10f), 0x0000);
  EXPECT_EQ(half_bits(-1e-10f), 0x8000);
  EXPECT_EQ(half_bits(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(half_bits(std::nextafter(std::ldexp(1.0f, -25), 0.0f)), 0x0000);
}

TEST(Half, NormalTiesRoundToEven) {
  // 1 + 2^-11 is halfway between 1 (even) and 1 + 2^-10 (odd).
  EXPECT_EQ(half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3 * 2^-11 is halfway between 0x3C01 (odd) and 0x3C02 (even).
  EXPECT_EQ(half_bits(1.0f + std::ldexp(3.0f, -11)), 0x3C02);
  // Just above a tie rounds up.
  EXPECT_EQ(half_bits(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
            0x3C01);
  // Integers above 2048 are spaced 2 apart.
  EXPECT_EQ(half_value(half_bits(2049.0f)), 2048.0f);
  EXPECT_EQ(half_value(half_bits(2051.0f)), 2052.0f);
  // A carry out of the mantissa bumps the exponent: 2 - 2^-12 rounds to 2.
  EXPECT_EQ(half_bits(2.0f - std::ldexp(1.0f, -12)), 0x4000);
}

TEST(Half, NanStaysNanInBothDirections) {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(is_half_nan(half_bits(qnan)));
  EXPECT_EQ(half_bits(qnan) & 0x0200, 0x0200) << "must be a quiet NaN";
  EXPECT_EQ(half_bits(-qnan) & 0x8000, 0x8000) << "keeps the sign";
  // Payloads only in the low 13 bits would vanish if shifted naively,
  // turning the NaN into an infinity.
  EXPECT_EQ(half_bits(float_of(0x7F800001u)), 0x7E00);
  EXPECT_EQ(half_bits(float_of(0xFF800001u)), 0xFE00);
  EXPECT_TRUE(
      is_half_nan(half_bits(std::numeric_limits<float>::signaling_NaN())));
  EXPECT_TRUE(std::isnan(half_value(0x7E00)));
  EXPECT_TRUE(std::isnan(half_value(0x7C01)));  // Signaling.
  EXPECT_TRUE(std::isnan(half_value(0xFFFF)));
}

TEST(Half, InfinitiesAndZerosKeepTheirSign) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(half_bits(inf), 0x7C00);
  EXPECT_EQ(half_bits(-inf), 0xFC00);
  EXPECT_EQ(half_value(0x7C00), inf);
  EXPECT_EQ(half_value(0xFC00), -inf);
  EXPECT_EQ(half_bits(0.0f), 0x0000);
  EXPECT_EQ(half_bits(-0.0f), 0x8000);
  EXPECT_EQ(bits_of(half_value(0x0000)), 0x00000000u);
  EXPECT_EQ(bits_of(half_value(0x8000)), 0x80000000u);
}

TEST(Half, EveryPatternRoundTripsThroughFloatExactly) {
  for (uint32_t i = 0; i <= 0xFFFF; ++i) {
    const uint16_t h = static_cast<uint16_t>(i);
    const float f = half_value(h);
    if (is_half_nan(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << i;
      // Sign and payload survive; a signaling NaN comes back quiet.
      ASSERT_EQ(half_bits(f), h | 0x0200) << std::hex << i;
    } else {
      ASSERT_EQ(static_cast<double>(f), half_reference_value(h))
          << std::hex << i;
      ASSERT_EQ(half_bits(f), h) << std::hex << i;
    }
  }
}

TEST(Half, EveryRoundingBoundaryTiesToEven) {
  // For each pair of neighbouring finite halves, the float midpoint (exact:
  // it needs 12 significant bits) goes to the even one, and the floats just
  // below and above it go to the nearer one.
  for (uint32_t lo = 0; lo < 0x7BFF; ++lo) {
    const uint16_t hi = static_cast<uint16_t>(lo + 1);
    const float mid = (half_value(lo) + half_value(hi)) / 2;
    const uint16_t even = (lo & 1) ? hi : static_cast<uint16_t>(lo);
    ASSERT_EQ(half_bits(mid), even) << std::hex << lo;
    ASSERT_EQ(half_bits(-mid), even | 0x8000) << std::hex << lo;
    ASSERT_EQ(half_bits(std::nextafter(mid, 0.0f)), lo) << std::hex << lo;
    ASSERT_EQ(half_bits(std::nextafter(mid, 1e6f)), hi) << std::hex << lo;
  }
}

TEST(Half, BitsConstructorStoresThePatternUnchanged) {
  constexpr Half h(0x7C01, Half::from_bits());
  static_assert(h.x == 0x7C01, "from_bits must not convert");
  EXPECT_EQ(Half(1.0f).x, 0x3C00);
  EXPECT_EQ(static_cast<float>(Half(0x3C00, Half::from_bits())), 1.0f);
  Half zero{};
  EXPECT_EQ(zero.x, 0x0000);
}

TEST(Half, ArithmeticIsFloatArithmeticRoundedToHalf) {
  const Half a = 1.5f;
  const Half b = 2.0f;
  static_assert(std::is_same<decltype(a + b), Half>::value, "");
  static_assert(std::is_same<decltype(a * 2), Half>::value, "");
  static_assert(std::is_same<decltype(2u * a), Half>::value, "");
  static_assert(std::is_same<decltype(a + 1.0f), float>::value, "");
  static_assert(std::is_same<decltype(1.0f - a), float>::value, "");
  static_assert(std::is_same<decltype(a / 2.0), double>::value, "");
  EXPECT_EQ(static_cast<float>(a + b), 3.5f);
  EXPECT_EQ(static_cast<float>(a - b), -0.5f);
  EXPECT_EQ(static_cast<float>(a * b), 3.0f);
  EXPECT_EQ(static_cast<float>(a / b), 0.75f);
  EXPECT_EQ(static_cast<float>(a * 3), 4.5f);
  EXPECT_EQ(static_cast<float>(size_t{1} + a), 2.5f);
  EXPECT_EQ(a + 0.25f, 1.75f);
  EXPECT_EQ(a * 0.1, 1.5 * 0.1);
  // The exact sum 2048 + 1 is not a half; the result is rounded to even.
  EXPECT_EQ(static_cast<float>(Half(2048.0f) + Half(1.0f)), 2048.0f);
  // Overflow of a half result gives inf even though float would not.
  EXPECT_TRUE(std::isinf(static_cast<float>(Half(60000.0f) + Half(60000.0f))));

  Half c = 1.0f;
  c += b;
  c *= b;
  c -= a;
  c /= b;
  EXPECT_EQ(static_cast<float>(c), 2.25f);
  float acc = 1.0f;
  acc += a;
  EXPECT_EQ(acc, 2.5f);
}

TEST(Half, NegationFlipsOnlyTheSignBit) {
  EXPECT_EQ((-Half(1.0f)).x, 0xBC00);
  EXPECT_EQ((-Half(0.0f)).x, 0x8000);
  EXPECT_EQ((-Half(0x7E00, Half::from_bits())).x, 0xFE00);
}

TEST(Half, ComparisonsFollowFloat) {
  const Half one = 1.0f;
  const Half two = 2.0f;
  const Half nan = std::numeric_limits<Half>::quiet_NaN();
  EXPECT_TRUE(one < two);
  EXPECT_TRUE(two >= one);
  EXPECT_TRUE(one == Half(1.0f));
  EXPECT_TRUE(one != two);
  EXPECT_TRUE(one == 1);
  EXPECT_TRUE(one < 1.5f);
  EXPECT_TRUE(Half(0.0f) == Half(-0.0f));
  EXPECT_FALSE(nan == nan);
  EXPECT_FALSE(nan < one);
}

TEST(Half, StreamsAsItsFloatValue) {
  std::ostringstream out;
  out << Half(1.5f) << " " << std::numeric_limits<Half>::infinity() << " "
      << Half(-65504.0f);
  EXPECT_EQ(out.str(), "1.5 inf -65504");
}

TEST(Half, NumericLimitsDescribeBinary16) {
  using limits = std::numeric_limits<Half>;
  EXPECT_EQ(static_cast<float>(limits::max()), 65504.0f);
  EXPECT_EQ(static_cast<float>(limits::lowest()), -65504.0f);
  EXPECT_EQ(static_cast<float>(limits::min()), std::ldexp(1.0f, -14));
  EXPECT_EQ(static_cast<float>(limits::epsilon()), std::ldexp(1.0f, -10));
  EXPECT_EQ(static_cast<float>(limits::denorm_min()), std::ldexp(1.0f, -24));
  EXPECT_EQ(static_cast<float>(limits::round_error()), 0.5f);
  EXPECT_TRUE(std::isinf(static_cast<float>(limits::infinity())));
  EXPECT_TRUE(std::isnan(static_cast<float>(limits::quiet_NaN())));
  EXPECT_TRUE(is_half_nan(limits::signaling_NaN().x));
  EXPECT_EQ(limits::signaling_NaN().x & 0x0200, 0) << "quiet bit must be clear";
  EXPECT_EQ(Half(1.0f) + limits::epsilon(), Half(0x3C01, Half::from_bits()));
  static_assert(limits::is_specialized && limits::digits == 11, "");
}

// ------------------------------------------------------------ BFloat16

TEST(BFloat16, ExactValuesAreTheTopHalfOfTheFloat) {
  EXPECT_EQ(bf16_bits(1.0f), 0x3F80);
  EXPECT_EQ(bf16_bits(-2.0f), 0xC000);
  EXPECT_EQ(bf16_bits(0.5f), 0x3F00);
  EXPECT_EQ(bf16_value(0x3F80), 1.0f);
  EXPECT_EQ(bf16_value(0xC000), -2.0f);
  EXPECT_EQ(bf16_value(0x7F7F), float_of(0x7F7F0000u));
  EXPECT_EQ(bf16_bits(3.14159f), 0x4049);  // 3.140625
  EXPECT_EQ(c10::detail::bits_from_f32(float_of(0x3F80FFFFu)), 0x3F80);
}

TEST(BFloat16, TiesRoundToEven) {
  // 1.00390625 = 1 + 2^-8 is halfway between 1 (even) and 1 + 2^-7 (odd).
  EXPECT_EQ(bf16_bits(1.00390625f), 0x3F80);
  EXPECT_EQ(bf16_bits(-1.00390625f), 0xBF80);
  EXPECT_EQ(bf16_bits(std::nextafter(1.00390625f, 2.0f)), 0x3F81);
  EXPECT_EQ(bf16_bits(std::nextafter(1.00390625f, 0.0f)), 0x3F80);
  // 1.01171875 = 1 + 3 * 2^-8 is halfway between 0x3F81 (odd) and 0x3F82.
  EXPECT_EQ(bf16_bits(1.01171875f), 0x3F82);
  // A carry out of the mantissa bumps the exponent.
  EXPECT_EQ(bf16_bits(float_of(0x3FFF8000u)), 0x4000);
}

TEST(BFloat16, OverflowRoundsToInfinityOnlyPastHalfAnUlp) {
  EXPECT_EQ(bf16_bits(float_of(0x7F7F7FFFu)), 0x7F7F);
  // Halfway between the largest BFloat16 (odd mantissa) and 2^128: to even.
  EXPECT_EQ(bf16_bits(float_of(0x7F7F8000u)), 0x7F80);
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::lowest()), 0xFF80);
}

TEST(BFloat16, SubnormalsRoundToEven) {
  EXPECT_EQ(bf16_bits(float_of(0x00010000u)), 0x0001);
  EXPECT_EQ(bf16_bits(float_of(0x00008000u)), 0x0000);  // Tie to 0.
  EXPECT_EQ(bf16_bits(float_of(0x00018000u)), 0x0002);  // Tie to 2.
  EXPECT_EQ(bf16_bits(float_of(0x80008001u)), 0x8001);
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(bf16_value(0x0001), float_of(0x00010000u));
}

TEST(BFloat16, NanStaysNanInBothDirections) {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(bf16_bits(qnan), 0x7FC0);
  EXPECT_EQ(bf16_bits(-qnan), 0xFFC0);
  // Truncation would turn these into infinities.
  EXPECT_EQ(bf16_bits(float_of(0x7F800001u)), 0x7FC0);
  EXPECT_EQ(bf16_bits(float_of(0xFF80FFFFu)), 0xFFC0);
  EXPECT_EQ(bf16_bits(float_of(0x7FA00000u)), 0x7FE0);  // Keeps the payload.
  // Rounding must not carry a NaN's payload into the sign bit.
  EXPECT_EQ(bf16_bits(float_of(0x7FFFFFFFu)), 0x7FFF);
  EXPECT_TRUE(std::isnan(bf16_value(0x7FC0)));
  EXPECT_TRUE(std::isnan(bf16_value(0x7F81)));
}

TEST(BFloat16, InfinitiesAndZerosKeepTheirSign) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(bf16_bits(inf), 0x7F80);
  EXPECT_EQ(bf16_bits(-inf), 0xFF80);
  EXPECT_EQ(bf16_value(0x7F80), inf);
  EXPECT_EQ(bf16_value(0xFF80), -inf);
  EXPECT_EQ(bf16_bits(0.0f), 0x0000);
  EXPECT_EQ(bf16_bits(-0.0f), 0x8000);
  EXPECT_EQ(bits_of(bf16_value(0x8000)), 0x80000000u);
}

TEST(BFloat16, EveryPatternRoundTripsThroughFloatExactly) {
  for (uint32_t i = 0; i <= 0xFFFF; ++i) {
    const uint16_t b = static_cast<uint16_t>(i);
    const float f = bf16_value(b);
    ASSERT_EQ(bits_of(f), i << 16) << std::hex << i;
    if (is_bf16_nan(b)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << i;
      ASSERT_EQ(bf16_bits(f), b | 0x0040) << std::hex << i;  // Made quiet.
    } else {
      ASSERT_EQ(bf16_bits(f), b) << std::hex << i;
    }
  }
}

TEST(BFloat16, EveryRoundingBoundaryTiesToEven) {
  for (uint32_t lo = 0; lo < 0x7F7F; ++lo) {
    const uint16_t hi = static_cast<uint16_t>(lo + 1);
    const float mid = float_of((lo << 16) | 0x8000u);  // Exact midpoint.
    const uint16_t even = (lo & 1) ? hi : static_cast<uint16_t>(lo);
    ASSERT_EQ(bf16_bits(mid), even) << std::hex << lo;
    ASSERT_EQ(bf16_bits(-mid), even | 0x8000) << std::hex << lo;
    ASSERT_EQ(bf16_bits(std::nextafter(mid, 0.0f)), lo) << std::hex << lo;
    ASSERT_EQ(
        bf16_bits(std::nextafter(mid, std::numeric_limits<float>::infinity())),
        hi)
        << std::hex << lo;
  }
}

TEST(BFloat16, ArithmeticIsFloatArithmeticRoundedToBFloat16) {
  const BFloat16 a = 1.5f;
  const BFloat16 b = 2.0f;
  static_assert(std::is_same<decltype(a + b), BFloat16>::value, "");
  static_assert(std::is_same<decltype(a * 2), BFloat16>::value, "");
  static_assert(std::is_same<decltype(a + 1.0f), float>::value, "");
  static_assert(std::is_same<decltype(a / 2.0), double>::value, "");
  EXPECT_EQ(static_cast<float>(a + b), 3.5f);
  EXPECT_EQ(static_cast<float>(a - b), -0.5f);
  EXPECT_EQ(static_cast<float>(a * b), 3.0f);
  EXPECT_EQ(static_cast<float>(a / b), 0.75f);
  EXPECT_EQ(static_cast<float>(a - 1), 0.5f);
  // 256 + 1 is not a BFloat16 (8 significant bits): rounds to even, 256.
  EXPECT_EQ(static_cast<float>(BFloat16(256.0f) + BFloat16(1.0f)), 256.0f);
  BFloat16 c = 1.0f;
  c += b;
  c *= b;
  c -= a;
  c /= b;
  EXPECT_EQ(static_cast<float>(c), 2.25f);
  EXPECT_EQ((-a).x, 0xBFC0);
  EXPECT_TRUE(a < b);
  EXPECT_TRUE(a == 1.5f);
  EXPECT_FALSE(std::numeric_limits<BFloat16>::quiet_NaN() ==
               std::numeric_limits<BFloat16>::quiet_NaN());
  std::ostringstream out;
  out << a << " " << -std::numeric_limits<BFloat16>::infinity();
  EXPECT_EQ(out.str(), "1.5 -inf");
}

TEST(BFloat16, NumericLimitsDescribeBFloat16) {
  using limits = std::numeric_limits<BFloat16>;
  EXPECT_EQ(static_cast<float>(limits::max()), float_of(0x7F7F0000u));
  EXPECT_EQ(static_cast<float>(limits::lowest()), -float_of(0x7F7F0000u));
  EXPECT_EQ(static_cast<float>(limits::min()),
            std::numeric_limits<float>::min());
  EXPECT_EQ(static_cast<float>(limits::epsilon()), std::ldexp(1.0f, -7));
  EXPECT_EQ(static_cast<float>(limits::denorm_min()), std::ldexp(1.0f, -133));
  EXPECT_EQ(static_cast<float>(limits::round_error()), 0.5f);
  EXPECT_TRUE(std::isinf(static_cast<float>(limits::infinity())));
  EXPECT_TRUE(std::isnan(static_cast<float>(limits::quiet_NaN())));
  EXPECT_TRUE(is_bf16_nan(limits::signaling_NaN().x));
  EXPECT_EQ(limits::signaling_NaN().x & 0x0040, 0) << "quiet bit must be clear";
  EXPECT_EQ(BFloat16(1.0f) + limits::epsilon(),
            BFloat16(0x3F81, BFloat16::from_bits()));
  static_assert(limits::is_specialized && limits::digits == 8, "");
}

}  // namespace
