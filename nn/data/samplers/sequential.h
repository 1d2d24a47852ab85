// nn/data/samplers/sequential.h — torch::data::samplers::SequentialSampler:
// indices 0, 1, …, size-1 in order, every pass.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "nn/data/samplers/base.h"

namespace torch {
namespace data {
namespace samplers {

// torch::data::samplers::SequentialSampler
class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size);

  void reset(std::optional<size_t> new_size = std::nullopt) override;

  // The next min(batch_size, remaining) indices; throws if batch_size is 0.
  std::optional<std::vector<size_t>> next(size_t batch_size) override;

  // How many indices this pass has returned.
  size_t index() const noexcept;

 private:
  size_t size_;
  size_t index_ = 0;
};

}  // namespace samplers
}  // namespace data
}  // namespace torch
