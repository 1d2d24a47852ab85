// nn/data/datasets/rows.h — examples that are rows of (data, targets)
// tensors: single rows and gathered batches (private to //nn/data).
#pragma once

#include <cstddef>

#include "aten/Tensor.h"
#include "c10/util/ArrayRef.h"
#include "nn/data/example.h"

namespace torch {
namespace data {
namespace datasets {
namespace detail {

// {data[index], targets[index]}; throws, naming `where`, if index is out
// of range.
Example<> row(const char* where, const at::Tensor& data, const at::Tensor& targets, size_t index);

// {data.index_select(0, indices), targets.index_select(0, indices)}: the
// batch Stack<> would build from the rows, in two dispatches. See Note
// [Stacked batches] in nn/data/datasets/map.h.
Example<> gather_rows(const char* where, const at::Tensor& data, const at::Tensor& targets,
                      c10::ArrayRef<size_t> indices);

}  // namespace detail
}  // namespace datasets
}  // namespace data
}  // namespace torch
