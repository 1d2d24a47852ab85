// The same workloads as aten_bench and mm_bench, against Debian's libtorch
// (1.13.1), for side-by-side ratios. Not part of the Bazel build: compiled
// and run by tools/bench/libtorch_side_by_side.sh, which also runs Ember's
// benchmarks in the same invocation with the same thread settings.
#include <benchmark/benchmark.h>

#include <torch/torch.h>

namespace {

void BM_LibtorchAdd1Element(benchmark::State& state) {
  at::Tensor a = at::ones({1}), b = at::ones({1});
  for (auto _ : state) {
    at::Tensor c = at::add(a, b);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}
BENCHMARK(BM_LibtorchAdd1Element);

void BM_LibtorchAddOut1Element(benchmark::State& state) {
  at::Tensor a = at::ones({1}), b = at::ones({1}), out = at::empty({1});
  for (auto _ : state) {
    at::add_out(out, a, b);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_LibtorchAddOut1Element);

void BM_LibtorchAddOut16M(benchmark::State& state) {
  const int64_t n = int64_t{1} << 24;
  at::Tensor a = at::ones({n}), b = at::full({n}, 2.0), out = at::empty({n});
  for (auto _ : state) {
    at::add_out(out, a, b);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 3 * int64_t{sizeof(float)});
}
BENCHMARK(BM_LibtorchAddOut16M)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LibtorchMm(benchmark::State& state) {
  const int64_t n = state.range(0);
  at::Tensor a = at::ones({n, n}), b = at::full({n, n}, 0.5);
  for (auto _ : state) {
    at::Tensor c = at::mm(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n, benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::kIs1000);
}
BENCHMARK(BM_LibtorchMm)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

}  // namespace
