// aten/TensorFactory.h — at::tensor: a 1-D tensor holding given values, as
// libtorch's ATen/Utils.h declares it.
//
//   at::tensor({1, 2, 3})                 // Int: the dtype of the C++ type
//   at::tensor({1.5, 2.5}, at::kFloat)    // the values converted to Float
//   at::tensor(std::vector<int64_t>{4})   // Long, shape [1]
//   at::tensor(3.5)                       // Double, shape [1] (not 0-dim)
//
// Without options the dtype is T's own (`at::tensor(ArrayRef<int>)` is Int,
// not Long). With options it is options.dtype(), whose default is Float, as
// in libtorch. `.requires_grad(true)` in the options makes the result a leaf
// that requires grad. For nested lists and Python-like dtype inference
// (integers -> Long, floating -> Float) use torch::tensor
// (<torch/torch.h>, include/torch/detail/TensorDataContainer.h).
#pragma once

#include <initializer_list>

#include "aten/Tensor.h"
#include "aten/TensorOptions.h"
#include "c10/util/ArrayRef.h"

namespace at {

#define EMBER_AT_TENSOR_(T, Name)                                               \
  Tensor tensor(ArrayRef<T> values, const TensorOptions& options);              \
  inline Tensor tensor(std::initializer_list<T> values,                         \
                       const TensorOptions& options) {                          \
    return at::tensor(ArrayRef<T>(values), options);                            \
  }                                                                             \
  inline Tensor tensor(T value, const TensorOptions& options) {                 \
    return at::tensor(ArrayRef<T>(value), options);                             \
  }                                                                             \
  inline Tensor tensor(ArrayRef<T> values) {                                    \
    return at::tensor(values, at::dtype(ScalarType::Name));                     \
  }                                                                             \
  inline Tensor tensor(std::initializer_list<T> values) {                       \
    return at::tensor(ArrayRef<T>(values));                                     \
  }                                                                             \
  inline Tensor tensor(T value) { return at::tensor(ArrayRef<T>(value)); }
C10_FORALL_SCALAR_TYPES(EMBER_AT_TENSOR_)
#undef EMBER_AT_TENSOR_

}  // namespace at
