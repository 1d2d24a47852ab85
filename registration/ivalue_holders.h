// registration/ivalue_holders.h — the pieces c10::IValue is built from:
// the immutable string and list holders behind its reference kinds, and the
// type traits its templates use. Included by registration/IValue.h; include
// that, not this.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "c10/core/TensorBase.h"
#include "c10/util/intrusive_ptr.h"

namespace c10 {

class IValue;

namespace ivalue {

// c10::ivalue::ConstantString
//
// The immutable string behind a String IValue. Shared by every copy of the
// IValue; safe to read from any thread.
class ConstantString final : public intrusive_ptr_target {
 public:
  explicit ConstantString(std::string str) : str_(std::move(str)) {}
  static intrusive_ptr<ConstantString> create(std::string str) {
    return make_intrusive<ConstantString>(std::move(str));
  }
  const std::string& string() const { return str_; }
  std::string_view string_view() const { return str_; }

 private:
  const std::string str_;
};

// c10::ivalue::ListHolder<T>
//
// The elements behind a list IValue (T is int64_t, double, bool,
// at::TensorBase or std::optional<at::TensorBase>). Immutable once shared:
// copies of the IValue share it, and any thread may read it. Ember's own
// type; PyTorch keeps lists in c10::List.
template <class T>
class ListHolder final : public intrusive_ptr_target {
 public:
  explicit ListHolder(std::vector<T> elements)
      : elements_(std::move(elements)) {}
  static intrusive_ptr<ListHolder> create(std::vector<T> elements) {
    return make_intrusive<ListHolder>(std::move(elements));
  }
  const std::vector<T>& elements() const { return elements_; }

 private:
  friend class c10::IValue;
  // Only moved from by IValue when it holds the sole reference.
  std::vector<T> elements_;
};

}  // namespace ivalue

namespace impl {

// Note [Tensor-like types]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// The registry sits below aten, so it cannot name at::Tensor. Any class
// derived from at::TensorBase that is constructible from one is treated as a
// tensor: IValue stores it as its TensorBase, and the boxed wrappers
// (boxing.h) build it from the IValue's TensorBase and box it back as a
// TensorBase. at::Tensor adds methods only, no data.
template <class T>
constexpr bool is_tensor_like_v =
    std::is_base_of<at::TensorBase, std::decay_t<T>>::value;

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

}  // namespace impl

namespace detail {

template <class T>
struct ivalue_is_vector : std::false_type {};
template <class T, class A>
struct ivalue_is_vector<std::vector<T, A>> : std::true_type {};

template <class T>
struct ivalue_dependent_false : std::false_type {};

}  // namespace detail

}  // namespace c10
