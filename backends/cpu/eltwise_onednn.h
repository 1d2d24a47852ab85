// backends/cpu/eltwise_onednn.h — float32 unary ops on oneDNN's eltwise
// primitive, where it is faster than the plugin's own loops.
//
// See Note [oneDNN eltwise] in eltwise_onednn.cc for when it applies. The
// kernels call it first and fall back to their TensorIterator loop when it
// declines (returns an undefined tensor).
#pragma once

#include <dnnl.hpp>

#include "aten/Tensor.h"

namespace ember::cpu {

// ember::cpu::onednn_unary
//
// out = f(self) for oneDNN's `alg` with its alpha/beta, when self is a
// contiguous float32 tensor of at least kEltwiseMinNumel elements and `out`
// is undefined (a new tensor is made), `self` itself (in place), or a
// contiguous float32 tensor of self's sizes that does not overlap self.
// Returns the result, or an undefined tensor when any of that does not hold.
at::Tensor onednn_unary(dnnl::algorithm alg, float alpha, float beta, const at::Tensor& out,
                        const at::Tensor& self);

constexpr int64_t kEltwiseMinNumel = 16384;

// ember::cpu::onednn_eltwise_runs
//
// How many times onednn_unary has run a oneDNN primitive in this process, on
// any thread. A probe for tests that check which inputs take oneDNN and which
// the loops (tests/backends/cpu/eltwise_onednn_test.cc); it costs one relaxed
// increment per primitive run, which is microseconds of work.
int64_t onednn_eltwise_runs();

}  // namespace ember::cpu
