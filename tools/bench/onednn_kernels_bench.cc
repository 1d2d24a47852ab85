// Ember's own CPU kernels against the oneDNN 2.6 primitive for the same work,
// for the families issue 4 lists under "oneDNN where it is fast" that Ember
// runs on its own loops: binary with broadcast, reduction, batch norm and
// layer norm (eltwise: pointwise_bench; softmax: softmax_bench; matmul:
// mm_bench). float32, shapes of the CNN/MLP training steps. Primitives are
// created outside the timed loop, as a cached primitive would be.
//   OMP_NUM_THREADS=1 chrt -f 50 bazel-bin/tools/bench/onednn_kernels_bench
#include <benchmark/benchmark.h>

#include <vector>

#include <dnnl.hpp>
#include <torch/torch.h>

namespace {

using dnnl::memory;
using tag = dnnl::memory::format_tag;
constexpr auto f32 = dnnl::memory::data_type::f32;

dnnl::engine& engine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

at::Tensor filled(std::vector<int64_t> sizes) {
  at::manual_seed(1);
  return at::randn(sizes);
}

void set_bytes(benchmark::State& state, int64_t elements) {
  state.SetBytesProcessed(state.iterations() * elements * static_cast<int64_t>(sizeof(float)));
}

// ---- binary: conv activation + per-channel bias, [64, 32, 26, 26] + [1, 32, 1, 1]

const std::vector<int64_t> kAct = {64, 32, 26, 26};

void BM_EmberAddChannelBroadcast(benchmark::State& state) {
  const at::Tensor x = filled(kAct), b = filled({1, 32, 1, 1});
  at::Tensor y = at::empty(kAct);
  for (auto _ : state) {
    at::add_out(y, x, b);
    benchmark::ClobberMemory();
  }
  set_bytes(state, x.numel());
}
BENCHMARK(BM_EmberAddChannelBroadcast)->Unit(benchmark::kMicrosecond);

void BM_OneDNNAddChannelBroadcast(benchmark::State& state) {
  const at::Tensor x = filled(kAct), b = filled({1, 32, 1, 1});
  at::Tensor y = at::empty(kAct);
  const memory::desc x_md({64, 32, 26, 26}, f32, tag::nchw), b_md({1, 32, 1, 1}, f32, tag::nchw);
  const dnnl::binary::desc desc(dnnl::algorithm::binary_add, x_md, b_md, x_md);
  const dnnl::binary prim(dnnl::binary::primitive_desc(desc, engine()));
  dnnl::stream stream(engine());
  memory xm(x_md, engine(), x.data_ptr()), bm(b_md, engine(), b.data_ptr()),
      ym(x_md, engine(), y.data_ptr());
  for (auto _ : state) {
    prim.execute(stream, {{DNNL_ARG_SRC_0, xm}, {DNNL_ARG_SRC_1, bm}, {DNNL_ARG_DST, ym}});
    stream.wait();
    benchmark::ClobberMemory();
  }
  set_bytes(state, x.numel());
}
BENCHMARK(BM_OneDNNAddChannelBroadcast)->Unit(benchmark::kMicrosecond);

// ---- reduction: a conv bias gradient, sum over (0, 2, 3) of [64, 32, 26, 26]

void BM_EmberSumChannels(benchmark::State& state) {
  const at::Tensor x = filled(kAct);
  at::Tensor y = at::empty({32});
  for (auto _ : state) {
    at::sum_out(y, x, {0, 2, 3});
    benchmark::ClobberMemory();
  }
  set_bytes(state, x.numel());
}
BENCHMARK(BM_EmberSumChannels)->Unit(benchmark::kMicrosecond);

void BM_OneDNNSumChannels(benchmark::State& state) {
  const at::Tensor x = filled(kAct);
  at::Tensor y = at::empty({32});
  const memory::desc x_md({64, 32, 26, 26}, f32, tag::nchw), y_md({1, 32, 1, 1}, f32, tag::nchw);
  const dnnl::reduction::desc desc(dnnl::algorithm::reduction_sum, x_md, y_md, 0.f, 0.f);
  const dnnl::reduction prim(dnnl::reduction::primitive_desc(desc, engine()));
  dnnl::stream stream(engine());
  memory xm(x_md, engine(), x.data_ptr()), ym(y_md, engine(), y.data_ptr());
  for (auto _ : state) {
    prim.execute(stream, {{DNNL_ARG_SRC, xm}, {DNNL_ARG_DST, ym}});
    stream.wait();
    benchmark::ClobberMemory();
  }
  set_bytes(state, x.numel());
}
BENCHMARK(BM_OneDNNSumChannels)->Unit(benchmark::kMicrosecond);

// ---- batch norm, training forward (batch statistics), [64, 32, 26, 26]

void BM_EmberBatchNormTraining(benchmark::State& state) {
  const at::Tensor x = filled(kAct);
  for (auto _ : state) {
    at::Tensor y = at::batch_norm(x, {}, {}, {}, {}, /*training=*/true, 0.1, 1e-5, false);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  set_bytes(state, x.numel());
}
BENCHMARK(BM_EmberBatchNormTraining)->Unit(benchmark::kMicrosecond);

// Times a normalization primitive (forward training: it also writes its
// mean and variance, `rows` values each) on x, output into a tensor like x.
template <typename Primitive>
void time_normalization(benchmark::State& state, const at::Tensor& x, const memory::desc& x_md,
                        const typename Primitive::primitive_desc& pd, int64_t rows) {
  const Primitive prim(pd);
  at::Tensor y = at::empty(x.sizes()), mean = at::empty({rows}), var = at::empty({rows});
  dnnl::stream stream(engine());
  memory xm(x_md, engine(), x.data_ptr()), ym(x_md, engine(), y.data_ptr()),
      mm(pd.mean_desc(), engine(), mean.data_ptr()),
      vm(pd.variance_desc(), engine(), var.data_ptr());
  for (auto _ : state) {
    prim.execute(stream, {{DNNL_ARG_SRC, xm}, {DNNL_ARG_DST, ym}, {DNNL_ARG_MEAN, mm},
                          {DNNL_ARG_VARIANCE, vm}});
    stream.wait();
    benchmark::ClobberMemory();
  }
  set_bytes(state, x.numel());
}

void BM_OneDNNBatchNormTraining(benchmark::State& state) {
  const at::Tensor x = filled(kAct);
  const memory::desc x_md({64, 32, 26, 26}, f32, tag::nchw);
  const dnnl::batch_normalization_forward::desc desc(dnnl::prop_kind::forward_training, x_md,
                                                     1e-5f, dnnl::normalization_flags::none);
  time_normalization<dnnl::batch_normalization_forward>(
      state, x, x_md, dnnl::batch_normalization_forward::primitive_desc(desc, engine()), 32);
}
BENCHMARK(BM_OneDNNBatchNormTraining)->Unit(benchmark::kMicrosecond);

// ---- layer norm, forward over the last dim of [4096, 512]

void BM_EmberLayerNorm(benchmark::State& state) {
  const at::Tensor x = filled({4096, 512});
  for (auto _ : state) {
    at::Tensor y = at::layer_norm(x, {512});
    benchmark::DoNotOptimize(y.data_ptr());
  }
  set_bytes(state, x.numel());
}
BENCHMARK(BM_EmberLayerNorm)->Unit(benchmark::kMicrosecond);

void BM_OneDNNLayerNorm(benchmark::State& state) {
  const at::Tensor x = filled({4096, 512});
  const memory::desc x_md({4096, 512}, f32, tag::ab);
  const dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_training, x_md,
                                                     1e-5f, dnnl::normalization_flags::none);
  time_normalization<dnnl::layer_normalization_forward>(
      state, x, x_md, dnnl::layer_normalization_forward::primitive_desc(desc, engine()), 4096);
}
BENCHMARK(BM_OneDNNLayerNorm)->Unit(benchmark::kMicrosecond);

// ---- backward (grad_input only: oneDNN's backward_data), same shapes

// Times the backward_data primitive of a normalization (batch or layer:
// their descriptors take the same arguments) on x, `rows` statistics.
template <typename Forward, typename Backward>
void time_normalization_backward(benchmark::State& state, const at::Tensor& x,
                                 const memory::desc& x_md, int64_t rows) {
  const auto flags = dnnl::normalization_flags::none;
  const typename Forward::primitive_desc fwd_pd(
      typename Forward::desc(dnnl::prop_kind::forward_training, x_md, 1e-5f, flags), engine());
  const typename Backward::primitive_desc pd(
      typename Backward::desc(dnnl::prop_kind::backward_data, x_md, x_md, 1e-5f, flags),
      engine(), fwd_pd);
  const Backward prim(pd);
  at::Tensor dy = filled(x.sizes().vec()), dx = at::empty(x.sizes());
  at::Tensor mean = at::zeros({rows}), var = at::ones({rows});
  dnnl::stream stream(engine());
  memory xm(x_md, engine(), x.data_ptr()), dym(x_md, engine(), dy.data_ptr()),
      dxm(x_md, engine(), dx.data_ptr()), mm(pd.mean_desc(), engine(), mean.data_ptr()),
      vm(pd.variance_desc(), engine(), var.data_ptr());
  for (auto _ : state) {
    prim.execute(stream, {{DNNL_ARG_SRC, xm}, {DNNL_ARG_DIFF_DST, dym},
                          {DNNL_ARG_DIFF_SRC, dxm}, {DNNL_ARG_MEAN, mm},
                          {DNNL_ARG_VARIANCE, vm}});
    stream.wait();
    benchmark::ClobberMemory();
  }
  set_bytes(state, x.numel());
}

void BM_EmberBatchNormBackward(benchmark::State& state) {
  const at::Tensor x = filled(kAct), dy = filled(kAct);
  const auto [y, mean, invstd] = at::native_batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5);
  for (auto _ : state) {
    const auto grads = at::native_batch_norm_backward(dy, x, {}, {}, {}, mean, invstd, true,
                                                      1e-5, {true, false, false});
    benchmark::DoNotOptimize(std::get<0>(grads).data_ptr());
  }
  set_bytes(state, x.numel());
}
BENCHMARK(BM_EmberBatchNormBackward)->Unit(benchmark::kMicrosecond);

void BM_OneDNNBatchNormBackward(benchmark::State& state) {
  const at::Tensor x = filled(kAct);
  time_normalization_backward<dnnl::batch_normalization_forward,
                              dnnl::batch_normalization_backward>(
      state, x, memory::desc({64, 32, 26, 26}, f32, tag::nchw), 32);
}
BENCHMARK(BM_OneDNNBatchNormBackward)->Unit(benchmark::kMicrosecond);

void BM_EmberLayerNormBackward(benchmark::State& state) {
  const at::Tensor x = filled({4096, 512}), dy = filled({4096, 512});
  const auto [y, mean, rstd] = at::native_layer_norm(x, {512}, {}, {}, 1e-5);
  for (auto _ : state) {
    const auto grads =
        at::native_layer_norm_backward(dy, x, {512}, mean, rstd, {}, {}, {true, false, false});
    benchmark::DoNotOptimize(std::get<0>(grads).data_ptr());
  }
  set_bytes(state, x.numel());
}
BENCHMARK(BM_EmberLayerNormBackward)->Unit(benchmark::kMicrosecond);

void BM_OneDNNLayerNormBackward(benchmark::State& state) {
  const at::Tensor x = filled({4096, 512});
  time_normalization_backward<dnnl::layer_normalization_forward,
                              dnnl::layer_normalization_backward>(
      state, x, memory::desc({4096, 512}, f32, tag::ab), 4096);
}
BENCHMARK(BM_OneDNNLayerNormBackward)->Unit(benchmark::kMicrosecond);

}  // namespace
