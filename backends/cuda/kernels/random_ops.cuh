// backends/cuda/kernels/random_ops.cuh — what one Philox block of the CUDA
// random kernels computes: the block's four words (Philox4x32-10) and the
// elements they make, with the CPU plugin's words per element and its
// arithmetic (docs/ops/random.md, backends/cpu/random_engine.h), so that a
// seed and offset give the CPU's numbers. __host__ __device__: the kernel
// (random_kernels.cu) runs random_block for every block of the result on the
// GPU, and //tests/backends/cuda:element_ops_test runs it on the host over
// the same blocks and compares with the CPU plugin.
//
// Note [CUDA random numbers equal the CPU's]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Element i uses the stream words the CPU op gives it, so the integer
// results (random_, randint, bernoulli, dropout's mask) are the CPU's
// exactly. The float results are the same operations in the same order:
// random_kernels.cu is compiled with --fmad=false (nvcc would otherwise fuse
// a * b + c into one rounding), and the float normal_ uses the CPU's
// polynomial log, sine/cosine and Newton square root (plain float
// arithmetic, IEEE-rounded on both devices), so Float uniform_ and normal_
// equal the CPU's default build bit for bit; the CPU's AVX2 and AVX-512
// builds contract into FMAs and may differ from both in the last bit
// (docs/cpu_capability.md). Double normal_ calls the device's log, sin and
// cos, within 2 ulp of glibc's.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "backends/cuda/kernels/element_ops.cuh"
#include "backends/cuda/kernels/launch.h"

namespace ember {
namespace cuda {
namespace kernels {
namespace random {

// Philox4x32-10 (aten/PhiloxRNG.h's constants): the four words of block
// `counter` under key `seed`.
EMBER_HD void philox_block(uint64_t seed, uint64_t counter, uint32_t w[4]) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32);
  uint32_t c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c0;
    const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  w[0] = c0;
  w[1] = c1;
  w[2] = c2;
  w[3] = c3;
}

// float_bits and bits_float: kernels/dtypes.cuh.

// ---- words to numbers (backends/cpu/random_engine.h's, term for term) --------------
EMBER_HD float uniform24(uint32_t w) { return static_cast<float>(w >> 8) * 0x1p-24f; }
EMBER_HD float uniform24_open0(uint32_t w) {
  return static_cast<float>((w >> 8) + 1) * 0x1p-24f;
}
EMBER_HD double uniform53(uint32_t hi, uint32_t lo) {
  return static_cast<double>(((static_cast<uint64_t>(hi) << 32) | lo) >> 11) * 0x1p-53;
}
EMBER_HD double uniform53_open0(uint32_t hi, uint32_t lo) {
  return static_cast<double>((((static_cast<uint64_t>(hi) << 32) | lo) >> 11) + 1) * 0x1p-53;
}
EMBER_HD uint64_t below32(uint32_t w, uint64_t range) {
  return (static_cast<uint64_t>(w) * range) >> 32;
}
EMBER_HD uint64_t below64(uint32_t hi, uint32_t lo, uint64_t range) {
  const uint64_t x = (static_cast<uint64_t>(hi) << 32) | lo;
  if (range == 0) return x;
#ifdef __CUDA_ARCH__
  return __umul64hi(x, range);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(x) * range) >> 64);
#endif
}

// ln(x) for a normal float x > 0 (the Cephes polynomial).
EMBER_HD float log_poly(float x) {
  const uint32_t bits = float_bits(x);
  float e = static_cast<float>(static_cast<int32_t>(bits >> 23) - 126);
  float m = bits_float((bits & 0x007FFFFFu) | 0x3F000000u);  // [0.5, 1)
  const bool low = m < 0.707106781186547524f;
  e = low ? e - 1.0f : e;
  m = low ? m + m - 1.0f : m - 1.0f;
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

// cos(2 pi t) and sin(2 pi t) for t in [0, 1) a multiple of 2^-24.
EMBER_HD void sincos_turns(float t, float* sin_out, float* cos_out) {
  const int32_t k = static_cast<int32_t>(t * 4.0f + 0.5f);
  const float a = (t - 0.25f * static_cast<float>(k)) * 6.28318530717958647692f;
  const float z = a * a;
  const float sn =
      ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * a + a;
  const float cs = ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z +
                    4.166664568298827e-2f) * z * z - 0.5f * z + 1.0f;
  const int32_t q = k & 3;
  const float c0 = (q & 1) != 0 ? sn : cs;
  const float s0 = (q & 1) != 0 ? cs : sn;
  *cos_out = q == 1 || q == 2 ? -c0 : c0;
  *sin_out = q >= 2 ? -s0 : s0;
}

// sqrt(x) as x / sqrt(x) by the reciprocal-square-root estimate and three
// Newton steps.
EMBER_HD float sqrt_newton(float x) {
  float y = bits_float(0x5F3759DFu - (float_bits(x) >> 1));
  const float half = 0.5f * x;
  y = y * (1.5f - half * y * y);
  y = y * (1.5f - half * y * y);
  y = y * (1.5f - half * y * y);
  return x * y;
}

// ---- one block ---------------------------------------------------------------------

// Elements of the result one block of four words makes (docs/ops/random.md:
// K words per element, or a Box-Muller pair per 2 (Float) or 4 (Double)
// words).
EMBER_HD int64_t elements_per_block(const RandomArgs& a) {
  switch (a.op) {
    case RandomOp::kUniform:
    case RandomOp::kNormal:
      return a.dtype == Dtype::kDouble ? 2 : 4;
    case RandomOp::kRandom:
      return a.range != 0 && a.range <= (uint64_t{1} << 32) ? 4 : 2;
    default:
      return 4;
  }
}

// Writes the elements of block `b` (counted from a.offset) of a result of
// dtype T.
template <typename T>
EMBER_HD void random_block(const RandomArgs& a, int64_t b) {
  uint32_t w[4];
  philox_block(a.seed, a.offset + static_cast<uint64_t>(b), w);
  T* out = static_cast<T*>(a.out);
  const int64_t per = elements_per_block(a);
  const int64_t first = b * per;
  const int64_t count = a.n - first < per ? a.n - first : per;
  constexpr double kTwo32 = 4294967296.0;
  switch (a.op) {
    case RandomOp::kUniform:
      if constexpr (std::is_same<T, float>::value) {
        const float from = static_cast<float>(a.a), range = static_cast<float>(a.b);
        const float hi = static_cast<float>(a.c);
        for (int64_t j = 0; j < count; ++j) {
          const float v = from + uniform24(w[j]) * range;
          out[first + j] = hi < v ? hi : v;
        }
      } else if constexpr (std::is_same<T, double>::value) {
        for (int64_t j = 0; j < count; ++j) {
          const double v = a.a + uniform53(w[2 * j], w[2 * j + 1]) * a.b;
          out[first + j] = a.c < v ? a.c : v;
        }
      }
      break;
    case RandomOp::kNormal:
      if constexpr (std::is_same<T, float>::value) {
        const float mean = static_cast<float>(a.a), sd = static_cast<float>(a.b);
        for (int64_t q = 0; 2 * q < count; ++q) {  // pairs: cosine, then sine
          const float r = sqrt_newton(-2.0f * log_poly(uniform24_open0(w[2 * q])));
          float sn, cs;
          sincos_turns(uniform24(w[2 * q + 1]), &sn, &cs);
          const float zc = r * cs, zs = r * sn;
          out[first + 2 * q] = mean + sd * zc;
          if (2 * q + 1 < count) out[first + 2 * q + 1] = mean + sd * zs;
        }
      } else if constexpr (std::is_same<T, double>::value) {
        const double r = sqrt(-2.0 * log(uniform53_open0(w[0], w[1])));
        const double theta = 6.283185307179586476925286766559 * uniform53(w[2], w[3]);
        out[first] = a.a + a.b * (r * cos(theta));
        if (count > 1) out[first + 1] = a.a + a.b * (r * sin(theta));
      }
      break;
    case RandomOp::kRandom: {
      const uint64_t base = static_cast<uint64_t>(a.from);
      for (int64_t j = 0; j < count; ++j) {
        const uint64_t v = per == 4 ? base + below32(w[j], a.range)
                                    : base + below64(w[2 * j], w[2 * j + 1], a.range);
        if constexpr (std::is_same<T, bool>::value) {
          out[first + j] = static_cast<int64_t>(v) != 0;
        } else {
          out[first + j] = static_cast<T>(static_cast<int64_t>(v));
        }
      }
      break;
    }
    case RandomOp::kBernoulli:
      for (int64_t j = 0; j < count; ++j) {
        out[first + j] = static_cast<T>(static_cast<double>(w[j]) < a.a);
      }
      break;
    case RandomOp::kBernoulliTensor:
      for (int64_t j = 0; j < count; ++j) {
        out[first + j] =
            static_cast<T>(static_cast<double>(w[j]) < a.probs[first + j] * kTwo32);
      }
      break;
    case RandomOp::kDropout:
      if constexpr (std::is_floating_point<T>::value) {
        const T* in = static_cast<const T*>(a.input);
        const T scale = static_cast<T>(a.b);
        for (int64_t j = 0; j < count; ++j) {
          const bool keep = static_cast<double>(w[j]) < a.a;
          a.mask[first + j] = keep;
          // As the CPU: input * mask * scale, so a dropped NaN stays NaN.
          out[first + j] = in[first + j] * static_cast<T>(keep) * scale;
        }
      }
      break;
  }
}

// Blocks a result of a.n elements takes.
EMBER_HD int64_t blocks_for(const RandomArgs& a) {
  const int64_t per = elements_per_block(a);
  return (a.n + per - 1) / per;
}

// ---- the launch parameters (host) -------------------------------------------------
// What random_ops.cc passes for each op, in one place so that
// element_ops_test checks the parameters along with the arithmetic. The
// stream range a call reserves is blocks_for(a) blocks.

// uniform_(from, to) on a Float (wide = false) or Double result: a sample
// that rounds up to `to` is clamped to the largest value below it.
inline RandomArgs uniform_args(double from, double to, bool wide) {
  RandomArgs a;
  a.op = RandomOp::kUniform;
  if (wide) {
    a.a = from;
    a.b = to - from;
    a.c = from == to ? from : std::nextafter(to, -std::numeric_limits<double>::infinity());
  } else {
    float hi = static_cast<float>(to);
    if (static_cast<double>(hi) >= to) {
      hi = std::nextafter(hi, -std::numeric_limits<float>::infinity());
    }
    a.a = static_cast<float>(from);
    a.b = static_cast<float>(to - from);
    a.c = from == to ? static_cast<float>(from) : hi;
  }
  return a;
}
inline RandomArgs normal_args(double mean, double std) {
  RandomArgs a;
  a.op = RandomOp::kNormal;
  a.a = mean;
  a.b = std;
  return a;
}
// from + [0, range), range 0 standing for 2^64.
inline RandomArgs random_args(int64_t from, uint64_t range) {
  RandomArgs a;
  a.op = RandomOp::kRandom;
  a.from = from;
  a.range = range;
  return a;
}
// 1 when u = w / 2^32 < p, without rounding: w < p * 2^32.
inline RandomArgs bernoulli_args(double p) {
  RandomArgs a;
  a.op = RandomOp::kBernoulli;
  a.a = p * 4294967296.0;
  return a;
}
inline RandomArgs bernoulli_tensor_args(const double* probs) {
  RandomArgs a;
  a.op = RandomOp::kBernoulliTensor;
  a.probs = probs;
  return a;
}
// Kept when u < 1 - p; kept values scaled by 1 / (1 - p) (0 when p = 1:
// no division).
inline RandomArgs dropout_args(double p, const void* input, bool* mask) {
  RandomArgs a;
  a.op = RandomOp::kDropout;
  const double keep = 1.0 - p;
  a.a = keep * 4294967296.0;
  a.b = keep == 0.0 ? 0.0 : 1.0 / keep;
  a.input = input;
  a.mask = mask;
  return a;
}

}  // namespace random
}  // namespace kernels
}  // namespace cuda
}  // namespace ember
