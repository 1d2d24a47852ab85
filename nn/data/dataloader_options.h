// nn/data/dataloader_options.h — torch::data::DataLoaderOptions: batch size,
// worker threads, prefetch depth, ordering, drop_last, timeout.
//
//   auto options = torch::data::DataLoaderOptions().batch_size(128).workers(2);
//
// Setters return *this so they chain; getters have the same name.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>

namespace torch {
namespace data {

// torch::data::DataLoaderOptions
struct DataLoaderOptions {
  DataLoaderOptions() = default;
  /* implicit */ DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}  // NOLINT

#define EMBER_DATA_OPTION_(type, name, value)           \
 public:                                                \
  DataLoaderOptions& name(const type& new_##name) {     \
    name##_ = new_##name;                               \
    return *this;                                       \
  }                                                     \
  const type& name() const noexcept { return name##_; } \
  type& name() noexcept { return name##_; }             \
                                                        \
 private:                                               \
  type name##_ = value;

  // Examples per batch (at least 1).
  EMBER_DATA_OPTION_(size_t, batch_size, 1)
  // Threads that prepare batches; 0 prepares them on the iterating thread.
  EMBER_DATA_OPTION_(size_t, workers, 0)
  // Batches requested ahead of the one being consumed; default 2 * workers.
  EMBER_DATA_OPTION_(std::optional<size_t>, max_jobs, std::nullopt)
  // How long the iterating thread waits for a worker's batch before throwing.
  EMBER_DATA_OPTION_(std::optional<std::chrono::milliseconds>, timeout, std::nullopt)
  // Batches come in the sampler's order (else in order of completion).
  EMBER_DATA_OPTION_(bool, enforce_ordering, true)
  // Drops the last batch if it is smaller than batch_size.
  EMBER_DATA_OPTION_(bool, drop_last, false)

#undef EMBER_DATA_OPTION_
};

// torch::data::FullDataLoaderOptions — the options with defaults resolved.
struct FullDataLoaderOptions {
  explicit FullDataLoaderOptions(DataLoaderOptions options)
      : batch_size(options.batch_size()),
        workers(options.workers()),
        max_jobs(options.max_jobs().value_or(2 * options.workers())),
        timeout(options.timeout()),
        enforce_ordering(options.enforce_ordering()),
        drop_last(options.drop_last()) {}

  size_t batch_size;
  size_t workers;
  size_t max_jobs;
  std::optional<std::chrono::milliseconds> timeout;
  bool enforce_ordering;
  bool drop_last;
};

}  // namespace data
}  // namespace torch
