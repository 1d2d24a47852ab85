#include "registration/FunctionSchema.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <unordered_set>

#include "c10/util/Exception.h"
#include "c10/util/StringUtil.h"

namespace c10 {

namespace {

// The text of a TypeSpec with an alias annotation after the base name, where
// the schema syntax puts it: `Tensor(a!)?`, `Tensor(a)[]`.
std::string typeString(const TypeSpec& type, const AliasInfo* alias) {
  std::string out = toString(type.base);
  if (alias != nullptr) out += alias->str();
  if (type.element_optional) out += '?';
  if (type.is_list) {
    out += '[';
    if (type.fixed_size >= 0) out += std::to_string(type.fixed_size);
    out += ']';
    if (type.list_optional) out += '?';
  }
  return out;
}

// Python's repr of a float: the fewest significant digits that read back to
// the same double, positional for exponents in [-4, 16), else scientific
// with a signed two-digit exponent ("1e-05"); a positional integer gets ".0".
std::string formatDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  // Shortest round-trip digits, in scientific form: "-1.2345e-07".
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v,
                                 std::chars_format::scientific);
  TORCH_INTERNAL_ASSERT(res.ec == std::errc(), "formatDouble: to_chars failed");
  const std::string sci(buf, res.ptr);
  const size_t e = sci.find('e');
  const int exponent = std::atoi(sci.c_str() + e + 1);
  std::string digits;  // significant digits without sign and point
  for (size_t k = 0; k < e; ++k) {
    if (sci[k] >= '0' && sci[k] <= '9') digits += sci[k];
  }
  std::string out = std::signbit(v) ? "-" : "";
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    } else {
      const size_t int_digits = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= int_digits) {
        out += digits + std::string(int_digits - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, int_digits) + "." + digits.substr(int_digits);
      }
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  const int mag = exponent < 0 ? -exponent : exponent;
  out += exponent < 0 ? "e-" : "e+";
  if (mag < 10) out += '0';
  out += std::to_string(mag);
  return out;
}

std::string quoteString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

template <typename T, typename F>
std::string listString(const std::vector<T>& values, F format) {
  std::string out = "[";
  for (size_t k = 0; k < values.size(); ++k) {
    if (k > 0) out += ", ";
    out += format(values[k]);
  }
  return out + "]";
}

bool sameDouble(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

// Why `value` cannot be the default of `type`, or "" if it can. See Note
// [Default value kinds]. The parser reports the same cases with a caret
// first; this is the check for schemas built in code.
std::string defaultMismatch(const TypeSpec& type, const DefaultValue& value) {
  using Kind = DefaultValue::Kind;
  if (value.kind == Kind::None) {
    return type.is_optional() ? "" : "None needs an optional type";
  }
  Kind expected = Kind::None;
  if (type.is_list) {
    switch (type.base) {
      case BaseType::Int: expected = Kind::IntList; break;
      case BaseType::Float: expected = Kind::FloatList; break;
      case BaseType::Bool: expected = Kind::BoolList; break;
      default: return "only int[], float[] and bool[] lists take list defaults";
    }
    return value.kind == expected ? "" : "expected a list of its element type";
  }
  switch (type.base) {
    case BaseType::Int: expected = Kind::Int; break;
    case BaseType::Float: expected = Kind::Float; break;
    case BaseType::Bool: expected = Kind::Bool; break;
    case BaseType::Str:
    case BaseType::Device:
      return value.kind == Kind::Str && !value.identifier
                 ? "" : "expected a quoted string";
    case BaseType::ScalarType:
    case BaseType::Layout:
    case BaseType::MemoryFormat:
      return value.kind == Kind::Str && value.identifier
                 ? "" : "expected an identifier such as contiguous_format";
    case BaseType::Scalar:
      return value.kind == Kind::Int || value.kind == Kind::Float ||
                     value.kind == Kind::Bool
                 ? "" : "expected a number or a bool";
    case BaseType::Tensor:
    case BaseType::Generator:
      return "this type only takes None, and only when optional";
  }
  return value.kind == expected ? "" : "the kind does not match the type";
}

}  // namespace

// ---- BaseType ----

const char* toString(BaseType type) {
  switch (type) {
#define C10_BASE_TYPE_CASE_(name, spelling) \
  case BaseType::name:                      \
    return spelling;
    C10_FORALL_SCHEMA_BASE_TYPES(C10_BASE_TYPE_CASE_)
#undef C10_BASE_TYPE_CASE_
  }
  return "<invalid BaseType>";
}

std::ostream& operator<<(std::ostream& out, BaseType type) {
  return out << toString(type);
}

// ---- TypeSpec ----

TypeSpec TypeSpec::element_type() const {
  TypeSpec t = *this;
  t.is_list = false;
  t.fixed_size = -1;
  t.list_optional = false;
  return t;
}

std::string TypeSpec::str() const { return typeString(*this, nullptr); }

TypeSpec TypeSpec::list_of(TypeSpec element, int64_t fixed_size) {
  TORCH_CHECK(!element.is_list, "TypeSpec::list_of: the element type ",
              element.str(), " is already a list; nested lists are not "
              "supported. Pass a non-list element type.");
  TORCH_CHECK(fixed_size == -1 || fixed_size > 0, "TypeSpec::list_of: "
              "fixed_size must be -1 (any length) or positive, but got ",
              fixed_size, ".");
  element.is_list = true;
  element.fixed_size = fixed_size;
  element.list_optional = false;
  return element;
}

TypeSpec TypeSpec::optional(TypeSpec type) {
  if (type.is_list) {
    type.list_optional = true;
  } else {
    type.element_optional = true;
  }
  return type;
}

bool TypeSpec::operator==(const TypeSpec& other) const {
  return base == other.base && element_optional == other.element_optional &&
         is_list == other.is_list && fixed_size == other.fixed_size &&
         list_optional == other.list_optional;
}

std::ostream& operator<<(std::ostream& out, const TypeSpec& type) {
  return out << type.str();
}

// ---- DefaultValue ----

DefaultValue DefaultValue::int_(int64_t v) {
  DefaultValue d;
  d.kind = Kind::Int;
  d.i = v;
  return d;
}
DefaultValue DefaultValue::float_(double v) {
  DefaultValue d;
  d.kind = Kind::Float;
  d.f = v;
  return d;
}
DefaultValue DefaultValue::bool_(bool v) {
  DefaultValue d;
  d.kind = Kind::Bool;
  d.b = v;
  return d;
}
DefaultValue DefaultValue::string(std::string v) {
  DefaultValue d;
  d.kind = Kind::Str;
  d.s = std::move(v);
  return d;
}
DefaultValue DefaultValue::identifier_name(std::string v) {
  DefaultValue d = string(std::move(v));
  d.identifier = true;
  return d;
}
DefaultValue DefaultValue::int_list(std::vector<int64_t> v) {
  DefaultValue d;
  d.kind = Kind::IntList;
  d.ints = std::move(v);
  return d;
}
DefaultValue DefaultValue::float_list(std::vector<double> v) {
  DefaultValue d;
  d.kind = Kind::FloatList;
  d.floats = std::move(v);
  return d;
}
DefaultValue DefaultValue::bool_list(std::vector<bool> v) {
  DefaultValue d;
  d.kind = Kind::BoolList;
  d.bools = std::move(v);
  return d;
}

std::string DefaultValue::str() const {
  const auto bool_text = [](bool v) { return std::string(v ? "True" : "False"); };
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Int: return std::to_string(i);
    case Kind::Float: return formatDouble(f);
    case Kind::Bool: return bool_text(b);
    case Kind::Str: return identifier ? s : quoteString(s);
    case Kind::IntList:
      return listString(ints, [](int64_t v) { return std::to_string(v); });
    case Kind::FloatList: return listString(floats, formatDouble);
    case Kind::BoolList: return listString(bools, bool_text);
  }
  return "<invalid DefaultValue>";
}

bool DefaultValue::operator==(const DefaultValue& other) const {
  if (kind != other.kind) return false;
  switch (kind) {
    case Kind::None: return true;
    case Kind::Int: return i == other.i;
    case Kind::Float: return sameDouble(f, other.f);
    case Kind::Bool: return b == other.b;
    case Kind::Str: return s == other.s && identifier == other.identifier;
    case Kind::IntList: return ints == other.ints;
    case Kind::FloatList:
      if (floats.size() != other.floats.size()) return false;
      for (size_t k = 0; k < floats.size(); ++k) {
        if (!sameDouble(floats[k], other.floats[k])) return false;
      }
      return true;
    case Kind::BoolList: return bools == other.bools;
  }
  return false;
}

std::ostream& operator<<(std::ostream& out, const DefaultValue& value) {
  return out << value.str();
}

// ---- AliasInfo ----

std::string AliasInfo::str() const {
  std::string out = "(" + set;
  if (is_write) out += '!';
  if (!after_set.empty()) out += " -> " + after_set;
  return out + ")";
}

std::ostream& operator<<(std::ostream& out, const AliasInfo& alias) {
  return out << alias.str();
}

// ---- Argument ----

Argument::Argument(std::string name, TypeSpec type,
                   std::optional<DefaultValue> default_value, bool kwarg_only,
                   std::optional<AliasInfo> alias_info)
    : name_(std::move(name)),
      type_(type),
      default_value_(std::move(default_value)),
      kwarg_only_(kwarg_only),
      alias_info_(std::move(alias_info)) {
  TORCH_CHECK(!alias_info_ || type_.base == BaseType::Tensor, "Argument: '",
              name_, "' of type ", type_.str(), " has alias annotation ",
              alias_info_ ? alias_info_->str() : "",
              "; only Tensor types carry one. Remove the annotation.");
  if (default_value_) {
    const std::string why = defaultMismatch(type_, *default_value_);
    TORCH_CHECK(why.empty(), "Argument: default ", default_value_->str(),
                " does not fit type ", type_.str(), " of '", name_, "': ", why,
                ". See Note [Default value kinds] in "
                "registration/FunctionSchema.h.");
  }
}

std::string Argument::str() const {
  std::string out = typeString(type_, alias_info_ ? &*alias_info_ : nullptr);
  if (!name_.empty()) out += " " + name_;
  if (default_value_) out += "=" + default_value_->str();
  return out;
}

bool Argument::operator==(const Argument& other) const {
  return name_ == other.name_ && type_ == other.type_ &&
         default_value_ == other.default_value_ &&
         kwarg_only_ == other.kwarg_only_ && alias_info_ == other.alias_info_;
}

std::ostream& operator<<(std::ostream& out, const Argument& argument) {
  return out << argument.str();
}

// ---- OperatorName ----

std::string OperatorName::str() const {
  return overload_name.empty() ? name : name + "." + overload_name;
}

std::optional<std::string_view> OperatorName::getNamespace() const {
  const size_t pos = name.find("::");
  if (pos == std::string::npos) return std::nullopt;
  return std::string_view(name).substr(0, pos);
}

bool OperatorName::setNamespaceIfNotSet(const char* ns) {
  if (getNamespace().has_value()) return false;
  name = std::string(ns) + "::" + name;
  return true;
}

std::ostream& operator<<(std::ostream& out, const OperatorName& name) {
  return out << name.str();
}

// ---- FunctionSchema ----

FunctionSchema::FunctionSchema(std::string name, std::string overload_name,
                               std::vector<Argument> arguments,
                               std::vector<Argument> returns, bool is_vararg,
                               bool is_varret)
    : FunctionSchema(OperatorName{std::move(name), std::move(overload_name)},
                     std::move(arguments), std::move(returns), is_vararg,
                     is_varret) {}

FunctionSchema::FunctionSchema(OperatorName name,
                               std::vector<Argument> arguments,
                               std::vector<Argument> returns, bool is_vararg,
                               bool is_varret)
    : name_(std::move(name)),
      arguments_(std::move(arguments)),
      returns_(std::move(returns)),
      is_vararg_(is_vararg),
      is_varret_(is_varret) {
  validate();
}

void FunctionSchema::validate() const {
  std::unordered_set<std::string> seen;
  bool kwarg_only = false;
  for (const Argument& a : arguments_) {
    TORCH_CHECK(a.name().empty() || seen.insert(a.name()).second,
                "FunctionSchema: ", name_.str(), " has two arguments named '",
                a.name(), "'. Give every argument a distinct name.");
    TORCH_CHECK(!kwarg_only || a.kwarg_only(), "FunctionSchema: ", name_.str(),
                ": positional argument '", a.name(), "' follows a keyword-only "
                "argument. Put keyword-only arguments last.");
    kwarg_only = a.kwarg_only();
  }
  seen.clear();
  for (const Argument& r : returns_) {
    TORCH_CHECK(r.name().empty() || seen.insert(r.name()).second,
                "FunctionSchema: ", name_.str(), " has two returns named '",
                r.name(), "'. Give every return a distinct name.");
    TORCH_CHECK(!r.default_value() && !r.kwarg_only(), "FunctionSchema: ",
                name_.str(), ": return '", r.str(), "' has a default or is "
                "keyword-only. Returns take neither.");
  }
}

bool FunctionSchema::is_mutable() const {
  for (const Argument& a : arguments_) {
    if (a.alias_info() && a.alias_info()->is_write) return true;
  }
  return false;
}

bool FunctionSchema::has_default(size_t index) const {
  TORCH_CHECK(index < arguments_.size(), "FunctionSchema::has_default: index ",
              index, " is out of range for ", name_.str(), ", which has ",
              arguments_.size(), " arguments.");
  return arguments_[index].default_value().has_value();
}

std::optional<int> FunctionSchema::argumentIndexWithName(
    std::string_view name) const {
  for (size_t k = 0; k < arguments_.size(); ++k) {
    if (arguments_[k].name() == name) return static_cast<int>(k);
  }
  return std::nullopt;
}

std::string FunctionSchema::str() const {
  std::string out = name_.str() + "(";
  bool kwarg_only = false;
  for (size_t k = 0; k < arguments_.size(); ++k) {
    if (k > 0) out += ", ";
    if (arguments_[k].kwarg_only() && !kwarg_only) {
      out += "*, ";
      kwarg_only = true;
    }
    out += arguments_[k].str();
  }
  if (is_vararg_) out += arguments_.empty() ? "..." : ", ...";
  out += ") -> ";
  // Note [Printing returns]
  // ~~~~~~~~~~~~~~~~~~~~~~~
  // One unnamed return prints bare (`-> Tensor`); a named one gets
  // parentheses (`-> (Tensor out)`) so the name cannot be mistaken for
  // trailing text; `...` alone prints bare too.
  if (returns_.size() == 1 && !is_varret_ && returns_[0].name().empty()) {
    return out + returns_[0].str();
  }
  if (returns_.empty() && is_varret_) return out + "...";
  out += "(";
  for (size_t k = 0; k < returns_.size(); ++k) {
    if (k > 0) out += ", ";
    out += returns_[k].str();
  }
  if (is_varret_) out += ", ...";
  return out + ")";
}

FunctionSchema FunctionSchema::cloneWithName(std::string name,
                                             std::string overload_name) const {
  return FunctionSchema(std::move(name), std::move(overload_name), arguments_,
                        returns_, is_vararg_, is_varret_);
}

bool FunctionSchema::operator==(const FunctionSchema& other) const {
  return name_ == other.name_ && arguments_ == other.arguments_ &&
         returns_ == other.returns_ && is_vararg_ == other.is_vararg_ &&
         is_varret_ == other.is_varret_;
}

std::ostream& operator<<(std::ostream& out, const FunctionSchema& schema) {
  return out << schema.str();
}

}  // namespace c10
