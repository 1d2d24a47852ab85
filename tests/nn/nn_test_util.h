// Helpers of the nn suites: tensors from literal values (written before
// torch::tensor existed) and reading values back.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <torch/torch.h>

namespace nn_test {

template <typename T>
torch::Tensor make(std::vector<int64_t> shape, const std::vector<T>& values) {
  torch::Tensor t = torch::empty(shape, c10::CppTypeToScalarType<T>::value);
  TORCH_CHECK(static_cast<size_t>(t.numel()) == values.size(), "make: ", values.size(),
              " values for shape ", t.sizes());
  std::copy(values.begin(), values.end(), t.data_ptr<T>());
  return t;
}

template <typename T = float>
std::vector<T> values(const torch::Tensor& t) {
  const torch::Tensor c = t.contiguous();
  return std::vector<T>(c.data_ptr<T>(), c.data_ptr<T>() + c.numel());
}

}  // namespace nn_test
