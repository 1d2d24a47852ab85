// tests/c10/scalar_test.cc — proves the behaviour of c10::Scalar
// (c10/core/Scalar.h): construction from every number type, the kind
// queries, every checked conversion and its overflow message, negation,
// comparison and printing.
#include "c10/core/Scalar.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <typeinfo>

namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kLongMin = std::numeric_limits<int64_t>::min();

// Runs `fn`, which must throw exactly c10::Error, and returns its message.
std::string error_message(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const c10::Error& e) {
    EXPECT_EQ(typeid(e), typeid(c10::Error));
    return e.msg();
  }
  ADD_FAILURE() << "did not throw c10::Error";
  return "";
}

// The start of every overflow message, as PyTorch words it.
std::string overflow_text(const std::string& accessor, const std::string& value,
                          const std::string& type) {
  return "Scalar::" + accessor + ": value " + value +
         " cannot be converted to type " + type + " without overflow; " + type +
         " holds ";
}

// ---------------------------------------------------------------------------
// Overload set: what converts to a Scalar and what does not.

static_assert(std::is_trivially_copyable<c10::Scalar>::value,
              "a Scalar is copied around freely");
static_assert(!std::is_constructible<c10::Scalar, const char*>::value,
              "a string literal must not become a bool Scalar");
static_assert(!std::is_constructible<c10::Scalar, int*>::value,
              "a pointer must not become a bool Scalar");
static_assert(!std::is_constructible<c10::Scalar, std::nullptr_t>::value,
              "nullptr is not a number");
static_assert(std::is_convertible<int, c10::Scalar>::value &&
                  std::is_convertible<long, c10::Scalar>::value &&
                  std::is_convertible<long long, c10::Scalar>::value &&
                  std::is_convertible<unsigned, c10::Scalar>::value &&
                  std::is_convertible<size_t, c10::Scalar>::value &&
                  std::is_convertible<double, c10::Scalar>::value &&
                  std::is_convertible<float, c10::Scalar>::value &&
                  std::is_convertible<c10::Half, c10::Scalar>::value &&
                  std::is_convertible<c10::BFloat16, c10::Scalar>::value &&
                  std::is_convertible<bool, c10::Scalar>::value,
              "numbers convert implicitly, as ops take them");

// A Scalar can be a compile-time constant.
constexpr c10::Scalar kConstantOne = 1;
constexpr c10::Scalar kConstantHalf = 0.5;
constexpr c10::Scalar kConstantTrue = true;

// ---------------------------------------------------------------------------
// Construction and kind queries

void expect_integral(const c10::Scalar& s, int64_t value) {
  EXPECT_EQ(s.type(), c10::ScalarType::Long);
  EXPECT_TRUE(s.isIntegral(false));
  EXPECT_TRUE(s.isIntegral(true));
  EXPECT_FALSE(s.isFloatingPoint());
  EXPECT_FALSE(s.isBoolean());
  EXPECT_FALSE(s.isComplex());
  EXPECT_EQ(s.toLong(), value);
}

void expect_floating(const c10::Scalar& s, double value) {
  EXPECT_EQ(s.type(), c10::ScalarType::Double);
  EXPECT_TRUE(s.isFloatingPoint());
  EXPECT_FALSE(s.isIntegral(false));
  EXPECT_FALSE(s.isIntegral(true));
  EXPECT_FALSE(s.isBoolean());
  EXPECT_FALSE(s.isComplex());
  EXPECT_EQ(s.toDouble(), value);
}

TEST(ScalarConstruction, DefaultIsIntegerZero) {
  expect_integral(c10::Scalar(), 0);
}

TEST(ScalarConstruction, EveryIntegerTypeGivesLong) {
  expect_integral(c10::Scalar(int8_t{-8}), -8);
  expect_integral(c10::Scalar(int16_t{-1600}), -1600);
  expect_integral(c10::Scalar(int32_t{-320000}), -320000);
  expect_integral(c10::Scalar(int64_t{-6400000000}), -6400000000);
  expect_integral(c10::Scalar(uint8_t{200}), 200);
  expect_integral(c10::Scalar(uint16_t{60000}), 60000);
  expect_integral(c10::Scalar(uint32_t{4000000000u}), 4000000000);
  expect_integral(c10::Scalar(uint64_t{12345}), 12345);
  expect_integral(c10::Scalar(7), 7);
  expect_integral(c10::Scalar(7L), 7);
  expect_integral(c10::Scalar(7LL), 7);
  expect_integral(c10::Scalar(size_t{9}), 9);
  expect_integral(c10::Scalar('A'), 65);
  expect_integral(c10::Scalar(kLongMax), kLongMax);
  expect_integral(c10::Scalar(kLongMin), kLongMin);
  expect_integral(
      c10::Scalar(static_cast<uint64_t>(std::numeric_limits<int64_t>::max())),
      kLongMax);
  expect_integral(kConstantOne, 1);
}

TEST(ScalarConstruction, UnsignedAboveInt64MaxThrows) {
  const uint64_t too_big = uint64_t{1} << 63;
  const std::string msg = error_message([&] { c10::Scalar s(too_big); });
  EXPECT_THAT(msg, StartsWith("Scalar: value 9223372036854775808 of an "
                              "unsigned 64-bit type does not fit in int64_t"));
  EXPECT_THAT(msg, HasSubstr("9223372036854775807"));
  EXPECT_THAT(msg, EndsWith("."));
  EXPECT_THROW((void)c10::Scalar(std::numeric_limits<uint64_t>::max()),
               c10::Error);
}

TEST(ScalarConstruction, EveryFloatingTypeGivesDouble) {
  expect_floating(c10::Scalar(2.5), 2.5);
  expect_floating(c10::Scalar(-0.25f), -0.25);
  expect_floating(c10::Scalar(0.1f), static_cast<double>(0.1f));
  expect_floating(c10::Scalar(c10::Half(1.5f)), 1.5);
  expect_floating(c10::Scalar(c10::BFloat16(-3.0f)), -3.0);
  expect_floating(c10::Scalar(2.0), 2.0);  // integral value, still a double
  expect_floating(kConstantHalf, 0.5);
  const c10::Scalar inf(kInf);
  EXPECT_TRUE(inf.isFloatingPoint());
  EXPECT_EQ(inf.toDouble(), kInf);
  const c10::Scalar nan(kNaN);
  EXPECT_TRUE(nan.isFloatingPoint());
  EXPECT_TRUE(std::isnan(nan.toDouble()));
}

TEST(ScalarConstruction, BoolStaysBool) {
  for (bool b : {true, false}) {
    const c10::Scalar s(b);
    EXPECT_EQ(s.type(), c10::ScalarType::Bool);
    EXPECT_TRUE(s.isBoolean());
    EXPECT_FALSE(s.isIntegral(false));
    EXPECT_TRUE(s.isIntegral(true));
    EXPECT_FALSE(s.isFloatingPoint());
    EXPECT_FALSE(s.isComplex());
    EXPECT_EQ(s.toBool(), b);
  }
  // Implicit conversion, as when passed to an op, keeps the bool too.
  const c10::Scalar implicit = true;
  EXPECT_TRUE(implicit.isBoolean());
  EXPECT_TRUE(kConstantTrue.isBoolean());
}

TEST(ScalarConstruction, CopiesKeepKindAndValue) {
  c10::Scalar a = 3.5;
  c10::Scalar b = a;
  expect_floating(b, 3.5);
  b = c10::Scalar(int64_t{-4});
  expect_integral(b, -4);
  b = false;
  EXPECT_TRUE(b.isBoolean());
}

// ---------------------------------------------------------------------------
// Conversions that succeed

TEST(ScalarConversion, IntegerToEveryType) {
  const c10::Scalar s(100);
  EXPECT_EQ(s.toDouble(), 100.0);
  EXPECT_EQ(s.toFloat(), 100.0f);
  EXPECT_EQ(static_cast<float>(s.toHalf()), 100.0f);
  EXPECT_EQ(static_cast<float>(s.toBFloat16()), 100.0f);
  EXPECT_EQ(s.toLong(), 100);
  EXPECT_EQ(s.toInt(), 100);
  EXPECT_EQ(s.toShort(), 100);
  EXPECT_EQ(s.toChar(), 100);
  EXPECT_EQ(s.toByte(), 100);
  EXPECT_EQ(c10::Scalar(1).toBool(), true);
  EXPECT_EQ(c10::Scalar(0).toBool(), false);
}

TEST(ScalarConversion, DoubleToEveryType) {
  const c10::Scalar s(100.0);
  EXPECT_EQ(s.toDouble(), 100.0);
  EXPECT_EQ(s.toFloat(), 100.0f);
  EXPECT_EQ(static_cast<float>(s.toHalf()), 100.0f);
  EXPECT_EQ(static_cast<float>(s.toBFloat16()), 100.0f);
  EXPECT_EQ(s.toLong(), 100);
  EXPECT_EQ(s.toInt(), 100);
  EXPECT_EQ(s.toShort(), 100);
  EXPECT_EQ(s.toChar(), 100);
  EXPECT_EQ(s.toByte(), 100);
  EXPECT_EQ(c10::Scalar(1.0).toBool(), true);
  EXPECT_EQ(c10::Scalar(0.0).toBool(), false);
  EXPECT_EQ(c10::Scalar(-0.0).toBool(), false);
}

TEST(ScalarConversion, BoolToEveryType) {
  const c10::Scalar t(true);
  const c10::Scalar f(false);
  EXPECT_EQ(t.toDouble(), 1.0);
  EXPECT_EQ(f.toDouble(), 0.0);
  EXPECT_EQ(t.toFloat(), 1.0f);
  EXPECT_EQ(static_cast<float>(t.toHalf()), 1.0f);
  EXPECT_EQ(static_cast<float>(t.toBFloat16()), 1.0f);
  EXPECT_EQ(t.toLong(), 1);
  EXPECT_EQ(f.toLong(), 0);
  EXPECT_EQ(t.toInt(), 1);
  EXPECT_EQ(t.toShort(), 1);
  EXPECT_EQ(t.toChar(), 1);
  EXPECT_EQ(t.toByte(), 1);
  EXPECT_EQ(t.toBool(), true);
  EXPECT_EQ(f.toBool(), false);
}

TEST(ScalarConversion, AccessorsReturnTheDtypesCppTypes) {
  const c10::Scalar s(1);
  static_assert(std::is_same<decltype(s.toDouble()), double>::value, "");
  static_assert(std::is_same<decltype(s.toFloat()), float>::value, "");
  static_assert(std::is_same<decltype(s.toHalf()), c10::Half>::value, "");
  static_assert(std::is_same<decltype(s.toBFloat16()), c10::BFloat16>::value,
                "");
  static_assert(std::is_same<decltype(s.toLong()), int64_t>::value, "");
  static_assert(std::is_same<decltype(s.toInt()), int>::value, "");
  static_assert(std::is_same<decltype(s.toShort()), int16_t>::value, "");
  static_assert(std::is_same<decltype(s.toChar()), int8_t>::value, "");
  static_assert(std::is_same<decltype(s.toByte()), uint8_t>::value, "");
  static_assert(std::is_same<decltype(s.toBool()), bool>::value, "");
  (void)s;
}

TEST(ScalarConversion, FractionalToIntegerTruncatesTowardZero) {
  EXPECT_EQ(c10::Scalar(2.7).toLong(), 2);
  EXPECT_EQ(c10::Scalar(-2.7).toLong(), -2);
  EXPECT_EQ(c10::Scalar(2.7).toInt(), 2);
  EXPECT_EQ(c10::Scalar(-2.7).toShort(), -2);
  EXPECT_EQ(c10::Scalar(-0.9).toChar(), 0);
  EXPECT_EQ(c10::Scalar(254.9).toByte(), 254);
  EXPECT_EQ(c10::Scalar(0.5).toBool(), true);
}

TEST(ScalarConversion, IntegerRangeEndsConvert) {
  EXPECT_EQ(c10::Scalar(kLongMax).toLong(), kLongMax);
  EXPECT_EQ(c10::Scalar(kLongMin).toLong(), kLongMin);
  EXPECT_EQ(c10::Scalar(2147483647).toInt(), 2147483647);
  EXPECT_EQ(c10::Scalar(int64_t{-2147483648}).toInt(),
            std::numeric_limits<int>::min());
  EXPECT_EQ(c10::Scalar(32767).toShort(), 32767);
  EXPECT_EQ(c10::Scalar(-32768).toShort(), -32768);
  EXPECT_EQ(c10::Scalar(127).toChar(), 127);
  EXPECT_EQ(c10::Scalar(-128).toChar(), -128);
  EXPECT_EQ(c10::Scalar(255).toByte(), 255);
  EXPECT_EQ(c10::Scalar(0).toByte(), 0);
}

TEST(ScalarConversion, DoubleRangeEndsConvert) {
  EXPECT_EQ(c10::Scalar(-0x1p63).toLong(), kLongMin);
  // The largest double below 2^63.
  EXPECT_EQ(c10::Scalar(0x1.fffffffffffffp62).toLong(),
            int64_t{0x7FFFFFFFFFFFFC00});
  EXPECT_EQ(c10::Scalar(2147483647.0).toInt(), 2147483647);
  EXPECT_EQ(c10::Scalar(-2147483648.0).toInt(),
            std::numeric_limits<int>::min());
  EXPECT_EQ(c10::Scalar(-128.0).toChar(), -128);
  EXPECT_EQ(c10::Scalar(255.0).toByte(), 255);
  EXPECT_EQ(c10::Scalar(1.0).toBool(), true);
}

TEST(ScalarConversion, NegativeIntegersWrapIntoUnsignedTypes) {
  // As PyTorch: lets `uint8_tensor - 1` run as `uint8_tensor + 255`.
  EXPECT_EQ(c10::Scalar(-1).toByte(), 255);
  EXPECT_EQ(c10::Scalar(-255).toByte(), 1);
  EXPECT_EQ(c10::Scalar(-1).toBool(), true);
  EXPECT_EQ(c10::Scalar(-1).to<uint8_t>(), 255);
}

TEST(ScalarConversion, LargeIntegersRoundToFloatingTypes) {
  EXPECT_EQ(c10::Scalar(kLongMax).toDouble(), 0x1p63);
  EXPECT_EQ(c10::Scalar(kLongMax).toFloat(), 0x1p63f);
  EXPECT_EQ(static_cast<float>(c10::Scalar(kLongMin).toBFloat16()), -0x1p63f);
  EXPECT_EQ(static_cast<float>(c10::Scalar(65504).toHalf()), 65504.0f);
  EXPECT_EQ(static_cast<float>(c10::Scalar(-65504).toHalf()), -65504.0f);
  EXPECT_EQ(static_cast<float>(c10::Scalar(257).toBFloat16()), 256.0f);
}

TEST(ScalarConversion, DoubleRoundsToNarrowerFloatingTypes) {
  EXPECT_EQ(c10::Scalar(0.1).toFloat(), 0.1f);
  EXPECT_EQ(c10::Scalar(1e-50).toFloat(), 0.0f);
  EXPECT_EQ(static_cast<float>(c10::Scalar(1e-10).toHalf()), 0.0f);
  EXPECT_EQ(static_cast<float>(c10::Scalar(65504.0).toHalf()), 65504.0f);
  EXPECT_EQ(static_cast<float>(c10::Scalar(-65504.0).toHalf()), -65504.0f);
  EXPECT_EQ(c10::Scalar(static_cast<double>(std::numeric_limits<float>::max()))
                .toFloat(),
            std::numeric_limits<float>::max());
  const float bf16_max =
      static_cast<float>(std::numeric_limits<c10::BFloat16>::max());
  EXPECT_EQ(static_cast<float>(
                c10::Scalar(static_cast<double>(bf16_max)).toBFloat16()),
            bf16_max);
  EXPECT_EQ(static_cast<float>(c10::Scalar(3.140625).toBFloat16()), 3.140625f);
}

TEST(ScalarConversion, InfAndNanConvertToFloatingTypes) {
  EXPECT_EQ(c10::Scalar(kInf).toFloat(),
            std::numeric_limits<float>::infinity());
  EXPECT_EQ(c10::Scalar(-kInf).toFloat(),
            -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(c10::Scalar(kNaN).toFloat()));
  EXPECT_TRUE(std::isinf(static_cast<float>(c10::Scalar(kInf).toHalf())));
  EXPECT_TRUE(std::isnan(static_cast<float>(c10::Scalar(kNaN).toHalf())));
  EXPECT_TRUE(std::isinf(static_cast<float>(c10::Scalar(-kInf).toBFloat16())));
  EXPECT_TRUE(std::isnan(static_cast<float>(c10::Scalar(kNaN).toBFloat16())));
  EXPECT_TRUE(std::isnan(c10::Scalar(kNaN).toDouble()));
}

TEST(ScalarConversion, ToTemplateMatchesTheNamedAccessors) {
  const c10::Scalar s(42);
  EXPECT_EQ(s.to<double>(), 42.0);
  EXPECT_EQ(s.to<float>(), 42.0f);
  EXPECT_EQ(static_cast<float>(s.to<c10::Half>()), 42.0f);
  EXPECT_EQ(static_cast<float>(s.to<c10::BFloat16>()), 42.0f);
  EXPECT_EQ(s.to<int64_t>(), 42);
  EXPECT_EQ(s.to<long long>(), 42LL);
  EXPECT_EQ(s.to<int32_t>(), 42);
  EXPECT_EQ(s.to<int16_t>(), 42);
  EXPECT_EQ(s.to<int8_t>(), 42);
  EXPECT_EQ(s.to<uint8_t>(), 42);
  EXPECT_EQ(c10::Scalar(true).to<bool>(), true);
  EXPECT_EQ(c10::Scalar(2.5).to<double>(), 2.5);
  static_assert(std::is_same<decltype(s.to<long long>()), long long>::value,
                "");
  static_assert(std::is_same<decltype(s.to<c10::Half>()), c10::Half>::value,
                "");
}

// ---------------------------------------------------------------------------
// Conversions that overflow: each throws c10::Error naming the accessor, the
// value, the target type and its range.

TEST(ScalarOverflow, IntegerTooLargeForByte) {
  const std::string msg = error_message([] { c10::Scalar(300).toByte(); });
  EXPECT_THAT(msg, StartsWith(overflow_text("toByte", "300", "uint8_t")));
  EXPECT_THAT(msg, HasSubstr("value 300 cannot be converted to type uint8_t "
                             "without overflow"));
  EXPECT_THAT(msg, HasSubstr("[0, 255]"));
  EXPECT_THAT(
      msg,
      EndsWith("or read it as a wider type (toDouble() accepts every value)."));
  EXPECT_THAT(error_message([] { c10::Scalar(256).toByte(); }),
              HasSubstr("value 256 cannot be converted to type uint8_t"));
}

TEST(ScalarOverflow, IntegerTooNegativeForByte) {
  EXPECT_THAT(error_message([] { c10::Scalar(-256).toByte(); }),
              StartsWith(overflow_text("toByte", "-256", "uint8_t")));
}

TEST(ScalarOverflow, IntegerOutOfRangeForChar) {
  EXPECT_THAT(
      error_message([] { c10::Scalar(128).toChar(); }),
      StartsWith(overflow_text("toChar", "128", "int8_t") + "[-128, 127]."));
  EXPECT_THAT(error_message([] { c10::Scalar(-129).toChar(); }),
              StartsWith(overflow_text("toChar", "-129", "int8_t")));
}

TEST(ScalarOverflow, IntegerOutOfRangeForShort) {
  EXPECT_THAT(error_message([] { c10::Scalar(32768).toShort(); }),
              StartsWith(overflow_text("toShort", "32768", "int16_t") +
                         "[-32768, 32767]."));
  EXPECT_THAT(error_message([] { c10::Scalar(-32769).toShort(); }),
              StartsWith(overflow_text("toShort", "-32769", "int16_t")));
}

TEST(ScalarOverflow, IntegerOutOfRangeForInt) {
  EXPECT_THAT(error_message([] { c10::Scalar(int64_t{2147483648}).toInt(); }),
              StartsWith(overflow_text("toInt", "2147483648", "int") +
                         "[-2147483648, 2147483647]."));
  EXPECT_THAT(error_message([] { c10::Scalar(int64_t{-2147483649}).toInt(); }),
              StartsWith(overflow_text("toInt", "-2147483649", "int")));
}

TEST(ScalarOverflow, IntegerOutOfRangeForBool) {
  EXPECT_THAT(error_message([] { c10::Scalar(2).toBool(); }),
              StartsWith(overflow_text("toBool", "2", "bool") + "[0, 1]."));
  EXPECT_THAT(error_message([] { c10::Scalar(-2).toBool(); }),
              StartsWith(overflow_text("toBool", "-2", "bool")));
}

TEST(ScalarOverflow, IntegerOutOfRangeForHalf) {
  EXPECT_THAT(error_message([] { c10::Scalar(70000).toHalf(); }),
              StartsWith(overflow_text("toHalf", "70000", "c10::Half") +
                         "finite values in [-65504, 65504]."));
  EXPECT_THAT(error_message([] { c10::Scalar(-65505).toHalf(); }),
              StartsWith(overflow_text("toHalf", "-65505", "c10::Half")));
}

TEST(ScalarOverflow, DoubleOutOfRangeForLong) {
  EXPECT_THAT(
      error_message([] { c10::Scalar(0x1p63).toLong(); }),
      StartsWith(overflow_text("toLong", "9223372036854775808", "int64_t") +
                 "[-9223372036854775808, 9223372036854775807]."));
  EXPECT_THROW(c10::Scalar(-0x1p64).toLong(), c10::Error);
  EXPECT_THROW(c10::Scalar(1e300).toLong(), c10::Error);
}

TEST(ScalarOverflow, FractionalBeyondTheRangeThrowsBeforeTruncation) {
  // As PyTorch: the range is checked on the value itself, so 127.5 does not
  // fit int8_t although it would truncate to 127.
  EXPECT_THAT(error_message([] { c10::Scalar(127.5).toChar(); }),
              StartsWith(overflow_text("toChar", "127.5", "int8_t")));
  EXPECT_THAT(error_message([] { c10::Scalar(-128.5).toChar(); }),
              StartsWith(overflow_text("toChar", "-128.5", "int8_t")));
  EXPECT_THAT(error_message([] { c10::Scalar(255.5).toByte(); }),
              StartsWith(overflow_text("toByte", "255.5", "uint8_t")));
  EXPECT_THAT(error_message([] { c10::Scalar(1.5).toBool(); }),
              StartsWith(overflow_text("toBool", "1.5", "bool")));
  EXPECT_THROW(c10::Scalar(2147483647.5).toInt(), c10::Error);
  EXPECT_THROW(c10::Scalar(32767.5).toShort(), c10::Error);
}

TEST(ScalarOverflow, NegativeDoublesDoNotWrapIntoUnsignedTypes) {
  EXPECT_THAT(error_message([] { c10::Scalar(-1.0).toByte(); }),
              StartsWith(overflow_text("toByte", "-1", "uint8_t")));
  EXPECT_THAT(error_message([] { c10::Scalar(-0.5).toBool(); }),
              StartsWith(overflow_text("toBool", "-0.5", "bool")));
}

TEST(ScalarOverflow, NanAndInfDoNotConvertToIntegers) {
  EXPECT_THAT(error_message([] { c10::Scalar(kNaN).toLong(); }),
              StartsWith(overflow_text("toLong", "nan", "int64_t")));
  EXPECT_THAT(error_message([] { c10::Scalar(kInf).toInt(); }),
              StartsWith(overflow_text("toInt", "inf", "int")));
  EXPECT_THAT(error_message([] { c10::Scalar(-kInf).toByte(); }),
              StartsWith(overflow_text("toByte", "-inf", "uint8_t")));
  EXPECT_THAT(error_message([] { c10::Scalar(kNaN).toBool(); }),
              StartsWith(overflow_text("toBool", "nan", "bool")));
}

TEST(ScalarOverflow, FiniteDoubleTooLargeForFloat) {
  EXPECT_THAT(error_message([] { c10::Scalar(1e40).toFloat(); }),
              StartsWith(overflow_text("toFloat", "1e+40", "float") +
                         "finite values up to about +-3.40282e+38."));
  EXPECT_THAT(error_message([] { c10::Scalar(-1e40).toFloat(); }),
              StartsWith(overflow_text("toFloat", "-1e+40", "float")));
  EXPECT_THROW(c10::Scalar(std::numeric_limits<double>::max()).toFloat(),
               c10::Error);
}

TEST(ScalarOverflow, FiniteDoubleTooLargeForHalf) {
  EXPECT_THAT(error_message([] { c10::Scalar(65505.0).toHalf(); }),
              StartsWith(overflow_text("toHalf", "65505", "c10::Half")));
  EXPECT_THROW(c10::Scalar(-1e5).toHalf(), c10::Error);
}

TEST(ScalarOverflow, FiniteDoubleTooLargeForBFloat16) {
  EXPECT_THAT(error_message([] { c10::Scalar(1e39).toBFloat16(); }),
              StartsWith(overflow_text("toBFloat16", "1e+39", "c10::BFloat16") +
                         "finite values up to about +-3.38953e+38."));
  // float's largest value is beyond bfloat16's.
  EXPECT_THROW(
      c10::Scalar(static_cast<double>(std::numeric_limits<float>::max()))
          .toBFloat16(),
      c10::Error);
}

TEST(ScalarOverflow, ToTemplateChecksLikeTheAccessors) {
  EXPECT_THAT(error_message([] { c10::Scalar(300).to<uint8_t>(); }),
              StartsWith(overflow_text("toByte", "300", "uint8_t")));
  EXPECT_THAT(error_message([] { c10::Scalar(1e40).to<float>(); }),
              StartsWith(overflow_text("toFloat", "1e+40", "float")));
  EXPECT_THROW(c10::Scalar(0x1p63).to<long long>(), c10::Error);
  EXPECT_THROW(c10::Scalar(70000).to<c10::Half>(), c10::Error);
  EXPECT_THROW(c10::Scalar(2).to<bool>(), c10::Error);
}

TEST(ScalarOverflow, BoolsAndDoublesNeverOverflowToDouble) {
  EXPECT_NO_THROW(c10::Scalar(std::numeric_limits<double>::max()).toDouble());
  EXPECT_NO_THROW(c10::Scalar(kLongMin).toDouble());
  EXPECT_NO_THROW(c10::Scalar(true).toByte());
}

// ---------------------------------------------------------------------------
// Negation

TEST(ScalarNegation, NegatesIntegersAndDoublesKeepingTheKind) {
  expect_integral(-c10::Scalar(3), -3);
  expect_integral(-c10::Scalar(-3), 3);
  expect_integral(-c10::Scalar(kLongMax), -kLongMax);
  expect_floating(-c10::Scalar(2.5), -2.5);
  expect_floating(-c10::Scalar(-kInf), kInf);
  const c10::Scalar negative_zero = -c10::Scalar(0.0);
  EXPECT_TRUE(std::signbit(negative_zero.toDouble()));
  EXPECT_TRUE(std::isnan((-c10::Scalar(kNaN)).toDouble()));
}

TEST(ScalarNegation, Int64MinThrows) {
  const std::string msg = error_message([] { -c10::Scalar(kLongMin); });
  EXPECT_THAT(msg, StartsWith("Scalar::operator-: negating "
                              "-9223372036854775808 overflows int64_t"));
  EXPECT_THAT(msg, HasSubstr("toDouble()"));
}

TEST(ScalarNegation, BoolThrows) {
  const std::string msg = error_message([] { -c10::Scalar(true); });
  EXPECT_THAT(msg, StartsWith("Scalar::operator-: the negative of a bool "
                              "(true) is not supported"));
  EXPECT_THAT(msg, HasSubstr("!s.toBool()"));
  EXPECT_THROW(-c10::Scalar(false), c10::Error);
}

// ---------------------------------------------------------------------------
// equal

TEST(ScalarEqual, ComparesNumbersAcrossKinds) {
  EXPECT_TRUE(c10::Scalar(2).equal(2));
  EXPECT_TRUE(c10::Scalar(2).equal(2.0));
  EXPECT_TRUE(c10::Scalar(2).equal(2.0f));
  EXPECT_TRUE(c10::Scalar(2.0).equal(2));
  EXPECT_TRUE(c10::Scalar(2.0).equal(uint8_t{2}));
  EXPECT_TRUE(c10::Scalar(2.5).equal(2.5));
  EXPECT_TRUE(c10::Scalar(-7).equal(int8_t{-7}));
  EXPECT_TRUE(c10::Scalar(1.5).equal(c10::Half(1.5f)));
  EXPECT_TRUE(c10::Scalar(3).equal(c10::BFloat16(3.0f)));
  EXPECT_FALSE(c10::Scalar(2.5).equal(2));
  EXPECT_FALSE(c10::Scalar(2).equal(2.5));
  EXPECT_FALSE(c10::Scalar(2).equal(3));
  EXPECT_FALSE(c10::Scalar(kNaN).equal(kNaN));
}

TEST(ScalarEqual, DoesNotRound) {
  const int64_t odd = (int64_t{1} << 53) + 1;  // not a double
  EXPECT_FALSE(c10::Scalar(odd).equal(0x1p53));
  EXPECT_FALSE(c10::Scalar(0x1p53).equal(odd));
  EXPECT_TRUE(c10::Scalar(odd).equal(odd));
  EXPECT_FALSE(c10::Scalar(kLongMax).equal(0x1p63));
  EXPECT_FALSE(c10::Scalar(300).equal(uint8_t{44}));  // 300 mod 256
}

TEST(ScalarEqual, UnsignedAboveInt64Max) {
  const uint64_t big = uint64_t{1} << 63;
  EXPECT_TRUE(c10::Scalar(0x1p63).equal(big));
  EXPECT_FALSE(c10::Scalar(kLongMax).equal(big));
  EXPECT_FALSE(c10::Scalar(kLongMin).equal(big));
  EXPECT_TRUE(c10::Scalar(5).equal(uint64_t{5}));
}

TEST(ScalarEqual, BoolEqualsOnlyBool) {
  EXPECT_TRUE(c10::Scalar(true).equal(true));
  EXPECT_TRUE(c10::Scalar(false).equal(false));
  EXPECT_FALSE(c10::Scalar(true).equal(false));
  EXPECT_FALSE(c10::Scalar(true).equal(1));
  EXPECT_FALSE(c10::Scalar(true).equal(1.0));
  EXPECT_FALSE(c10::Scalar(1).equal(true));
  EXPECT_FALSE(c10::Scalar(0.0).equal(false));
}

// ---------------------------------------------------------------------------
// Printing

std::string printed(const c10::Scalar& s) {
  std::ostringstream os;
  os << s;
  EXPECT_EQ(c10::toString(s), os.str());
  return os.str();
}

TEST(ScalarPrinting, IntegersPrintPlainly) {
  EXPECT_EQ(printed(3), "3");
  EXPECT_EQ(printed(-7), "-7");
  EXPECT_EQ(printed(0), "0");
  EXPECT_EQ(printed(kLongMin), "-9223372036854775808");
  EXPECT_EQ(printed(uint8_t{200}), "200");
}

TEST(ScalarPrinting, DoublesPrintTheShortestRoundTrip) {
  EXPECT_EQ(printed(2.5), "2.5");
  EXPECT_EQ(printed(0.1), "0.1");
  EXPECT_EQ(printed(-0.25), "-0.25");
  EXPECT_EQ(printed(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(printed(0.1f), "0.10000000149011612");
  EXPECT_EQ(printed(2.0), "2");
  EXPECT_EQ(printed(1e40), "1e+40");
  EXPECT_EQ(printed(0x1p63), "9223372036854775808");  // shorter than 9.2e+18
  EXPECT_EQ(printed(1e-7), "1e-07");
  EXPECT_EQ(printed(kInf), "inf");
  EXPECT_EQ(printed(-kInf), "-inf");
  EXPECT_EQ(printed(kNaN), "nan");
  // Every printed double reads back as the same double.
  for (double d : {0.1, 1.0 / 3.0, 2.0 / 3.0, 1e300, 5e-324, 123456.789}) {
    // strtod, not stod: stod rejects the subnormal 5e-324 as out of range.
    EXPECT_EQ(std::strtod(printed(d).c_str(), nullptr), d) << printed(d);
  }
}

TEST(ScalarPrinting, IgnoresStreamPrecision) {
  std::ostringstream os;
  os << std::setprecision(2) << c10::Scalar(0.125) << " "
     << c10::Scalar(1.0 / 3.0);
  EXPECT_EQ(os.str(), "0.125 0.3333333333333333");
}

TEST(ScalarPrinting, BoolsPrintAsWords) {
  EXPECT_EQ(printed(true), "true");
  EXPECT_EQ(printed(false), "false");
}

TEST(ScalarPrinting, WorksInsideCheckMessages) {
  const c10::Scalar s = 2.5;
  try {
    TORCH_CHECK(false, "fill_: value ", s, " does not fit");
  } catch (const c10::Error& e) {
    EXPECT_EQ(e.msg(), "fill_: value 2.5 does not fit");
  }
}

}  // namespace
