// rand and randn of 1M elements through the CPU plugin, in ns per element
// (the "per_elem" counter). Anchors in the same run: std::mt19937 with
// std::uniform_real_distribution / std::normal_distribution on one thread,
// which is what an mt19937-based CPU generator costs at least. Thread count:
// OMP_NUM_THREADS (the plugin uses at most 2).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include <ATen/ATen.h>

namespace {

constexpr int64_t kN = int64_t{1} << 20;

// Time per element: an inverted rate, printed in seconds with an SI prefix
// ("40.5n" is 40.5 ns per element).
void perElement(benchmark::State& state) {
  state.counters["per_elem"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * static_cast<double>(kN),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_RandOut1M(benchmark::State& state) {
  at::Tensor out = at::empty({kN});
  for (auto _ : state) {
    out.uniform_(0, 1);
    benchmark::ClobberMemory();
  }
  perElement(state);
}
BENCHMARK(BM_RandOut1M)->UseRealTime();

void BM_Rand1M(benchmark::State& state) {
  for (auto _ : state) {
    at::Tensor t = at::rand({kN});
    benchmark::DoNotOptimize(t.data_ptr());
  }
  perElement(state);
}
BENCHMARK(BM_Rand1M)->UseRealTime();

void BM_Randn1M(benchmark::State& state) {
  for (auto _ : state) {
    at::Tensor t = at::randn({kN});
    benchmark::DoNotOptimize(t.data_ptr());
  }
  perElement(state);
}
BENCHMARK(BM_Randn1M)->UseRealTime();

void BM_RandnDouble1M(benchmark::State& state) {
  for (auto _ : state) {
    at::Tensor t = at::randn({kN}, at::kDouble);
    benchmark::DoNotOptimize(t.data_ptr());
  }
  perElement(state);
}
BENCHMARK(BM_RandnDouble1M)->UseRealTime();

void BM_AnchorMt19937Uniform1M(benchmark::State& state) {
  std::mt19937 engine(1);
  std::uniform_real_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> out(kN);
  for (auto _ : state) {
    for (auto& x : out) x = dist(engine);
    benchmark::ClobberMemory();
  }
  perElement(state);
}
BENCHMARK(BM_AnchorMt19937Uniform1M)->UseRealTime();

void BM_AnchorMt19937Normal1M(benchmark::State& state) {
  std::mt19937 engine(1);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> out(kN);
  for (auto _ : state) {
    for (auto& x : out) x = dist(engine);
    benchmark::ClobberMemory();
  }
  perElement(state);
}
BENCHMARK(BM_AnchorMt19937Normal1M)->UseRealTime();

}  // namespace
