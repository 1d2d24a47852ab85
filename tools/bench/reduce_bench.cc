// Reductions on the CPU plugin against plain loops built with the same
// flags (-O3 under --config=opt; the CPU plugin's build for this CPU):
//   ./bazelw run --config=opt //tools/bench:reduce_bench
// Each benchmark's argument is the OpenMP thread count (1 or 2), set for
// both the plugin and the anchor. The counter `vs_loop` is the op's time
// divided by the plain loop's time on the same data, measured in the same
// run (below 1: faster than the loop). The plain float loop is a dependent
// chain of adds (GCC may not reorder float adds without -ffast-math); the
// `simd` anchor lets it, which is what memory bandwidth allows.
#include <benchmark/benchmark.h>

#include <omp.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include <ATen/ATen.h>

namespace {

constexpr int64_t kBig = int64_t{1} << 24;  // 16M floats
constexpr int64_t kSide = 4096;             // 4096 x 4096 floats

template <typename F>
double seconds_per_call(const F& f, int reps = 5) {
  f();  // warm up
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) f();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(t1 - t0).count() / reps;
}

// Runs `op` under the benchmark loop and reports its time relative to
// `anchor`.
template <typename Op, typename Anchor>
void run_against(benchmark::State& state, const Op& op, const Anchor& anchor,
                 int64_t bytes) {
  omp_set_num_threads(static_cast<int>(state.range(0)));
  const double anchor_s = seconds_per_call(anchor);
  op();
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) op();
  const auto t1 = std::chrono::steady_clock::now();
  const double op_s = std::chrono::duration<double>(t1 - t0).count() /
                      static_cast<double>(state.iterations());
  state.counters["vs_loop"] = op_s / anchor_s;
  state.SetBytesProcessed(state.iterations() * bytes);
}

// Values in [0, 1) from a fixed linear congruential sequence.
at::Tensor filled(std::vector<int64_t> sizes) {
  at::Tensor t = at::empty(sizes, at::TensorOptions().dtype(at::kFloat));
  float* p = t.data_ptr<float>();
  uint32_t state = 12345;
  for (int64_t i = 0; i < t.numel(); ++i) {
    state = state * 1664525u + 1013904223u;
    p[i] = static_cast<float>(state >> 8) * (1.0f / 16777216.0f);
  }
  return t;
}

void BM_SumAll16M(benchmark::State& state) {
  const at::Tensor x = filled({kBig});
  const float* p = x.data_ptr<float>();
  float sink = 0;
  run_against(state, [&] { benchmark::DoNotOptimize(at::sum(x)); },
              [&] {
                float s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
                for (int64_t i = 0; i < kBig; ++i) s += p[i];
                sink += s;
              },
              kBig * 4);
  benchmark::DoNotOptimize(sink);
}
BENCHMARK(BM_SumAll16M)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same op against a loop that may reorder (vectorized float adds).
void BM_SumAll16MVsSimdLoop(benchmark::State& state) {
  const at::Tensor x = filled({kBig});
  const float* p = x.data_ptr<float>();
  float sink = 0;
  run_against(state, [&] { benchmark::DoNotOptimize(at::sum(x)); },
              [&] {
                float s = 0;
#pragma omp parallel for simd reduction(+ : s) schedule(static)
                for (int64_t i = 0; i < kBig; ++i) s += p[i];
                sink += s;
              },
              kBig * 4);
  benchmark::DoNotOptimize(sink);
}
BENCHMARK(BM_SumAll16MVsSimdLoop)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Column sums: each output adds one element of every row.
void BM_SumDim0_4096x4096(benchmark::State& state) {
  const at::Tensor x = filled({kSide, kSide});
  const float* p = x.data_ptr<float>();
  std::vector<float> out(kSide);
  run_against(state, [&] { benchmark::DoNotOptimize(at::sum(x, {0})); },
              [&] {
                float* __restrict o = out.data();
                for (int64_t j = 0; j < kSide; ++j) o[j] = 0;
                for (int64_t i = 0; i < kSide; ++i) {
                  const float* __restrict row = p + i * kSide;
                  for (int64_t j = 0; j < kSide; ++j) o[j] += row[j];
                }
                benchmark::DoNotOptimize(o);
              },
              kSide * kSide * 4);
}
BENCHMARK(BM_SumDim0_4096x4096)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Row sums: each output is a contiguous run.
void BM_SumDim1_4096x4096(benchmark::State& state) {
  const at::Tensor x = filled({kSide, kSide});
  const float* p = x.data_ptr<float>();
  std::vector<float> out(kSide);
  run_against(state, [&] { benchmark::DoNotOptimize(at::sum(x, {1})); },
              [&] {
                float* __restrict o = out.data();
                for (int64_t i = 0; i < kSide; ++i) {
                  float s = 0;
                  for (int64_t j = 0; j < kSide; ++j) s += p[i * kSide + j];
                  o[i] = s;
                }
                benchmark::DoNotOptimize(o);
              },
              kSide * kSide * 4);
}
BENCHMARK(BM_SumDim1_4096x4096)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Over dim 0 of the transposed matrix (= row sums of the storage).
void BM_SumTransposedDim0_4096x4096(benchmark::State& state) {
  const at::Tensor x = filled({kSide, kSide});
  const at::Tensor t = x.t();
  const float* p = x.data_ptr<float>();
  std::vector<float> out(kSide);
  run_against(state, [&] { benchmark::DoNotOptimize(at::sum(t, {0})); },
              [&] {
                float* __restrict o = out.data();
                for (int64_t i = 0; i < kSide; ++i) {
                  float s = 0;
                  for (int64_t j = 0; j < kSide; ++j) s += p[i * kSide + j];
                  o[i] = s;
                }
                benchmark::DoNotOptimize(o);
              },
              kSide * kSide * 4);
}
BENCHMARK(BM_SumTransposedDim0_4096x4096)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The other one-pass reductions over 16M floats, against the plain sum loop.
void BM_OtherReductions16M(benchmark::State& state) {
  const at::Tensor x = filled({kBig});
  const float* p = x.data_ptr<float>();
  float sink = 0;
  const int64_t which = state.range(1);
  state.SetLabel(which == 0 ? "var" : which == 1 ? "norm" : which == 2 ? "prod" : "logsumexp");
  run_against(state,
              [&] {
                if (which == 0) benchmark::DoNotOptimize(at::var(x));
                if (which == 1) benchmark::DoNotOptimize(at::norm(x));
                if (which == 2) benchmark::DoNotOptimize(at::prod(x));
                if (which == 3) benchmark::DoNotOptimize(at::logsumexp(x, {0}));
              },
              [&] {
                float s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
                for (int64_t i = 0; i < kBig; ++i) s += p[i];
                sink += s;
              },
              kBig * 4);
  benchmark::DoNotOptimize(sink);
}
BENCHMARK(BM_OtherReductions16M)
    ->ArgsProduct({{1, 2}, {0, 1, 2, 3}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
