// nn/data/datasets/base.h — torch::data::datasets::BatchDataset and Dataset,
// the interfaces a data loader draws batches from.
//
//   struct Squares : torch::data::datasets::Dataset<Squares> {
//     torch::data::Example<> get(size_t i) override {
//       return {at::scalar_tensor(double(i)), at::scalar_tensor(double(i * i))};
//     }
//     std::optional<size_t> size() const override { return 100; }
//   };
//   auto stacked = Squares().map(torch::data::transforms::Stack<>());
//
// A dataset is a value: make_data_loader copies it into every worker thread
// (libtorch semantics), so copies should be cheap and must be safe to use
// from different threads at once (tensor members share their storage, which
// is fine for reading). Stateful datasets (a BatchType that is an optional)
// are not supported by Ember's loader.
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "c10/util/ArrayRef.h"
#include "nn/data/example.h"

namespace torch {
namespace data {
namespace datasets {

template <typename SourceDataset, typename AppliedTransform>
class MapDataset;

template <typename DatasetType, typename TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform);

namespace detail {
template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};
}  // namespace detail

// torch::data::datasets::BatchDataset
//
// A dataset that returns a whole batch for a batch request (by default the
// indices of the examples). `Self` is the derived class (CRTP), so that
// `map()` returns a MapDataset over the derived type.
template <typename Self, typename Batch = std::vector<Example<>>,
          typename BatchRequest = c10::ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  constexpr static bool is_stateful = detail::is_optional<BatchType>::value;

  virtual ~BatchDataset() = default;

  // The batch for `request`.
  virtual Batch get_batch(BatchRequest request) = 0;

  // The number of examples, if known.
  virtual std::optional<size_t> size() const = 0;

  // A dataset that applies `transform` to every batch of this one. The
  // lvalue overload copies this dataset into the result, the rvalue one moves.
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return datasets::map(static_cast<Self&>(*this), std::move(transform));
  }
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return datasets::map(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

// torch::data::datasets::Dataset
//
// A dataset of single examples: derived classes implement `get(index)` and
// `size()`; `get_batch(indices)` calls `get` once per index.
template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  // The example at `index`.
  virtual ExampleType get(size_t index) = 0;

  std::vector<ExampleType> get_batch(c10::ArrayRef<size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (const size_t i : indices) {
      batch.push_back(get(i));
    }
    return batch;
  }
};

// torch::data::datasets::StreamDataset — a BatchDataset whose request is
// the number of examples wanted (libtorch's alias).
template <typename Self, typename Batch = std::vector<Example<>>>
using StreamDataset = BatchDataset<Self, Batch, size_t>;

}  // namespace datasets
}  // namespace data
}  // namespace torch

#include "nn/data/datasets/map.h"  // IWYU pragma: export
