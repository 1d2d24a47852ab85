// torch::data on Fashion-MNIST: one batch of 128 by the per-example path
// (128 selects + Stack) against the stacked path (one index_select per
// tensor), with and without Normalize; a full test-set epoch through the
// loader with 0, 1 and 2 workers; loading the training set.
//
//   OMP_NUM_THREADS=1 ./bazelw run --config=opt //tools/bench/data:data_bench
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <vector>

#include "nn/data/data.h"

namespace {

namespace data = torch::data;
constexpr char kRoot[] = "/usr/share/datasets/fashion-mnist";

std::vector<size_t> batch_indices() {
  std::vector<size_t> indices(128);
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = (i * 7919) % 10000;
  return indices;
}

const data::datasets::MNIST& test_set() {
  static const data::datasets::MNIST set(kRoot, data::datasets::MNIST::Mode::kTest);
  return set;
}

void BM_Batch128_PerExampleThenStack(benchmark::State& state) {
  data::datasets::MNIST set = test_set();
  data::transforms::Stack<> stack;
  const auto indices = batch_indices();
  for (auto _ : state) {
    benchmark::DoNotOptimize(stack.apply_batch(set.get_batch(indices)));
  }
}
BENCHMARK(BM_Batch128_PerExampleThenStack);

void BM_Batch128_Stacked(benchmark::State& state) {
  auto set = data::datasets::MNIST(test_set()).map(data::transforms::Stack<>());
  const auto indices = batch_indices();
  for (auto _ : state) {
    benchmark::DoNotOptimize(set.get_batch(indices));
  }
}
BENCHMARK(BM_Batch128_Stacked);

void BM_Batch128_NormalizeThenStack_PerExample(benchmark::State& state) {
  // A Lambda in the chain forces the generic path.
  auto set = data::datasets::MNIST(test_set())
                 .map(data::transforms::Normalize<>(0.2860, 0.3530))
                 .map(data::transforms::Lambda<>([](data::Example<> e) { return e; }))
                 .map(data::transforms::Stack<>());
  const auto indices = batch_indices();
  for (auto _ : state) {
    benchmark::DoNotOptimize(set.get_batch(indices));
  }
}
BENCHMARK(BM_Batch128_NormalizeThenStack_PerExample);

void BM_Batch128_NormalizeThenStack_Stacked(benchmark::State& state) {
  auto set = data::datasets::MNIST(test_set())
                 .map(data::transforms::Normalize<>(0.2860, 0.3530))
                 .map(data::transforms::Stack<>());
  const auto indices = batch_indices();
  for (auto _ : state) {
    benchmark::DoNotOptimize(set.get_batch(indices));
  }
}
BENCHMARK(BM_Batch128_NormalizeThenStack_Stacked);

// One epoch of the 10,000 test images, batch 128, shuffled.
void BM_LoaderEpoch(benchmark::State& state) {
  auto set = data::datasets::MNIST(test_set())
                 .map(data::transforms::Normalize<>(0.2860, 0.3530))
                 .map(data::transforms::Stack<>());
  auto loader = data::make_data_loader(
      std::move(set),
      data::DataLoaderOptions().batch_size(128).workers(static_cast<size_t>(state.range(0))));
  for (auto _ : state) {
    int64_t n = 0;
    for (auto& batch : *loader) n += batch.data.size(0);
    benchmark::DoNotOptimize(n);
  }
}
BENCHMARK(BM_LoaderEpoch)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

void BM_LoadTrainingSet(benchmark::State& state) {
  for (auto _ : state) {
    data::datasets::MNIST set(kRoot, data::datasets::MNIST::Mode::kTrain);
    benchmark::DoNotOptimize(set.images().data_ptr());
  }
}
BENCHMARK(BM_LoadTrainingSet)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
