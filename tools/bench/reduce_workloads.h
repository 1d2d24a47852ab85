// The 16M-float reductions timed by aten_bench (BM_AtReduce16M, Ember) and
// libtorch_ops.cc (BM_LibtorchReduce16M, Debian's libtorch), written once
// against the torch API both share, as train_step_workloads.h is.
#pragma once

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

}  // namespace reduce_workloads
