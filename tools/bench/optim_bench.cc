// One optimizer step over the parameters of the training tool's MLP
// (784x512, 512, 512x256, 256, 256x10, 10: 535,818 float32 values), with
// every gradient present: SGD with momentum, Adam, AdamW. The counter
// "GB/s" counts the bytes a step must at least move (read grad, read and
// write each parameter and state tensor once), to compare with a triad.
// Thread count: OMP_NUM_THREADS.
#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "nn/optim/optim.h"

namespace {

const std::vector<std::vector<int64_t>> kShapes = {{512, 784}, {512},     {256, 512},
                                                   {256},      {10, 256}, {10}};

std::vector<at::Tensor> mlp_params() {
  at::manual_seed(0);
  std::vector<at::Tensor> params;
  for (const auto& shape : kShapes) {
    at::Tensor p = at::randn(shape).mul_(0.05).requires_grad_();
    p.mutable_grad() = at::randn(shape);
    params.push_back(p);
  }
  return params;
}

int64_t numel_of(const std::vector<at::Tensor>& params) {
  int64_t n = 0;
  for (const auto& p : params) n += p.numel();
  return n;
}

// `tensors`: how many float tensors of the parameters' size a step must
// read or write at least (e.g. SGD momentum: read g, read+write b and p = 5).
template <class Opt>
void run(benchmark::State& state, Opt& opt, const std::vector<at::Tensor>& params, int tensors) {
  opt.step();  // creates the state
  for (auto _ : state) {
    opt.step();
    benchmark::ClobberMemory();
  }
  state.counters["GB/s"] = benchmark::Counter(
      static_cast<double>(numel_of(params)) * sizeof(float) * tensors,
      benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

void BM_SgdMomentumStep(benchmark::State& state) {
  auto params = mlp_params();
  torch::optim::SGD opt(params, torch::optim::SGDOptions(1e-3).momentum(0.9));
  run(state, opt, params, 5);
}
BENCHMARK(BM_SgdMomentumStep)->Unit(benchmark::kMicrosecond);

void BM_SgdNesterovWeightDecayStep(benchmark::State& state) {
  auto params = mlp_params();
  torch::optim::SGD opt(
      params, torch::optim::SGDOptions(1e-3).momentum(0.9).nesterov(true).weight_decay(1e-4));
  run(state, opt, params, 5);
}
BENCHMARK(BM_SgdNesterovWeightDecayStep)->Unit(benchmark::kMicrosecond);

void BM_AdamStep(benchmark::State& state) {
  auto params = mlp_params();
  torch::optim::Adam opt(params, torch::optim::AdamOptions(1e-3));
  run(state, opt, params, 7);  // read g; read+write m, v, p
}
BENCHMARK(BM_AdamStep)->Unit(benchmark::kMicrosecond);

void BM_AdamWStep(benchmark::State& state) {
  auto params = mlp_params();
  torch::optim::AdamW opt(params, torch::optim::AdamWOptions(1e-3));
  run(state, opt, params, 7);
}
BENCHMARK(BM_AdamWStep)->Unit(benchmark::kMicrosecond);

}  // namespace
