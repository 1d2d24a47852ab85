// backends/cpu/random.h — the CPU plugin's random kernels and range
// factories (defined in random.cc, random_dropout.cc and factories.cc,
// declared in the generated CPUKernels.h; see kernels.h for conventions).
//
//   at::Tensor t = ember::cpu::empty_cpu({1000}, c10::kFloat);
//   ember::cpu::uniform_(t, -1, 1, std::nullopt);   // the default generator
//
// Every sampler draws from the generator it is given, else from
// at::detail::getDefaultCPUGenerator(), following Note [Ember's CPU random
// stream] (aten/PhiloxRNG.h): element i of the result (in row-major order)
// is a fixed function of the seed, the offset the call reserved and i, so
// results do not depend on the number of threads or the tensor's strides.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "aten/Tensor.h"
#include "backends/cpu/CPUKernels.h"
#include "c10/core/GeneratorImpl.h"
#include "c10/core/Scalar.h"
#include "c10/util/ArrayRef.h"

namespace ember::cpu {

// ---- samplers (random.cc) -------------------------------------------------------
// uniform_: [from, to); floating dtypes; from <= to.
// normal_: mean + std * N(0, 1) (Box-Muller); floating dtypes; std >= 0.
// random_: integers uniform in [from, to) (to: the dtype's largest value
// plus one when absent; for floating dtypes 2^mantissa-digits + 1).
// bernoulli_: 1 with probability p (a number, or a tensor broadcast to
// self), else 0; any dtype of self; p in [0, 1].
// randperm: a uniformly random permutation of 0..n-1 (Fisher-Yates).

// rand/randn/randint out=: out resized to `size`, then sampled as uniform_
// (0, 1), normal_ (0, 1) and random_ (low, high) do.

// ---- dropout (random_dropout.cc) ------------------------------------------------
// (output, mask): mask is Bool, true with probability 1 - p; output is
// input * mask / (1 - p) (0 when p == 1). train == false: (clone, all true).
// grad_output * mask * scale; mask must be Bool.

// ---- range factories (factories.cc) ----------------------------------------------
// arange: start, start + step, ... up to end (excluded), in out's dtype.
// linspace: `steps` values evenly spaced from start to end (both included).
// eye: ones on the diagonal of an n x m matrix (m = n for eye.out).
// (The out= forms of empty, zeros, ones and full are the core's
// CompositeExplicitAutograd kernels, aten/ops/factories.cc.)

}  // namespace ember::cpu
