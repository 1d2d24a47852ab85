// nn/data/transforms/stack.h — torch::data::transforms::Stack: collates a
// vector of examples into one example of stacked tensors.
//
//   auto batched = dataset.map(torch::data::transforms::Stack<>());
//   // get_batch({0, 1, 2}) -> Example<>{data [3, ...], target [3, ...]}
//
// Over MNIST or CIFAR10 (optionally normalized) the MapDataset skips the
// per-example path and gathers the batch in one index_select; see Note
// [Stacked batches] in nn/data/datasets/map.h.
#pragma once

#include <utility>
#include <vector>

#include "aten/Functions.h"
#include "nn/data/example.h"
#include "nn/data/transforms/base.h"

namespace torch {
namespace data {
namespace transforms {

template <typename T = Example<>>
struct Stack;

// torch::data::transforms::Stack<Example<>> — stacks data and targets along
// a new first dimension. All examples must have the same shapes.
template <>
struct Stack<Example<>> : public BatchTransform<std::vector<Example<>>, Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    TORCH_CHECK(!examples.empty(),
                "Stack: expected at least one example to stack, got an empty batch. "
                "Give the loader a batch size of at least 1.");
    std::vector<at::Tensor> data;
    std::vector<at::Tensor> targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (auto& example : examples) {
      data.push_back(std::move(example.data));
      targets.push_back(std::move(example.target));
    }
    return {at::stack(data), at::stack(targets)};
  }
};

// torch::data::transforms::Stack<TensorExample> — stacks the data.
template <>
struct Stack<TensorExample> : public BatchTransform<std::vector<TensorExample>, TensorExample> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    TORCH_CHECK(!examples.empty(),
                "Stack: expected at least one example to stack, got an empty batch. "
                "Give the loader a batch size of at least 1.");
    std::vector<at::Tensor> data;
    data.reserve(examples.size());
    for (auto& example : examples) {
      data.push_back(std::move(example.data));
    }
    return TensorExample(at::stack(data));
  }
};

}  // namespace transforms
}  // namespace data
}  // namespace torch
