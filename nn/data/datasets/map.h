// nn/data/datasets/map.h — torch::data::datasets::MapDataset: a dataset with
// a transform applied to each of its batches (what `dataset.map(t)` returns).
//
//   auto batched = torch::data::datasets::MNIST(root)
//                      .map(torch::data::transforms::Normalize<>(0.2860, 0.3530))
//                      .map(torch::data::transforms::Stack<>());
//
// Copying a MapDataset copies the source dataset and the transform.
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "c10/util/ArrayRef.h"
#include "nn/data/datasets/base.h"
#include "nn/data/example.h"
#include "nn/data/transforms/stack.h"
#include "nn/data/transforms/tensor.h"

namespace torch {
namespace data {
namespace datasets {

// Note [Stacked batches]
// ~~~~~~~~~~~~~~~~~~~~~~
// `MNIST(...).map(Stack<>())` would build a batch of B examples as B
// `select`s, then one `stack`: 2B+1 dispatches and B small tensors. A
// dataset whose examples are rows of two tensors offers instead (an Ember
// extension)
//
//   Example<> get_stacked_batch(c10::ArrayRef<size_t> indices)
//
// which gathers the batch with one index_select per tensor and returns what
// Stack<> would have returned. MapDataset uses it:
//   - MapDataset<S, Stack<>>::get_batch calls S::get_stacked_batch when S
//     has one;
//   - MapDataset<S, Normalize<>> has a get_stacked_batch when S has one: it
//     normalizes the gathered batch in place, which equals normalizing each
//     example first because the [C, 1, 1] statistics broadcast over the last
//     three dimensions of a batch as of an example (examples of MNIST and
//     CIFAR10 are [C, H, W]; batches of fewer dimensions take the generic
//     path).
// Any other transform in the chain takes the generic per-example path.

namespace detail {
template <typename D, typename = void>
struct has_stacked_batch : std::false_type {};
template <typename D>
struct has_stacked_batch<D, std::void_t<decltype(std::declval<D&>().get_stacked_batch(
                                std::declval<c10::ArrayRef<size_t>>()))>>
    : std::is_same<decltype(std::declval<D&>().get_stacked_batch(
                       std::declval<c10::ArrayRef<size_t>>())),
                   Example<>> {};

template <typename T>
struct is_tensor_normalize : std::false_type {};
template <>
struct is_tensor_normalize<transforms::Normalize<at::Tensor>> : std::true_type {};
}  // namespace detail

// torch::data::datasets::MapDataset
template <typename SourceDataset, typename AppliedTransform>
class MapDataset : public BatchDataset<MapDataset<SourceDataset, AppliedTransform>,
                                       typename AppliedTransform::OutputBatchType,
                                       typename SourceDataset::BatchRequestType> {
  static_assert(!SourceDataset::is_stateful,
                "MapDataset: stateful datasets (an optional BatchType) are not supported by "
                "Ember; see docs/data.md.");
  static_assert(std::is_same<typename SourceDataset::BatchType,
                             typename AppliedTransform::InputBatchType>::value,
                "MapDataset: the transform's input batch type must be the dataset's BatchType.");

 public:
  using DatasetType = SourceDataset;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename SourceDataset::BatchRequestType;
  using OutputBatchType = typename AppliedTransform::OutputBatchType;

  MapDataset(DatasetType dataset, TransformType transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  OutputBatchType get_batch(BatchRequestType request) override {
    if constexpr (std::is_same<TransformType, transforms::Stack<Example<>>>::value &&
                  detail::has_stacked_batch<DatasetType>::value) {
      return dataset_.get_stacked_batch(request);  // See Note [Stacked batches]
    } else {
      return transform_.apply_batch(dataset_.get_batch(std::move(request)));
    }
  }

  std::optional<size_t> size() const override { return dataset_.size(); }

  const SourceDataset& dataset() noexcept { return dataset_; }
  const AppliedTransform& transform() noexcept { return transform_; }

  // See Note [Stacked batches]. Exists when the transform is Normalize<> and
  // the source has a get_stacked_batch.
  template <typename D = DatasetType,
            std::enable_if_t<detail::has_stacked_batch<D>::value &&
                                 detail::is_tensor_normalize<TransformType>::value,
                             int> = 0>
  Example<> get_stacked_batch(c10::ArrayRef<size_t> indices) {
    Example<> batch = dataset_.get_stacked_batch(indices);
    if (batch.data.dim() >= 4) {
      batch.data = transform_.normalize_batch_(std::move(batch.data));
    } else {
      std::vector<at::Tensor> rows;
      rows.reserve(static_cast<size_t>(batch.data.size(0)));
      for (int64_t i = 0; i < batch.data.size(0); ++i) {
        rows.push_back(transform_(batch.data[i]));
      }
      batch.data = at::stack(rows);
    }
    return batch;
  }

 private:
  SourceDataset dataset_;
  AppliedTransform transform_;
};

// torch::data::datasets::map — MapDataset(dataset, transform).
template <typename DatasetType, typename TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform) {
  return MapDataset<DatasetType, TransformType>(std::move(dataset), std::move(transform));
}

}  // namespace datasets
}  // namespace data
}  // namespace torch
