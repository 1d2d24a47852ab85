// at::tensor: the values are copied into a CPU tensor of their own C++ type,
// then converted by copy_ into a tensor made with the requested options, so
// that every dtype conversion is copy_'s (300 into Byte wraps to 44, as
// libtorch's element-wise cast).
#include "aten/TensorFactory.h"

#include <algorithm>

#include "aten/Functions.h"

namespace at {
namespace {

template <typename T>
Tensor tensor_from_values(ArrayRef<T> values, const TensorOptions& options) {
  const auto n = static_cast<int64_t>(values.size());
  constexpr ScalarType own = c10::CppTypeToScalarType<T>::value;
  // requires_grad is not an option of empty(); it is applied to the result.
  const TensorOptions make = options.requires_grad(std::nullopt);
  Tensor result = at::empty({n}, make);
  if (result.scalar_type() == own && result.device().type() == DeviceType::CPU) {
    std::copy(values.begin(), values.end(), result.data_ptr<T>());
  } else {
    Tensor staged = at::empty({n}, at::dtype(own));
    std::copy(values.begin(), values.end(), staged.data_ptr<T>());
    result.copy_(staged);
  }
  if (options.requires_grad()) result.requires_grad_(true);
  return result;
}

}  // namespace

#define EMBER_AT_TENSOR_DEF_(T, Name)                                \
  Tensor tensor(ArrayRef<T> values, const TensorOptions& options) { \
    return tensor_from_values<T>(values, options);                  \
  }
C10_FORALL_SCALAR_TYPES(EMBER_AT_TENSOR_DEF_)
#undef EMBER_AT_TENSOR_DEF_

}  // namespace at
