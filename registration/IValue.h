// registration/IValue.h — c10::IValue, the boxed value of the operator
// registry.
//
// A boxed kernel receives its arguments, and returns its results, as a Stack
// of IValues (registration/Stack.h); every argument type a schema can name
// has a case here. Tensors, numbers, bools and devices are stored inline, so
// boxing one allocates nothing; strings and lists live in reference-counted,
// immutable holders, so copying an IValue never copies elements.
//
//   c10::IValue a = at::TensorBase(impl);     // Tensor
//   c10::IValue b = int64_t{3};               // Int
//   c10::IValue c = std::vector<int64_t>{2, 3};
//   c10::IValue d = std::optional<double>();  // None
//   int64_t n = b.toInt();                    // 3
//   c10::IntArrayRef sizes = c.toIntList();   // view, valid while `c` lives
//   b.toDouble();  // throws "IValue::toDouble: expected a double but got an
//                  // int. ..."
//   auto x = c.to<std::vector<int64_t>>();    // generic form, for templates
//
// IValue is for the boundary between the registry and kernels. Code that
// knows its types should pass them unboxed.
//
// The string and list holders and the type traits live in
// registration/ivalue_holders.h, the definition of to<T> in
// registration/ivalue_to.h; this header includes both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "c10/core/Device.h"
#include "c10/core/GeneratorImpl.h"
#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"
#include "c10/core/TensorBase.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"
#include "c10/util/intrusive_ptr.h"

// C10_FORALL_IVALUE_TAGS(_)
//
// Expands `_(Tag, description)` once per kind of IValue; the enum, tagKind()
// and the wrong-type messages are generated from it. Order matters: every
// tag from String on holds an intrusive_ptr_target (see
// Note [IValue payload ownership]).
#define C10_FORALL_IVALUE_TAGS(_)              \
  _(None, "None")                              \
  _(Tensor, "a Tensor")                        \
  _(Double, "a double")                        \
  _(Int, "an int")                             \
  _(Bool, "a bool")                            \
  _(Device, "a Device")                        \
  _(String, "a string")                        \
  _(IntList, "an int list")                    \
  _(DoubleList, "a double list")               \
  _(BoolList, "a bool list")                   \
  _(TensorList, "a Tensor list")               \
  _(OptionalTensorList, "an optional-Tensor list") \
  _(Generator, "a Generator")

// at::Tensor is aten's (a layer above): IValue declares the accessors that
// return it, and aten/IValueTensor.h, which aten/Tensor.h includes, defines
// them. See Note [IValue accessors returning at::Tensor].
namespace at {
class Tensor;
}  // namespace at

#include "registration/ivalue_holders.h"

namespace c10 {

// Note [IValue payload ownership]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// An IValue is a tag plus an 8-byte payload union. For Tensor the payload is
// a raw TensorImpl* that owns one reference (taken with
// intrusive_ptr::release(), given back with reclaim()); nullptr is an
// undefined tensor, which keeps the Tensor tag as in PyTorch. For String, the
// lists and Generator it is an intrusive_ptr_target* owning one reference in
// the same way (nullptr only for an undefined Generator). Copying retains,
// destruction releases, moving steals and leaves the source None. The rvalue
// accessors (`std::move(iv).toTensorBase()`) hand the reference out without
// touching the count and also leave the source None.

// c10::IValue
//
// A tagged value of one of the kinds in C10_FORALL_IVALUE_TAGS. Construction
// picks the tag from the C++ type: floating types give Double, integer types
// Int, bool Bool (never Int; a pointer never becomes a bool), strings String,
// c10::Scalar Int/Double/Bool by its kind, c10::ScalarType Int (as PyTorch),
// std::nullopt and an empty std::optional None. Reading a value as the wrong
// kind throws c10::Error naming both kinds.
//
// Thread safety: like std::shared_ptr. Distinct IValues may be copied,
// read and destroyed concurrently even when they share a payload; one IValue
// must not be written by one thread while another uses it. Shared strings
// and lists are never mutated.
class IValue final {
 public:
  enum class Tag : uint8_t {
#define C10_IVALUE_TAG_ENUM_(tag, description) tag,
    C10_FORALL_IVALUE_TAGS(C10_IVALUE_TAG_ENUM_)
#undef C10_IVALUE_TAG_ENUM_
  };

  // ---- construction ----

  IValue() noexcept : tag_(Tag::None) { payload_.as_int = 0; }
  IValue(std::nullopt_t) noexcept : IValue() {}

  // c10::IValue::IValue(tensor)
  //
  // Shares the tensor (one increment), or takes the rvalue's reference.
  // Handles derived from at::TensorBase bind here too.
  IValue(const at::TensorBase& t) : tag_(Tag::Tensor) {
    payload_.as_tensor =
        c10::intrusive_ptr<c10::TensorImpl>(t.getIntrusivePtr()).release();
  }
  IValue(at::TensorBase&& t) noexcept : tag_(Tag::Tensor) {
    payload_.as_tensor = t.unsafeReleaseIntrusivePtr().release();
  }

  // c10::IValue::IValue(number)
  //
  // double, float, c10::Half, c10::BFloat16 give Double; every integer type
  // but bool gives Int (an unsigned 64-bit value above INT64_MAX throws);
  // bool, and only bool, gives Bool.
  template <class T,
            std::enable_if_t<std::is_same<T, double>::value ||
                                 std::is_same<T, float>::value ||
                                 std::is_same<T, Half>::value ||
                                 std::is_same<T, BFloat16>::value,
                             int> = 0>
  IValue(T value) noexcept : tag_(Tag::Double) {
    payload_.as_double = static_cast<double>(value);
  }
  template <class T, std::enable_if_t<std::is_integral<T>::value &&
                                          !std::is_same<T, bool>::value,
                                      int> = 0>
  IValue(T value) : tag_(Tag::Int) {
    if constexpr (std::is_unsigned<T>::value && sizeof(T) >= sizeof(int64_t)) {
      if (C10_UNLIKELY(value > static_cast<T>(
                                   std::numeric_limits<int64_t>::max()))) {
        reportUnsignedTooLarge(static_cast<uint64_t>(value));
      }
    }
    payload_.as_int = static_cast<int64_t>(value);
  }
  template <class T, std::enable_if_t<std::is_same<T, bool>::value, int> = 0>
  IValue(T value) noexcept : tag_(Tag::Bool) {
    payload_.as_int = 0;
    payload_.as_bool = value;
  }

  // c10::IValue::IValue(string)
  //
  // Copies the characters into a new ConstantString. A null `const char*`
  // throws c10::Error. `IValue(nullptr)` does not compile.
  IValue(std::string s);
  IValue(std::string_view s);
  IValue(const char* s);
  IValue(std::nullptr_t) = delete;
  IValue(c10::intrusive_ptr<ivalue::ConstantString> s);

  // c10::IValue::IValue(list)
  //
  // Lists of ints, doubles, bools, tensors and optional tensors. The
  // elements are moved (or, from an ArrayRef, copied) into a new holder.
  IValue(std::vector<int64_t> v)
      : IValue(Tag::IntList, newList(std::move(v))) {}
  IValue(c10::IntArrayRef v) : IValue(v.vec()) {}
  IValue(std::vector<double> v)
      : IValue(Tag::DoubleList, newList(std::move(v))) {}
  IValue(std::vector<bool> v) : IValue(Tag::BoolList, newList(std::move(v))) {}
  template <class T,
            std::enable_if_t<impl::is_tensor_like_v<T>, int> = 0>
  IValue(std::vector<T> v)
      : IValue(Tag::TensorList, newList(asBaseVector(std::move(v)))) {}
  template <class T,
            std::enable_if_t<impl::is_tensor_like_v<T>, int> = 0>
  IValue(c10::ArrayRef<T> v)
      : IValue(std::vector<at::TensorBase>(v.begin(), v.end())) {}
  template <class T,
            std::enable_if_t<impl::is_tensor_like_v<T>, int> = 0>
  IValue(std::vector<std::optional<T>> v)
      : IValue(Tag::OptionalTensorList, newList(asBaseVector(std::move(v)))) {}

  // c10::IValue::IValue(other kinds)
  //
  // A Scalar is stored as Int, Double or Bool by its kind; a ScalarType as
  // the Int of its enumerator, as in PyTorch (read it back with
  // toScalarType()); an undefined Generator keeps the Generator tag.
  IValue(const c10::Scalar& s);
  IValue(c10::ScalarType t) noexcept : tag_(Tag::Int) {
    payload_.as_int = static_cast<int64_t>(t);
  }
  IValue(c10::Device d) noexcept : tag_(Tag::Device) {
    payload_.as_int = 0;
    payload_.as_device.type = d.type();
    payload_.as_device.index = d.index();
  }
  IValue(at::Generator g) noexcept : tag_(Tag::Generator) {
    payload_.as_intrusive_ptr = g.unsafeReleaseGeneratorImpl();
  }

  // c10::IValue::IValue(std::optional<T>)
  //
  // None when empty, otherwise IValue(*v).
  template <class T,
            std::enable_if_t<std::is_constructible<IValue, T>::value, int> = 0>
  IValue(std::optional<T> v) : IValue() {
    if (v.has_value()) IValue(std::move(*v)).swap(*this);
  }

  // ---- copy, move, destruction ----
  // See Note [IValue payload ownership].

  IValue(const IValue& rhs) : tag_(rhs.tag_), payload_(rhs.payload_) {
    retain();
  }
  IValue(IValue&& rhs) noexcept : tag_(rhs.tag_), payload_(rhs.payload_) {
    rhs.clearToNone();
  }
  ~IValue() { drop(); }
  IValue& operator=(const IValue& rhs) & {
    IValue(rhs).swap(*this);
    return *this;
  }
  IValue& operator=(IValue&& rhs) & noexcept {
    IValue(std::move(rhs)).swap(*this);
    return *this;
  }
  void swap(IValue& rhs) noexcept {
    std::swap(tag_, rhs.tag_);
    std::swap(payload_, rhs.payload_);
  }

  // ---- kind queries ----

  bool isNone() const noexcept { return tag_ == Tag::None; }
  bool isTensor() const noexcept { return tag_ == Tag::Tensor; }
  bool isDouble() const noexcept { return tag_ == Tag::Double; }
  bool isInt() const noexcept { return tag_ == Tag::Int; }
  bool isBool() const noexcept { return tag_ == Tag::Bool; }
  bool isDevice() const noexcept { return tag_ == Tag::Device; }
  bool isString() const noexcept { return tag_ == Tag::String; }
  bool isIntList() const noexcept { return tag_ == Tag::IntList; }
  bool isDoubleList() const noexcept { return tag_ == Tag::DoubleList; }
  bool isBoolList() const noexcept { return tag_ == Tag::BoolList; }
  bool isTensorList() const noexcept { return tag_ == Tag::TensorList; }
  bool isOptionalTensorList() const noexcept {
    return tag_ == Tag::OptionalTensorList;
  }
  bool isGenerator() const noexcept { return tag_ == Tag::Generator; }
  // Int, Double or Bool: what toScalar() accepts.
  bool isScalar() const noexcept {
    return tag_ == Tag::Int || tag_ == Tag::Double || tag_ == Tag::Bool;
  }
  // Whether the payload is an intrusive_ptr_target (String, lists,
  // Generator). Tensors are counted separately.
  bool isIntrusivePtr() const noexcept { return tag_ >= Tag::String; }

  // c10::IValue::tagKind
  //
  // The tag's name: "None", "Tensor", "Int", "IntList", ...
  std::string tagKind() const;

  // c10::IValue::use_count
  //
  // References to the payload for a Tensor (0 if undefined), String, list or
  // Generator (0 if undefined); 1 for values held inline.
  size_t use_count() const;

  // c10::IValue::isSameIdentity
  //
  // Same tag and: the same TensorImpl, holder or engine for reference kinds
  // (two undefined tensors are the same); equal values for inline kinds;
  // always for None. Two equal strings built separately are not the same.
  bool isSameIdentity(const IValue& rhs) const;

  // ---- accessors ----
  // Each throws c10::Error naming the expected and the actual kind when the
  // tag does not match. Rvalue forms move the payload out and leave the
  // IValue None. Views (toStringRef, toStringView, toIntList) are valid while
  // this IValue or a copy of it holds the payload: reading one from a
  // temporary is fine within the full expression, storing it is not.

  // c10::IValue::toTensorBase
  //
  // The tensor (undefined if it was stored undefined). `std::move(iv)
  // .toTensorBase()` hands over the IValue's reference without a refcount
  // change.
  at::TensorBase toTensorBase() const& {
    checkTag(Tag::Tensor, "toTensorBase");
    return at::TensorBase(
        c10::intrusive_ptr<c10::TensorImpl>::reclaim_copy(payload_.as_tensor));
  }
  at::TensorBase toTensorBase() && {
    checkTag(Tag::Tensor, "toTensorBase");
    c10::TensorImpl* impl = payload_.as_tensor;
    clearToNone();
    return at::TensorBase(c10::intrusive_ptr<c10::TensorImpl>::reclaim(impl));
  }
  // Note [IValue accessors returning at::Tensor]
  // ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  // c10::IValue::toTensor / toTensorVector / toTensorList
  //
  // PyTorch's accessors, returning at::Tensor (what boxed kernels and
  // fallbacks written for libtorch call: `(*stack)[0].toTensor()`). The
  // registration layer sees only at::TensorBase, so these are declared here
  // and defined inline in aten/IValueTensor.h, which every header that makes
  // at::Tensor complete includes; a file that can name at::Tensor's methods
  // can call them. Registration's own code uses toTensorBase /
  // toTensorBaseVector. toTensorList() returns a std::vector (PyTorch: a
  // c10::List<at::Tensor>). Each throws as toTensorBase does on a wrong tag.
  at::Tensor toTensor() const&;
  at::Tensor toTensor() &&;
  std::vector<at::Tensor> toTensorVector() const&;
  std::vector<at::Tensor> toTensorVector() &&;
  std::vector<at::Tensor> toTensorList() const&;
  std::vector<at::Tensor> toTensorList() &&;

  // The TensorImpl without a reference (nullptr if undefined), for hot paths
  // such as computing a dispatch key set from a stack.
  c10::TensorImpl* unsafeToTensorImpl() const {
    checkTag(Tag::Tensor, "unsafeToTensorImpl");
    return payload_.as_tensor;
  }

  double toDouble() const {
    checkTag(Tag::Double, "toDouble");
    return payload_.as_double;
  }
  int64_t toInt() const {
    checkTag(Tag::Int, "toInt");
    return payload_.as_int;
  }
  bool toBool() const {
    checkTag(Tag::Bool, "toBool");
    return payload_.as_bool;
  }

  // c10::IValue::toStringRef / toStringView / toString
  //
  // The characters, as views or as the shared holder.
  const std::string& toStringRef() const {
    checkTag(Tag::String, "toStringRef");
    return static_cast<const ivalue::ConstantString*>(
               payload_.as_intrusive_ptr)
        ->string();
  }
  std::string_view toStringView() const { return toStringRef(); }
  c10::intrusive_ptr<ivalue::ConstantString> toString() const;

  // c10::IValue::toIntVector / toIntList / toDoubleVector / toBoolVector /
  // toTensorBaseVector / toOptionalTensorVector
  //
  // Copies of the elements, or (rvalue forms, when no copy of this IValue
  // shares the list) the elements themselves. toIntList() is a view, valid
  // while this IValue (or a copy) holds the list; PyTorch returns a c10::List.
  std::vector<int64_t> toIntVector() const&;
  std::vector<int64_t> toIntVector() &&;
  c10::IntArrayRef toIntList() const {
    return listRef<int64_t>(Tag::IntList, "toIntList");
  }
  std::vector<double> toDoubleVector() const&;
  std::vector<double> toDoubleVector() &&;
  std::vector<bool> toBoolVector() const&;
  std::vector<bool> toBoolVector() &&;
  std::vector<at::TensorBase> toTensorBaseVector() const&;
  std::vector<at::TensorBase> toTensorBaseVector() &&;
  std::vector<std::optional<at::TensorBase>> toOptionalTensorVector() const&;
  std::vector<std::optional<at::TensorBase>> toOptionalTensorVector() &&;

  // c10::IValue::toScalar / toScalarType / toDevice / toGenerator
  //
  // toScalar() reads an Int, Double or Bool. toScalarType() reads an Int
  // that names a dtype (Byte to BFloat16) and throws for any other integer.
  c10::Scalar toScalar() const;
  c10::ScalarType toScalarType() const;
  c10::Device toDevice() const {
    checkTag(Tag::Device, "toDevice");
    return c10::Device(payload_.as_device.type, payload_.as_device.index);
  }
  at::Generator toGenerator() const&;
  at::Generator toGenerator() &&;

  // c10::IValue::to<T>
  //
  // The accessor for C++ type T, for boxing templates: T is IValue,
  // at::TensorBase or a handle derived from it (constructible from
  // at::TensorBase), double, int64_t, bool, std::string, std::string_view,
  // c10::IntArrayRef, std::vector of int64_t / double / bool / tensors /
  // std::optional<tensor>, c10::Scalar, c10::ScalarType, c10::Device,
  // at::Generator, or std::optional of any of these (None gives nullopt).
  // The view types (std::string_view, IntArrayRef) are refused on an rvalue.
  template <class T>
  T to() const& {
    return toImpl<T>(*this);
  }
  template <class T>
  T to() && {
    return toImpl<T>(std::move(*this));
  }

  // c10::IValue::toOptional<T>
  //
  // std::nullopt for None, otherwise to<T>().
  template <class T>
  std::optional<T> toOptional() const& {
    return to<std::optional<T>>();
  }
  template <class T>
  std::optional<T> toOptional() && {
    return std::move(*this).template to<std::optional<T>>();
  }

  // c10::operator<<(std::ostream&, const IValue&)
  //
  // A short form for logs and messages: None, Tensor[2, 3] Float (plus the
  // device when not CPU; Tensor(undefined)), 3, 2.5, 2.0, True, "text"
  // (quoted), [1, 2], cuda:1, Generator(device=cpu).
  friend std::ostream& operator<<(std::ostream& out, const IValue& v);

 private:
  union Payload {
    int64_t as_int;
    double as_double;
    bool as_bool;
    c10::TensorImpl* as_tensor;
    c10::intrusive_ptr_target* as_intrusive_ptr;
    struct {
      c10::DeviceType type;
      c10::DeviceIndex index;
    } as_device;
  };

  IValue(Tag tag, c10::intrusive_ptr_target* owned) noexcept : tag_(tag) {
    payload_.as_intrusive_ptr = owned;
  }

  void clearToNone() noexcept {
    tag_ = Tag::None;
    payload_.as_int = 0;
  }

  void retain() const {
    if (tag_ == Tag::Tensor) {
      (void)c10::intrusive_ptr<c10::TensorImpl>::reclaim_copy(
          payload_.as_tensor)
          .release();
    } else if (isIntrusivePtr()) {
      (void)c10::intrusive_ptr<c10::intrusive_ptr_target>::reclaim_copy(
          payload_.as_intrusive_ptr)
          .release();
    }
  }
  void drop() noexcept {
    // reclaim() cannot throw here: the payload owns a reference.
    if (tag_ == Tag::Tensor) {
      c10::intrusive_ptr<c10::TensorImpl>::reclaim(payload_.as_tensor);
    } else if (isIntrusivePtr()) {
      c10::intrusive_ptr<c10::intrusive_ptr_target>::reclaim(
          payload_.as_intrusive_ptr);
    }
  }

  void checkTag(Tag expected, const char* accessor) const {
    if (C10_UNLIKELY(tag_ != expected)) reportWrongType(accessor, expected);
  }
  [[noreturn]] C10_NOINLINE C10_COLD void reportWrongType(
      const char* accessor, Tag expected) const;
  [[noreturn]] C10_NOINLINE C10_COLD static void reportUnsignedTooLarge(
      uint64_t value);

  template <class T>
  static c10::intrusive_ptr_target* newList(std::vector<T> v) {
    return ivalue::ListHolder<T>::create(std::move(v)).release();
  }
  template <class T>
  const std::vector<T>& listRef(Tag tag, const char* accessor) const {
    checkTag(tag, accessor);
    return static_cast<const ivalue::ListHolder<T>*>(
               payload_.as_intrusive_ptr)
        ->elements();
  }
  // Moves the elements out when this IValue holds the only reference, else
  // copies them; leaves the IValue None either way. A count of 1 cannot grow
  // under us: a new reference is only ever copied from an existing one, we
  // hold the only one, and holders never get weak references.
  template <class T>
  std::vector<T> takeList(Tag tag, const char* accessor) {
    checkTag(tag, accessor);
    auto* holder =
        static_cast<ivalue::ListHolder<T>*>(payload_.as_intrusive_ptr);
    auto owner = c10::intrusive_ptr<c10::intrusive_ptr_target>::reclaim(
        payload_.as_intrusive_ptr);
    clearToNone();
    if (owner.use_count() == 1) return std::move(holder->elements_);
    return holder->elements_;
  }

  template <class T>
  static std::vector<at::TensorBase> asBaseVector(std::vector<T> v) {
    if constexpr (std::is_same<T, at::TensorBase>::value) {
      return v;
    } else {
      return std::vector<at::TensorBase>(std::make_move_iterator(v.begin()),
                                         std::make_move_iterator(v.end()));
    }
  }
  template <class T>
  static std::vector<std::optional<at::TensorBase>> asBaseVector(
      std::vector<std::optional<T>> v) {
    if constexpr (std::is_same<T, at::TensorBase>::value) {
      return v;
    } else {
      std::vector<std::optional<at::TensorBase>> result;
      result.reserve(v.size());
      for (auto& t : v) {
        if (t.has_value()) {
          result.emplace_back(at::TensorBase(std::move(*t)));
        } else {
          result.emplace_back(std::nullopt);
        }
      }
      return result;
    }
  }

  template <class T, class Self>
  static T toImpl(Self&& self);

  Tag tag_;
  Payload payload_;
};

static_assert(sizeof(IValue) == 16,
              "c10::IValue: a tag and an 8-byte payload; keep it two words");

}  // namespace c10

// IValue::to<T>'s definition.
#include "registration/ivalue_to.h"  // IWYU pragma: export
