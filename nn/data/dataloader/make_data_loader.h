// nn/data/dataloader/make_data_loader.h — torch::data::make_data_loader.
//
//   auto loader = torch::data::make_data_loader(std::move(dataset), 64);  // RandomSampler
//   auto ordered = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
//       std::move(test_set), torch::data::DataLoaderOptions(1000));
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "c10/util/Exception.h"
#include "nn/data/dataloader/stateless.h"
#include "nn/data/dataloader_options.h"
#include "nn/data/samplers/random.h"

namespace torch {
namespace data {

// torch::data::make_data_loader(dataset, sampler, options)
template <typename Dataset, typename Sampler,
          typename = std::enable_if_t<!Dataset::is_stateful &&
                                      !std::is_convertible<Sampler, DataLoaderOptions>::value>>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
    Dataset dataset, Sampler sampler, DataLoaderOptions options = DataLoaderOptions()) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(
      std::move(dataset), std::move(sampler), std::move(options));
}

// torch::data::make_data_loader<Sampler>(dataset, options) — the sampler is
// Sampler(dataset.size()); the dataset must know its size.
template <typename Sampler = samplers::RandomSampler, typename Dataset,
          typename = std::enable_if_t<!Dataset::is_stateful &&
                                      std::is_constructible<Sampler, size_t>::value>>
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(
    Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  const std::optional<size_t> size = dataset.size();
  TORCH_CHECK(size.has_value(),
              "make_data_loader: expected a dataset whose size() is known, to construct the "
              "sampler; got one without a size. Pass a sampler explicitly.");
  Sampler sampler(*size);
  return make_data_loader(std::move(dataset), std::move(sampler), std::move(options));
}

}  // namespace data
}  // namespace torch
