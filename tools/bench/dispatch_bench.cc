// The dispatcher's overhead: an unboxed call of a no-op op with two tensor
// arguments (goal <= 15 ns), the same with the profiler recording, the same
// through the boxed path, and registering 1,000 operators. The anchor is a
// plain indirect call of the same no-op function, measured in the same run.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <unistd.h>

#include "c10/core/CPUAllocator.h"
#include "c10/core/TensorBase.h"
#include "registration/library.h"
#include "registration/plugin_loader.h"
#include "registration/record_function.h"

namespace {

using at::TensorBase;

TensorBase makeTensor() {
  auto impl = c10::make_intrusive<c10::TensorImpl>(
      c10::Storage(c10::make_intrusive<c10::StorageImpl>(
          c10::StorageImpl::use_byte_size_t(), sizeof(float), c10::GetCPUAllocator(),
          true)),
      c10::DispatchKeySet(c10::DispatchKey::CPU), c10::kFloat);
  return TensorBase(std::move(impl));
}

__attribute__((noinline)) void noop(const TensorBase& a, const TensorBase& b) {
  benchmark::DoNotOptimize(a.unsafeGetTensorImpl());
  benchmark::DoNotOptimize(b.unsafeGetTensorImpl());
}

TORCH_LIBRARY(bench, m) { m.def("noop(Tensor a, Tensor b) -> ()"); }
TORCH_LIBRARY_IMPL(bench, CPU, m) { m.impl("noop", TORCH_FN(noop)); }

void BM_AnchorIndirectCall(benchmark::State& state) {
  const TensorBase a = makeTensor(), b = makeTensor();
  void (*volatile fn)(const TensorBase&, const TensorBase&) = &noop;
  for (auto _ : state) fn(a, b);
}
BENCHMARK(BM_AnchorIndirectCall);

void BM_UnboxedCallNoOpTwoTensors(benchmark::State& state) {
  const TensorBase a = makeTensor(), b = makeTensor();
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("bench::noop", "")
                             .typed<void(const TensorBase&, const TensorBase&)>();
  for (auto _ : state) op.call(a, b);
}
BENCHMARK(BM_UnboxedCallNoOpTwoTensors);

// The same call with the profiler recording one range per call (See Note
// [Dispatch hooks]); arg 1 also records the inputs' shapes. A fixed number
// of iterations keeps the session's events (about 100 bytes each) bounded.
void BM_UnboxedCallNoOpTwoTensorsProfiled(benchmark::State& state) {
  const TensorBase a = makeTensor(), b = makeTensor();
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("bench::noop", "")
                             .typed<void(const TensorBase&, const TensorBase&)>();
  at::RecordConfig config;
  config.record_shapes = state.range(0) != 0;
  at::enable_recording(config);
  for (auto _ : state) op.call(a, b);
  at::disable_recording();  // after the timed loop
}
BENCHMARK(BM_UnboxedCallNoOpTwoTensorsProfiled)->Arg(0)->Arg(1)->Iterations(200000);

void BM_BoxedCallNoOpTwoTensors(benchmark::State& state) {
  const TensorBase a = makeTensor(), b = makeTensor();
  const auto op = c10::Dispatcher::singleton().findSchemaOrThrow("bench::noop", "");
  torch::jit::Stack stack;
  stack.reserve(2);
  for (auto _ : state) {
    stack.emplace_back(a);
    stack.emplace_back(b);
    op.callBoxed(&stack);
  }
}
BENCHMARK(BM_BoxedCallNoOpTwoTensors);

void BM_Register1000Ops(benchmark::State& state) {
  std::vector<std::string> schemas;
  for (int i = 0; i < 1000; ++i) {
    schemas.push_back("op" + std::to_string(i) + "(Tensor a, Tensor b) -> ()");
  }
  for (auto _ : state) {
    torch::Library def(torch::Library::DEF, "bench1000", std::nullopt, __FILE__, __LINE__);
    torch::Library impl(torch::Library::IMPL, "bench1000", c10::DispatchKey::CPU,
                        __FILE__, __LINE__);
    for (int i = 0; i < 1000; ++i) {
      def.def(schemas[i]);
      impl.impl("op" + std::to_string(i), TORCH_FN(noop));
    }
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(BM_Register1000Ops)->Unit(benchmark::kMillisecond);

// Loading a plugin: the descriptor check (reading the ELF file), dlopen and
// its static registrations. A plugin loads once per process, so the first
// benchmark is a single load; the second measures the idempotent path
// (load_library of a file already loaded).
std::string testPlugin() {
  // `bazel run` starts the binary inside <binary>.runfiles/ember.
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) return "";
  exe[n] = '\0';
  const std::string path =
      std::string(exe) + ".runfiles/ember/tests/tools/libember_opstool.so";
  return std::ifstream(path).good() ? path : "";
}

void BM_LoadPluginFirstTime(benchmark::State& state) {
  const std::string path = testPlugin();
  if (path.empty()) {
    state.SkipWithError("run with `bazel run` so the test plugin is in the runfiles");
    return;
  }
  for (auto _ : state) torch::load_library(path);
}
BENCHMARK(BM_LoadPluginFirstTime)->Iterations(1)->Unit(benchmark::kMicrosecond);

void BM_LoadPluginAlreadyLoaded(benchmark::State& state) {
  const std::string path = testPlugin();
  if (path.empty()) {
    state.SkipWithError("run with `bazel run` so the test plugin is in the runfiles");
    return;
  }
  torch::load_library(path);
  for (auto _ : state) torch::load_library(path);
}
BENCHMARK(BM_LoadPluginAlreadyLoaded)->Unit(benchmark::kMicrosecond);

}  // namespace
