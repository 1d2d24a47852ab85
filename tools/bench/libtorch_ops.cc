// The same workloads as aten_bench, mm_bench, nn_bench and autograd_bench, against Debian's libtorch
// (1.13.1), for side-by-side ratios. Not part of the Bazel build: compiled
// and run by tools/bench/libtorch_side_by_side.sh, which also runs Ember's
// benchmarks in the same invocation with the same thread settings.
#include <benchmark/benchmark.h>

#include <torch/torch.h>

#include "reduce_workloads.h"  // found next to this file

#include <cstdint>
#include <vector>

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

void BM_LibtorchAdd16M(benchmark::State& state) {
  const int64_t n = int64_t{1} << 24;
  at::Tensor a = at::ones({n}), b = at::full({n}, 2.0);
  for (auto _ : state) {
    at::Tensor out = at::add(a, b);
    benchmark::DoNotOptimize(out.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * n * 3 * int64_t{sizeof(float)});
}
BENCHMARK(BM_LibtorchAdd16M)->Unit(benchmark::kMillisecond)->UseRealTime();

// Reductions of 16M floats in [0, 1) (aten_bench's BM_AtReduce16M).
void BM_LibtorchReduce16M(benchmark::State& state) {
  reduce_workloads::time_reduce(state, state.range(0),
                                reduce_workloads::reduce_input(0, int64_t{1} << 24));
}
BENCHMARK(BM_LibtorchReduce16M)->DenseRange(0, 5)->Unit(benchmark::kMillisecond)->UseRealTime();

// sum (0), norm (2) and amax (5) of 16M Half (second argument 1) or
// BFloat16 (2) numbers, against aten_bench's BM_AtReduce16Bit16M.
void BM_LibtorchReduce16Bit16M(benchmark::State& state) {
  reduce_workloads::time_reduce(state, state.range(0),
                                reduce_workloads::reduce_input(state.range(1), int64_t{1} << 24));
}
BENCHMARK(BM_LibtorchReduce16Bit16M)
    ->ArgsProduct({{0, 2, 5}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

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

// ---- nn_bench's workloads (see tools/bench/nn_bench.cc) ----------------------

at::Tensor Filled(std::vector<int64_t> shape, uint32_t seed) {
  at::Tensor t = at::empty(shape);
  float* p = t.data_ptr<float>();
  uint32_t s = seed;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<float>(s >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return t;
}

struct ConvLayer {
  std::vector<int64_t> x, w;
};
const ConvLayer kConvLayers[] = {{{64, 1, 28, 28}, {32, 1, 3, 3}},
                                 {{64, 32, 13, 13}, {64, 32, 3, 3}}};
const std::vector<int64_t> kPoolInputs[] = {{64, 32, 26, 26}, {64, 64, 11, 11}};

void ConvFlops(benchmark::State& state, const at::Tensor& y, const ConvLayer& l,
               double passes) {
  const double macs = static_cast<double>(y.numel()) * l.w[1] * l.w[2] * l.w[3];
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * macs * passes, benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::kIs1000);
}

void BM_LibtorchConv2dForward(benchmark::State& state) {
  const ConvLayer& l = kConvLayers[state.range(0)];
  const at::Tensor x = Filled(l.x, 1), w = Filled(l.w, 2), b = Filled({l.w[0]}, 3);
  at::Tensor y;
  for (auto _ : state) {
    y = at::conv2d(x, w, b);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  ConvFlops(state, y, l, 1);
}
BENCHMARK(BM_LibtorchConv2dForward)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_LibtorchConv2dBackward(benchmark::State& state) {
  const ConvLayer& l = kConvLayers[state.range(0)];
  const at::Tensor x = Filled(l.x, 1), w = Filled(l.w, 2), b = Filled({l.w[0]}, 3);
  const at::Tensor y = at::conv2d(x, w, b);
  const at::Tensor gy = Filled(y.sizes().vec(), 4);
  const std::vector<int64_t> bias_sizes = {l.w[0]};
  for (auto _ : state) {
    auto grads = at::convolution_backward(gy, x, w, bias_sizes, {1, 1}, {0, 0}, {1, 1},
                                          false, {0, 0}, 1, {true, true, true});
    benchmark::DoNotOptimize(std::get<0>(grads).data_ptr());
  }
  ConvFlops(state, y, l, 2);
}
BENCHMARK(BM_LibtorchConv2dBackward)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_LibtorchMaxPool2d(benchmark::State& state) {
  const at::Tensor x = Filled(kPoolInputs[state.range(0)], 5);
  for (auto _ : state) {
    at::Tensor y = at::max_pool2d(x, {2, 2});
    benchmark::DoNotOptimize(y.data_ptr());
  }
}
BENCHMARK(BM_LibtorchMaxPool2d)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_LibtorchMaxPool2dBackward(benchmark::State& state) {
  const at::Tensor x = Filled(kPoolInputs[state.range(0)], 5);
  const auto out = at::max_pool2d_with_indices(x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
  const at::Tensor gy = Filled(std::get<0>(out).sizes().vec(), 6);
  for (auto _ : state) {
    at::Tensor gx = at::max_pool2d_with_indices_backward(gy, x, {2, 2}, {2, 2}, {0, 0},
                                                         {1, 1}, false, std::get<1>(out));
    benchmark::DoNotOptimize(gx.data_ptr());
  }
}
BENCHMARK(BM_LibtorchMaxPool2dBackward)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_LibtorchRelu(benchmark::State& state) {
  const at::Tensor x = Filled(kPoolInputs[state.range(0)], 7);
  for (auto _ : state) {
    at::Tensor y = at::relu(x);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}
BENCHMARK(BM_LibtorchRelu)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_LibtorchThresholdBackward(benchmark::State& state) {
  const at::Tensor x = Filled(kPoolInputs[state.range(0)], 7);
  const at::Tensor g = Filled(kPoolInputs[state.range(0)], 8);
  for (auto _ : state) {
    at::Tensor gx = at::threshold_backward(g, x, 0);
    benchmark::DoNotOptimize(gx.data_ptr());
  }
}
BENCHMARK(BM_LibtorchThresholdBackward)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// ---- autograd (tools/bench/autograd_bench.cc has Ember's side) ----------------------------

constexpr int kAutogradNodes = 1000;

void BM_LibtorchAutogradChainForwardPerNode(benchmark::State& state) {
  at::Tensor x = at::ones({1}).requires_grad_();
  for (auto _ : state) {
    at::Tensor y = x;
    for (int i = 0; i < kAutogradNodes; ++i) y = y * 1.0001;
    benchmark::DoNotOptimize(y.unsafeGetTensorImpl());
    state.PauseTiming();
    y = at::Tensor();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kAutogradNodes);
}
BENCHMARK(BM_LibtorchAutogradChainForwardPerNode);

void BM_LibtorchAutogradChainBackwardPerNode(benchmark::State& state) {
  at::Tensor x = at::ones({1}).requires_grad_();
  for (auto _ : state) {
    state.PauseTiming();
    at::Tensor y = x;
    for (int i = 0; i < kAutogradNodes; ++i) y = y * 1.0001;
    at::Tensor loss = y.sum();
    y = at::Tensor();
    x.mutable_grad() = at::Tensor();
    state.ResumeTiming();
    loss.backward();
    benchmark::DoNotOptimize(x.grad().unsafeGetTensorImpl());
  }
  state.SetItemsProcessed(state.iterations() * kAutogradNodes);
}
BENCHMARK(BM_LibtorchAutogradChainBackwardPerNode);

void BM_LibtorchAutogradLeavesBackwardPerLeaf(benchmark::State& state) {
  std::vector<at::Tensor> leaves;
  for (int i = 0; i < kAutogradNodes; ++i) leaves.push_back(at::ones({1}).requires_grad_());
  for (auto _ : state) {
    state.PauseTiming();
    at::Tensor loss = leaves[0] * 1;
    for (int i = 1; i < kAutogradNodes; ++i) loss = loss + leaves[static_cast<size_t>(i)];
    for (auto& l : leaves) l.mutable_grad() = at::Tensor();
    state.ResumeTiming();
    loss.sum().backward();
  }
  state.SetItemsProcessed(state.iterations() * kAutogradNodes);
}
BENCHMARK(BM_LibtorchAutogradLeavesBackwardPerLeaf);

}  // namespace

// ---- train_step_bench's workloads (the same source) ----------------------------
#include "train_step_workloads.h"  // found next to this file

namespace {

void BM_LibtorchMlpTrainStep(benchmark::State& state) {
  train_step::Mlp mlp;
  double loss = 0;
  for (auto _ : state) loss = mlp.step();
  state.counters["last_loss"] = loss;
}
BENCHMARK(BM_LibtorchMlpTrainStep)->Unit(benchmark::kMillisecond);

void BM_LibtorchCnnTrainStep(benchmark::State& state) {
  train_step::Cnn cnn;
  double loss = 0;
  for (auto _ : state) loss = cnn.step();
  state.counters["last_loss"] = loss;
}
BENCHMARK(BM_LibtorchCnnTrainStep)->Unit(benchmark::kMillisecond);

}  // namespace
