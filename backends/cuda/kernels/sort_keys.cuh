// backends/cuda/kernels/sort_keys.cuh — the unsigned keys the CUDA sort
// orders (sort_kernels.cu), one element at a time. __host__ __device__ and
// free of the toolkit, so //tests/backends/cuda:element_ops_test checks
// under g++ that the keys order every dtype as the CPU plugin's sort does.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "backends/cuda/kernels/dtypes.cuh"

namespace ember {
namespace cuda {
namespace kernels {

// Note [CUDA sort keys]
// ~~~~~~~~~~~~~~~~~~~~~
// The CUDA sort is a radix sort (CUB's), which orders unsigned integers.
// Each element becomes an unsigned key of its width whose order is the CPU
// plugin's order of the values (backends/cpu/sort.cc):
//   - signed integers: the sign bit flipped (INT_MIN -> 0);
//   - floating types: NaN (any sign, any payload) -> all ones, above every
//     number, and all NaNs equal; -0.0 -> +0.0 (they compare equal on the
//     CPU, so a stable sort keeps their order); then a negative number's
//     bits all flipped, a non-negative one's sign bit set. Half and BFloat16
//     order on their 16 bits, which is their order as float (the CPU
//     compares them as float: the conversion is exact and monotonic);
//   - Bool and Byte: themselves.
// A descending sort orders the keys' complements ascending (NaN first, as
// on the CPU); the radix sort is stable both ways, so equal values keep
// their positions' order: the CPU's stable_sort, and topk's ties to the
// lower position.
template <typename T>
struct SortKey {
  static_assert(std::is_integral<T>::value, "integral; the floating types are below");
  using type = std::make_unsigned_t<T>;
  static EMBER_HD_TYPES type of(T v) {
    constexpr type kSign = std::is_signed<T>::value ? type(type(1) << (8 * sizeof(T) - 1)) : 0;
    return static_cast<type>(static_cast<type>(v) ^ kSign);
  }
};
template <>
struct SortKey<bool> {
  using type = uint8_t;
  static EMBER_HD_TYPES type of(bool v) { return v ? 1 : 0; }
};

// The floating rule on the raw bits of a `Bits`-wide floating value whose
// magnitude bits above `inf` mean NaN.
template <typename Bits>
EMBER_HD_TYPES Bits floating_sort_key(Bits bits, Bits inf) {
  constexpr Bits kSign = Bits(Bits(1) << (8 * sizeof(Bits) - 1));
  const Bits magnitude = static_cast<Bits>(bits & ~kSign);
  if (magnitude > inf) return static_cast<Bits>(~Bits(0));  // NaN
  if (magnitude == 0) return kSign;                          // -0.0 and +0.0
  return static_cast<Bits>((bits & kSign) ? ~bits : (bits | kSign));
}

template <>
struct SortKey<float> {
  using type = uint32_t;
  static EMBER_HD_TYPES type of(float v) {
    return floating_sort_key<uint32_t>(float_bits(v), 0x7f800000u);
  }
};
template <>
struct SortKey<double> {
  using type = uint64_t;
  static EMBER_HD_TYPES type of(double v) {
    uint64_t bits;
#ifdef __CUDA_ARCH__
    bits = static_cast<uint64_t>(__double_as_longlong(v));
#else
    std::memcpy(&bits, &v, sizeof bits);
#endif
    return floating_sort_key<uint64_t>(bits, 0x7ff0000000000000ull);
  }
};
template <>
struct SortKey<Half> {
  using type = uint16_t;
  static EMBER_HD_TYPES type of(Half v) { return floating_sort_key<uint16_t>(v.bits, 0x7c00u); }
};
template <>
struct SortKey<BFloat16> {
  using type = uint16_t;
  static EMBER_HD_TYPES type of(BFloat16 v) {
    return floating_sort_key<uint16_t>(v.bits, 0x7f80u);
  }
};

// The key the sort orders ascending for `v`: of(v), or its complement for a
// descending sort.
template <typename T>
EMBER_HD_TYPES typename SortKey<T>::type sort_key(T v, bool descending) {
  using K = typename SortKey<T>::type;
  const K key = SortKey<T>::of(v);
  return descending ? static_cast<K>(~key) : key;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
