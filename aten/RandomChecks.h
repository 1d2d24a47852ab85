// aten/RandomChecks.h — the argument checks of the random samplers and
// dropout that every backend makes before drawing from its generator,
// written once so that the CPU and CUDA plugins refuse the same calls with
// the same words. Each throws c10::Error naming the op. The dtype
// refusals (uniform_ of a Long tensor, ...) stay the backends' own: each
// names the dtypes it has.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "aten/Tensor.h"
#include "c10/core/ScalarType.h"

namespace at {
namespace native {

// The integers `dtype` holds exactly, [lowest, highest]: a floating dtype
// holds every integer up to 2^(mantissa digits) (2^24 for Float, 2^53
// Double, 2^11 Half, 2^8 BFloat16); Bool holds [0, 1].
std::pair<int64_t, int64_t> random_integer_bounds(c10::ScalarType dtype);

// random_'s range: [from, to - 1], or [from, the dtype's highest] when `to`
// is absent, checked against the dtype. `range` counts the integers
// (0 stands for 2^64).
struct RandomRange {
  int64_t from = 0;
  int64_t to_inclusive = 0;
  uint64_t range = 0;
};
RandomRange random_range(c10::ScalarType dtype, int64_t from, std::optional<int64_t> to);
// randint's bounds: low < high.
void check_randint_bounds(int64_t low, int64_t high);
// randperm(n) into dtype: n >= 0, not Bool, n - 1 held by the dtype.
void check_randperm(int64_t n, c10::ScalarType dtype);
// The stream words random_ takes for n elements: one per element when the
// range fits 32 bits, else two (docs/ops/random.md).
uint64_t random_words(int64_t n, uint64_t range);

// uniform_'s bounds for a floating `dtype`: finite, from <= to, and to -
// from no larger than the dtype's largest finite value.
void check_uniform_bounds(c10::ScalarType dtype, double from, double to);
// The largest finite value of a floating dtype.
double largest_finite(c10::ScalarType dtype);
// The largest value of a floating dtype below `to` (a finite number):
// uniform_ clamps a sample that rounded up to `to` to it, so that samples
// stay in [from, to). Exact in a double for every floating dtype.
double largest_below(c10::ScalarType dtype, double to);
// normal_'s std >= 0.
void check_normal_std(double std);
// bernoulli_(p): p in [0, 1].
void check_bernoulli_p(double p);
// bernoulli_(Tensor p): p floating and broadcastable to self's shape.
void check_bernoulli_p_tensor(const Tensor& self, const Tensor& p);
// Element i of p (broadcast to `shape`) is `value`, outside [0, 1].
[[noreturn]] void throw_bernoulli_probability(double value, int64_t i, c10::IntArrayRef shape);
// native_dropout: p in [0, 1] and a floating input.
void check_dropout(const Tensor& input, double p);
// native_dropout_backward: a Bool mask and a floating grad_output.
void check_dropout_backward(const Tensor& grad_output, const Tensor& mask);

}  // namespace native
}  // namespace at
