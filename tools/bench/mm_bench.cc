// at::mm on float32 against oneDNN's own sgemm (the practical limit,
// DESIGN.md "Performance budget": goal >= 0.9x), in the same run. Both use
// the same oneDNN build and thread count (OMP_NUM_THREADS).
#include <benchmark/benchmark.h>

#include <vector>

#include <dnnl.hpp>

#include <ATen/ATen.h>

namespace {

void BM_AnchorOneDNNSgemm(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> a(n * n, 1.0f), b(n * n, 0.5f), c(n * n);
  for (auto _ : state) {
    dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::kIs1000);
}
BENCHMARK(BM_AnchorOneDNNSgemm)->Arg(256)->Arg(1024)->Arg(2048)->Unit(benchmark::kMicrosecond);

void BM_AtMm(benchmark::State& state) {
  const int64_t n = state.range(0);
  at::Tensor a = at::ones({n, n});
  at::Tensor b = at::full({n, n}, 0.5);
  for (auto _ : state) {
    at::Tensor c = at::mm(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::kIs1000);
}
BENCHMARK(BM_AtMm)->Arg(256)->Arg(1024)->Arg(2048)->Unit(benchmark::kMicrosecond);

}  // namespace
