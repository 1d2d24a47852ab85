// nn/data/dataloader/stateless.h — torch::data::StatelessDataLoader: draws
// batch requests from a sampler and turns them into batches of a dataset,
// on worker threads or on the iterating thread.
//
//   auto loader = torch::data::make_data_loader(std::move(dataset),
//       torch::data::DataLoaderOptions().batch_size(64).workers(2));
//   for (auto& batch : *loader) { … }   // each begin() starts an epoch
//
// Threads: one thread iterates (begin(), ++, *) and owns the sampler. With
// workers >= 1, each worker holds its own copy of the dataset and prepares
// the batches of up to max_jobs requests ahead of the consumer; batches come
// back in the sampler's order unless enforce_ordering is false. An exception
// thrown by the dataset is rethrown on the iterating thread when its batch
// is due. Destroying the loader (or join()) stops the workers after the
// batch each is preparing, if any; it never waits for the epoch to finish.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "c10/util/Exception.h"
#include "nn/data/dataloader/iterator.h"
#include "nn/data/dataloader_options.h"
#include "registration/record_function.h"

namespace torch {
namespace data {

// torch::data::StatelessDataLoader
template <typename Dataset, typename Sampler>
class StatelessDataLoader {
 public:
  using BatchType = typename Dataset::BatchType;
  using BatchRequestType = typename Sampler::BatchRequestType;

  // Starts `options.workers` threads, each with a copy of `dataset`.
  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : options_(std::move(options)), sampler_(std::move(sampler)) {
    TORCH_CHECK(options_.batch_size > 0,
                "DataLoader: expected a batch size of at least 1, got 0. Set "
                "DataLoaderOptions().batch_size(n) with n >= 1.");
    TORCH_CHECK(options_.workers == 0 || options_.max_jobs > 0,
                "DataLoader: expected max_jobs of at least 1 with ", options_.workers,
                " workers, got 0. Leave max_jobs unset (2 * workers) or set it to >= 1.");
    if (options_.workers == 0) {
      main_thread_dataset_.emplace(std::move(dataset));
      return;
    }
    try {
      threads_.reserve(options_.workers);
      for (size_t w = 0; w < options_.workers; ++w) {
        threads_.emplace_back([this, dataset]() mutable { worker_loop(dataset); });
      }
    } catch (...) {
      join();
      throw;
    }
  }

  StatelessDataLoader(const StatelessDataLoader&) = delete;
  StatelessDataLoader& operator=(const StatelessDataLoader&) = delete;

  ~StatelessDataLoader() { join(); }

  // Starts a new epoch (the sampler is reset; batches still in flight from
  // an unfinished epoch are discarded) and returns its first position.
  Iterator<BatchType> begin() {
    TORCH_CHECK(!joined_,
                "DataLoader: cannot start an epoch after join(); make a new data loader.");
    reset();
    return Iterator<BatchType>([this] { return next(); });
  }

  // The end sentinel.
  Iterator<BatchType> end() { return Iterator<BatchType>(); }

  // Stops and joins the workers. The loader cannot iterate afterwards.
  void join() {
    if (joined_) {
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    jobs_ready_.notify_all();
    for (std::thread& thread : threads_) {
      if (thread.joinable()) {
        thread.join();
      }
    }
    joined_ = true;
    // No worker runs any more: the queues can be emptied without the lock.
    jobs_.clear();
    results_.clear();
  }

  const FullDataLoaderOptions& options() const noexcept { return options_; }

 private:
  struct Job {
    uint64_t epoch;
    size_t sequence;
    BatchRequestType request;
  };
  struct Result {
    std::optional<BatchType> batch;
    std::exception_ptr error;
  };

  void reset() {
    std::deque<Job> stale_jobs;
    std::map<size_t, Result> stale_results;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++epoch_;
      stale_jobs.swap(jobs_);
      stale_results.swap(results_);
    }
    sampler_.reset(std::nullopt);
    next_sequence_ = 0;
    next_to_return_ = 0;
    in_flight_ = 0;
    sampler_exhausted_ = false;
    if (options_.workers > 0) {
      prefetch(options_.max_jobs);
    }
  }

  // The sampler's next request, or nullopt at the end of the epoch (which
  // drops a short last batch under drop_last).
  std::optional<BatchRequestType> next_request() {
    if (sampler_exhausted_) {
      return std::nullopt;
    }
    std::optional<BatchRequestType> request = sampler_.next(options_.batch_size);
    if (!request.has_value() || (options_.drop_last && request->size() < options_.batch_size)) {
      sampler_exhausted_ = true;
      return std::nullopt;
    }
    return request;
  }

  void prefetch(size_t count) {
    for (size_t i = 0; i < count; ++i) {
      std::optional<BatchRequestType> request = next_request();
      if (!request.has_value()) {
        return;
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        jobs_.push_back(Job{epoch_, next_sequence_++, std::move(*request)});
      }
      ++in_flight_;
      jobs_ready_.notify_one();
    }
  }

  // Each batch is a profiler range on the iterating thread (PyTorch's
  // "enumerate(DataLoader)#..." name) and, with workers, another on the
  // worker that made it.
  std::optional<BatchType> next() {
    RECORD_USER_SCOPE("enumerate(DataLoader)#StatelessDataLoader::next");
    if (options_.workers == 0) {
      std::optional<BatchRequestType> request = next_request();
      if (!request.has_value()) {
        return std::nullopt;
      }
      return main_thread_dataset_->get_batch(std::move(*request));
    }
    if (in_flight_ == 0) {
      return std::nullopt;
    }
    Result result;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      const auto ready = [this] {
        return options_.enforce_ordering ? results_.count(next_to_return_) > 0 : !results_.empty();
      };
      if (options_.timeout.has_value()) {
        if (!results_ready_.wait_for(lock, *options_.timeout, ready)) {
          C10_THROW_ERROR(Error, "DataLoader: timed out after ", options_.timeout->count(),
                          " ms waiting for a batch from the workers. Raise "
                          "DataLoaderOptions().timeout or make the dataset faster.");
        }
      } else {
        results_ready_.wait(lock, ready);
      }
      auto it = options_.enforce_ordering ? results_.find(next_to_return_) : results_.begin();
      result = std::move(it->second);
      results_.erase(it);
    }
    --in_flight_;
    ++next_to_return_;
    prefetch(1);
    if (result.error) {
      std::rethrow_exception(result.error);
    }
    return std::move(result.batch);
  }

  void worker_loop(Dataset& dataset) {
    for (;;) {
      std::optional<Job> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        jobs_ready_.wait(lock, [this] { return quit_ || !jobs_.empty(); });
        if (quit_) {
          return;
        }
        job.emplace(std::move(jobs_.front()));
        jobs_.pop_front();
      }
      Result result;
      try {
        RECORD_USER_SCOPE("DataLoader worker: get_batch");
        result.batch.emplace(dataset.get_batch(std::move(job->request)));
      } catch (...) {
        result.error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (quit_ || job->epoch != epoch_) {
          continue;  // a stale batch: dropped (outside the lock, by `result`)
        }
        results_.emplace(job->sequence, std::move(result));
      }
      results_ready_.notify_all();
    }
  }

  const FullDataLoaderOptions options_;
  Sampler sampler_;                             // iterating thread only
  std::optional<Dataset> main_thread_dataset_;  // workers == 0 only

  std::mutex mutex_;
  std::condition_variable jobs_ready_;     // workers wait: a job, or quit_
  std::condition_variable results_ready_;  // the iterating thread waits: a result
  std::deque<Job> jobs_;                   // guarded by mutex_
  std::map<size_t, Result> results_;       // guarded by mutex_; by sequence
  uint64_t epoch_ = 0;                     // guarded by mutex_ (written by the iterating thread)
  bool quit_ = false;                      // guarded by mutex_

  // Iterating thread only.
  size_t next_sequence_ = 0;
  size_t next_to_return_ = 0;
  size_t in_flight_ = 0;
  bool sampler_exhausted_ = false;
  bool joined_ = false;

  std::vector<std::thread> threads_;
};

}  // namespace data
}  // namespace torch
