// nn/data/datasets/tensor.h — torch::data::datasets::TensorDataset: the rows
// of one tensor as a dataset of TensorExamples.
//
//   auto rows = torch::data::datasets::TensorDataset(at::randn({100, 8}))
//                   .map(torch::data::transforms::Stack<torch::data::TensorExample>());
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "aten/Tensor.h"
#include "c10/util/Exception.h"
#include "nn/data/datasets/base.h"
#include "nn/data/example.h"

namespace torch {
namespace data {
namespace datasets {

// torch::data::datasets::TensorDataset
class TensorDataset : public Dataset<TensorDataset, TensorExample> {
 public:
  // libtorch takes a list of tensors and uses only the first; so does Ember,
  // which also checks that there is one.
  explicit TensorDataset(const std::vector<at::Tensor>& tensors)
      : TensorDataset(first_of(tensors)) {}
  explicit TensorDataset(at::Tensor tensor) : tensor(std::move(tensor)) {
    TORCH_CHECK(this->tensor.defined() && this->tensor.dim() >= 1,
                "TensorDataset: expected a tensor with at least one dimension (the examples), "
                "got ",
                this->tensor.defined() ? "a 0-dim tensor" : "an undefined tensor", ".");
  }

  // tensor[index]; throws if index >= size().
  TensorExample get(size_t index) override {
    const auto n = static_cast<size_t>(tensor.size(0));
    TORCH_CHECK(index < n, "TensorDataset: index ", index, " is out of range for a dataset of ", n,
                " examples; expected an index in [0, ", n, ").");
    return TensorExample(tensor.select(0, static_cast<int64_t>(index)));
  }

  std::optional<size_t> size() const override { return static_cast<size_t>(tensor.size(0)); }

  at::Tensor tensor;

 private:
  static at::Tensor first_of(const std::vector<at::Tensor>& tensors) {
    TORCH_CHECK(!tensors.empty(), "TensorDataset: expected at least one tensor, got none.");
    return tensors.front();
  }
};

}  // namespace datasets
}  // namespace data
}  // namespace torch
