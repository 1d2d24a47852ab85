// make_data_loader and StatelessDataLoader: batch sizes, drop_last, shuffling,
// worker counts, ordering, exceptions, early destruction, options errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "nn/data/data.h"
#include "tests/support/error_of.h"

namespace {

using ember_test::errorOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace data = torch::data;

// Example i is {data: [i, i], target: i}. Fails on `fail_at`, sleeps
// `delay_us` per example (to reorder workers), counts live copies.
struct Numbers : data::datasets::Dataset<Numbers> {
  explicit Numbers(size_t n, int64_t fail_at = -1, int delay_us = 0)
      : n(n), fail_at(fail_at), delay_us(delay_us) {}
  data::Example<> get(size_t i) override {
    if (static_cast<int64_t>(i) == fail_at) {
      throw std::runtime_error("Numbers: example " + std::to_string(i) + " is broken");
    }
    if (delay_us > 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us * static_cast<int>(i % 3)));
    }
    return {at::full({2}, static_cast<double>(i)),
            at::scalar_tensor(static_cast<int64_t>(i), at::kLong)};
  }
  std::optional<size_t> size() const override { return n; }
  size_t n;
  int64_t fail_at;
  int delay_us;
};

std::vector<int64_t> targets_of(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// Every batch's targets, in order.
template <typename Loader>
std::vector<std::vector<int64_t>> epoch(Loader& loader) {
  std::vector<std::vector<int64_t>> out;
  for (auto& batch : loader) {
    out.push_back(targets_of(batch.target));
    EXPECT_TRUE(at::equal(batch.data.select(1, 0).to(at::kLong), batch.target));
  }
  return out;
}

TEST(DataLoader, SequentialBatchesWithAShortLastOne) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Numbers(10).map(data::transforms::Stack<>()), data::DataLoaderOptions().batch_size(4));
  EXPECT_EQ(loader->options().batch_size, 4u);
  EXPECT_EQ(loader->options().max_jobs, 0u);
  const auto batches = epoch(*loader);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_THAT(batches[0], ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(batches[2], ElementsAre(8, 9));
  EXPECT_EQ(epoch(*loader), batches);  // a second epoch
}

TEST(DataLoader, DropLastDropsTheShortBatch) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Numbers(10).map(data::transforms::Stack<>()),
      data::DataLoaderOptions().batch_size(4).drop_last(true).workers(2));
  const auto batches = epoch(*loader);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_THAT(batches[1], ElementsAre(4, 5, 6, 7));
}

TEST(DataLoader, UnstackedBatchesAreVectorsOfExamples) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(Numbers(5), 2);
  size_t count = 0;
  for (std::vector<data::Example<>>& batch : *loader) {
    count += batch.size();
  }
  EXPECT_EQ(count, 5u);
}

TEST(DataLoader, ShuffleIsReproducibleWithTheSeedAndDiffersAcrossEpochs) {
  const auto run = [](uint64_t seed) {
    torch::manual_seed(seed);
    auto loader = data::make_data_loader(Numbers(50).map(data::transforms::Stack<>()),
                                         data::DataLoaderOptions().batch_size(8));
    auto first = epoch(*loader);
    auto second = epoch(*loader);
    return std::make_pair(first, second);
  };
  const auto a = run(7);
  const auto b = run(7);
  EXPECT_EQ(a, b);
  EXPECT_NE(a.first, a.second);
  EXPECT_NE(a.first, run(8).first);
  // Each epoch is a permutation of all examples.
  std::multiset<int64_t> seen;
  for (const auto& batch : a.first) seen.insert(batch.begin(), batch.end());
  std::multiset<int64_t> all;
  for (int64_t i = 0; i < 50; ++i) all.insert(i);
  EXPECT_EQ(seen, all);
}

TEST(DataLoader, WorkerCountsGiveTheSameBatchesInOrder) {
  std::vector<std::vector<int64_t>> reference;
  for (size_t workers : {0, 1, 2, 3}) {
    torch::manual_seed(3);
    auto loader = data::make_data_loader(Numbers(37, -1, 200).map(data::transforms::Stack<>()),
                                         data::DataLoaderOptions().batch_size(5).workers(workers));
    auto batches = epoch(*loader);
    if (workers == 0) {
      reference = batches;
      ASSERT_EQ(reference.size(), 8u);
    } else {
      EXPECT_EQ(batches, reference) << workers << " workers";
    }
  }
}

TEST(DataLoader, UnorderedDeliveryReturnsEveryBatchOnce) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Numbers(40, -1, 300).map(data::transforms::Stack<>()),
      data::DataLoaderOptions().batch_size(3).workers(3).max_jobs(6).enforce_ordering(false));
  std::multiset<int64_t> seen;
  for (const auto& batch : epoch(*loader)) seen.insert(batch.begin(), batch.end());
  EXPECT_EQ(seen.size(), 40u);
  EXPECT_EQ(std::set<int64_t>(seen.begin(), seen.end()).size(), 40u);
}

TEST(DataLoader, ExceptionsReachTheIteratingThread) {
  for (size_t workers : {0, 2}) {
    auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
        Numbers(20, 9).map(data::transforms::Stack<>()),
        data::DataLoaderOptions().batch_size(4).workers(workers));
    std::vector<std::vector<int64_t>> got;
    std::string message;
    auto it = loader->begin();
    try {
      for (; it != loader->end(); ++it) got.push_back(targets_of(it->target));
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    EXPECT_EQ(message, "Numbers: example 9 is broken") << workers;
    EXPECT_EQ(got.size(), 2u) << workers;
    // Iteration goes on with the batch after the failed one.
    for (; it != loader->end(); ++it) got.push_back(targets_of(it->target));
    ASSERT_EQ(got.size(), 4u) << workers;
    EXPECT_THAT(got[2], ElementsAre(12, 13, 14, 15));
  }
}

TEST(DataLoader, DestroyingMidEpochJoinsTheWorkers) {
  for (int round = 0; round < 5; ++round) {
    auto loader =
        data::make_data_loader(Numbers(1000, -1, 100).map(data::transforms::Stack<>()),
                               data::DataLoaderOptions().batch_size(2).workers(3).max_jobs(12));
    auto it = loader->begin();
    EXPECT_EQ(it->target.size(0), 2);
    loader.reset();  // must return promptly, with batches in flight
  }
  // Never iterated at all.
  auto idle = data::make_data_loader(Numbers(10), data::DataLoaderOptions().workers(2));
  idle->join();
  EXPECT_THAT(errorOf([&] { idle->begin(); }),
              HasSubstr("DataLoader: cannot start an epoch after join()"));
}

TEST(DataLoader, BeginMidEpochStartsAFreshEpoch) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Numbers(30, -1, 100).map(data::transforms::Stack<>()),
      data::DataLoaderOptions().batch_size(3).workers(2));
  auto it = loader->begin();
  ++it;
  EXPECT_THAT(targets_of(it->target), ElementsAre(3, 4, 5));
  const auto batches = epoch(*loader);
  ASSERT_EQ(batches.size(), 10u);
  EXPECT_THAT(batches[0], ElementsAre(0, 1, 2));
  EXPECT_THAT(batches[9], ElementsAre(27, 28, 29));
}

TEST(DataLoader, TimeoutWaitingForAWorker) {
  auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
      Numbers(4, -1, 200000).map(data::transforms::Stack<>()),
      data::DataLoaderOptions().batch_size(4).workers(1).timeout(std::chrono::milliseconds(20)));
  EXPECT_THAT(errorOf([&] { loader->begin() != loader->end(); }),
              HasSubstr("DataLoader: timed out after 20 ms waiting for a batch"));
}

TEST(DataLoader, BadOptions) {
  EXPECT_THAT(errorOf([&] { data::make_data_loader(Numbers(4), data::DataLoaderOptions(0)); }),
              HasSubstr("DataLoader: expected a batch size of at least 1, got 0"));
  EXPECT_THAT(errorOf([&] {
                data::make_data_loader(Numbers(4),
                                       data::DataLoaderOptions().workers(2).max_jobs(0));
              }),
              HasSubstr("expected max_jobs of at least 1 with 2 workers, got 0"));
  struct Unsized : data::datasets::Dataset<Unsized> {
    data::Example<> get(size_t) override { return {}; }
    std::optional<size_t> size() const override { return std::nullopt; }
  };
  EXPECT_THAT(errorOf([&] { data::make_data_loader(Unsized()); }),
              HasSubstr("make_data_loader: expected a dataset whose size() is known"));
  // With an explicit sampler it works.
  auto loader = data::make_data_loader(Unsized(), data::samplers::SequentialSampler(3), 2);
  size_t batches = 0;
  for (auto& batch : *loader) {
    EXPECT_LE(batch.size(), 2u);
    ++batches;
  }
  EXPECT_EQ(batches, 2u);
}

TEST(DataLoader, IteratorMisuse) {
  auto loader = data::make_data_loader(Numbers(2).map(data::transforms::Stack<>()), 2);
  auto end = loader->end();
  EXPECT_THAT(errorOf([&] { *end; }),
              HasSubstr("Iterator: cannot dereference the end iterator of a DataLoader"));
  EXPECT_THAT(errorOf([&] { ++end; }), HasSubstr("Iterator: cannot increment the end iterator"));
  auto it = loader->begin();
  ++it;
  EXPECT_TRUE(it == end);
  EXPECT_THAT(errorOf([&] { *it; }),
              HasSubstr("cannot dereference an iterator that is past the end of the epoch"));
  EXPECT_THAT(errorOf([&] { ++it; }),
              HasSubstr("cannot increment an iterator that is past the end of the epoch"));
}

TEST(DataLoader, MnistPipelineOfTheBrief) {
  auto test =
      data::datasets::MNIST("/usr/share/datasets/fashion-mnist", data::datasets::MNIST::Mode::kTest)
          .map(data::transforms::Normalize<>(0.2860, 0.3530))
          .map(data::transforms::Stack<>());
  auto loader = data::make_data_loader(
      std::move(test), data::DataLoaderOptions().batch_size(128).workers(1).drop_last(false));
  int64_t seen = 0;
  for (torch::data::Example<>& batch : *loader) {
    EXPECT_EQ(batch.data.dim(), 4);
    EXPECT_EQ(batch.data.size(1), 1);
    EXPECT_EQ(batch.data.scalar_type(), at::kFloat);
    EXPECT_EQ(batch.target.scalar_type(), at::kLong);
    EXPECT_EQ(batch.target.size(0), batch.data.size(0));
    seen += batch.data.size(0);
  }
  EXPECT_EQ(seen, 10000);

  // The pytorch/examples MNIST program's spelling: a sampler type and an
  // int64_t batch size.
  const int64_t kTestBatchSize = 1000;
  auto ordered = torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
      data::datasets::MNIST("/usr/share/datasets/fashion-mnist", data::datasets::MNIST::Mode::kTest)
          .map(data::transforms::Stack<>()),
      kTestBatchSize);
  auto first = ordered->begin();
  EXPECT_EQ(first->data.size(0), 1000);
  EXPECT_EQ(first->target[0].item<int64_t>(), 9);
}

}  // namespace
