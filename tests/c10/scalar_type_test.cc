// Tests for c10::ScalarType: sizes, names, categories, the C++ type traits and
// the full type-promotion table against torch.promote_types.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <type_traits>

#include "c10/core/ScalarType.h"

namespace {

using c10::ScalarType;
using testing::HasSubstr;

// Every dtype, in enum order.
constexpr ScalarType kAllDtypes[] = {
    c10::kByte, c10::kChar,  c10::kShort,  c10::kInt,  c10::kLong,
    c10::kHalf, c10::kFloat, c10::kDouble, c10::kBool, c10::kBFloat16};

TEST(ScalarType, EnumeratorsAreInPyTorchsOrderWithUndefinedLast) {
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(static_cast<int>(kAllDtypes[i]), i);
  }
  EXPECT_EQ(static_cast<int>(ScalarType::Undefined), 10);
  EXPECT_EQ(static_cast<int>(ScalarType::NumOptions), 11);
  static_assert(sizeof(ScalarType) == 1, "ScalarType must stay one byte");
}

TEST(ScalarType, ElementSizeIsSizeofTheCppType) {
  EXPECT_EQ(c10::elementSize(c10::kByte), 1u);
  EXPECT_EQ(c10::elementSize(c10::kChar), 1u);
  EXPECT_EQ(c10::elementSize(c10::kShort), 2u);
  EXPECT_EQ(c10::elementSize(c10::kInt), 4u);
  EXPECT_EQ(c10::elementSize(c10::kLong), 8u);
  EXPECT_EQ(c10::elementSize(c10::kHalf), 2u);
  EXPECT_EQ(c10::elementSize(c10::kFloat), 4u);
  EXPECT_EQ(c10::elementSize(c10::kDouble), 8u);
  EXPECT_EQ(c10::elementSize(c10::kBool), 1u);
  EXPECT_EQ(c10::elementSize(c10::kBFloat16), 2u);
}

TEST(ScalarType, ElementSizeOfUndefinedThrowsNamingIt) {
  try {
    c10::elementSize(ScalarType::Undefined);
    FAIL() << "expected c10::Error";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.msg(),
                HasSubstr("elementSize: expected a defined dtype, but got "
                          "Undefined"));
  }
  EXPECT_THROW(c10::elementSize(ScalarType::NumOptions), c10::Error);
}

TEST(ScalarType, NamesArePyTorchsCppNames) {
  const char* expected[] = {"Byte", "Char",  "Short",  "Int",  "Long",
                            "Half", "Float", "Double", "Bool", "BFloat16"};
  for (int i = 0; i < 10; ++i) {
    EXPECT_STREQ(c10::toString(kAllDtypes[i]), expected[i]);
  }
  EXPECT_STREQ(c10::toString(ScalarType::Undefined), "Undefined");
  EXPECT_STREQ(c10::toString(ScalarType::NumOptions), "UNKNOWN_SCALAR");
  std::ostringstream out;
  out << c10::kBFloat16 << "," << c10::kChar;
  EXPECT_EQ(out.str(), "BFloat16,Char");
}

TEST(ScalarType, CategoriesMatchPyTorch) {
  struct Expected {
    ScalarType t;
    bool integral;  // Without bool.
    bool floating;
    bool reduced;
    bool is_signed;
  };
  const Expected table[] = {
      {c10::kByte, true, false, false, false},
      {c10::kChar, true, false, false, true},
      {c10::kShort, true, false, false, true},
      {c10::kInt, true, false, false, true},
      {c10::kLong, true, false, false, true},
      {c10::kHalf, false, true, true, true},
      {c10::kFloat, false, true, false, true},
      {c10::kDouble, false, true, false, true},
      {c10::kBool, false, false, false, false},
      {c10::kBFloat16, false, true, true, true},
  };
  for (const Expected& e : table) {
    SCOPED_TRACE(c10::toString(e.t));
    EXPECT_EQ(c10::isIntegralType(e.t, /*includeBool=*/false), e.integral);
    EXPECT_EQ(c10::isIntegralType(e.t, /*includeBool=*/true),
              e.integral || e.t == c10::kBool);
    EXPECT_EQ(c10::isFloatingType(e.t), e.floating);
    EXPECT_EQ(c10::isReducedFloatingType(e.t), e.reduced);
    EXPECT_EQ(c10::isSignedType(e.t), e.is_signed);
  }
  EXPECT_FALSE(c10::isIntegralType(ScalarType::Undefined, true));
  EXPECT_FALSE(c10::isFloatingType(ScalarType::Undefined));
  static_assert(c10::isFloatingType(c10::kBFloat16), "usable at compile time");
}

TEST(ScalarType, IsSignedTypeOfUndefinedThrowsNamingIt) {
  try {
    c10::isSignedType(ScalarType::Undefined);
    FAIL() << "expected c10::Error";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.msg(), HasSubstr("isSignedType: expected a defined dtype, "
                                   "but got Undefined"));
  }
}

TEST(ScalarType, CppTypesAndDtypesMapBothWays) {
  static_assert(c10::CppTypeToScalarType<uint8_t>::value == c10::kByte, "");
  static_assert(c10::CppTypeToScalarType<int8_t>::value == c10::kChar, "");
  static_assert(c10::CppTypeToScalarType<int16_t>::value == c10::kShort, "");
  static_assert(c10::CppTypeToScalarType<int32_t>::value == c10::kInt, "");
  static_assert(c10::CppTypeToScalarType<int64_t>::value == c10::kLong, "");
  static_assert(c10::CppTypeToScalarType<c10::Half>::value == c10::kHalf, "");
  static_assert(c10::CppTypeToScalarType<float>::value == c10::kFloat, "");
  static_assert(c10::CppTypeToScalarType<double>::value == c10::kDouble, "");
  static_assert(c10::CppTypeToScalarType<bool>::value == c10::kBool, "");
  static_assert(
      c10::CppTypeToScalarType<c10::BFloat16>::value == c10::kBFloat16, "");
  static_assert(std::is_same<c10::impl::ScalarTypeToCPPTypeT<c10::kHalf>,
                             c10::Half>::value,
                "");
  static_assert(
      std::is_same<c10::impl::ScalarTypeToCPPTypeT<c10::kChar>, int8_t>::value,
      "");
  // The macro list, the traits and elementSize agree for every dtype.
  int count = 0;
#define CHECK_DTYPE(cpp_type, name)                                            \
  static_assert(c10::CppTypeToScalarType<cpp_type>::value == ScalarType::name, \
                #name);                                                        \
  static_assert(std::is_same<c10::impl::ScalarTypeToCPPTypeT<c10::k##name>,    \
                             cpp_type>::value,                                 \
                #name);                                                        \
  EXPECT_EQ(c10::elementSize(ScalarType::name), sizeof(cpp_type)) << #name;    \
  ++count;
  C10_FORALL_SCALAR_TYPES(CHECK_DTYPE)
#undef CHECK_DTYPE
  EXPECT_EQ(count, static_cast<int>(ScalarType::Undefined));
}

// torch.promote_types for every pair, written out by hand from PyTorch's
// documented results (rows and columns in enum order):
//   u1 = uint8, i1 = int8, i2 = int16, i4 = int32, i8 = int64,
//   f2 = float16, f4 = float32, f8 = float64, b1 = bool, bf = bfloat16.
TEST(ScalarType, PromoteTypesMatchesTorchPromoteTypesForAllPairs) {
  constexpr ScalarType u1 = c10::kByte, i1 = c10::kChar, i2 = c10::kShort,
                       i4 = c10::kInt, i8 = c10::kLong, f2 = c10::kHalf,
                       f4 = c10::kFloat, f8 = c10::kDouble, b1 = c10::kBool,
                       bf = c10::kBFloat16;
  const ScalarType expected[10][10] = {
      //       u1  i1  i2  i4  i8  f2  f4  f8  b1  bf
      /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, u1, bf},
      /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, i1, bf},
      /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, i2, bf},
      /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, i4, bf},
      /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, i8, bf},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, f2, f4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, f4, f4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
      /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, b1, bf},
      /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, bf, bf},
  };
  for (int i = 0; i < 10; ++i) {
    for (int j = 0; j < 10; ++j) {
      EXPECT_EQ(c10::promoteTypes(kAllDtypes[i], kAllDtypes[j]), expected[i][j])
          << kAllDtypes[i] << " with " << kAllDtypes[j];
    }
  }
}

TEST(ScalarType, PromoteTypesSpotChecksFromPyTorchDocs) {
  EXPECT_EQ(c10::promoteTypes(c10::kByte, c10::kChar), c10::kShort);
  EXPECT_EQ(c10::promoteTypes(c10::kBool, c10::kBool), c10::kBool);
  EXPECT_EQ(c10::promoteTypes(c10::kInt, c10::kHalf), c10::kHalf);
  EXPECT_EQ(c10::promoteTypes(c10::kBFloat16, c10::kHalf), c10::kFloat);
  EXPECT_EQ(c10::promoteTypes(c10::kLong, c10::kBFloat16), c10::kBFloat16);
  EXPECT_EQ(c10::promoteTypes(c10::kByte, c10::kLong), c10::kLong);
}

TEST(ScalarType, PromoteTypesWithUndefinedThrowsNamingBothOperands) {
  try {
    c10::promoteTypes(ScalarType::Undefined, c10::kFloat);
    FAIL() << "expected c10::Error";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.msg(), HasSubstr("promoteTypes: expected two defined "
                                   "dtypes, but got Undefined and Float"));
  }
  try {
    c10::promoteTypes(c10::kInt, ScalarType::Undefined);
    FAIL() << "expected c10::Error";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.msg(), HasSubstr("but got Int and Undefined"));
  }
  EXPECT_THROW(c10::promoteTypes(ScalarType::Undefined, ScalarType::Undefined),
               c10::Error);
  EXPECT_THROW(c10::promoteTypes(c10::kBool, ScalarType::NumOptions),
               c10::Error);
}

}  // namespace
