// backends/cpu/random.h — the CPU plugin's random kernels and range
// factories, as plain C++ functions (registered in random.cc,
// random_dropout.cc and factories.cc; see kernels.h for conventions).
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
#include "c10/core/GeneratorImpl.h"
#include "c10/core/Scalar.h"
#include "c10/util/ArrayRef.h"

namespace ember::cpu {

// ---- samplers (random.cc) -------------------------------------------------------
// uniform_: [from, to); floating dtypes; from <= to.
at::Tensor& uniform_(at::Tensor& self, double from, double to,
                     std::optional<at::Generator> generator);  // uniform_
// normal_: mean + std * N(0, 1) (Box-Muller); floating dtypes; std >= 0.
at::Tensor& normal_(at::Tensor& self, double mean, double std,
                    std::optional<at::Generator> generator);  // normal_
// random_: integers uniform in [from, to) (to: the dtype's largest value
// plus one when absent; for floating dtypes 2^mantissa-digits + 1).
at::Tensor& random_from(at::Tensor& self, int64_t from, std::optional<int64_t> to,
                        std::optional<at::Generator> generator);  // random_.from
at::Tensor& random_to(at::Tensor& self, int64_t to,
                      std::optional<at::Generator> generator);  // random_.to
at::Tensor& random_(at::Tensor& self,
                    std::optional<at::Generator> generator);  // random_
// bernoulli_: 1 with probability p (a number, or a tensor broadcast to
// self), else 0; any dtype of self; p in [0, 1].
at::Tensor& bernoulli_float_(at::Tensor& self, double p,
                             std::optional<at::Generator> generator);  // bernoulli_.float
at::Tensor& bernoulli_tensor_(at::Tensor& self, const at::Tensor& p,
                              std::optional<at::Generator> generator);  // bernoulli_.Tensor
// randperm: a uniformly random permutation of 0..n-1 (Fisher-Yates).
at::Tensor& randperm_out(int64_t n, std::optional<at::Generator> generator,
                         at::Tensor& out);  // randperm.generator_out

// rand/randn/randint out=: out resized to `size`, then sampled as uniform_
// (0, 1), normal_ (0, 1) and random_ (low, high) do.
at::Tensor& rand_out(c10::IntArrayRef size, at::Tensor& out);  // rand.out
at::Tensor& rand_generator_out(c10::IntArrayRef size,
                               std::optional<at::Generator> generator,
                               at::Tensor& out);  // rand.generator_out
at::Tensor& randn_out(c10::IntArrayRef size, at::Tensor& out);  // randn.out
at::Tensor& randn_generator_out(c10::IntArrayRef size,
                                std::optional<at::Generator> generator,
                                at::Tensor& out);  // randn.generator_out
at::Tensor& randint_out(int64_t high, c10::IntArrayRef size,
                        at::Tensor& out);  // randint.out
at::Tensor& randint_generator_out(int64_t high, c10::IntArrayRef size,
                                  std::optional<at::Generator> generator,
                                  at::Tensor& out);  // randint.generator_out
at::Tensor& randint_low_out(int64_t low, int64_t high, c10::IntArrayRef size,
                            at::Tensor& out);  // randint.low_out
at::Tensor& randint_low_generator_out(int64_t low, int64_t high, c10::IntArrayRef size,
                                      std::optional<at::Generator> generator,
                                      at::Tensor& out);  // randint.low_generator_out

// ---- dropout (random_dropout.cc) ------------------------------------------------
// (output, mask): mask is Bool, true with probability 1 - p; output is
// input * mask / (1 - p) (0 when p == 1). train == false: (clone, all true).
std::tuple<at::Tensor, at::Tensor> native_dropout(
    const at::Tensor& input, double p, std::optional<bool> train);  // native_dropout
// grad_output * mask * scale; mask must be Bool.
at::Tensor native_dropout_backward(const at::Tensor& grad_output,
                                   const at::Tensor& mask,
                                   double scale);  // native_dropout_backward

// ---- range factories (factories.cc) ----------------------------------------------
// arange: start, start + step, ... up to end (excluded), in out's dtype.
at::Tensor& arange_out(const c10::Scalar& start, const c10::Scalar& end,
                       const c10::Scalar& step, at::Tensor& out);  // arange.start_out
// linspace: `steps` values evenly spaced from start to end (both included).
at::Tensor& linspace_out(const c10::Scalar& start, const c10::Scalar& end,
                         int64_t steps, at::Tensor& out);  // linspace.out
// eye: ones on the diagonal of an n x m matrix (m = n for eye.out).
at::Tensor& eye_out(int64_t n, at::Tensor& out);             // eye.out
at::Tensor& eye_m_out(int64_t n, int64_t m, at::Tensor& out);  // eye.m_out
// The out= forms of empty, zeros, ones and full: `out` resized (resize_, no
// warning) to `size`, keeping its dtype, then filled (empty: left as is).
at::Tensor& empty_out(c10::IntArrayRef size, std::optional<c10::MemoryFormat> memory_format,
                      at::Tensor& out);                                           // empty.out
at::Tensor& zeros_out(c10::IntArrayRef size, at::Tensor& out);                    // zeros.out
at::Tensor& ones_out(c10::IntArrayRef size, at::Tensor& out);                     // ones.out
at::Tensor& full_out(c10::IntArrayRef size, const c10::Scalar& fill_value, at::Tensor& out);

}  // namespace ember::cpu
