// nn/expanding_array.h — torch::ExpandingArray<D>: D integers given as one
// value (expanded to all D) or as exactly D values, as libtorch's
// (torch/expanding_array.h); kernel sizes, strides and paddings use it.
//
//   torch::ExpandingArray<2> k(3);        // {3, 3}
//   torch::ExpandingArray<2> s({2, 1});   // {2, 1}
//   at::IntArrayRef r = *k;
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"

namespace torch {

// torch::ExpandingArray<D, T>
template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  /* implicit */ ExpandingArray(T single_size) { values_.fill(single_size); }
  /* implicit */ ExpandingArray(std::initializer_list<T> list)
      : ExpandingArray(c10::ArrayRef<T>(list)) {}
  /* implicit */ ExpandingArray(std::vector<T> vec) : ExpandingArray(c10::ArrayRef<T>(vec)) {}
  /* implicit */ ExpandingArray(c10::ArrayRef<T> values) {
    TORCH_CHECK(values.size() == D, "ExpandingArray: expected ", D, " values, but got ",
                values.size(), "; pass one value (used for every dimension) or exactly ", D,
                ".");
    for (size_t i = 0; i < D; ++i) values_[i] = values[i];
  }
  /* implicit */ ExpandingArray(const std::array<T, D>& values) : values_(values) {}

  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  operator c10::ArrayRef<T>() const { return c10::ArrayRef<T>(values_.data(), D); }
  size_t size() const noexcept { return D; }

 private:
  std::array<T, D> values_;
};

// Prints "[3, 3]".
template <size_t D, typename T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArray<D, T>& array) {
  stream << "[";
  for (size_t i = 0; i < D; ++i) stream << (i == 0 ? "" : ", ") << (*array)[i];
  return stream << "]";
}

}  // namespace torch
