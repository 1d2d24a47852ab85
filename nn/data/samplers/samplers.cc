// SequentialSampler and RandomSampler.
#include <algorithm>

#include "aten/Functions.h"
#include "autograd/grad_mode.h"
#include "c10/util/Exception.h"
#include "nn/data/samplers/random.h"
#include "nn/data/samplers/sequential.h"

namespace torch {
namespace data {
namespace samplers {
namespace {

void check_batch_size(const char* where, size_t batch_size) {
  TORCH_CHECK(batch_size > 0, where, ": expected a batch size of at least 1, got 0.");
}

}  // namespace

SequentialSampler::SequentialSampler(size_t size) : size_(size) {}

void SequentialSampler::reset(std::optional<size_t> new_size) {
  if (new_size.has_value()) {
    size_ = *new_size;
  }
  index_ = 0;
}

std::optional<std::vector<size_t>> SequentialSampler::next(size_t batch_size) {
  check_batch_size("SequentialSampler::next", batch_size);
  const size_t remaining = size_ - index_;
  if (remaining == 0) {
    return std::nullopt;
  }
  std::vector<size_t> batch(std::min(batch_size, remaining));
  for (size_t& i : batch) {
    i = index_++;
  }
  return batch;
}

size_t SequentialSampler::index() const noexcept { return index_; }

RandomSampler::RandomSampler(int64_t size, c10::ScalarType index_dtype)
    : index_dtype_(index_dtype) {
  TORCH_CHECK(size >= 0, "RandomSampler: expected a non-negative size, got ", size, ".");
  TORCH_CHECK(index_dtype == c10::kLong || index_dtype == c10::kInt,
              "RandomSampler: expected an index dtype of Int or Long, got ", index_dtype, ".");
  reset(static_cast<size_t>(size));
}

void RandomSampler::reset(std::optional<size_t> new_size) {
  torch::NoGradGuard no_grad;
  const int64_t size = new_size.has_value() ? static_cast<int64_t>(*new_size) : indices_.numel();
  at::Tensor permutation = at::randperm(size, at::TensorOptions().dtype(index_dtype_));
  indices_ = index_dtype_ == c10::kLong ? permutation : permutation.to(c10::kLong);
  index_ = 0;
}

std::optional<std::vector<size_t>> RandomSampler::next(size_t batch_size) {
  check_batch_size("RandomSampler::next", batch_size);
  const auto size = static_cast<size_t>(indices_.numel());
  const size_t remaining = size - index_;
  if (remaining == 0) {
    return std::nullopt;
  }
  const size_t n = std::min(batch_size, remaining);
  const int64_t* values = indices_.data_ptr<int64_t>() + index_;
  std::vector<size_t> batch(values, values + n);
  index_ += n;
  return batch;
}

size_t RandomSampler::index() const noexcept { return index_; }

}  // namespace samplers
}  // namespace data
}  // namespace torch
