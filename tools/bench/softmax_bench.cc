// at::softmax / at::log_softmax on float32 along the last dim, next to
// oneDNN's own softmax primitives (created once, outside the timed loop) on
// the same shapes, in the same run. Shapes: (64, 10), (128, 1000),
// (1024, 1024). Times are per call, in ns.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <dnnl.hpp>

#include <ATen/ATen.h>

namespace {

void shapes(benchmark::internal::Benchmark* b) {
  b->Args({64, 10})->Args({128, 1000})->Args({1024, 1024})->Unit(benchmark::kNanosecond);
}

at::Tensor input(int64_t rows, int64_t cols) {
  at::Tensor x = at::empty({rows, cols});
  float* p = x.data_ptr<float>();
  for (int64_t i = 0; i < rows * cols; ++i) p[i] = std::sin(0.37f * static_cast<float>(i)) * 4;
  return x;
}

void BM_AtSoftmax(benchmark::State& state) {
  const at::Tensor x = input(state.range(0), state.range(1));
  for (auto _ : state) {
    at::Tensor y = at::softmax(x, -1);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}
BENCHMARK(BM_AtSoftmax)->Apply(shapes);

void BM_AtLogSoftmax(benchmark::State& state) {
  const at::Tensor x = input(state.range(0), state.range(1));
  for (auto _ : state) {
    at::Tensor y = at::log_softmax(x, -1);
    benchmark::DoNotOptimize(y.data_ptr());
  }
}
BENCHMARK(BM_AtLogSoftmax)->Apply(shapes);

// oneDNN's primitive into a preallocated output (no allocation per call).
template <bool kLog>
void BM_AnchorOneDNN(benchmark::State& state) {
  const int64_t rows = state.range(0), cols = state.range(1);
  const at::Tensor x = input(rows, cols);
  std::vector<float> y(static_cast<size_t>(rows * cols));
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  const dnnl::memory::desc md({rows, cols}, dnnl::memory::data_type::f32,
                              dnnl::memory::format_tag::ab);
  dnnl::memory src(md, eng, x.data_ptr());
  dnnl::memory dst(md, eng, y.data());
  dnnl::primitive prim;
  if constexpr (kLog) {
    prim = dnnl::logsoftmax_forward(dnnl::logsoftmax_forward::primitive_desc(
        dnnl::logsoftmax_forward::desc(dnnl::prop_kind::forward_inference, md, 1), eng));
  } else {
    prim = dnnl::softmax_forward(dnnl::softmax_forward::primitive_desc(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, md, 1), eng));
  }
  for (auto _ : state) {
    prim.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    stream.wait();
    benchmark::DoNotOptimize(y.data());
  }
}
BENCHMARK_TEMPLATE(BM_AnchorOneDNN, false)->Name("BM_AnchorOneDNNSoftmax")->Apply(shapes);
BENCHMARK_TEMPLATE(BM_AnchorOneDNN, true)->Name("BM_AnchorOneDNNLogSoftmax")->Apply(shapes);

}  // namespace
