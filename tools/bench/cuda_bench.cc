// The CUDA plugin against the card's physical limits, measured in the same
// run (issue 18's benchmarks):
//   - device-to-device cudaMemcpy of 64 MiB (bytes read + written per second)
//     against `add` of 16M floats (it moves 1.5x a copy's bytes: two reads,
//     one write), into a preallocated output and into a new one;
//   - cuBLAS SGEMM 4096^3 called directly against at::mm 4096 (default math
//     mode on both: no TF32, as PyTorch's default);
//   - convolutions through cuDNN against the core's decomposition, and a
//     transposing copy (the general elementwise kernel);
//   - the host time of a 1-element `add` (dispatch, the iterator, the
//     allocator, the launch; Note [Measuring host time on a GPU]) against
//     one cudaMemsetAsync.
// GPU times come from CUDA events around a batch of calls on the current
// stream (manual time); host times are wall-clock time. Where there is
// no device every benchmark stops with the reason.
//
//   ./bazelw run -c opt //tools/bench:cuda_bench   (on a machine with a GPU)
#include <benchmark/benchmark.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "aten/ConvDecompositions.h"
#include "c10/core/DeviceGuard.h"

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>
#include <torch/torch.h>

namespace {

constexpr int kBatch = 20;  // calls between two events

bool skip_without_device(benchmark::State& state) {
  if (torch::cuda::is_available()) return false;
  state.SkipWithError("no CUDA device");
  return true;
}

at::TensorOptions on_gpu() { return at::TensorOptions().device(c10::Device(c10::kCUDA, 0)); }

cudaStream_t current() { return c10::cuda::getCurrentCUDAStream().stream(); }

// Times kBatch calls of `f` per iteration with events on the current stream.
template <typename F>
void time_on_device(benchmark::State& state, F f) {
  f();  // warm-up: allocator, handles, first launch
  torch::cuda::synchronize();
  at::cuda::CUDAEvent start(cudaEventDefault), end(cudaEventDefault);
  for (auto _ : state) {
    start.record(c10::cuda::getCurrentCUDAStream());
    for (int i = 0; i < kBatch; ++i) f();
    end.record(c10::cuda::getCurrentCUDAStream());
    end.synchronize();
    state.SetIterationTime(static_cast<double>(start.elapsed_time(end)) / 1e3 / kBatch);
  }
}

void bytes_per_second(benchmark::State& state, double bytes) {
  state.counters["bytes/s"] = benchmark::Counter(
      bytes * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void flops_per_second(benchmark::State& state, double flops) {
  state.counters["FLOP/s"] = benchmark::Counter(
      flops * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

constexpr int64_t kElems = int64_t{16} << 20;  // 16M floats, 64 MiB
constexpr int64_t kGemm = 4096;

void BM_AnchorMemcpyDeviceToDevice(benchmark::State& state) {
  if (skip_without_device(state)) return;
  const at::Tensor src = at::ones({kElems}, on_gpu());
  at::Tensor dst = at::empty({kElems}, on_gpu());
  const size_t bytes = static_cast<size_t>(kElems) * sizeof(float);
  time_on_device(state, [&] {
    cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), bytes, cudaMemcpyDeviceToDevice, current());
  });
  bytes_per_second(state, 2.0 * static_cast<double>(bytes));
}
BENCHMARK(BM_AnchorMemcpyDeviceToDevice)->UseManualTime()->Iterations(200)->Unit(benchmark::kMicrosecond);

void BM_AddOut16M(benchmark::State& state) {
  if (skip_without_device(state)) return;
  const at::Tensor a = at::ones({kElems}, on_gpu()), b = at::ones({kElems}, on_gpu());
  at::Tensor out = at::empty({kElems}, on_gpu());
  time_on_device(state, [&] { at::add_out(out, a, b); });
  bytes_per_second(state, 3.0 * static_cast<double>(kElems) * sizeof(float));
}
BENCHMARK(BM_AddOut16M)->UseManualTime()->Iterations(200)->Unit(benchmark::kMicrosecond);

void BM_Add16M(benchmark::State& state) {
  if (skip_without_device(state)) return;
  const at::Tensor a = at::ones({kElems}, on_gpu()), b = at::ones({kElems}, on_gpu());
  time_on_device(state, [&] { benchmark::DoNotOptimize(at::add(a, b)); });
  bytes_per_second(state, 3.0 * static_cast<double>(kElems) * sizeof(float));
}
BENCHMARK(BM_Add16M)->UseManualTime()->Iterations(200)->Unit(benchmark::kMicrosecond);

void BM_AnchorCublasSgemm4096(benchmark::State& state) {
  if (skip_without_device(state)) return;
  const at::Tensor a = at::randn({kGemm, kGemm}).to(on_gpu().device());
  const at::Tensor b = at::randn({kGemm, kGemm}).to(on_gpu().device());
  at::Tensor c = at::empty({kGemm, kGemm}, on_gpu());
  cublasHandle_t h = nullptr;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    state.SkipWithError("cublasCreate failed");
    return;
  }
  cublasSetStream(h, current());
  const float one = 1.0f, zero = 0.0f;
  const int n = static_cast<int>(kGemm);
  time_on_device(state, [&] {
    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b.data_ptr<float>(), n,
                a.data_ptr<float>(), n, &zero, c.data_ptr<float>(), n);
  });
  cublasDestroy(h);
  flops_per_second(state, 2.0 * kGemm * kGemm * kGemm);
}
BENCHMARK(BM_AnchorCublasSgemm4096)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);

void BM_Mm4096(benchmark::State& state) {
  if (skip_without_device(state)) return;
  const at::Tensor a = at::randn({kGemm, kGemm}).to(on_gpu().device());
  const at::Tensor b = at::randn({kGemm, kGemm}).to(on_gpu().device());
  time_on_device(state, [&] { benchmark::DoNotOptimize(at::mm(a, b)); });
  flops_per_second(state, 2.0 * kGemm * kGemm * kGemm);
}
BENCHMARK(BM_Mm4096)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);

// Note [Measuring host time on a GPU]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Host time of one small op: the dispatcher, the iterator, the allocator and
// the launch, not the GPU's own time per kernel. Calls issued back to back
// with a synchronization now and then measure the GPU instead once the GPU
// takes longer per tiny kernel than the host (it did: 6.9 us per 1-element
// add that way, where the host needs less). So each iteration first queues
// a 4096^3 SGEMM (about 2.7 ms of GPU work), then times kHostBatch calls on
// the wall clock while the GPU is still busy with it (they only queue up),
// then synchronizes outside the timed part.
constexpr int kHostBatch = 200;

template <typename F>
void time_on_host(benchmark::State& state, F f) {
  const at::Tensor big = at::ones({kGemm, kGemm}, on_gpu());
  f();
  torch::cuda::synchronize();
  for (auto _ : state) {
    benchmark::DoNotOptimize(at::mm(big, big));  // keeps the GPU busy
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kHostBatch; ++i) f();
    const auto end = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(end - start).count() / kHostBatch);
    torch::cuda::synchronize();
  }
}

void BM_AddOneElementHostTime(benchmark::State& state) {
  if (skip_without_device(state)) return;
  const at::Tensor a = at::ones({1}, on_gpu()), b = at::ones({1}, on_gpu());
  time_on_host(state, [&] { benchmark::DoNotOptimize(at::add(a, b)); });
}
BENCHMARK(BM_AddOneElementHostTime)->UseManualTime()->Iterations(200)->Unit(benchmark::kMicrosecond);

// The parts of that time: one asynchronous call into the driver (the floor
// of any op that launches work), an allocation and free of a 1-element
// tensor, and add into an existing output (no allocation).
void BM_AnchorMemsetAsyncHostTime(benchmark::State& state) {
  if (skip_without_device(state)) return;
  at::Tensor a = at::ones({1}, on_gpu());
  time_on_host(state, [&] { cudaMemsetAsync(a.data_ptr(), 0, sizeof(float), current()); });
}
BENCHMARK(BM_AnchorMemsetAsyncHostTime)->UseManualTime()->Iterations(200)->Unit(benchmark::kMicrosecond);

void BM_EmptyOneElementHostTime(benchmark::State& state) {
  if (skip_without_device(state)) return;
  for (auto _ : state) benchmark::DoNotOptimize(at::empty({1}, on_gpu()));
}
BENCHMARK(BM_EmptyOneElementHostTime)->UseRealTime()->Iterations(20000)->Unit(benchmark::kMicrosecond);

void BM_AddOutOneElementHostTime(benchmark::State& state) {
  if (skip_without_device(state)) return;
  const at::Tensor a = at::ones({1}, on_gpu()), b = at::ones({1}, on_gpu());
  at::Tensor out = at::empty({1}, on_gpu());
  time_on_host(state, [&] { at::add_out(out, a, b); });
}
BENCHMARK(BM_AddOutOneElementHostTime)->UseManualTime()->Iterations(200)->Unit(benchmark::kMicrosecond);

void BM_CurrentStreamAndGuard(benchmark::State& state) {
  if (skip_without_device(state)) return;
  for (auto _ : state) {
    c10::DeviceGuard guard(c10::Device(c10::kCUDA, 0));
    benchmark::DoNotOptimize(c10::cuda::getCurrentCUDAStream().stream());
  }
}
BENCHMARK(BM_CurrentStreamAndGuard)->UseRealTime()->Iterations(20000)->Unit(benchmark::kMicrosecond);

// The same on the CPU plugin, for scale.
// The CNN's second convolution (batch 64, 16 -> 32 channels, 14x14, 3x3
// pad 1) forward and its two gradients: through the plugin (cuDNN where
// torch::cuda::cudnn_is_available(), Note [CUDA convolutions]) against the
// core's decomposition called directly, in the same run. 2 * 64 * 32 * 14 *
// 14 * 16 * 9 FLOP per product.
constexpr double kConvFlops = 2.0 * 64 * 32 * 14 * 14 * 16 * 9;

template <bool kDecomposed>
void BM_Conv2dStep(benchmark::State& state) {
  if (skip_without_device(state)) return;
  state.SetLabel(kDecomposed ? "decomposition"
                             : (torch::cuda::cudnn_is_available() ? "cudnn" : "no cudnn"));
  const at::Tensor x = at::randn({64, 16, 14, 14}, on_gpu());
  const at::Tensor w = at::randn({32, 16, 3, 3}, on_gpu());
  const at::Tensor gy = at::randn({64, 32, 14, 14}, on_gpu());
  const std::vector<int64_t> one = {1};
  time_on_device(state, [&] {
    if (kDecomposed) {
      benchmark::DoNotOptimize(at::native::convolution_decomposed(x, w, {}, one, one, one, false,
                                                                  {0}, 1));
      benchmark::DoNotOptimize(at::native::convolution_backward_decomposed(
          gy, x, w, std::nullopt, one, one, one, false, {0}, 1, {true, true, false}));
    } else {
      benchmark::DoNotOptimize(at::convolution(x, w, {}, one, one, one, false, {0}, 1));
      benchmark::DoNotOptimize(at::convolution_backward(gy, x, w, std::nullopt, one, one, one,
                                                        false, {0}, 1, {true, true, false}));
    }
  });
  flops_per_second(state, 3 * kConvFlops);
}
BENCHMARK_TEMPLATE(BM_Conv2dStep, false)->UseManualTime()->Iterations(20)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_Conv2dStep, true)->UseManualTime()->Iterations(20)->Unit(benchmark::kMillisecond);

// A transposing copy of 16M floats (the general kernel's 32-bit offsets,
// Note [CUDA 32-bit indexing]) against the dense copy's memcpy anchor above.
void BM_TransposedCopy16M(benchmark::State& state) {
  if (skip_without_device(state)) return;
  const at::Tensor src = at::ones({4096, 4096}, on_gpu());
  at::Tensor dst = at::empty({4096, 4096}, on_gpu());
  time_on_device(state, [&] { dst.copy_(src.t()); });
  bytes_per_second(state, 2.0 * static_cast<double>(kElems) * sizeof(float));
}
BENCHMARK(BM_TransposedCopy16M)->UseManualTime()->Iterations(50)->Unit(benchmark::kMicrosecond);

void BM_AddOneElementCpu(benchmark::State& state) {
  const at::Tensor a = at::ones({1}), b = at::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(at::add(a, b));
}
BENCHMARK(BM_AddOneElementCpu)->Unit(benchmark::kMicrosecond);

}  // namespace
