// nn/data/samplers/random.h — torch::data::samplers::RandomSampler: a random
// permutation of 0 … size-1, drawn anew at every reset().
//
//   torch::manual_seed(0);
//   torch::data::samplers::RandomSampler s(10);  // draws the first permutation
//
// Permutations come from at::randperm with the default CPU generator, so
// torch::manual_seed makes them reproducible (the values are Ember's, not
// PyTorch's; see docs/ops/random.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "aten/Tensor.h"
#include "c10/core/ScalarType.h"
#include "nn/data/samplers/base.h"

namespace torch {
namespace data {
namespace samplers {

// torch::data::samplers::RandomSampler
class RandomSampler : public Sampler<> {
 public:
  // `index_dtype` is the dtype of the permutation tensor (int32 or int64).
  explicit RandomSampler(int64_t size, c10::ScalarType index_dtype = c10::kLong);

  // Draws a new permutation (of `new_size` elements, if given).
  void reset(std::optional<size_t> new_size = std::nullopt) override;

  // The next min(batch_size, remaining) indices of the permutation; throws
  // if batch_size is 0.
  std::optional<std::vector<size_t>> next(size_t batch_size) override;

  // How many indices this pass has returned.
  size_t index() const noexcept;

 private:
  at::Tensor indices_;  // int64 [size]: the permutation of this pass
  c10::ScalarType index_dtype_;
  size_t index_ = 0;
};

}  // namespace samplers
}  // namespace data
}  // namespace torch
