// registration/ivalue_to.h — the definition of c10::IValue::to<T> (the
// accessor boxing templates call), apart from the class so that IValue.h
// reads as its interface. Included at the end of registration/IValue.h;
// include that, not this.
#pragma once

#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "registration/IValue.h"

namespace c10 {

template <class T, class Self>
T IValue::toImpl(Self&& self) {
  const IValue& cself = self;
  constexpr bool kIsLvalue = std::is_lvalue_reference<Self>::value;
  if constexpr (std::is_same<T, IValue>::value) {
    return std::forward<Self>(self);
  } else if constexpr (std::is_same<T, at::TensorBase>::value) {
    return std::forward<Self>(self).toTensorBase();
  } else if constexpr (impl::is_tensor_like_v<T>) {
    static_assert(std::is_constructible<T, at::TensorBase>::value,
                  "c10::IValue::to<T>: a tensor handle T must be "
                  "constructible from at::TensorBase");
    return T(std::forward<Self>(self).toTensorBase());
  } else if constexpr (std::is_same<T, double>::value) {
    return cself.toDouble();
  } else if constexpr (std::is_same<T, bool>::value) {
    return cself.toBool();
  } else if constexpr (std::is_integral<T>::value && std::is_signed<T>::value &&
                       sizeof(T) == sizeof(int64_t)) {
    return static_cast<T>(cself.toInt());
  } else if constexpr (std::is_same<T, std::string>::value) {
    return cself.toStringRef();
  } else if constexpr (std::is_same<T, std::string_view>::value ||
                       std::is_same<T, c10::IntArrayRef>::value) {
    static_assert(kIsLvalue,
                  "c10::IValue::to<T>: T is a view (std::string_view or "
                  "c10::IntArrayRef) and would dangle once this rvalue IValue "
                  "dies; call to<T>() on an IValue that outlives the view");
    if constexpr (std::is_same<T, std::string_view>::value) {
      return cself.toStringView();
    } else {
      return cself.toIntList();
    }
  } else if constexpr (std::is_same<T, std::vector<int64_t>>::value) {
    return std::forward<Self>(self).toIntVector();
  } else if constexpr (std::is_same<T, std::vector<double>>::value) {
    return std::forward<Self>(self).toDoubleVector();
  } else if constexpr (std::is_same<T, std::vector<bool>>::value) {
    return std::forward<Self>(self).toBoolVector();
  } else if constexpr (std::is_same<T, c10::Scalar>::value) {
    return cself.toScalar();
  } else if constexpr (std::is_same<T, c10::ScalarType>::value) {
    return cself.toScalarType();
  } else if constexpr (std::is_same<T, c10::Device>::value) {
    return cself.toDevice();
  } else if constexpr (std::is_same<T, at::Generator>::value) {
    return std::forward<Self>(self).toGenerator();
  } else if constexpr (impl::is_optional<T>::value) {
    if (cself.isNone()) return T();
    return T(std::forward<Self>(self).template to<typename T::value_type>());
  } else if constexpr (detail::ivalue_is_vector<T>::value) {
    using E = typename T::value_type;
    if constexpr (impl::is_tensor_like_v<E>) {
      std::vector<at::TensorBase> base =
          std::forward<Self>(self).toTensorBaseVector();
      if constexpr (std::is_same<T, std::vector<at::TensorBase>>::value) {
        return base;
      } else {
        return T(std::make_move_iterator(base.begin()),
                 std::make_move_iterator(base.end()));
      }
    } else if constexpr (impl::is_optional<E>::value &&
                         impl::is_tensor_like_v<typename E::value_type>) {
      auto base = std::forward<Self>(self).toOptionalTensorVector();
      if constexpr (std::is_same<T, decltype(base)>::value) {
        return base;
      } else {
        T result;
        result.reserve(base.size());
        for (auto& t : base) {
          if (t.has_value()) {
            result.emplace_back(typename E::value_type(std::move(*t)));
          } else {
            result.emplace_back(std::nullopt);
          }
        }
        return result;
      }
    } else {
      static_assert(detail::ivalue_dependent_false<T>::value,
                    "c10::IValue::to<std::vector<E>>: E must be int64_t, "
                    "double, bool, a tensor handle or std::optional of one");
    }
  } else {
    static_assert(detail::ivalue_dependent_false<T>::value,
                  "c10::IValue::to<T>: unsupported T; see the list in "
                  "IValue.h");
  }
}

}  // namespace c10
