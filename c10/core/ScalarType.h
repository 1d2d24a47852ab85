// c10/core/ScalarType.h — c10::ScalarType, the element type ("dtype") of a
// tensor, and the facts about each: size, name, category, promotion.
//
// Ember has the ten real dtypes below; PyTorch's complex, quantized and
// low-bit types do not exist here. Names follow PyTorch's C++ API, so
// ScalarType::Byte is uint8 and ScalarType::Char is int8.
//
//   c10::ScalarType t = c10::promoteTypes(c10::kByte, c10::kChar);  // kShort
//   size_t bytes = c10::elementSize(t);                              // 2
//   std::cout << t;                                                  // Short
//
// Code that must do something per dtype (kernels, printing) generates its
// switch from C10_FORALL_SCALAR_TYPES instead of listing the types again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <type_traits>

#include "c10/util/BFloat16.h"
#include "c10/util/Exception.h"
#include "c10/util/Half.h"

// C10_FORALL_SCALAR_TYPES(_)
//
// Expands `_(cpp_type, Name)` once per dtype, in ScalarType's order. It is the
// one list of dtypes: the enum, the k* constants, the type traits and every
// per-dtype switch in Ember are generated from it.
#define C10_FORALL_SCALAR_TYPES(_) \
  _(uint8_t, Byte)                 \
  _(int8_t, Char)                  \
  _(int16_t, Short)                \
  _(int32_t, Int)                  \
  _(int64_t, Long)                 \
  _(::c10::Half, Half)             \
  _(float, Float)                  \
  _(double, Double)                \
  _(bool, Bool)                    \
  _(::c10::BFloat16, BFloat16)

namespace c10 {

// c10::ScalarType
//
// One enumerator per dtype, then Undefined (no dtype, e.g. an undefined
// tensor) and NumOptions (the count; never a valid value). The numeric values
// are Ember's own, not PyTorch's; do not serialize them.
enum class ScalarType : int8_t {
#define C10_DEFINE_ST_ENUM_(cpp_type, name) name,
  C10_FORALL_SCALAR_TYPES(C10_DEFINE_ST_ENUM_)
#undef C10_DEFINE_ST_ENUM_
  Undefined,
  NumOptions
};

// c10::kByte, c10::kChar, ... c10::kBFloat16
//
// Short spellings of the enumerators, as in PyTorch (`at::kFloat`).
#define C10_DEFINE_ST_CONSTANT_(cpp_type, name) \
  constexpr ScalarType k##name = ScalarType::name;
C10_FORALL_SCALAR_TYPES(C10_DEFINE_ST_CONSTANT_)
#undef C10_DEFINE_ST_CONSTANT_

// c10::CppTypeToScalarType<T>
//
// The dtype of C++ type T, as `CppTypeToScalarType<float>::value`. Only the
// ten element types have it; anything else fails to compile. int64_t is
// `long` on LP64 platforms, so `long long` has no dtype there.
template <typename T>
struct CppTypeToScalarType;

#define C10_DEFINE_CPP_TO_ST_(cpp_type, name) \
  template <>                                 \
  struct CppTypeToScalarType<cpp_type>        \
      : std::integral_constant<ScalarType, ScalarType::name> {};
C10_FORALL_SCALAR_TYPES(C10_DEFINE_CPP_TO_ST_)
#undef C10_DEFINE_CPP_TO_ST_

namespace impl {

// c10::impl::ScalarTypeToCPPType<ScalarType> / ScalarTypeToCPPTypeT
//
// The C++ type of a dtype: `ScalarTypeToCPPTypeT<kHalf>` is c10::Half.
// Undefined and NumOptions have none.
template <ScalarType N>
struct ScalarTypeToCPPType;

#define C10_DEFINE_ST_TO_CPP_(cpp_type, name)   \
  template <>                                   \
  struct ScalarTypeToCPPType<ScalarType::name> { \
    using type = cpp_type;                      \
  };
C10_FORALL_SCALAR_TYPES(C10_DEFINE_ST_TO_CPP_)
#undef C10_DEFINE_ST_TO_CPP_

template <ScalarType N>
using ScalarTypeToCPPTypeT = typename ScalarTypeToCPPType<N>::type;

}  // namespace impl

// c10::toString(ScalarType)
//
// PyTorch's C++ name of the dtype: "Byte", "Float", "BFloat16", "Undefined".
// A value outside the enum gives "UNKNOWN_SCALAR". The pointer is to a string
// literal; never free it.
const char* toString(ScalarType t);

// c10::operator<<(std::ostream&, ScalarType)
//
// Streams toString(t).
std::ostream& operator<<(std::ostream& out, ScalarType t);

// c10::elementSize
//
// Bytes per element, sizeof the dtype's C++ type. Throws c10::Error for
// Undefined and NumOptions, which have no elements.
inline size_t elementSize(ScalarType t) {
  switch (t) {
#define C10_ST_ELEMENT_SIZE_(cpp_type, name) \
  case ScalarType::name:                     \
    return sizeof(cpp_type);
    C10_FORALL_SCALAR_TYPES(C10_ST_ELEMENT_SIZE_)
#undef C10_ST_ELEMENT_SIZE_
    default:
      break;
  }
  TORCH_CHECK(false, "elementSize: expected a defined dtype, but got ", t,
              ", which has no elements. Pass the dtype of a defined tensor.");
}

// c10::isIntegralType
//
// True for Byte, Char, Short, Int and Long, and for Bool when `includeBool`.
// PyTorch makes callers say whether Bool counts, since it is integral for
// some ops (sum) but not others (arange).
constexpr bool isIntegralType(ScalarType t, bool includeBool) {
  return t == ScalarType::Byte || t == ScalarType::Char ||
         t == ScalarType::Short || t == ScalarType::Int ||
         t == ScalarType::Long || (includeBool && t == ScalarType::Bool);
}

// c10::isReducedFloatingType
//
// True for the 16-bit floating types, Half and BFloat16, which kernels
// usually compute in float.
constexpr bool isReducedFloatingType(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16;
}

// c10::isFloatingType
//
// True for Half, BFloat16, Float and Double.
constexpr bool isFloatingType(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double ||
         isReducedFloatingType(t);
}

// c10::isSignedType
//
// Whether the dtype holds negative values: false for Byte and Bool, true for
// the rest. Throws c10::Error for Undefined and NumOptions.
bool isSignedType(ScalarType t);

// c10::promoteTypes
//
// The dtype both operands of a binary op are computed in, as
// torch.promote_types: the result holds both inputs' categories (bool <
// integral < floating) and, within a category, the larger type. Symmetric.
// See Note [Type promotion table] in ScalarType.cc. Throws c10::Error if
// either operand is Undefined or NumOptions.
ScalarType promoteTypes(ScalarType a, ScalarType b);

}  // namespace c10
