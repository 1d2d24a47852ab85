// DESIGN.md's training-step workloads on Ember (tools/bench/train_step_workloads.h);
// tools/bench/libtorch_ops.cc runs the same code on libtorch.
#include <benchmark/benchmark.h>

#include <torch/torch.h>

#include "tools/bench/train_step_workloads.h"

namespace {

void BM_MlpTrainStep(benchmark::State& state) {
  train_step::Mlp mlp;
  double loss = 0;
  for (auto _ : state) loss = mlp.step();
  state.counters["last_loss"] = loss;
}
BENCHMARK(BM_MlpTrainStep)->Unit(benchmark::kMillisecond);

void BM_CnnTrainStep(benchmark::State& state) {
  train_step::Cnn cnn;
  double loss = 0;
  for (auto _ : state) loss = cnn.step();
  state.counters["last_loss"] = loss;
}
BENCHMARK(BM_CnnTrainStep)->Unit(benchmark::kMillisecond);

}  // namespace
