// c10/util/ArrayRef.h — a non-owning view of a contiguous array.
//
//   void resize(c10::IntArrayRef sizes);
//   resize({2, 3});                 // from a braced list (valid for the call)
//   resize(std::vector<int64_t>{}); // from a vector
//
// An ArrayRef never owns its elements: the array must outlive it. Do not
// store an ArrayRef built from a temporary braced list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <ostream>
#include <vector>

#include "c10/util/Exception.h"

namespace c10 {

// c10::ArrayRef
template <typename T>
class ArrayRef final {
 public:
  using value_type = T;
  using iterator = const T*;
  using const_iterator = const T*;
  using size_type = size_t;
  using reverse_iterator = std::reverse_iterator<iterator>;

  constexpr ArrayRef() = default;
  constexpr ArrayRef(const T& one) : data_(&one), length_(1) {}
  constexpr ArrayRef(const T* data, size_t length) : data_(data), length_(length) {}
  constexpr ArrayRef(const T* begin, const T* end)
      : data_(begin), length_(static_cast<size_t>(end - begin)) {}
  template <typename A>
  ArrayRef(const std::vector<T, A>& v) : data_(v.data()), length_(v.size()) {}
  template <size_t N>
  constexpr ArrayRef(const T (&arr)[N]) : data_(arr), length_(N) {}
  // Viewing a braced list is the point (`resize({2, 3})`); the list lives
  // until the end of the full expression, which is all a call needs.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  constexpr ArrayRef(const std::initializer_list<T>& list)
      : data_(list.begin() == list.end() ? nullptr : list.begin()),
        length_(list.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return length_; }
  constexpr bool empty() const { return length_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + length_; }
  reverse_iterator rbegin() const { return reverse_iterator(end()); }
  reverse_iterator rend() const { return reverse_iterator(begin()); }

  constexpr const T& operator[](size_t i) const { return data_[i]; }
  // Bounds-checked access.
  const T& at(size_t i) const {
    TORCH_CHECK_INDEX(i < length_, "ArrayRef: index ", i,
                      " is out of range for an array of ", length_,
                      " elements.");
    return data_[i];
  }
  const T& front() const { return at(0); }
  const T& back() const { return at(length_ - 1); }

  // Elements [n, n + m).
  ArrayRef slice(size_t n, size_t m) const {
    TORCH_CHECK_INDEX(n + m <= length_, "ArrayRef::slice: [", n, ", ", n + m,
                      ") is out of range for an array of ", length_,
                      " elements.");
    return ArrayRef(data_ + n, m);
  }
  ArrayRef slice(size_t n) const { return slice(n, length_ - n); }

  bool equals(ArrayRef other) const {
    if (length_ != other.length_) return false;
    for (size_t i = 0; i < length_; ++i) {
      if (!(data_[i] == other.data_[i])) return false;
    }
    return true;
  }

  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

 private:
  const T* data_ = nullptr;
  size_t length_ = 0;
};

template <typename T>
bool operator==(ArrayRef<T> a, ArrayRef<T> b) {
  return a.equals(b);
}
template <typename T>
bool operator!=(ArrayRef<T> a, ArrayRef<T> b) {
  return !a.equals(b);
}
template <typename T>
bool operator==(ArrayRef<T> a, const std::vector<T>& b) {
  return a.equals(b);
}
template <typename T>
bool operator==(const std::vector<T>& a, ArrayRef<T> b) {
  return b.equals(a);
}

// Prints "[1, 2, 3]", as PyTorch prints sizes.
template <typename T>
std::ostream& operator<<(std::ostream& out, ArrayRef<T> list) {
  out << "[";
  for (size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out << ", ";
    out << list[i];
  }
  return out << "]";
}

// c10::IntArrayRef — sizes, strides, dims.
using IntArrayRef = ArrayRef<int64_t>;

}  // namespace c10

namespace at {
using c10::ArrayRef;
using c10::IntArrayRef;
}  // namespace at
