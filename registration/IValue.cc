// registration/IValue.cc — c10::IValue's out-of-line constructors and
// accessors, its error messages and its printing. The hot accessors (tensors,
// numbers) are inline in IValue.h.
#include "registration/IValue.h"

#include <algorithm>

namespace c10 {

namespace {

using Tag = IValue::Tag;

const char* tagName(Tag tag) {
  switch (tag) {
#define C10_IVALUE_TAG_NAME_(tag, description) \
  case Tag::tag:                               \
    return #tag;
    C10_FORALL_IVALUE_TAGS(C10_IVALUE_TAG_NAME_)
#undef C10_IVALUE_TAG_NAME_
  }
  return "<invalid IValue tag>";
}

const char* tagDescription(Tag tag) {
  switch (tag) {
#define C10_IVALUE_TAG_DESCRIPTION_(tag, description) \
  case Tag::tag:                                      \
    return description;
    C10_FORALL_IVALUE_TAGS(C10_IVALUE_TAG_DESCRIPTION_)
#undef C10_IVALUE_TAG_DESCRIPTION_
  }
  return "<invalid IValue tag>";
}

// Doubles print in Scalar's shortest round-trip form, with ".0" added to
// integral values so that 2.0 does not read as the int 2.
void printDouble(std::ostream& out, double d) {
  std::string text = c10::toString(c10::Scalar(d));
  const bool looks_integral =
      std::all_of(text.begin(), text.end(),
                  [](char c) { return c == '-' || (c >= '0' && c <= '9'); });
  out << text << (looks_integral ? ".0" : "");
}

void printTensor(std::ostream& out, const c10::TensorImpl* impl) {
  if (impl == nullptr) {
    out << "Tensor(undefined)";
    return;
  }
  out << "Tensor" << impl->sizes() << " " << impl->scalar_type();
  if (!impl->device().is_cpu()) out << " " << impl->device();
}

void printQuoted(std::ostream& out, std::string_view s) {
  out << '"';
  for (char c : s) {
    switch (c) {
      case '"':
        out << "\\\"";
        break;
      case '\\':
        out << "\\\\";
        break;
      case '\n':
        out << "\\n";
        break;
      case '\t':
        out << "\\t";
        break;
      default:
        out << c;
    }
  }
  out << '"';
}

template <class T, class Print>
void printList(std::ostream& out, const std::vector<T>& elements,
               Print print) {
  out << "[";
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i > 0) out << ", ";
    print(elements[i]);
  }
  out << "]";
}

std::string checkedString(const char* s) {
  TORCH_CHECK(s != nullptr,
              "IValue: got a null const char*; pass a string, or "
              "std::nullopt for None.");
  return s;
}

}  // namespace

// ---- construction ----

IValue::IValue(std::string s)
    : IValue(Tag::String, ivalue::ConstantString::create(std::move(s)).release()) {}

IValue::IValue(std::string_view s) : IValue(std::string(s)) {}

IValue::IValue(const char* s) : IValue(checkedString(s)) {}

IValue::IValue(c10::intrusive_ptr<ivalue::ConstantString> s)
    : IValue(Tag::String, s.release()) {
  TORCH_CHECK(payload_.as_intrusive_ptr != nullptr,
              "IValue: got a null ConstantString; pass a string, or "
              "std::nullopt for None.");
}

IValue::IValue(const c10::Scalar& s) : IValue() {
  if (s.isFloatingPoint()) {
    tag_ = Tag::Double;
    payload_.as_double = s.toDouble();
  } else if (s.isBoolean()) {
    tag_ = Tag::Bool;
    payload_.as_bool = s.toBool();
  } else {
    tag_ = Tag::Int;
    payload_.as_int = s.toLong();
  }
}

// ---- queries ----

std::string IValue::tagKind() const { return tagName(tag_); }

size_t IValue::use_count() const {
  if (tag_ == Tag::Tensor) {
    if (payload_.as_tensor == nullptr) return 0;
    auto borrowed =
        c10::intrusive_ptr<c10::TensorImpl>::reclaim(payload_.as_tensor);
    const size_t count = borrowed.use_count();
    (void)borrowed.release();
    return count;
  }
  if (isIntrusivePtr()) {
    if (payload_.as_intrusive_ptr == nullptr) return 0;
    auto borrowed = c10::intrusive_ptr<c10::intrusive_ptr_target>::reclaim(
        payload_.as_intrusive_ptr);
    const size_t count = borrowed.use_count();
    (void)borrowed.release();
    return count;
  }
  return 1;
}

bool IValue::isSameIdentity(const IValue& rhs) const {
  if (tag_ != rhs.tag_) return false;
  switch (tag_) {
    case Tag::None:
      return true;
    case Tag::Tensor:
      return payload_.as_tensor == rhs.payload_.as_tensor;
    case Tag::Double:
      return payload_.as_double == rhs.payload_.as_double;
    case Tag::Int:
      return payload_.as_int == rhs.payload_.as_int;
    case Tag::Bool:
      return payload_.as_bool == rhs.payload_.as_bool;
    case Tag::Device:
      return toDevice() == rhs.toDevice();
    default:
      return payload_.as_intrusive_ptr == rhs.payload_.as_intrusive_ptr;
  }
}

// ---- errors ----

void IValue::reportWrongType(const char* accessor, Tag expected) const {
  C10_THROW_ERROR(Error, "IValue::", accessor, ": expected ",
                  tagDescription(expected), " but got ", tagDescription(tag_),
                  ". Check is", tagName(expected),
                  "() before reading, or pass a value of the type the "
                  "operator's schema declares for this argument.");
}

void IValue::reportUnsignedTooLarge(uint64_t value) {
  C10_THROW_ERROR(Error, "IValue: the unsigned value ", value,
                  " does not fit in int64_t, the widest integer an IValue "
                  "holds (at most ",
                  std::numeric_limits<int64_t>::max(),
                  "). Pass a smaller value, or a double if an approximation "
                  "is acceptable.");
}

// ---- accessors ----

c10::intrusive_ptr<ivalue::ConstantString> IValue::toString() const {
  checkTag(Tag::String, "toString");
  return c10::intrusive_ptr<ivalue::ConstantString>::reclaim_copy(
      static_cast<ivalue::ConstantString*>(payload_.as_intrusive_ptr));
}

std::vector<int64_t> IValue::toIntVector() const& {
  return listRef<int64_t>(Tag::IntList, "toIntVector");
}
std::vector<int64_t> IValue::toIntVector() && {
  return takeList<int64_t>(Tag::IntList, "toIntVector");
}
std::vector<double> IValue::toDoubleVector() const& {
  return listRef<double>(Tag::DoubleList, "toDoubleVector");
}
std::vector<double> IValue::toDoubleVector() && {
  return takeList<double>(Tag::DoubleList, "toDoubleVector");
}
std::vector<bool> IValue::toBoolVector() const& {
  return listRef<bool>(Tag::BoolList, "toBoolVector");
}
std::vector<bool> IValue::toBoolVector() && {
  return takeList<bool>(Tag::BoolList, "toBoolVector");
}
std::vector<at::TensorBase> IValue::toTensorBaseVector() const& {
  return listRef<at::TensorBase>(Tag::TensorList, "toTensorBaseVector");
}
std::vector<at::TensorBase> IValue::toTensorBaseVector() && {
  return takeList<at::TensorBase>(Tag::TensorList, "toTensorBaseVector");
}
std::vector<std::optional<at::TensorBase>> IValue::toOptionalTensorVector()
    const& {
  return listRef<std::optional<at::TensorBase>>(Tag::OptionalTensorList,
                                                "toOptionalTensorVector");
}
std::vector<std::optional<at::TensorBase>> IValue::toOptionalTensorVector()
    && {
  return takeList<std::optional<at::TensorBase>>(Tag::OptionalTensorList,
                                                 "toOptionalTensorVector");
}

c10::Scalar IValue::toScalar() const {
  switch (tag_) {
    case Tag::Int:
      return c10::Scalar(payload_.as_int);
    case Tag::Double:
      return c10::Scalar(payload_.as_double);
    case Tag::Bool:
      return c10::Scalar(payload_.as_bool);
    default:
      break;
  }
  C10_THROW_ERROR(Error, "IValue::toScalar: expected a Scalar (an int, a "
                  "double or a bool) but got ", tagDescription(tag_),
                  ". Check isScalar() before reading, or pass a number for "
                  "this argument.");
}

c10::ScalarType IValue::toScalarType() const {
  checkTag(Tag::Int, "toScalarType");
  constexpr int64_t kCount = static_cast<int64_t>(c10::ScalarType::Undefined);
  const int64_t v = payload_.as_int;
  TORCH_CHECK(v >= 0 && v < kCount, "IValue::toScalarType: ", v,
              " is not a dtype; a ScalarType is stored as an int in [0, ",
              kCount - 1, "] (", c10::ScalarType(0), " to ",
              c10::ScalarType(kCount - 1),
              "). Pass a c10::ScalarType such as c10::kFloat, not an "
              "arbitrary integer.");
  return static_cast<c10::ScalarType>(v);
}

at::Generator IValue::toGenerator() const& {
  checkTag(Tag::Generator, "toGenerator");
  auto* impl = static_cast<c10::GeneratorImpl*>(payload_.as_intrusive_ptr);
  if (impl == nullptr) return at::Generator();
  return at::Generator(
      c10::intrusive_ptr<c10::GeneratorImpl>::reclaim_copy(impl));
}

at::Generator IValue::toGenerator() && {
  checkTag(Tag::Generator, "toGenerator");
  auto* impl = static_cast<c10::GeneratorImpl*>(payload_.as_intrusive_ptr);
  clearToNone();
  if (impl == nullptr) return at::Generator();
  return at::Generator(c10::intrusive_ptr<c10::GeneratorImpl>::reclaim(impl));
}

// ---- printing ----

std::ostream& operator<<(std::ostream& out, const IValue& v) {
  using Tag = IValue::Tag;
  switch (v.tag_) {
    case Tag::None:
      return out << "None";
    case Tag::Tensor:
      printTensor(out, v.payload_.as_tensor);
      return out;
    case Tag::Double:
      printDouble(out, v.payload_.as_double);
      return out;
    case Tag::Int:
      return out << v.payload_.as_int;
    case Tag::Bool:
      return out << (v.payload_.as_bool ? "True" : "False");
    case Tag::Device:
      return out << v.toDevice();
    case Tag::String:
      printQuoted(out, v.toStringView());
      return out;
    case Tag::IntList:
      return out << v.toIntList();
    case Tag::DoubleList:
      printList(out, v.listRef<double>(Tag::DoubleList, "operator<<"),
                [&](double d) { printDouble(out, d); });
      return out;
    case Tag::BoolList:
      printList(out, v.listRef<bool>(Tag::BoolList, "operator<<"),
                [&](bool b) { out << (b ? "True" : "False"); });
      return out;
    case Tag::TensorList:
      printList(out,
                v.listRef<at::TensorBase>(Tag::TensorList, "operator<<"),
                [&](const at::TensorBase& t) {
                  printTensor(out, t.unsafeGetTensorImpl());
                });
      return out;
    case Tag::OptionalTensorList:
      printList(out,
                v.listRef<std::optional<at::TensorBase>>(
                    Tag::OptionalTensorList, "operator<<"),
                [&](const std::optional<at::TensorBase>& t) {
                  if (t.has_value()) {
                    printTensor(out, t->unsafeGetTensorImpl());
                  } else {
                    out << "None";
                  }
                });
      return out;
    case Tag::Generator: {
      auto* impl = static_cast<const c10::GeneratorImpl*>(
          v.payload_.as_intrusive_ptr);
      if (impl == nullptr) return out << "Generator(undefined)";
      return out << "Generator(device=" << impl->device() << ")";
    }
  }
  return out << "<invalid IValue>";
}

}  // namespace c10
