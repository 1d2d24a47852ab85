// <torch/detail/TensorDataContainer.h> — torch::tensor: a tensor from a
// scalar, an arbitrarily nested braced list, an at::ArrayRef<T> or a
// std::vector<T>, as in libtorch's C++ frontend.
//
//   torch::tensor(3.5)                       // 0-dim, Float
//   torch::tensor({1, 2, 3})                 // [3], Long
//   torch::tensor({{1., 2.}, {3., 4.}})      // [2, 2], Float
//   torch::tensor({true, false})             // [2], Bool
//   torch::tensor(std::vector<double>{1, 2}) // [2], Float
//   torch::tensor({1, 2}, torch::kFloat64)   // [2], Double
//   torch::tensor({1., 2.}, torch::requires_grad())  // a leaf requiring grad
//
// Note [torch::tensor dtype inference]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// As libtorch (and Python's torch.tensor): an `int` or `int64_t` value gives
// Long, a `float` or `double` value gives the default dtype (Float), any other
// element type keeps its own dtype (bool -> Bool, uint8_t -> Byte, Half ->
// Half, ...). The same holds for ArrayRef<T> and std::vector<T>, whereas
// at::tensor(ArrayRef<T>) keeps T's dtype. A dtype in the options wins. Every
// element must infer the same dtype: `{1, 2.5}` is refused (write `{1., 2.5}`
// or pass a dtype, which libtorch would still refuse). A list with no
// element at all (`{}`, `{{}, {}}`) is Float.
//
// The braced list is a tree of TensorDataContainer nodes that the compiler
// builds from the inside out, so a node cannot know its depth when it is
// made; torch::tensor checks the whole tree at once, from the root, so that
// its errors name the dimension as the user counts it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <type_traits>
#include <vector>

#include "aten/Functions.h"
#include "aten/Tensor.h"
#include "aten/TensorFactory.h"
#include "aten/TensorOptions.h"
#include "c10/core/Scalar.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"

namespace torch {
namespace detail {

// Note [torch::tensor dtype inference].
inline at::ScalarType compute_desired_dtype(at::ScalarType scalar_type) {
  if (scalar_type == at::kInt || scalar_type == at::kLong) return at::kLong;
  if (scalar_type == at::kFloat || scalar_type == at::kDouble) return at::kFloat;
  return scalar_type;
}

enum class TensorDataContainerType { Scalar, InitList, Tensor };

struct TensorDataContainer {
  // `{}`: a list with no elements (see Note [torch::tensor dtype inference]).
  TensorDataContainer() : type_(TensorDataContainerType::InitList) {}

#define EMBER_TDC_SCALAR_(T, Name)                                   \
  TensorDataContainer(T value)                                       \
      : type_(TensorDataContainerType::Scalar),                      \
        scalar_type_(compute_desired_dtype(at::ScalarType::Name)),   \
        scalar_(value) {}
  C10_FORALL_SCALAR_TYPES(EMBER_TDC_SCALAR_)
#undef EMBER_TDC_SCALAR_

  TensorDataContainer(std::initializer_list<TensorDataContainer> init_list)
      : type_(TensorDataContainerType::InitList), init_list_(init_list) {}

  // A 1-D run of values, held as a tensor of T's own dtype.
#define EMBER_TDC_ARRAY_(T, Name)                                    \
  TensorDataContainer(at::ArrayRef<T> values)                        \
      : type_(TensorDataContainerType::Tensor),                      \
        scalar_type_(compute_desired_dtype(at::ScalarType::Name)),   \
        tensor_(at::tensor(values)) {}
  C10_FORALL_SCALAR_TYPES(EMBER_TDC_ARRAY_)
#undef EMBER_TDC_ARRAY_

  template <typename T, std::enable_if_t<!std::is_same<T, bool>::value, int> = 0>
  TensorDataContainer(const std::vector<T>& values)
      : TensorDataContainer(at::ArrayRef<T>(values)) {}

  // std::vector<bool> packs its bits, so it has no ArrayRef<bool>; libtorch
  // refuses it, Ember copies it.
  TensorDataContainer(const std::vector<bool>& values)
      : type_(TensorDataContainerType::Tensor), scalar_type_(at::kBool) {
    std::unique_ptr<bool[]> unpacked(new bool[values.size()]);
    for (size_t i = 0; i < values.size(); ++i) unpacked[i] = values[i];
    tensor_ = at::tensor(at::ArrayRef<bool>(unpacked.get(), values.size()));
  }

  bool is_scalar() const { return type_ == TensorDataContainerType::Scalar; }
  bool is_init_list() const { return type_ == TensorDataContainerType::InitList; }
  bool is_tensor() const { return type_ == TensorDataContainerType::Tensor; }

  // The length of a list or of a 1-D run of values; 0 for a scalar.
  int64_t length() const {
    if (is_init_list()) return static_cast<int64_t>(init_list_.size());
    if (is_tensor()) return tensor_.numel();
    return 0;
  }

  // The tensor these values describe; see torch::tensor.
  at::Tensor convert_to_tensor(const at::TensorOptions& options) const {
    std::vector<int64_t> sizes;
    first_sizes(sizes);
    Inferred inferred;
    inferred.dtype_given = options.has_dtype();
    std::vector<int64_t> index;
    check(sizes, 0, index, inferred);
    const at::ScalarType dtype =
        options.has_dtype() ? options.dtype() : (inferred.found ? inferred.dtype : at::kFloat);
    const at::TensorOptions make = at::dtype(dtype).device(options.device_opt());
    // Scalars, lists and vectors all go through the checked conversions of
    // `write`, so that a value the dtype cannot hold is refused whatever
    // spelled it.
    std::vector<c10::Scalar> values;
    values.reserve(static_cast<size_t>(count(sizes)));
    collect(values);
    TORCH_INTERNAL_ASSERT(static_cast<int64_t>(values.size()) == count(sizes));
    at::Tensor result = at::empty(sizes, at::dtype(dtype));
    write(result, values);
    if (options.has_device()) result = result.to(make);
    if (options.requires_grad()) result.requires_grad_(true);
    return result;
  }

 private:
  struct Inferred {
    bool found = false;
    bool dtype_given = false;  // then every value is converted to it
    at::ScalarType dtype = at::kFloat;
    std::vector<int64_t> first_index;
  };

  static int64_t count(const std::vector<int64_t>& sizes) {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }

  static std::string index_string(const std::vector<int64_t>& index) {
    std::ostringstream os;
    os << "[";
    for (size_t i = 0; i < index.size(); ++i) os << (i ? ", " : "") << index[i];
    os << "]";
    return os.str();
  }

  // The shape the first element at every depth describes: the one every
  // other element must match.
  void first_sizes(std::vector<int64_t>& sizes) const {
    if (is_scalar()) return;
    sizes.push_back(length());
    if (is_init_list() && init_list_.size() > 0) init_list_.begin()->first_sizes(sizes);
  }

  // Checks that this node, at `index` (its dimension is index.size()), has
  // the shape `sizes` asks for and the dtype of the first element.
  void check(const std::vector<int64_t>& sizes, size_t dim, std::vector<int64_t>& index,
             Inferred& inferred) const {
    if (dim == sizes.size()) {
      TORCH_CHECK(is_scalar(), "torch::tensor: expected a scalar at dimension ", dim,
                  " (index ", index_string(index), "), but got a sublist of size ",
                  length(), ". Nested lists must be rectangular: give every sublist at "
                  "the same depth the same length.");
    } else {
      TORCH_CHECK(!is_scalar(), "torch::tensor: expected a sublist of size ", sizes[dim],
                  " at dimension ", dim, " (index ", index_string(index),
                  "), but got the scalar ", scalar_, ". Nested lists must be "
                  "rectangular: give every sublist at the same depth the same length.");
      TORCH_CHECK(length() == sizes[dim], "torch::tensor: expected a sublist of size ",
                  sizes[dim], " at dimension ", dim, " (index ", index_string(index),
                  "), but got a sublist of size ", length(), ". Nested lists must be "
                  "rectangular: give every sublist at the same depth the same length.");
    }
    if (is_init_list()) {
      int64_t i = 0;
      for (const TensorDataContainer& elem : init_list_) {
        index.push_back(i++);
        elem.check(sizes, dim + 1, index, inferred);
        index.pop_back();
      }
      return;
    }
    // A vector's values fill the last dimension only.
    TORCH_CHECK(!is_tensor() || dim + 1 == sizes.size(), "torch::tensor: expected a list "
                "of ", sizes.size() - dim - 1, "-level nested sublists at dimension ", dim,
                " (index ", index_string(index), "), but got a vector of size ", length(),
                ", which can only fill the last dimension. Nested lists must be rectangular: "
                "give every sublist at the same depth the same depth of nesting.");
    if (is_tensor() && length() == 0) return;  // no element to infer from
    if (!inferred.found) {
      inferred.found = true;
      inferred.dtype = scalar_type_;
      inferred.first_index = index;
      return;
    }
    TORCH_CHECK(inferred.dtype_given || scalar_type_ == inferred.dtype,
                "torch::tensor: expected every element to infer the dtype of the first "
                "one (", inferred.dtype, " at index ",
                index_string(inferred.first_index), "), but the element at index ",
                index_string(index), " infers ", scalar_type_, ". Write every value "
                "as the same kind of literal (e.g. 1. instead of 1), or pass a dtype: "
                "torch::tensor(..., torch::kFloat64).");
  }

  // The values, in row-major order.
  void collect(std::vector<c10::Scalar>& values) const {
    if (is_scalar()) {
      values.push_back(scalar_);
    } else if (is_init_list()) {
      for (const TensorDataContainer& elem : init_list_) elem.collect(values);
    } else {
      const int64_t n = tensor_.numel();
      switch (tensor_.scalar_type()) {
#define EMBER_TDC_READ_(T, Name)                                             \
  case at::ScalarType::Name: {                                               \
    const T* data = tensor_.data_ptr<T>();                                   \
    for (int64_t i = 0; i < n; ++i) values.push_back(c10::Scalar(data[i])); \
    break;                                                                   \
  }
        C10_FORALL_SCALAR_TYPES(EMBER_TDC_READ_)
#undef EMBER_TDC_READ_
        default:
          TORCH_CHECK(false, "torch::tensor: unexpected dtype ", tensor_.scalar_type());
      }
    }
  }

  // Converts each value to the result's dtype (c10::Scalar's checked
  // conversions: 300 into Byte throws).
  static void write(const at::Tensor& result, const std::vector<c10::Scalar>& values) {
    switch (result.scalar_type()) {
#define EMBER_TDC_WRITE_(T, Name)                                                \
  case at::ScalarType::Name: {                                                   \
    T* data = result.data_ptr<T>();                                              \
    for (size_t i = 0; i < values.size(); ++i) data[i] = values[i].to<T>();      \
    break;                                                                       \
  }
      C10_FORALL_SCALAR_TYPES(EMBER_TDC_WRITE_)
#undef EMBER_TDC_WRITE_
      default:
        TORCH_CHECK(false, "torch::tensor: cannot make a tensor of dtype ",
                    result.scalar_type(), ". Pass one of the element dtypes.");
    }
  }

  TensorDataContainerType type_;
  at::ScalarType scalar_type_ = at::kFloat;
  c10::Scalar scalar_;
  std::initializer_list<TensorDataContainer> init_list_;
  at::Tensor tensor_;
};

}  // namespace detail

// torch::tensor — see the top of this file.
inline at::Tensor tensor(detail::TensorDataContainer tensor_data_container,
                         const at::TensorOptions& options = {}) {
  return tensor_data_container.convert_to_tensor(options);
}

}  // namespace torch
