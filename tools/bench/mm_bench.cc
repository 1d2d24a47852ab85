// at::mm on float32 against oneDNN's own sgemm (the practical limit,
// DESIGN.md "Performance budget": goal >= 0.9x), in the same run. Both use
// the same oneDNN build and thread count (OMP_NUM_THREADS).
#include <benchmark/benchmark.h>

#include <chrono>
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

// The MLP train step's eight matmuls (train_step_workloads.h: 784-512-256-10,
// batch 128), in the layouts linear's forward and backward hand at::mm (a
// transposed view where the math has a transpose), each against oneDNN's
// sgemm of the same shape and transposes, measured in the same benchmark:
// the counter vs_sgemm is at::mm's time over sgemm's (above 1: slower).
struct MlpMatmul {
  const char* name;
  int64_t m, k, n;
  bool ta, tb;  // whether A (m x k) and B (k x n) are transposed views
};
const MlpMatmul kMlpMatmuls[] = {
    {"fc1 forward x.W1^T", 128, 784, 512, false, true},
    {"fc1 dW1 = g^T.x", 512, 128, 784, true, false},
    {"fc2 forward", 128, 512, 256, false, true},
    {"fc2 dx = g.W2", 128, 256, 512, false, false},
    {"fc2 dW2", 256, 128, 512, true, false},
    {"fc3 forward", 128, 256, 10, false, true},
    {"fc3 dx", 128, 10, 256, false, false},
    {"fc3 dW3", 10, 128, 256, true, false},
};

void BM_MlpMatmul(benchmark::State& state) {
  const MlpMatmul& s = kMlpMatmuls[state.range(0)];
  state.SetLabel(s.name);
  // Stored as the untransposed matrices; the transposes are views.
  const at::Tensor a_store = s.ta ? at::rand({s.k, s.m}) : at::rand({s.m, s.k});
  const at::Tensor b_store = s.tb ? at::rand({s.n, s.k}) : at::rand({s.k, s.n});
  const at::Tensor a = s.ta ? a_store.t() : a_store;
  const at::Tensor b = s.tb ? b_store.t() : b_store;
  std::vector<float> c(static_cast<size_t>(s.m * s.n));
  const float* pa = a_store.data_ptr<float>();
  const float* pb = b_store.data_ptr<float>();
  const auto sgemm = [&] {
    // Row-major C = op(A) op(B) through column-major sgemm: C^T = op(B)^T op(A)^T.
    dnnl_sgemm(s.ta ? 'T' : 'N', s.tb ? 'T' : 'N', s.m, s.n, s.k, 1.0f, pa, s.ta ? s.m : s.k,
               pb, s.tb ? s.k : s.n, 0.0f, c.data(), s.n);
  };
  constexpr int kReps = 200;
  sgemm();
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < kReps; ++r) sgemm();
  const double sgemm_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kReps;
  benchmark::DoNotOptimize(at::mm(a, b).data_ptr());
  const auto t1 = std::chrono::steady_clock::now();
  for (auto _ : state) {
    at::Tensor out = at::mm(a, b);
    benchmark::DoNotOptimize(out.data_ptr());
  }
  const double mm_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count() /
                      static_cast<double>(state.iterations());
  const double flop = 2.0 * static_cast<double>(s.m * s.k * s.n);
  state.counters["GFLOP/s"] = flop / mm_s / 1e9;
  state.counters["sgemm_GFLOP/s"] = flop / sgemm_s / 1e9;
  state.counters["vs_sgemm"] = mm_s / sgemm_s;
}
BENCHMARK(BM_MlpMatmul)->DenseRange(0, 7)->Unit(benchmark::kMicrosecond);
