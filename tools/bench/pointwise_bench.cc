// Float32 transcendental pointwise ops of the CPU plugin (exp, tanh,
// sigmoid, gelu, silu) against, in the same run: a plain loop over glibc's
// scalar functions (what a straightforward kernel does) and oneDNN's JIT
// eltwise primitive (the practical limit). Also add/mul/where/clamp for
// memory-bound references. Elements per second; single thread unless
// OMP_NUM_THREADS says otherwise (the plugin splits >= 32K elements over at
// most 2 threads; the anchors here run on one).
//
//   OMP_NUM_THREADS=1 ./bazelw run --config=opt //tools/bench:pointwise_bench
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include <dnnl.hpp>

#include <ATen/ATen.h>

namespace {

constexpr int64_t kN = int64_t{1} << 18;  // 256K floats: 1 MiB per buffer

std::vector<float> inputs() {
  std::vector<float> x(kN);
  for (int64_t i = 0; i < kN; ++i) x[i] = -8.0f + 16.0f * static_cast<float>(i % 1000) / 1000;
  return x;
}

at::Tensor input_tensor() {
  at::Tensor t = at::empty({kN});
  const std::vector<float> x = inputs();
  std::copy(x.begin(), x.end(), t.data_ptr<float>());
  return t;
}

void set_rate(benchmark::State& state) {
  state.counters["elem/s"] = benchmark::Counter(
      static_cast<double>(kN), benchmark::Counter::kIsIterationInvariantRate);
}

// ---- glibc scalar loops -----------------------------------------------------

template <typename F>
void anchor_scalar_loop(benchmark::State& state, F f) {
  std::vector<float> x = inputs(), y(kN);
  for (auto _ : state) {
    for (int64_t i = 0; i < kN; ++i) y[i] = f(x[i]);
    benchmark::ClobberMemory();
  }
  set_rate(state);
}

void BM_AnchorGlibcExp(benchmark::State& s) {
  anchor_scalar_loop(s, [](float v) { return std::exp(v); });
}
void BM_AnchorGlibcTanh(benchmark::State& s) {
  anchor_scalar_loop(s, [](float v) { return std::tanh(v); });
}
void BM_AnchorGlibcSigmoid(benchmark::State& s) {
  anchor_scalar_loop(s, [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
}
void BM_AnchorGlibcGeluErf(benchmark::State& s) {
  anchor_scalar_loop(s, [](float v) { return 0.5f * v * (1.0f + std::erf(v * 0.70710678f)); });
}
BENCHMARK(BM_AnchorGlibcExp);
BENCHMARK(BM_AnchorGlibcTanh);
BENCHMARK(BM_AnchorGlibcSigmoid);
BENCHMARK(BM_AnchorGlibcGeluErf);

// ---- oneDNN eltwise ------------------------------------------------------------

void anchor_onednn(benchmark::State& state, dnnl::algorithm alg, float alpha) {
  std::vector<float> x = inputs(), y(kN);
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const dnnl::memory::desc md({kN}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  const dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, alg, md, alpha,
                                         0.0f);
  const dnnl::eltwise_forward::primitive_desc pd(desc, engine);
  const dnnl::eltwise_forward prim(pd);
  dnnl::memory src(md, engine, x.data()), dst(md, engine, y.data());
  for (auto _ : state) {
    prim.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    stream.wait();
    benchmark::ClobberMemory();
  }
  set_rate(state);
}

void BM_AnchorOneDNNExp(benchmark::State& s) {
  anchor_onednn(s, dnnl::algorithm::eltwise_exp, 0);
}
void BM_AnchorOneDNNTanh(benchmark::State& s) {
  anchor_onednn(s, dnnl::algorithm::eltwise_tanh, 0);
}
void BM_AnchorOneDNNSigmoid(benchmark::State& s) {
  anchor_onednn(s, dnnl::algorithm::eltwise_logistic, 0);
}
void BM_AnchorOneDNNGeluErf(benchmark::State& s) {
  anchor_onednn(s, dnnl::algorithm::eltwise_gelu_erf, 0);
}
void BM_AnchorOneDNNGeluTanh(benchmark::State& s) {
  anchor_onednn(s, dnnl::algorithm::eltwise_gelu_tanh, 0);
}
void BM_AnchorOneDNNSilu(benchmark::State& s) {
  anchor_onednn(s, dnnl::algorithm::eltwise_swish, 1);
}
BENCHMARK(BM_AnchorOneDNNExp);
BENCHMARK(BM_AnchorOneDNNTanh);
BENCHMARK(BM_AnchorOneDNNSigmoid);
BENCHMARK(BM_AnchorOneDNNGeluErf);
BENCHMARK(BM_AnchorOneDNNGeluTanh);
BENCHMARK(BM_AnchorOneDNNSilu);

// ---- Ember ------------------------------------------------------------------------

template <typename Op>
void ember_unary(benchmark::State& state, Op op) {
  at::Tensor x = input_tensor(), out = at::empty({kN});
  for (auto _ : state) {
    op(out, x);
    benchmark::ClobberMemory();
  }
  set_rate(state);
}

void BM_AtExp(benchmark::State& s) {
  ember_unary(s, [](at::Tensor& o, const at::Tensor& x) { at::exp_out(o, x); });
}
void BM_AtTanh(benchmark::State& s) {
  ember_unary(s, [](at::Tensor& o, const at::Tensor& x) { at::tanh_out(o, x); });
}
void BM_AtSigmoid(benchmark::State& s) {
  ember_unary(s, [](at::Tensor& o, const at::Tensor& x) { at::sigmoid_out(o, x); });
}
void BM_AtGeluErf(benchmark::State& s) {
  ember_unary(s, [](at::Tensor& o, const at::Tensor& x) { at::gelu_out(o, x); });
}
void BM_AtGeluTanh(benchmark::State& s) {
  ember_unary(s, [](at::Tensor& o, const at::Tensor& x) { at::gelu_out(o, x, "tanh"); });
}
void BM_AtSilu(benchmark::State& s) {
  ember_unary(s, [](at::Tensor& o, const at::Tensor& x) { at::silu_out(o, x); });
}
void BM_AtRelu(benchmark::State& s) {
  ember_unary(s, [](at::Tensor& o, const at::Tensor& x) { o.copy_(x); at::relu_(o); });
}
void BM_AtClampScalar(benchmark::State& s) {
  ember_unary(s, [](at::Tensor& o, const at::Tensor& x) { at::clamp_out(o, x, -1, 1); });
}
void BM_AtPowScalar2(benchmark::State& s) {
  ember_unary(s, [](at::Tensor& o, const at::Tensor& x) { at::pow_out(o, x, 2); });
}
void BM_AtMaximum(benchmark::State& s) {
  ember_unary(s, [](at::Tensor& o, const at::Tensor& x) { at::maximum_out(o, x, x); });
}
void BM_AtWhere(benchmark::State& s) {
  at::Tensor cond = at::gt(input_tensor(), at::zeros({}));
  ember_unary(s, [&cond](at::Tensor& o, const at::Tensor& x) {
    at::where_out(o, cond, x, o);
  });
}
void BM_AtAddcmul(benchmark::State& s) {
  ember_unary(s, [](at::Tensor& o, const at::Tensor& x) { at::addcmul_out(o, x, x, x, 0.5); });
}
BENCHMARK(BM_AtExp);
BENCHMARK(BM_AtTanh);
BENCHMARK(BM_AtSigmoid);
BENCHMARK(BM_AtGeluErf);
BENCHMARK(BM_AtGeluTanh);
BENCHMARK(BM_AtSilu);
BENCHMARK(BM_AtRelu);
BENCHMARK(BM_AtClampScalar);
BENCHMARK(BM_AtPowScalar2);
BENCHMARK(BM_AtMaximum);
BENCHMARK(BM_AtWhere);
BENCHMARK(BM_AtAddcmul);

}  // namespace
