// Tiny-op overhead and memory bandwidth of at:: ops on the CPU plugin.
// Anchors in the same run: a plain triad loop z[i] = x[i] + y[i] built with
// the same flags (-O3 under --config=opt; the CPU plugin's build for this CPU). Thread count:
// OMP_NUM_THREADS (both the plugin and the anchor use it).
#include <benchmark/benchmark.h>

#include <omp.h>

#include <vector>

#include <ATen/ATen.h>

#include "tools/bench/reduce_workloads.h"

namespace {

void BM_AtAdd1Element(benchmark::State& state) {
  at::Tensor a = at::ones({1}), b = at::ones({1});
  for (auto _ : state) {
    at::Tensor c = at::add(a, b);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}
BENCHMARK(BM_AtAdd1Element);

void BM_AtAddOut1Element(benchmark::State& state) {
  at::Tensor a = at::ones({1}), b = at::ones({1}), out = at::empty({1});
  for (auto _ : state) {
    at::add_out(out, a, b);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_AtAddOut1Element);

// The same tiny ops where the small-tensor fast path does not apply (Int
// operands, or shapes that broadcast): the cost of building a
// TensorIterator, with and without allocating the output.
void BM_AtAddInt1Element(benchmark::State& state) {
  at::Tensor a = at::ones({1}, at::kInt), b = at::ones({1}, at::kInt);
  for (auto _ : state) {
    at::Tensor c = at::add(a, b);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}
BENCHMARK(BM_AtAddInt1Element);

void BM_AtAddOutInt1Element(benchmark::State& state) {
  at::Tensor a = at::ones({1}, at::kInt), b = at::ones({1}, at::kInt);
  at::Tensor out = at::empty({1}, at::kInt);
  for (auto _ : state) {
    at::add_out(out, a, b);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_AtAddOutInt1Element);

void BM_AtAdd1ElementBroadcast(benchmark::State& state) {
  at::Tensor a = at::ones({1}), b = at::ones({1, 1});
  for (auto _ : state) {
    at::Tensor c = at::add(a, b);
    benchmark::DoNotOptimize(c.unsafeGetTensorImpl());
  }
}
BENCHMARK(BM_AtAdd1ElementBroadcast);

constexpr int64_t kBig = int64_t{1} << 24;  // 16M floats

void setBytes(benchmark::State& state) {
  state.SetBytesProcessed(state.iterations() * kBig * 3 * int64_t{sizeof(float)});
}

void BM_AnchorTriad16M(benchmark::State& state) {
  std::vector<float> x(kBig, 1.0f), y(kBig, 2.0f), z(kBig);
  float* __restrict zp = z.data();
  const float* __restrict xp = x.data();
  const float* __restrict yp = y.data();
  for (auto _ : state) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < kBig; ++i) zp[i] = xp[i] + yp[i];
    benchmark::ClobberMemory();
  }
  setBytes(state);
}
BENCHMARK(BM_AnchorTriad16M)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AtAddOut16M(benchmark::State& state) {
  at::Tensor a = at::ones({kBig}), b = at::full({kBig}, 2.0), out = at::empty({kBig});
  for (auto _ : state) {
    at::add_out(out, a, b);
    benchmark::ClobberMemory();
  }
  setBytes(state);
}
BENCHMARK(BM_AtAddOut16M)->Unit(benchmark::kMillisecond)->UseRealTime();

// The functional form: every call allocates its 64 MiB output (and frees the
// previous one), so the allocator's large-block path is part of the figure.
void BM_AtAdd16M(benchmark::State& state) {
  at::Tensor a = at::ones({kBig}), b = at::full({kBig}, 2.0);
  for (auto _ : state) {
    at::Tensor out = at::add(a, b);
    benchmark::DoNotOptimize(out.data_ptr());
  }
  setBytes(state);
}
BENCHMARK(BM_AtAdd16M)->Unit(benchmark::kMillisecond)->UseRealTime();

// Reductions of 16M floats in [0, 1): sum, prod, norm, logsumexp, mean,
// amax (the argument: reduce_workloads.h), against libtorch's
// BM_LibtorchReduce16M.
void BM_AtReduce16M(benchmark::State& state) {
  reduce_workloads::time_reduce(state, state.range(0), reduce_workloads::reduce_input(0, kBig));
}
BENCHMARK(BM_AtReduce16M)->DenseRange(0, 5)->Unit(benchmark::kMillisecond)->UseRealTime();

// sum (0), norm (2) and amax (5) of 16M Half (second argument 1) or
// BFloat16 (2) numbers (Notes [Half sums in vectors],
// [Half max in integer keys]), against libtorch's BM_LibtorchReduce16Bit16M.
void BM_AtReduce16Bit16M(benchmark::State& state) {
  reduce_workloads::time_reduce(state, state.range(0),
                                reduce_workloads::reduce_input(state.range(1), kBig));
}
BENCHMARK(BM_AtReduce16Bit16M)
    ->ArgsProduct({{0, 2, 5}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

namespace {

// A training batch gathered from a data set, as //tools:train's loader does:
// 128 random rows of 60,000 Fashion-MNIST images, as [N, 784] (the MLP) and
// as [N, 1, 28, 28] (the CNN).
void BM_AtIndexSelectBatch(benchmark::State& state) {
  const at::Tensor images = state.range(0) == 0 ? at::rand({60000, 784})
                                                : at::rand({60000, 1, 28, 28});
  const at::Tensor index = at::randperm(60000).slice(0, 0, 128);
  for (auto _ : state) {
    at::Tensor batch = at::index_select(images, 0, index);
    benchmark::DoNotOptimize(batch.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * 128 * 784 * int64_t{sizeof(float)});
}
BENCHMARK(BM_AtIndexSelectBatch)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
