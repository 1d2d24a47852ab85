// registration/infer_schema.h — a FunctionSchema from a kernel's C++ type.
//
// `m.def("myop", fn)` and every `m.impl` with an unboxed kernel derive a
// schema from the kernel's signature; def() uses it as the op's schema,
// impl() checks it against the defined one. Arguments are named _0, _1, …;
// a leading c10::DispatchKeySet parameter is not part of the schema.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "registration/FunctionSchema.h"
#include "registration/boxing.h"

namespace c10 {
namespace impl {

// The schema type of one C++ parameter or return type (decayed).
template <class T, class Enable = void>
struct SchemaType;  // unsupported types fail to compile here

template <class T>
struct SchemaType<T, std::enable_if_t<is_tensor_like_v<T>>> {
  static TypeSpec get() { return TypeSpec{BaseType::Tensor}; }
};
#define EMBER_SCHEMA_TYPE_(cpp, base)                   \
  template <>                                           \
  struct SchemaType<cpp> {                              \
    static TypeSpec get() { return TypeSpec{base}; }    \
  };
EMBER_SCHEMA_TYPE_(int64_t, BaseType::Int)
EMBER_SCHEMA_TYPE_(double, BaseType::Float)
EMBER_SCHEMA_TYPE_(bool, BaseType::Bool)
EMBER_SCHEMA_TYPE_(std::string, BaseType::Str)
EMBER_SCHEMA_TYPE_(std::string_view, BaseType::Str)
EMBER_SCHEMA_TYPE_(c10::Scalar, BaseType::Scalar)
EMBER_SCHEMA_TYPE_(c10::ScalarType, BaseType::ScalarType)
EMBER_SCHEMA_TYPE_(c10::Device, BaseType::Device)
EMBER_SCHEMA_TYPE_(at::Generator, BaseType::Generator)
EMBER_SCHEMA_TYPE_(c10::Layout, BaseType::Layout)
EMBER_SCHEMA_TYPE_(c10::MemoryFormat, BaseType::MemoryFormat)
#undef EMBER_SCHEMA_TYPE_

template <class T>
TypeSpec listOf() {
  TypeSpec t = SchemaType<T>::get();
  t.is_list = true;
  return t;
}

template <class T>
struct SchemaType<c10::ArrayRef<T>> {
  static TypeSpec get() { return listOf<T>(); }
};
template <class T>
struct SchemaType<std::vector<T>> {
  static TypeSpec get() { return listOf<T>(); }
};
// No enable_if here: with one, neither this nor std::vector<T> above would
// be more specialized and every use would be ambiguous.
template <class T>
struct SchemaType<std::vector<std::optional<T>>> {
  static TypeSpec get() {
    static_assert(is_tensor_like_v<T>, "only Tensor?[] lists have optional entries");
    TypeSpec t{BaseType::Tensor};
    t.element_optional = true;
    t.is_list = true;
    return t;
  }
};
template <class T>
struct SchemaType<std::optional<T>> {
  static TypeSpec get() {
    TypeSpec t = SchemaType<std::decay_t<T>>::get();
    if (t.is_list) {
      t.list_optional = true;
    } else {
      t.element_optional = true;
    }
    return t;
  }
};

template <class T>
struct SchemaType<c10::OptionalArrayRef<T>> {
  static TypeSpec get() {
    TypeSpec t = listOf<T>();
    t.list_optional = true;
    return t;
  }
};

template <class T>
TypeSpec schemaTypeOf() {
  static_assert(!std::is_same<std::decay_t<T>, int>::value,
                "kernel parameters use int64_t for schema type 'int', not int");
  static_assert(!std::is_same<std::decay_t<T>, float>::value,
                "kernel parameters use double for schema type 'float', not float");
  return SchemaType<std::decay_t<T>>::get();
}

template <class R>
struct ReturnTypes {
  static std::vector<TypeSpec> get() { return {schemaTypeOf<R>()}; }
};
template <>
struct ReturnTypes<void> {
  static std::vector<TypeSpec> get() { return {}; }
};
template <class... R>
struct ReturnTypes<std::tuple<R...>> {
  static std::vector<TypeSpec> get() { return {schemaTypeOf<R>()...}; }
};

// Builds "(_0, _1, …) -> (…)" with the given types; the name is empty.
FunctionSchema makeInferredSchema(std::vector<TypeSpec> arguments,
                                  std::vector<TypeSpec> returns);

// c10::impl::inferFunctionSchema<Return(Args...)>
template <class Signature>
struct InferSchema;
template <class R, class... Args>
struct InferSchema<R(Args...)> {
  static FunctionSchema get() {
    return makeInferredSchema({schemaTypeOf<Args>()...},
                              ReturnTypes<std::decay_t<R>>::get());
  }
};

template <class Signature>
FunctionSchema inferFunctionSchema() {
  return InferSchema<Signature>::get();
}

// Compares an inferred schema with a defined one. Returns "" when they match,
// otherwise which part differs, e.g. "argument 2 has type int in the kernel
// but float in the schema".
std::string findSchemaDifference(const FunctionSchema& inferred,
                                 const FunctionSchema& defined);

}  // namespace impl
}  // namespace c10
