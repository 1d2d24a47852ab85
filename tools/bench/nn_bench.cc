// Convolution and max pooling at the shapes of a small MNIST CNN (batch 64,
// 1x28x28 -> conv 3x3 32 -> pool 2 -> conv 3x3 64 -> pool 2), float32, on
// the CPU plugin (oneDNN for the convolutions). The same workloads run on
// libtorch in tools/bench/libtorch_ops.cc (BM_Libtorch<Name>); see
// tools/bench/libtorch_side_by_side.sh. Thread count: OMP_NUM_THREADS.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include <ATen/ATen.h>

namespace {

// Deterministic values in [-1, 1).
at::Tensor filled(std::vector<int64_t> shape, uint32_t seed) {
  at::Tensor t = at::empty(shape);
  float* p = t.data_ptr<float>();
  uint32_t s = seed;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<float>(s >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return t;
}

struct Layer {
  std::vector<int64_t> x, w;
};
// conv1: [64, 1, 28, 28] * [32, 1, 3, 3]; conv2: [64, 32, 13, 13] * [64, 32, 3, 3].
const Layer kLayers[] = {{{64, 1, 28, 28}, {32, 1, 3, 3}}, {{64, 32, 13, 13}, {64, 32, 3, 3}}};

void flops(benchmark::State& state, const at::Tensor& y, const Layer& l, double passes) {
  const double macs = static_cast<double>(y.numel()) * l.w[1] * l.w[2] * l.w[3];
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * macs * passes, benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::kIs1000);
}

void BM_Conv2dForward(benchmark::State& state) {
  const Layer& l = kLayers[state.range(0)];
  const at::Tensor x = filled(l.x, 1), w = filled(l.w, 2), b = filled({l.w[0]}, 3);
  at::Tensor y;
  for (auto _ : state) {
    y = at::conv2d(x, w, b);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  flops(state, y, l, 1);
}
BENCHMARK(BM_Conv2dForward)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The backward of layer `l` computing the gradients `mask` asks for.
void conv_backward(benchmark::State& state, const Layer& l, const std::vector<bool>& mask) {
  const at::Tensor x = filled(l.x, 1), w = filled(l.w, 2), b = filled({l.w[0]}, 3);
  const at::Tensor y = at::conv2d(x, w, b);
  const at::Tensor gy = filled(y.sizes().vec(), 4);
  const std::vector<int64_t> bias_sizes = {l.w[0]};
  for (auto _ : state) {
    auto grads = at::convolution_backward(gy, x, w, bias_sizes, {1, 1}, {0, 0}, {1, 1},
                                          false, {0, 0}, 1, mask);
    benchmark::DoNotOptimize(std::get<1>(grads).data_ptr());
  }
  flops(state, y, l, mask[0] ? 2 : 1);
}

// grad_input, grad_weight and grad_bias in one call.
void BM_Conv2dBackward(benchmark::State& state) {
  conv_backward(state, kLayers[state.range(0)], {true, true, true});
}
BENCHMARK(BM_Conv2dBackward)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// Only grad_weight and grad_bias: a first layer, whose input needs no
// gradient (the CNN train step's conv1).
void BM_Conv2dBackwardWeights(benchmark::State& state) {
  conv_backward(state, kLayers[state.range(0)], {false, true, true});
}
BENCHMARK(BM_Conv2dBackwardWeights)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// pool1: [64, 32, 26, 26]; pool2: [64, 64, 11, 11]; kernel 2.
const std::vector<int64_t> kPools[] = {{64, 32, 26, 26}, {64, 64, 11, 11}};

void BM_MaxPool2d(benchmark::State& state) {
  const at::Tensor x = filled(kPools[state.range(0)], 5);
  for (auto _ : state) {
    at::Tensor y = at::max_pool2d(x, {2, 2});
    benchmark::DoNotOptimize(y.data_ptr());
  }
}
BENCHMARK(BM_MaxPool2d)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_MaxPool2dBackward(benchmark::State& state) {
  const at::Tensor x = filled(kPools[state.range(0)], 5);
  const auto [y, idx] = at::max_pool2d_with_indices(x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
  const at::Tensor gy = filled(y.sizes().vec(), 6);
  for (auto _ : state) {
    at::Tensor gx = at::max_pool2d_with_indices_backward(gy, x, {2, 2}, {2, 2}, {0, 0},
                                                         {1, 1}, false, idx);
    benchmark::DoNotOptimize(gx.data_ptr());
  }
}
BENCHMARK(BM_MaxPool2dBackward)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// ReLU and its backward (threshold_backward) on the pools' inputs, the
// activations of the two conv layers.
void BM_Relu(benchmark::State& state) {
  const at::Tensor x = filled(kPools[state.range(0)], 7);
  for (auto _ : state) {
    at::Tensor y = at::relu(x);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}
BENCHMARK(BM_Relu)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

void BM_ThresholdBackward(benchmark::State& state) {
  const at::Tensor x = filled(kPools[state.range(0)], 7), g = filled(kPools[state.range(0)], 8);
  for (auto _ : state) {
    at::Tensor gx = at::threshold_backward(g, x, 0);
    benchmark::DoNotOptimize(gx.data_ptr());
  }
}
BENCHMARK(BM_ThresholdBackward)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
