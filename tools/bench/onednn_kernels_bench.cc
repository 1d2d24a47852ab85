// Ember's own CPU kernels against the oneDNN 2.6 primitive for the same work,
// for the families issue 4 lists under "oneDNN where it is fast" that Ember
// runs on its own loops: binary with broadcast, reduction, batch norm and
// layer norm (eltwise: pointwise_bench; softmax: softmax_bench; matmul:
// mm_bench), and the CNN train step's convolutions in oneDNN's own layouts
// (the most oneDNN does for them: issue 23's CNN floor). float32, shapes of
// the CNN/MLP training steps. Primitives are created outside the timed loop,
// as a cached primitive would be.
//   OMP_NUM_THREADS=1 chrt -f 50 bazel-bin/tools/bench/onednn_kernels_bench
#include <benchmark/benchmark.h>

#include <unordered_map>
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

// ---- convolution: the CNN train step's two layers (train_step_workloads.h:
// 3x3, stride 1, pad 1, batch 64), each pass with every tensor already in the
// layout oneDNN chose (format_tag::any): no reorders, no Ember code. Ember's
// calls on NCHW tensors (BM_EmberConv*) are beside them. The sum of the
// oneDNN passes the step runs (conv1 forward and backward-weights, conv2
// forward, backward-data and backward-weights) is the step's convolution time
// at oneDNN's own rate, set against its FLOP floor at sgemm speed
// (docs/cpu_capability.md).

struct ConvLayer {
  memory::dims src, wei, dst;
};
// conv1: [64, 1, 28, 28] -> [64, 32, 28, 28]; conv2: [64, 32, 14, 14] -> [64, 64, 14, 14].
const ConvLayer kConvs[] = {{{64, 1, 28, 28}, {32, 1, 3, 3}, {64, 32, 28, 28}},
                            {{64, 32, 14, 14}, {64, 32, 3, 3}, {64, 64, 14, 14}}};
const memory::dims kUnit = {1, 1}, kPad = {1, 1};

enum class Pass { kForward, kForwardRelu, kBackwardData, kBackwardWeights };

// state.range(1): activations in the layout oneDNN picks (0), in plain
// NCHW (1) or in channels-last NHWC (2); weights always `any`.
memory::desc activation_md(const memory::dims& d, int64_t layout) {
  return memory::desc(d, f32, layout == 1 ? tag::nchw : layout == 2 ? tag::nhwc : tag::any);
}

// Memory of `md` filled with small values (never denormals or NaN).
memory filled_memory(const memory::desc& md) {
  memory m(md, engine());
  float* p = static_cast<float*>(m.get_data_handle());
  const size_t n = md.get_size() / sizeof(float);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<float>((i * 7919) % 201) / 100.0f - 1.0f;
  return m;
}

void conv_flops(benchmark::State& state, const ConvLayer& l) {
  const double flop = 2.0 * static_cast<double>(l.dst[0] * l.dst[1] * l.dst[2] * l.dst[3]) *
                      static_cast<double>(l.wei[1] * l.wei[2] * l.wei[3]);
  state.counters["GFLOP/s"] = benchmark::Counter(flop * static_cast<double>(state.iterations()) / 1e9,
                                                 benchmark::Counter::kIsRate);
}

void onednn_conv(benchmark::State& state, Pass pass) {
  const ConvLayer& l = kConvs[state.range(0)];
  const int64_t layout = state.range(1);
  const memory::desc src_any = activation_md(l.src, layout), wei_any(l.wei, f32, tag::any),
                     dst_any = activation_md(l.dst, layout), bias_md({l.wei[0]}, f32, tag::a);
  const dnnl::convolution_forward::desc fwd_desc(
      dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, src_any, wei_any,
      bias_md, dst_any, kUnit, kPad, kPad);
  dnnl::primitive_attr attr;
  if (pass == Pass::kForwardRelu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  const dnnl::convolution_forward::primitive_desc fwd_pd(fwd_desc, attr, engine());
  dnnl::stream stream(engine());
  memory src = filled_memory(fwd_pd.src_desc()), wei = filled_memory(fwd_pd.weights_desc()),
         dst = filled_memory(fwd_pd.dst_desc()), bias = filled_memory(bias_md);
  dnnl::primitive prim;
  std::unordered_map<int, memory> args;
  if (pass == Pass::kForward || pass == Pass::kForwardRelu) {
    prim = dnnl::convolution_forward(fwd_pd);
    args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias},
            {DNNL_ARG_DST, dst}};
  } else if (pass == Pass::kBackwardData) {
    const dnnl::convolution_backward_data::desc desc(dnnl::algorithm::convolution_direct, src_any,
                                                     wei_any, dst_any, kUnit, kPad, kPad);
    const dnnl::convolution_backward_data::primitive_desc pd(desc, engine(), fwd_pd);
    memory diff_src = filled_memory(pd.diff_src_desc());
    wei = filled_memory(pd.weights_desc());
    dst = filled_memory(pd.diff_dst_desc());
    prim = dnnl::convolution_backward_data(pd);
    args = {{DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DIFF_SRC, diff_src}};
  } else {
    const dnnl::convolution_backward_weights::desc desc(dnnl::algorithm::convolution_direct,
                                                        src_any, wei_any, bias_md, dst_any, kUnit,
                                                        kPad, kPad);
    const dnnl::convolution_backward_weights::primitive_desc pd(desc, engine(), fwd_pd);
    src = filled_memory(pd.src_desc());
    dst = filled_memory(pd.diff_dst_desc());
    memory diff_wei = filled_memory(pd.diff_weights_desc()),
           diff_bias = filled_memory(pd.diff_bias_desc());
    prim = dnnl::convolution_backward_weights(pd);
    args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, dst}, {DNNL_ARG_DIFF_WEIGHTS, diff_wei},
            {DNNL_ARG_DIFF_BIAS, diff_bias}};
  }
  for (auto _ : state) {
    prim.execute(stream, args);
    stream.wait();
    benchmark::ClobberMemory();
  }
  conv_flops(state, l);
}

void BM_OneDNNConvForward(benchmark::State& state) { onednn_conv(state, Pass::kForward); }
BENCHMARK(BM_OneDNNConvForward)->ArgsProduct({{0, 1}, {0, 1, 2}})->Unit(benchmark::kMicrosecond);
// With ReLU as a post-op: what fusing the step's ReLU into its convolution
// would cost.
void BM_OneDNNConvForwardRelu(benchmark::State& state) { onednn_conv(state, Pass::kForwardRelu); }
BENCHMARK(BM_OneDNNConvForwardRelu)->ArgsProduct({{0, 1}, {0, 1, 2}})->Unit(benchmark::kMicrosecond);
void BM_OneDNNConvBackwardData(benchmark::State& state) { onednn_conv(state, Pass::kBackwardData); }
BENCHMARK(BM_OneDNNConvBackwardData)->ArgsProduct({{1}, {0, 1, 2}})->Unit(benchmark::kMicrosecond);
void BM_OneDNNConvBackwardWeights(benchmark::State& state) {
  onednn_conv(state, Pass::kBackwardWeights);
}
BENCHMARK(BM_OneDNNConvBackwardWeights)->ArgsProduct({{0, 1}, {0, 1, 2}})->Unit(benchmark::kMicrosecond);

// Ember on NCHW tensors, the calls the CNN step makes.
void ember_conv(benchmark::State& state, Pass pass) {
  const ConvLayer& l = kConvs[state.range(0)];
  const at::Tensor x = filled(l.src), w = filled(l.wei), b = filled({l.wei[0]}),
                   gy = filled(l.dst);
  for (auto _ : state) {
    if (pass == Pass::kForward) {
      at::Tensor y = at::conv2d(x, w, b, 1, 1);
      benchmark::DoNotOptimize(y.data_ptr());
    } else {
      const bool data = pass == Pass::kBackwardData;
      auto grads = at::convolution_backward(gy, x, w, std::vector<int64_t>{l.wei[0]}, {1, 1},
                                            {1, 1}, {1, 1}, false, {0, 0}, 1,
                                            {data, !data, !data});
      benchmark::DoNotOptimize(data ? std::get<0>(grads).data_ptr() : std::get<1>(grads).data_ptr());
    }
  }
  conv_flops(state, l);
}
void BM_EmberConvForward(benchmark::State& state) { ember_conv(state, Pass::kForward); }
BENCHMARK(BM_EmberConvForward)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
void BM_EmberConvBackwardData(benchmark::State& state) { ember_conv(state, Pass::kBackwardData); }
BENCHMARK(BM_EmberConvBackwardData)->Arg(1)->Unit(benchmark::kMicrosecond);
void BM_EmberConvBackwardWeights(benchmark::State& state) {
  ember_conv(state, Pass::kBackwardWeights);
}
BENCHMARK(BM_EmberConvBackwardWeights)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
