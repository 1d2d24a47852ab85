#include "c10/core/ScalarType.h"

#include <array>
#include <limits>

namespace c10 {
namespace {

// The real dtypes are the enumerators before Undefined.
constexpr int kNumDtypes = static_cast<int>(ScalarType::Undefined);

constexpr bool is_dtype(ScalarType t) {
  return static_cast<int>(t) >= 0 && static_cast<int>(t) < kNumDtypes;
}

// sizeof the C++ type; 0 for non-dtypes. A constexpr twin of elementSize,
// which cannot be constexpr because it throws.
constexpr size_t byte_width(ScalarType t) {
  switch (t) {
#define C10_ST_BYTE_WIDTH_(cpp_type, name) \
  case ScalarType::name:                   \
    return sizeof(cpp_type);
    C10_FORALL_SCALAR_TYPES(C10_ST_BYTE_WIDTH_)
#undef C10_ST_BYTE_WIDTH_
    default:
      return 0;
  }
}

// Note [Type promotion table]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// promoteTypes is one lookup in a table that the compiler fills in from the
// rules below, so the rules stay readable and the lookup is O(1). They
// reproduce torch.promote_types for Ember's ten dtypes:
//
//   1. A dtype with itself gives itself.
//   2. Categories are ordered bool < integral < floating. Across categories
//      the operand of the higher category wins, whatever its width: int64
//      with bfloat16 is bfloat16, although bfloat16 cannot hold every int64.
//   3. Two integral types: two signed ones give the wider. uint8 with a
//      signed type gives the smallest signed type holding both ranges: int16
//      for int8, the signed type itself for anything wider.
//   4. Two floating types: Half with BFloat16 gives Float, since neither
//      holds the other (Half has more precision, BFloat16 more range).
//      Otherwise the wider wins: Half, BFloat16 < Float < Double.
//
// tests/c10/scalar_type_test.cc checks all 100 pairs against a table written
// out by hand from PyTorch's documented results.

enum class Category { kBool, kIntegral, kFloating };

constexpr Category category(ScalarType t) {
  if (t == ScalarType::Bool) {
    return Category::kBool;
  }
  return isFloatingType(t) ? Category::kFloating : Category::kIntegral;
}

constexpr ScalarType promote_by_rules(ScalarType a, ScalarType b) {
  if (a == b) {  // Rule 1.
    return a;
  }
  const Category ca = category(a);
  const Category cb = category(b);
  if (ca != cb) {  // Rule 2.
    return ca > cb ? a : b;
  }
  // Bool is the only type of its category, so a and b are now two different
  // integral or two different floating types.
  if (ca == Category::kIntegral) {  // Rule 3.
    if (a == ScalarType::Byte || b == ScalarType::Byte) {
      const ScalarType signed_type = a == ScalarType::Byte ? b : a;
      return signed_type == ScalarType::Char ? ScalarType::Short : signed_type;
    }
    return byte_width(a) > byte_width(b) ? a : b;
  }
  if (isReducedFloatingType(a) && isReducedFloatingType(b)) {  // Rule 4.
    return ScalarType::Float;
  }
  return byte_width(a) > byte_width(b) ? a : b;
}

using PromotionTable =
    std::array<std::array<ScalarType, kNumDtypes>, kNumDtypes>;

constexpr PromotionTable make_promotion_table() {
  PromotionTable table{};
  for (int i = 0; i < kNumDtypes; ++i) {
    for (int j = 0; j < kNumDtypes; ++j) {
      table[i][j] = promote_by_rules(static_cast<ScalarType>(i),
                                     static_cast<ScalarType>(j));
    }
  }
  return table;
}

constexpr PromotionTable kPromotionTable = make_promotion_table();

constexpr bool is_symmetric(const PromotionTable& table) {
  for (int i = 0; i < kNumDtypes; ++i) {
    for (int j = 0; j < kNumDtypes; ++j) {
      if (table[i][j] != table[j][i]) {
        return false;
      }
    }
  }
  return true;
}

static_assert(is_symmetric(kPromotionTable),
              "promoteTypes must not depend on the operand order");

constexpr ScalarType promote_at_compile_time(ScalarType a, ScalarType b) {
  return kPromotionTable[static_cast<int>(a)][static_cast<int>(b)];
}
static_assert(promote_at_compile_time(kByte, kChar) == kShort,
              "uint8 with int8 must widen to int16");
static_assert(promote_at_compile_time(kHalf, kBFloat16) == kFloat,
              "Half with BFloat16 must give Float");
static_assert(promote_at_compile_time(kLong, kBFloat16) == kBFloat16,
              "an integer with a floating type must give the floating type");

}  // namespace

const char* toString(ScalarType t) {
  switch (t) {
#define C10_ST_NAME_(cpp_type, name) \
  case ScalarType::name:             \
    return #name;
    C10_FORALL_SCALAR_TYPES(C10_ST_NAME_)
#undef C10_ST_NAME_
    case ScalarType::Undefined:
      return "Undefined";
    default:
      return "UNKNOWN_SCALAR";
  }
}

std::ostream& operator<<(std::ostream& out, ScalarType t) {
  return out << toString(t);
}

bool isSignedType(ScalarType t) {
  switch (t) {
#define C10_ST_IS_SIGNED_(cpp_type, name) \
  case ScalarType::name:                  \
    return std::numeric_limits<cpp_type>::is_signed;
    C10_FORALL_SCALAR_TYPES(C10_ST_IS_SIGNED_)
#undef C10_ST_IS_SIGNED_
    default:
      break;
  }
  TORCH_CHECK(false, "isSignedType: expected a defined dtype, but got ", t,
              ". Pass the dtype of a defined tensor.");
}

ScalarType promoteTypes(ScalarType a, ScalarType b) {
  TORCH_CHECK(is_dtype(a) && is_dtype(b),
              "promoteTypes: expected two defined dtypes, but got ", a,
              " and ", b,
              ". An undefined tensor has no dtype to promote; define it "
              "(or pass an explicit dtype) before combining it with another.");
  return kPromotionTable[static_cast<int>(a)][static_cast<int>(b)];
}

}  // namespace c10
