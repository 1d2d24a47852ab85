// backends/cuda/kernels/dtypes.cuh — the element types of the CUDA kernels
// beyond C++'s own: Half and BFloat16 as 16-bit storage with float
// arithmetic (opmath_t, PyTorch's name), and convert<To>(from), one element
// from one dtype to another with the CPU plugin's rules
// (backends/cpu/dispatch.h). __host__ __device__ and free of the toolkit, so
// that //tests/backends/cuda:element_ops_test checks them under g++ against
// c10::Half, c10::BFloat16 and the CPU's copy_.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#ifdef __CUDACC__
#define EMBER_HD_TYPES __host__ __device__ __forceinline__
#else
#define EMBER_HD_TYPES inline
#endif

namespace ember {
namespace cuda {
namespace kernels {

EMBER_HD_TYPES uint32_t float_bits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}
EMBER_HD_TYPES float bits_float(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

// Note [Half and BFloat16 on CUDA]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Both are stored as their 16 bits and computed on as float: a kernel reads
// an element into opmath_t<T> (float), runs the float code of the op and
// rounds the result once when it stores it, as the CPU plugin does. The
// roundings are written out in integer arithmetic (round to nearest, ties
// to even; NaN stays NaN, overflow gives infinity), the same code on the
// host and the device, so the CI test that compares them with c10::Half and
// c10::BFloat16 bit for bit covers what the GPU runs. Conversions are
// explicit: an arithmetic expression on a Half that forgot to go through
// float does not compile.
EMBER_HD_TYPES uint16_t half_bits_from_float(float f) {
  const uint32_t u = float_bits(f);
  const uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return static_cast<uint16_t>(sign | (a > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (a < 0x38800000u) {
    // Below 2^-14, a half is a multiple of 2^-24: adding 0.5 leaves exactly
    // that multiple (rounded to nearest even by the float addition) in the
    // low mantissa bits.
    const float shifted = bits_float(a) + 0.5f;
    return static_cast<uint16_t>(sign | (float_bits(shifted) - 0x3f000000u));
  }
  const uint32_t odd = (a >> 13) & 1u;
  a += 0xc8000fffu + odd;  // exponent rebiased by -112, plus the rounding
  return static_cast<uint16_t>(sign | (a >> 13));
}

EMBER_HD_TYPES float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return bits_float(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    const float v = static_cast<float>(m) * 5.9604644775390625e-8f;  // m * 2^-24, exact
    return bits_float(sign | float_bits(v));
  }
  return bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

EMBER_HD_TYPES uint16_t bfloat16_bits_from_float(float f) {
  const uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
EMBER_HD_TYPES float bfloat16_bits_to_float(uint16_t b) {
  return bits_float(static_cast<uint32_t>(b) << 16);
}

struct Half {
  uint16_t bits;
  Half() = default;
  EMBER_HD_TYPES explicit Half(float f) : bits(half_bits_from_float(f)) {}
  EMBER_HD_TYPES explicit operator float() const { return half_bits_to_float(bits); }
};
struct BFloat16 {
  uint16_t bits;
  BFloat16() = default;
  EMBER_HD_TYPES explicit BFloat16(float f) : bits(bfloat16_bits_from_float(f)) {}
  EMBER_HD_TYPES explicit operator float() const { return bfloat16_bits_to_float(bits); }
};
static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2, "16-bit storage");

template <typename T>
constexpr bool is_reduced_float_v =
    std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value;
// float, double, Half, BFloat16.
template <typename T>
constexpr bool is_floating_v = std::is_floating_point<T>::value || is_reduced_float_v<T>;

// The type an element is computed in: float for Half and BFloat16, else
// itself.
template <typename T>
using opmath_t = std::conditional_t<is_reduced_float_v<T>, float, T>;

// An unsigned type for wrapping integer arithmetic, never narrower than
// unsigned int (so that the operands are not promoted back to signed int,
// where the overflow of a product of two int16 would be undefined), as the
// CPU plugin's wrap_t.
template <typename T>
using wrap_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned,
                                  std::make_unsigned_t<T>>;

// A floating value to an integral type as the CPU converts it: truncated
// toward zero to int64 (NaN and values outside int64 give INT64_MIN), then
// wrapped to the target's width (-2.5 -> 254 for uint8).
template <typename To>
EMBER_HD_TYPES To floating_to_integral(double d) {
  constexpr double kTwo63 = 9223372036854775808.0;
  const int64_t i = d >= -kTwo63 && d < kTwo63 ? static_cast<int64_t>(d)
                                               : static_cast<int64_t>(0x8000000000000000ull);
  return static_cast<To>(static_cast<wrap_t<To>>(static_cast<uint64_t>(i)));
}

// One element from one dtype to another, as the CPU's convert
// (backends/cpu/dispatch.h): anything nonzero is true, floating to integral
// as floating_to_integral, Half and BFloat16 through float, integers to
// narrower integers wrap. The rules are written twice on purpose, here and
// there, as wrap_t and floating_to_integral are: the device code compiles
// against this directory and the toolkit only, and the CPU's uses c10's
// Half. element_ops_test's ConversionsMatchTheCpu holds the two together
// (every dtype pair).
template <typename To, typename From>
EMBER_HD_TYPES To convert(From v) {
  if constexpr (std::is_same<To, From>::value) {
    return v;
  } else if constexpr (std::is_same<To, bool>::value) {
    return static_cast<opmath_t<From>>(v) != opmath_t<From>(0);
  } else if constexpr (std::is_integral<To>::value && is_floating_v<From>) {
    return floating_to_integral<To>(static_cast<double>(static_cast<opmath_t<From>>(v)));
  } else if constexpr (is_reduced_float_v<From>) {
    return static_cast<To>(static_cast<float>(v));
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
