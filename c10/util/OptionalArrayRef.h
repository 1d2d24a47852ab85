// c10/util/OptionalArrayRef.h — an ArrayRef that may be absent: the C++ type
// of an optional list argument (schema `int[]?`, e.g. sum's `dim`).
//
//   at::sum(t, {0, 1});          // a braced list
//   at::sum(t, 1);               // one dim
//   at::sum(t, dims_vector);     // a std::vector<int64_t>
//   at::sum(t, std::nullopt);    // None (ambiguous for sum: name the type,
//                                // c10::OptionalIntArrayRef())
//
// Why not std::optional<c10::IntArrayRef>: a braced list converts to it only
// through std::optional's converting-constructor template, and GCC then lets
// the list's array die before the call (`f({1})` reads garbage). A direct
// constructor from std::initializer_list keeps the array alive until the end
// of the full expression, as ArrayRef's own does. Like ArrayRef it is a view:
// the caller's elements must outlive it. Trivially copyable; not
// thread-safe beyond what its elements are.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "c10/util/ArrayRef.h"

namespace c10 {

template <typename T>
class OptionalArrayRef {
 public:
  constexpr OptionalArrayRef() noexcept = default;
  constexpr OptionalArrayRef(std::nullopt_t) noexcept {}
  constexpr OptionalArrayRef(ArrayRef<T> ref) noexcept : value_(ref) {}
  constexpr OptionalArrayRef(const std::optional<ArrayRef<T>>& ref) noexcept
      : value_(ref) {}
  template <typename A>
  OptionalArrayRef(const std::vector<T, A>& v) : value_(ArrayRef<T>(v)) {}
  constexpr OptionalArrayRef(const T& one) : value_(ArrayRef<T>(one)) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  constexpr OptionalArrayRef(const std::initializer_list<T>& list)
      : value_(ArrayRef<T>(list)) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  constexpr bool has_value() const noexcept { return value_.has_value(); }
  constexpr explicit operator bool() const noexcept { return has_value(); }
  // Throws std::bad_optional_access when absent, as std::optional does.
  constexpr ArrayRef<T> value() const { return value_.value(); }
  constexpr ArrayRef<T> operator*() const { return *value_; }
  constexpr const ArrayRef<T>* operator->() const { return &*value_; }
  constexpr ArrayRef<T> value_or(ArrayRef<T> fallback) const {
    return value_.value_or(fallback);
  }
  constexpr const std::optional<ArrayRef<T>>& as_optional() const { return value_; }

 private:
  std::optional<ArrayRef<T>> value_;
};

using OptionalIntArrayRef = OptionalArrayRef<int64_t>;

}  // namespace c10

namespace at {
using c10::OptionalArrayRef;
using c10::OptionalIntArrayRef;
}  // namespace at
