// backends/cpu/random_engine.h — how the CPU plugin's random kernels turn a
// reserved Philox range into numbers, in batches and in parallel.
//
//   const at::PhiloxCpuState s = random::reserve(generator, /*words=*/n);
//   random::parallel_range(n, [&](int64_t begin, int64_t end) {
//     random::for_each_unit<1>(s, begin, end, [&](int64_t i, const uint32_t* w) {
//       out[i] = random::uniform24(w[0]);
//     });
//   });
//
// Internal to the plugin. See Note [Ember's CPU random stream].
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <optional>

#include "aten/CPUGeneratorImpl.h"
#include "aten/PhiloxRNG.h"
#include "backends/cpu/parallel_loops.h"

namespace ember::cpu::random {

// Blocks computed together: enough lanes for the compiler to vectorize the
// rounds, few enough to stay in registers and L1.
constexpr int64_t kBatchBlocks = 16;

// ember::cpu::random::reserve
//
// Reserves ceil(words / 4) blocks from `generator` (the default CPU
// generator when absent or undefined), holding its mutex only for that.
// Throws c10::Error if the generator is not a CPU one.
inline at::PhiloxCpuState reserve(const std::optional<at::Generator>& generator,
                                  uint64_t words) {
  at::CPUGeneratorImpl* gen = at::get_generator_or_default<at::CPUGeneratorImpl>(
      generator, at::detail::getDefaultCPUGenerator());
  std::lock_guard<std::mutex> lock(gen->mutex_);
  return gen->philox_engine_inputs(words / 4 + (words % 4 != 0 ? 1 : 0));
}

// ember::cpu::random::philox_batch
//
// words[4 * b + j] = word j of stream block first + b, for b < kBatchBlocks.
// The same arithmetic as at::philox4x32_10, lane by lane.
inline void philox_batch(const at::PhiloxCpuState& s, uint64_t first,
                         uint32_t* words) {
  uint32_t c0[kBatchBlocks], c1[kBatchBlocks], c2[kBatchBlocks], c3[kBatchBlocks];
  for (int64_t b = 0; b < kBatchBlocks; ++b) {
    const uint64_t counter = s.offset + first + static_cast<uint64_t>(b);
    c0[b] = static_cast<uint32_t>(counter);
    c1[b] = static_cast<uint32_t>(counter >> 32);
    c2[b] = 0;
    c3[b] = 0;
  }
  uint32_t k0 = static_cast<uint32_t>(s.seed);
  uint32_t k1 = static_cast<uint32_t>(s.seed >> 32);
  for (int r = 0; r < at::philox::kRounds; ++r) {
    // Lanes are independent; without the pragma GCC unrolls the lane loop
    // before it can vectorize it.
#pragma omp simd
    for (int64_t b = 0; b < kBatchBlocks; ++b) {
      const uint64_t p0 = static_cast<uint64_t>(at::philox::kM0) * c0[b];
      const uint64_t p1 = static_cast<uint64_t>(at::philox::kM1) * c2[b];
      const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1[b] ^ k0;
      const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3[b] ^ k1;
      c1[b] = static_cast<uint32_t>(p1);
      c3[b] = static_cast<uint32_t>(p0);
      c0[b] = n0;
      c2[b] = n2;
    }
    k0 += at::philox::kW0;
    k1 += at::philox::kW1;
  }
  for (int64_t b = 0; b < kBatchBlocks; ++b) {
    words[4 * b] = c0[b];
    words[4 * b + 1] = c1[b];
    words[4 * b + 2] = c2[b];
    words[4 * b + 3] = c3[b];
  }
}

// ember::cpu::random::for_each_run<K>
//
// Calls run(first, count, words) for consecutive runs of units covering
// [begin, end) in increasing order; words points at the K * count stream
// words of units first .. first + count - 1. Batches are aligned to
// multiples of kBatchBlocks, so any split of [0, n) gives the same words.
template <int K, typename Run>
void for_each_run(const at::PhiloxCpuState& s, int64_t begin, int64_t end, Run&& run) {
  static_assert(K == 1 || K == 2 || K == 4, "a unit must not straddle a block");
  constexpr int64_t kUnitsPerBatch = 4 * kBatchBlocks / K;
  alignas(64) uint32_t words[4 * kBatchBlocks];
  int64_t u = begin;
  while (u < end) {
    const int64_t first = u / kUnitsPerBatch * kUnitsPerBatch;
    philox_batch(s, static_cast<uint64_t>(first / kUnitsPerBatch * kBatchBlocks),
                 words);
    const int64_t stop = std::min(end, first + kUnitsPerBatch);
    run(u, stop - u, words + (u - first) * K);
    u = stop;
  }
}

// ember::cpu::random::for_each_unit<K>
//
// Calls unit(u, words) for u in [begin, end) in increasing order, where
// words points at stream words K*u .. K*u + K - 1 (K divides 4, so a unit
// never straddles a block). Batches are aligned to multiples of
// kBatchBlocks, so any split of [0, n) gives the same words.
template <int K, typename Unit>
void for_each_unit(const at::PhiloxCpuState& s, int64_t begin, int64_t end,
                   Unit&& unit) {
  for_each_run<K>(s, begin, end, [&](int64_t first, int64_t count, const uint32_t* w) {
    for (int64_t k = 0; k < count; ++k) unit(first + k, w + k * K);
  });
}

// ember::cpu::random::parallel_range
//
// f(begin, end) over [0, n) units, split among the team of Note [One thread
// count for every loop] (any split gives the same numbers, above). f must
// not throw.
template <typename F>
void parallel_range(int64_t n, F&& f) {
  parallel_for(n, n, f);
}

// ---- words to numbers ------------------------------------------------------------
// [0, 1) with 24 random bits: exact in float.
inline float uniform24(uint32_t w) {
  return static_cast<float>(w >> 8) * 0x1p-24f;
}
// (0, 1] with 24 random bits, for the logarithm of Box-Muller.
inline float uniform24_open0(uint32_t w) {
  return static_cast<float>((w >> 8) + 1) * 0x1p-24f;
}
// [0, 1) and (0, 1] with 53 random bits from two words.
inline double uniform53(uint32_t hi, uint32_t lo) {
  return static_cast<double>(((static_cast<uint64_t>(hi) << 32) | lo) >> 11) * 0x1p-53;
}
inline double uniform53_open0(uint32_t hi, uint32_t lo) {
  return static_cast<double>((((static_cast<uint64_t>(hi) << 32) | lo) >> 11) + 1) *
         0x1p-53;
}
// An integer in [0, range) from one word (range <= 2^32), or from two words
// (range == 0 stands for 2^64), by Lemire's multiply-shift.
inline uint64_t below32(uint32_t w, uint64_t range) {
  return (static_cast<uint64_t>(w) * range) >> 32;
}
inline uint64_t below64(uint32_t hi, uint32_t lo, uint64_t range) {
  const uint64_t x = (static_cast<uint64_t>(hi) << 32) | lo;
  if (range == 0) return x;
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * range) >> 64);
}

// ---- Box-Muller in float, vectorizable ----------------------------------------------
// glibc's logf/sinf/cosf are scalar calls; these are the Cephes polynomials
// (as in sse_mathfun), about 1 ulp on the ranges used here, written as plain
// arithmetic so that a loop over many pairs vectorizes.

// ln(x) for a normal float x > 0.
inline float log_poly(float x) {
  const uint32_t bits = __builtin_bit_cast(uint32_t, x);
  float e = static_cast<float>(static_cast<int32_t>(bits >> 23) - 126);
  float m = __builtin_bit_cast(float, (bits & 0x007FFFFFu) | 0x3F000000u);  // [0.5, 1)
  const bool low = m < 0.707106781186547524f;
  e = low ? e - 1.0f : e;
  m = low ? m + m - 1.0f : m - 1.0f;  // [sqrt(0.5) - 1, sqrt(2) - 1)
  const float z = m * m;
  float y = 7.0376836292e-2f;
  y = y * m - 1.1514610310e-1f;
  y = y * m + 1.1676998740e-1f;
  y = y * m - 1.2420140846e-1f;
  y = y * m + 1.4249322787e-1f;
  y = y * m - 1.6668057665e-1f;
  y = y * m + 2.0000714765e-1f;
  y = y * m - 2.4999993993e-1f;
  y = y * m + 3.3333331174e-1f;
  y = y * m * z;
  y += -2.12194440e-4f * e;
  y += -0.5f * z;
  return m + y + 0.693359375f * e;
}

// cos(2 pi t) and sin(2 pi t) for t in [0, 1) a multiple of 2^-24: t minus
// the nearest quarter turn is exact, so the reduction loses nothing.
inline void sincos_turns(float t, float* sin_out, float* cos_out) {
  const int32_t k = static_cast<int32_t>(t * 4.0f + 0.5f);
  const float a = (t - 0.25f * static_cast<float>(k)) * 6.28318530717958647692f;
  const float z = a * a;
  const float sn = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) *
                       z * a + a;
  const float cs = ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z +
                    4.166664568298827e-2f) * z * z - 0.5f * z + 1.0f;
  const int32_t q = k & 3;  // quarter turns to rotate (cs, sn) by
  const float c0 = (q & 1) != 0 ? sn : cs;
  const float s0 = (q & 1) != 0 ? cs : sn;
  *cos_out = q == 1 || q == 2 ? -c0 : c0;
  *sin_out = q >= 2 ? -s0 : s0;
}

// sqrt(x) for x >= 0 as x / sqrt(x) from the classic reciprocal-square-root
// estimate and three Newton steps (within float rounding). std::sqrt would
// not vectorize: it may set errno.
inline float sqrt_newton(float x) {
  float y = __builtin_bit_cast(float, 0x5F3759DFu - (__builtin_bit_cast(uint32_t, x) >> 1));
  const float half = 0.5f * x;
  y = y * (1.5f - half * y * y);
  y = y * (1.5f - half * y * y);
  y = y * (1.5f - half * y * y);
  return x * y;
}

// For pair k < count, from words 2k and 2k + 1: c[k] = r cos(2 pi u2) and
// s[k] = r sin(2 pi u2) with r = sqrt(-2 ln u1).
inline void box_muller_float(const uint32_t* w, int64_t count, float* c, float* s) {
#pragma omp simd
  for (int64_t k = 0; k < count; ++k) {
    const float r = sqrt_newton(-2.0f * log_poly(uniform24_open0(w[2 * k])));
    float sn, cs;
    sincos_turns(uniform24(w[2 * k + 1]), &sn, &cs);
    c[k] = r * cs;
    s[k] = r * sn;
  }
}

}  // namespace ember::cpu::random
