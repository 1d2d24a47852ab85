// aten/Tensor.h — at::Tensor: the tensor handle with PyTorch's methods.
//
//   at::Tensor a = at::ones({2, 3});
//   at::Tensor b = a.add(a, /*alpha=*/2).t();         // [3, 2], a view
//   float first = b.contiguous().data_ptr<float>()[0];
//
// at::Tensor adds methods to at::TensorBase (c10/core/TensorBase.h) and no
// data: copying shares the tensor. Methods are generated from
// aten/native_functions.txt (TensorMethods.inc) and call the dispatcher.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <type_traits>

#include "aten/TensorOptions.h"
#include "c10/core/GeneratorImpl.h"  // at::Generator, in random ops' methods
#include "c10/core/Scalar.h"
#include "c10/core/TensorBase.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/OptionalArrayRef.h"
#include "c10/util/StringUtil.h"

namespace at {

using c10::IntArrayRef;
using c10::Scalar;

class Tensor;
using TensorList = c10::ArrayRef<Tensor>;

// at::TensorAccessor: element access with sizes and strides, for loops in
// tests and reference code (not a fast path).
template <typename T, size_t N>
class TensorAccessor {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  TensorAccessor<T, N - 1> operator[](int64_t i) const {
    return TensorAccessor<T, N - 1>(data_ + i * strides_[0], sizes_ + 1, strides_ + 1);
  }
  int64_t size(size_t d) const { return sizes_[d]; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};
template <typename T>
class TensorAccessor<T, 1> {
 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  T& operator[](int64_t i) const { return data_[i * strides_[0]]; }
  int64_t size(size_t d) const { return sizes_[d]; }

 private:
  T* data_;
  const int64_t* sizes_;
  const int64_t* strides_;
};

// at::Tensor
class Tensor : public TensorBase {
 public:
  Tensor() = default;
  explicit Tensor(TensorBase base) : TensorBase(std::move(base)) {}
  explicit Tensor(c10::intrusive_ptr<c10::TensorImpl> impl)
      : TensorBase(std::move(impl)) {}

  TensorOptions options() const {
    return TensorOptions().dtype(scalar_type()).device(device());
  }

  // The address of the first element as T*; throws if T is not the dtype.
  template <typename T>
  T* data_ptr() const {
    check_dtype_for<T>("data_ptr");
    return static_cast<T*>(impl()->data());
  }
  using TensorBase::data_ptr;

  // The value of a one-element tensor, converted to T.
  template <typename T>
  T item() const {
    return item().to<T>();
  }
  Scalar item() const;

  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    static_assert(N > 0, "accessor is for tensors with at least one dimension");
    TORCH_CHECK(static_cast<size_t>(dim()) == N, "accessor: expected a ", N,
                "-d tensor but this one has ", dim(), " dimensions.");
    return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
  }
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;

  // PyTorch's printing: values, then "[ CPUFloatType{2,3} ]".
  std::string toString() const;
  void print() const;

  // The generated op methods (add, t, view, …).
#include "aten/TensorMethods.inc"

 private:
  template <typename T>
  void check_dtype_for(const char* where) const {
    TORCH_CHECK(scalar_type() == c10::CppTypeToScalarType<T>::value, where,
                ": expected a tensor of dtype ", c10::CppTypeToScalarType<T>::value,
                " for this element type, but the tensor is ", scalar_type(),
                ". Use the matching type (or .to(dtype)).");
  }
};

std::ostream& operator<<(std::ostream& out, const Tensor& t);

}  // namespace at
