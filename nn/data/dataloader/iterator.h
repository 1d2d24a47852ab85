// nn/data/dataloader/iterator.h — torch::data::Iterator: the input iterator
// of a data loader's epoch (what `for (auto& batch : *loader)` walks).
//
// begin() returns an iterator that fetches its first batch lazily; end() is
// a sentinel. Copies of an iterator share their position, as in libtorch.
#pragma once

#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>

#include "c10/util/Exception.h"

namespace torch {
namespace data {

// torch::data::Iterator
template <typename Batch>
class Iterator {
 public:
  using difference_type = std::ptrdiff_t;
  using value_type = Batch;
  using pointer = Batch*;
  using reference = Batch&;
  using iterator_category = std::input_iterator_tag;

  // The end sentinel.
  Iterator() = default;

  // An iterator that takes batches from `next_batch` until it returns nullopt.
  explicit Iterator(std::function<std::optional<Batch>()> next_batch)
      : state_(std::make_shared<State>(std::move(next_batch))) {}

  // Moves to the next batch.
  Iterator& operator++() {
    TORCH_CHECK(state_ != nullptr, "Iterator: cannot increment the end iterator of a DataLoader.");
    state_->initialize();
    TORCH_CHECK(state_->batch.has_value(),
                "Iterator: cannot increment an iterator that is past the end of the epoch.");
    state_->batch.reset();
    state_->initialized = false;
    state_->initialize();
    return *this;
  }

  Batch& operator*() { return current("dereference"); }
  Batch* operator->() { return &current("dereference"); }

  // Equal when both are the sentinel, when one is the sentinel and the other
  // is exhausted, or when both share one position.
  bool operator==(const Iterator& other) const {
    if (state_ == other.state_) {
      return true;
    }
    if (state_ != nullptr && other.state_ != nullptr) {
      return false;
    }
    const auto& valid = state_ != nullptr ? state_ : other.state_;
    valid->initialize();
    return !valid->batch.has_value();
  }
  bool operator!=(const Iterator& other) const { return !(*this == other); }

 private:
  struct State {
    explicit State(std::function<std::optional<Batch>()> next) : next_batch(std::move(next)) {}
    // If next_batch throws, the position stays uninitialized: the next
    // access asks for the batch after the one that failed.
    void initialize() {
      if (!initialized) {
        batch = next_batch();
        initialized = true;
      }
    }
    std::function<std::optional<Batch>()> next_batch;
    std::optional<Batch> batch;
    bool initialized = false;
  };

  Batch& current(const char* what) {
    TORCH_CHECK(state_ != nullptr, "Iterator: cannot ", what, " the end iterator of a DataLoader.");
    state_->initialize();
    TORCH_CHECK(state_->batch.has_value(), "Iterator: cannot ", what,
                " an iterator that is past the end of the epoch.");
    return *state_->batch;
  }

  std::shared_ptr<State> state_;
};

}  // namespace data
}  // namespace torch
