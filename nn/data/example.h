// nn/data/example.h — torch::data::Example: one (data, target) pair, the unit
// a dataset returns and a transform consumes.
//
//   torch::data::Example<> ex{at::ones({1, 28, 28}), at::scalar_tensor(3, at::kLong)};
//   torch::data::TensorExample unlabeled{at::ones({4})};  // no target
//
// A value type: copying an Example copies its members (tensor handles share
// their data, as at::Tensor always does).
#pragma once

#include <utility>

#include "aten/Tensor.h"

namespace torch {
namespace data {

// torch::data::Example
//
// `data` and `target`, as in libtorch. Example<Data, NoTarget> has `data`
// only (see TensorExample).
template <typename Data = at::Tensor, typename Target = at::Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

namespace example {
// torch::data::example::NoTarget — the Target of an example without one.
using NoTarget = void;
}  // namespace example

template <typename Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;

  Example() = default;
  /* implicit */ Example(Data data) : data(std::move(data)) {}  // NOLINT

  operator Data&() { return data; }              // NOLINT: as libtorch
  operator const Data&() const { return data; }  // NOLINT: as libtorch

  Data data;
};

// torch::data::TensorExample — an example that is a tensor and nothing else.
using TensorExample = Example<at::Tensor, example::NoTarget>;

}  // namespace data
}  // namespace torch
