// registration/FunctionSchema.h — an operator's signature as PyTorch writes
// it: name, overload, typed arguments with defaults and alias annotations,
// and returns.
//
// A schema is what `m.def("aten::add.Tensor(Tensor self, ...) -> Tensor")`
// declares; the dispatcher keys operators by its OperatorName and the boxing
// layer fills in defaults from it. Build one with c10::parseSchema
// (registration/schema_parser.h) or, for generated signatures, directly:
//
//   c10::FunctionSchema s = c10::parseSchema(
//       "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
//   s.arguments()[2].kwarg_only();           // true
//   s.arguments()[2].default_value()->i;     // 1
//   std::cout << s;                          // prints the text back
//
// These are plain values: copyable, comparable, immutable after construction
// except for setNamespaceIfNotSet. Nothing here is synchronized; share a
// schema between threads only while nobody mutates it.
//
// Not an IValue: defaults are kept as DefaultValue so that this package does
// not depend on the tensor library; the registry converts them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace c10 {

// C10_FORALL_SCHEMA_BASE_TYPES(_)
//
// Expands `_(Enumerator, "schema spelling")` once per base type. The enum, the
// printer and the parser's list of known type names are generated from it.
// `SymInt` is accepted by the parser as another spelling of `int` and is not
// listed here.
#define C10_FORALL_SCHEMA_BASE_TYPES(_) \
  _(Tensor, "Tensor")                   \
  _(Int, "int")                         \
  _(Float, "float")                     \
  _(Bool, "bool")                       \
  _(Str, "str")                         \
  _(Scalar, "Scalar")                   \
  _(ScalarType, "ScalarType")           \
  _(Device, "Device")                   \
  _(Layout, "Layout")                   \
  _(MemoryFormat, "MemoryFormat")       \
  _(Generator, "Generator")

// c10::BaseType
//
// The type of a schema value with list and optional stripped off.
enum class BaseType : uint8_t {
#define C10_DEFINE_BASE_TYPE_ENUM_(name, spelling) name,
  C10_FORALL_SCHEMA_BASE_TYPES(C10_DEFINE_BASE_TYPE_ENUM_)
#undef C10_DEFINE_BASE_TYPE_ENUM_
};

// c10::kNumBaseTypes
inline constexpr int kNumBaseTypes = 0
#define C10_COUNT_BASE_TYPE_(name, spelling) +1
    C10_FORALL_SCHEMA_BASE_TYPES(C10_COUNT_BASE_TYPE_)
#undef C10_COUNT_BASE_TYPE_
    ;

// c10::toString(BaseType)
//
// The schema spelling: "Tensor", "int", "float", ...
const char* toString(BaseType type);
std::ostream& operator<<(std::ostream& out, BaseType type);

// c10::TypeSpec
//
// A type as written in a schema. The `?` before `[]` belongs to the element
// (`Tensor?[]`: a list whose entries may be None), the one after `[]` to the
// list (`int[]?`: the whole list may be None). Without a list, `?` is
// element_optional (`Tensor?`). An aggregate: `TypeSpec{BaseType::Int}` is
// `int`. Nested lists (`int[][]`) do not exist.
struct TypeSpec {
  BaseType base = BaseType::Tensor;
  bool element_optional = false;
  bool is_list = false;
  int64_t fixed_size = -1;  // N in `int[N]`; -1 for `int[]` and non-lists
  bool list_optional = false;

  // Whether the value as a whole may be None (`Tensor?`, `int[]?`, but not
  // `Tensor?[]`).
  bool is_optional() const {
    return is_list ? list_optional : element_optional;
  }
  // The type of one entry of a list (`Tensor?` for `Tensor?[]?`); the type
  // itself for a non-list.
  TypeSpec element_type() const;

  // Schema syntax: "Tensor?[]", "int[2]?", "float".
  std::string str() const;

  static TypeSpec of(BaseType base) { return TypeSpec{base}; }
  static TypeSpec tensor() { return of(BaseType::Tensor); }
  static TypeSpec int_() { return of(BaseType::Int); }
  static TypeSpec float_() { return of(BaseType::Float); }
  static TypeSpec bool_() { return of(BaseType::Bool); }
  static TypeSpec string() { return of(BaseType::Str); }
  static TypeSpec scalar() { return of(BaseType::Scalar); }
  // A list of `element`, which must not itself be a list; keeps its `?`.
  static TypeSpec list_of(TypeSpec element, int64_t fixed_size = -1);
  // `type` with a `?`: on the list for a list type, else on the value.
  // Already-optional types are returned unchanged.
  static TypeSpec optional(TypeSpec type);

  bool operator==(const TypeSpec& other) const;
  bool operator!=(const TypeSpec& other) const { return !(*this == other); }
};

std::ostream& operator<<(std::ostream& out, const TypeSpec& type);

// Note [Default value kinds]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// A DefaultValue holds what the parser made of the text after `=`, already
// fitted to the argument's type:
//   - `float p=2` is Float 2.0; `Scalar alpha=1` stays Int (a Scalar keeps
//     the kind that was written).
//   - `int[2] stride=1` (one value for a fixed-size list) is IntList [1, 1]
//     and prints back as `[1, 1]`, as PyTorch prints it.
//   - `int reduction=Mean` is Int 1 and `Sum` is Int 2 (at::Reduction's
//     values); it prints back as `1`, as PyTorch prints it.
//   - Identifiers for ScalarType, Layout and MemoryFormat (`long`,
//     `strided`, `contiguous_format`) are Str with `identifier` set; they
//     print back verbatim, unquoted. The registry, not the parser, checks
//     that the name exists.
//   - Quoted strings (`'mean'` or `"mean"`) are Str without `identifier` and
//     print with double quotes.
// Only the fields of the value's kind are meaningful; the others stay at
// their initial values and take no part in ==.

// c10::DefaultValue
//
// See Note [Default value kinds].
struct DefaultValue {
  enum class Kind { None, Int, Float, Bool, Str, IntList, FloatList, BoolList };
  Kind kind = Kind::None;
  int64_t i = 0;
  double f = 0.0;
  bool b = false;
  std::string s;
  bool identifier = false;  // Str only: an unquoted name
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<bool> bools;

  static DefaultValue none() { return DefaultValue{}; }
  static DefaultValue int_(int64_t v);
  static DefaultValue float_(double v);
  static DefaultValue bool_(bool v);
  static DefaultValue string(std::string v);
  static DefaultValue identifier_name(std::string v);
  static DefaultValue int_list(std::vector<int64_t> v);
  static DefaultValue float_list(std::vector<double> v);
  static DefaultValue bool_list(std::vector<bool> v);

  // Schema syntax: "None", "-1", "1e-05", "2.0", "True", "\"mean\"",
  // "contiguous_format", "[1, 1]". Floats print as Python's repr does, the
  // shortest text that reads back to the same double.
  std::string str() const;

  // NaN equals NaN here, so that a parsed `nan` default compares equal to
  // itself.
  bool operator==(const DefaultValue& other) const;
  bool operator!=(const DefaultValue& other) const { return !(*this == other); }
};

std::ostream& operator<<(std::ostream& out, const DefaultValue& value);

// c10::AliasInfo
//
// An alias annotation: `(a)` — the value may alias set `a`; `(a!)` — and is
// written to; `(a -> *)` — before the call it is in `a`, after it may alias
// anything (after_set). A set is a name, `*` (anything) or names joined by
// `|`. Only Tensor types carry one.
struct AliasInfo {
  std::string set;
  bool is_write = false;
  std::string after_set;  // empty unless `-> ...` was written

  // With the parentheses: "(a!)", "(a -> *)".
  std::string str() const;

  bool operator==(const AliasInfo& other) const {
    return set == other.set && is_write == other.is_write &&
           after_set == other.after_set;
  }
  bool operator!=(const AliasInfo& other) const { return !(*this == other); }
};

std::ostream& operator<<(std::ostream& out, const AliasInfo& alias);

// c10::Argument
//
// One argument or return of a schema. Returns have no default, are never
// keyword-only and may be unnamed (name "").
class Argument {
 public:
  // Throws c10::Error if `default_value` does not fit `type` (See Note
  // [Default value kinds]) or if `alias_info` is given for a non-Tensor type.
  Argument(std::string name, TypeSpec type,
           std::optional<DefaultValue> default_value = std::nullopt,
           bool kwarg_only = false,
           std::optional<AliasInfo> alias_info = std::nullopt);

  const std::string& name() const { return name_; }
  const TypeSpec& type() const { return type_; }
  const std::optional<DefaultValue>& default_value() const {
    return default_value_;
  }
  bool kwarg_only() const { return kwarg_only_; }
  const std::optional<AliasInfo>& alias_info() const { return alias_info_; }
  // A keyword-only argument that is written to: `*, Tensor(a!) out`.
  bool is_out() const {
    return kwarg_only_ && alias_info_.has_value() && alias_info_->is_write;
  }

  // Schema syntax: "Tensor(a!) self", "int[2] stride=[1, 1]", "Tensor".
  std::string str() const;

  bool operator==(const Argument& other) const;
  bool operator!=(const Argument& other) const { return !(*this == other); }

 private:
  std::string name_;
  TypeSpec type_;
  std::optional<DefaultValue> default_value_;
  bool kwarg_only_;
  std::optional<AliasInfo> alias_info_;
};

std::ostream& operator<<(std::ostream& out, const Argument& argument);

// c10::OperatorName
//
// `name` includes the namespace ("aten::add"); `overload_name` may be empty.
// An aggregate: `OperatorName{"aten::add", "Tensor"}`.
struct OperatorName {
  std::string name;
  std::string overload_name;

  // "aten::add.Tensor", or "aten::add" without an overload.
  std::string str() const;
  // "aten" for "aten::add"; nullopt if the name has no namespace. The view
  // points into `name`.
  std::optional<std::string_view> getNamespace() const;
  // Prefixes "<ns>::" unless the name already has a namespace. Returns
  // whether it did.
  bool setNamespaceIfNotSet(const char* ns);

  bool operator==(const OperatorName& other) const {
    return name == other.name && overload_name == other.overload_name;
  }
  bool operator!=(const OperatorName& other) const { return !(*this == other); }
};

std::ostream& operator<<(std::ostream& out, const OperatorName& name);

// c10::FunctionSchema
//
// A whole signature. Keyword-only arguments follow all positional ones; `...`
// (is_vararg / is_varret) means further unnamed arguments / returns.
class FunctionSchema {
 public:
  // Throws c10::Error on duplicate argument or return names, on a positional
  // argument after a keyword-only one, and on a return with a default or
  // marked keyword-only.
  FunctionSchema(std::string name, std::string overload_name,
                 std::vector<Argument> arguments, std::vector<Argument> returns,
                 bool is_vararg = false, bool is_varret = false);
  FunctionSchema(OperatorName name, std::vector<Argument> arguments,
                 std::vector<Argument> returns, bool is_vararg = false,
                 bool is_varret = false);

  const OperatorName& operator_name() const { return name_; }
  const std::string& name() const { return name_.name; }
  const std::string& overload_name() const { return name_.overload_name; }
  const std::vector<Argument>& arguments() const { return arguments_; }
  const std::vector<Argument>& returns() const { return returns_; }
  bool is_vararg() const { return is_vararg_; }
  bool is_varret() const { return is_varret_; }

  // Whether any argument is written to (carries a `!` alias annotation).
  bool is_mutable() const;
  // Whether argument `index` has a default; throws if out of range.
  bool has_default(size_t index) const;
  std::optional<int> argumentIndexWithName(std::string_view name) const;

  // The schema in PyTorch's syntax, e.g.
  // "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor".
  // parseSchema(s.str()) == s.
  std::string str() const;

  // See OperatorName::setNamespaceIfNotSet.
  bool setNamespaceIfNotSet(const char* ns) {
    return name_.setNamespaceIfNotSet(ns);
  }
  // The same signature under another name.
  FunctionSchema cloneWithName(std::string name,
                               std::string overload_name) const;

  bool operator==(const FunctionSchema& other) const;
  bool operator!=(const FunctionSchema& other) const {
    return !(*this == other);
  }

 private:
  void validate() const;

  OperatorName name_;
  std::vector<Argument> arguments_;
  std::vector<Argument> returns_;
  bool is_vararg_;
  bool is_varret_;
};

std::ostream& operator<<(std::ostream& out, const FunctionSchema& schema);

}  // namespace c10

namespace std {
template <>
struct hash<c10::OperatorName> {
  size_t operator()(const c10::OperatorName& n) const noexcept {
    const size_t h = std::hash<std::string>()(n.name);
    return h ^ (std::hash<std::string>()(n.overload_name) + 0x9e3779b97f4a7c15ULL +
                (h << 6) + (h >> 2));
  }
};
}  // namespace std
