// The autograd workloads of DESIGN.md's performance budget, on 1-element
// tensors so that the engine's own costs dominate:
//   chain: y = y * 1.0001, 1,000 times; forward and backward per node
//   leaves: 1,000 leaves summed into one loss; backward per leaf
// tools/bench/libtorch_ops.cc runs the same workloads on libtorch.
#include <benchmark/benchmark.h>

#include <vector>

#include <torch/torch.h>

namespace {

constexpr int kNodes = 1000;

void BM_AutogradChainForwardPerNode(benchmark::State& state) {
  at::Tensor x = at::ones({1}).requires_grad_();
  for (auto _ : state) {
    at::Tensor y = x;
    for (int i = 0; i < kNodes; ++i) y = y * 1.0001;
    benchmark::DoNotOptimize(y.unsafeGetTensorImpl());
    state.PauseTiming();
    y = at::Tensor();  // the graph's destruction is not forward work
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kNodes);
}
BENCHMARK(BM_AutogradChainForwardPerNode);

void BM_AutogradChainBackwardPerNode(benchmark::State& state) {
  at::Tensor x = at::ones({1}).requires_grad_();
  for (auto _ : state) {
    state.PauseTiming();
    at::Tensor y = x;
    for (int i = 0; i < kNodes; ++i) y = y * 1.0001;
    at::Tensor loss = y.sum();
    y = at::Tensor();
    x.mutable_grad() = at::Tensor();
    state.ResumeTiming();
    loss.backward();
    benchmark::DoNotOptimize(x.grad().unsafeGetTensorImpl());
  }
  state.SetItemsProcessed(state.iterations() * kNodes);
}
BENCHMARK(BM_AutogradChainBackwardPerNode);

void BM_AutogradLeavesBackwardPerLeaf(benchmark::State& state) {
  std::vector<at::Tensor> leaves;
  for (int i = 0; i < kNodes; ++i) leaves.push_back(at::ones({1}).requires_grad_());
  for (auto _ : state) {
    state.PauseTiming();
    at::Tensor loss = leaves[0] * 1;
    for (int i = 1; i < kNodes; ++i) loss = loss + leaves[static_cast<size_t>(i)];
    for (auto& l : leaves) l.mutable_grad() = at::Tensor();
    state.ResumeTiming();
    loss.sum().backward();
  }
  state.SetItemsProcessed(state.iterations() * kNodes);
}
BENCHMARK(BM_AutogradLeavesBackwardPerLeaf);

}  // namespace
