// nn/data/transforms/base.h — torch::data::transforms::BatchTransform,
// Transform, Lambda and BatchLambda: what `dataset.map(...)` applies.
//
//   auto doubled = dataset.map(torch::data::transforms::Lambda<torch::data::Example<>>(
//       [](torch::data::Example<> e) { return torch::data::Example<>{e.data * 2, e.target}; }));
//
// A transform is copied into the MapDataset, and with it into every worker
// thread of a loader; apply/apply_batch may run on several threads at once,
// each on its own copy.
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "nn/data/example.h"

namespace torch {
namespace data {
namespace transforms {

// torch::data::transforms::BatchTransform — maps a whole batch.
template <typename InputBatch, typename OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;

  virtual ~BatchTransform() = default;

  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

// torch::data::transforms::Transform — maps one example; apply_batch maps
// every example of a batch.
template <typename Input, typename Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;

  virtual OutputType apply(InputType input) = 0;

  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> output_batch;
    output_batch.reserve(input_batch.size());
    for (auto& input : input_batch) {
      output_batch.push_back(apply(std::move(input)));
    }
    return output_batch;
  }
};

// torch::data::transforms::BatchLambda — a BatchTransform from a function.
template <typename Input, typename Output = Input>
class BatchLambda : public BatchTransform<Input, Output> {
 public:
  using typename BatchTransform<Input, Output>::InputBatchType;
  using typename BatchTransform<Input, Output>::OutputBatchType;
  using FunctionType = std::function<OutputBatchType(InputBatchType)>;

  explicit BatchLambda(FunctionType function) : function_(std::move(function)) {}

  OutputBatchType apply_batch(InputBatchType input_batch) override {
    return function_(std::move(input_batch));
  }

 private:
  FunctionType function_;
};

// torch::data::transforms::Lambda — a Transform from a function. (Input has
// a default, Example<>, which libtorch's has not.)
template <typename Input = Example<>, typename Output = Input>
class Lambda : public Transform<Input, Output> {
 public:
  using typename Transform<Input, Output>::InputType;
  using typename Transform<Input, Output>::OutputType;
  using FunctionType = std::function<Output(Input)>;

  explicit Lambda(FunctionType function) : function_(std::move(function)) {}

  OutputType apply(InputType input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

}  // namespace transforms
}  // namespace data
}  // namespace torch
