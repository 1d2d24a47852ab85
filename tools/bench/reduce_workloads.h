// The 16M-number reductions timed by aten_bench (BM_AtReduce16M and
// BM_AtReduce16Bit16M, Ember) and libtorch_ops.cc (BM_LibtorchReduce16M and
// BM_LibtorchReduce16Bit16M, Debian's libtorch), written once against the
// torch API both share, as train_step_workloads.h is.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>

namespace reduce_workloads {

// 0: sum, 1: prod, 2: norm, 3: logsumexp over dim 0, 4: mean, 5: amax.
inline at::Tensor reduce16m(int64_t which, const at::Tensor& x) {
  switch (which) {
    case 0: return at::sum(x);
    case 1: return at::prod(x);
    case 2: return at::norm(x);
    case 3: return at::logsumexp(x, {0});
    case 4: return at::mean(x);
    default: return at::amax(x);
  }
}

// The input of BM_*Reduce16M (dtype 0) and BM_*Reduce16Bit16M (1: Half,
// 2: BFloat16): n numbers in [0, 1).
inline at::Tensor reduce_input(int64_t dtype, int64_t n) {
  const at::Tensor x = at::rand({n});
  return dtype == 0 ? x : x.to(dtype == 1 ? at::kHalf : at::kBFloat16);
}

// The benchmark loop both sides share: reduce16m(which, x), bytes read.
inline void time_reduce(benchmark::State& state, int64_t which, const at::Tensor& x) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(reduce16m(which, x).data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * x.numel() *
                          static_cast<int64_t>(c10::elementSize(x.scalar_type())));
}

}  // namespace reduce_workloads
