// nn/data/samplers/base.h — torch::data::samplers::Sampler: what produces the
// batch requests (indices) a data loader hands to its dataset.
//
//   torch::data::samplers::SequentialSampler s(10);
//   s.next(4);  // {0, 1, 2, 3}; then {4..7}, {8, 9}, then nullopt
//   s.reset();  // start over
//
// A sampler is used by the thread that iterates the loader only.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace torch {
namespace data {
namespace samplers {

// torch::data::samplers::Sampler
template <typename BatchRequest = std::vector<size_t>>
class Sampler {
 public:
  using BatchRequestType = BatchRequest;

  virtual ~Sampler() = default;

  // Starts a new pass; `new_size`, if given, becomes the dataset size.
  virtual void reset(std::optional<size_t> new_size) = 0;

  // The next batch request of at most `batch_size` indices, or nullopt when
  // the pass is over.
  virtual std::optional<BatchRequest> next(size_t batch_size) = 0;
};

}  // namespace samplers
}  // namespace data
}  // namespace torch
