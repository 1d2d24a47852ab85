// backends/cuda/kernels/offsets.cuh — 32-bit indexing for the general
// elementwise kernel (kernels/loops.cuh): the offset calculator it runs per
// element, and the host's split of an Iteration too large for it (See Note
// [CUDA 32-bit indexing]). __host__ __device__ and free of the toolkit, so
// that //tests/backends/cuda:offsets_test checks them under g++ against
// the 64-bit arithmetic they replace.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "backends/cuda/kernels/launch.h"

#ifdef __CUDACC__
#define EMBER_HD_INDEX __host__ __device__ __forceinline__
#else
#define EMBER_HD_INDEX inline
#endif

namespace ember {
namespace cuda {
namespace kernels {

// Note [CUDA 32-bit indexing]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A thread of the general elementwise kernel turns its linear index into
// each operand's byte offset: per dimension a division and a remainder by
// the size, a multiply-add per operand (Note [CUDA offset calculator]). In
// 64 bits that division is a long software routine on the GPU; in 32 bits,
// with the size's reciprocal precomputed on the host (IntDivider: a
// multiply-high, an add and a shift), it is three instructions. So the
// kernel indexes in 32 bits only, and the host hands it Iterations whose
// indices and offsets fit: every index below 2^31 and every operand's
// offsets within +-(2^31 - 1) bytes (fits_32bit_indexing). A larger one is
// split (split_for_32bit_indexing, PyTorch's with_32bit_indexing): the
// dimension that spans the most bytes of some operand is halved, the second
// half's base pointers moved past the first, until every piece fits; the
// pieces are launched one after another on the same stream. They cover the
// Iteration's elements exactly once, so any elementwise op may be split.
// A tensor of 2^32 floats splits into 4 to 8 pieces. The dense kernels
// (launch_elementwise_typed) index contiguous memory with one multiply and
// do not split.
constexpr int64_t kMax32BitIndex = (int64_t{1} << 31) - 1;

// n / divisor and n % divisor for 1 <= divisor and n below 2^31, by the
// round-up method (Granlund and Montgomery, "Division by invariant integers
// using multiplication", 1994): with s = ceil(log2(divisor)) and
// m = floor(2^(32+s) / divisor) + 1 (a 33-bit number, 2^32 + magic),
// n / divisor = floor(n * m / 2^(32+s)) = (mulhi(n, magic) + n) >> s for
// every n below 2^32 whose sum does not wrap, which n < 2^31 ensures.
struct IntDivider {
  uint32_t divisor = 1;
  uint32_t magic = 1;
  uint32_t shift = 0;

  IntDivider() = default;
  explicit IntDivider(uint32_t d) : divisor(d) {
    shift = 0;
    while ((uint64_t{1} << shift) < d) ++shift;
    magic = static_cast<uint32_t>(
        ((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }

  EMBER_HD_INDEX uint32_t div(uint32_t n) const {
#ifdef __CUDA_ARCH__
    const uint32_t high = __umulhi(n, magic);
#else
    const uint32_t high = static_cast<uint32_t>((uint64_t{n} * magic) >> 32);
#endif
    return (high + n) >> shift;
  }
};

// An Iteration in 32 bits (fits_32bit_indexing true), dimension 0 fastest:
// what the general kernel takes by value (about 420 bytes; the Iteration's
// 64-bit strides would be 570).
template <int NOps>
struct Strided32 {
  int ndim = 0;
  uint32_t numel = 0;
  bool contiguous = false;  // one dimension; every tensor operand dense
  IntDivider sizes[kMaxDims];
  int32_t strides[kMaxDims][NOps] = {};
  char* data[NOps] = {};
  unsigned scalar_mask = 0;
  uint64_t scalars[NOps] = {};

  // Each operand's byte offset from its base for linear index i < numel.
  EMBER_HD_INDEX void offsets(uint32_t i, int32_t* off) const {
    for (int k = 0; k < NOps; ++k) off[k] = 0;
    if (contiguous) {
      for (int k = 0; k < NOps; ++k) off[k] = static_cast<int32_t>(i) * strides[0][k];
      return;
    }
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int d = 0; d < kMaxDims; ++d) {
      if (d == ndim) break;
      const uint32_t rest = sizes[d].div(i);
      const int32_t coord = static_cast<int32_t>(i - rest * sizes[d].divisor);
      i = rest;
      for (int k = 0; k < NOps; ++k) off[k] += coord * strides[d][k];
    }
  }
};

// The bytes operand k's offsets reach either side of its base: the sum of
// (size - 1) * |stride| over the dimensions.
inline int64_t span_bytes(const Iteration& it, int k) {
  int64_t span = 0;
  for (int d = 0; d < it.ndim; ++d) {
    if (it.sizes[d] > 0) span += (it.sizes[d] - 1) * std::llabs(it.strides[k][d]);
  }
  return span;
}

// Whether the general kernel can index `it` in 32 bits: numel and every
// tensor operand's span at most `limit` (kMax32BitIndex; tests pass less).
inline bool fits_32bit_indexing(const Iteration& it, int64_t limit = kMax32BitIndex) {
  if (it.numel > limit) return false;
  for (int k = 0; k < kMaxOperands; ++k) {
    if (((it.scalar_mask >> k) & 1u) == 0 && span_bytes(it, k) > limit) return false;
  }
  return true;
}

// Pieces of `it` that each fit `limit` and together cover its elements
// once (Note [CUDA 32-bit indexing]); `it` itself when it fits.
inline void split_for_32bit_indexing(const Iteration& it, int64_t limit,
                                     std::vector<Iteration>* pieces) {
  if (fits_32bit_indexing(it, limit)) {
    pieces->push_back(it);
    return;
  }
  // The dimension spanning the most bytes of some operand; when no span is
  // too large (numel is), the largest dimension.
  bool spans_fit = true;
  for (int k = 0; k < kMaxOperands; ++k) {
    if (((it.scalar_mask >> k) & 1u) == 0 && span_bytes(it, k) > limit) spans_fit = false;
  }
  int split = -1;
  int64_t best = 0;
  for (int d = 0; d < it.ndim; ++d) {
    if (it.sizes[d] < 2) continue;
    int64_t key = it.sizes[d];
    if (!spans_fit) {
      key = 0;
      for (int k = 0; k < kMaxOperands; ++k) {
        if (((it.scalar_mask >> k) & 1u) != 0) continue;
        const int64_t span = (it.sizes[d] - 1) * std::llabs(it.strides[k][d]);
        if (span > key) key = span;
      }
    }
    if (split < 0 || key > best) {
      split = d;
      best = key;
    }
  }
  // A piece too large has a dimension of size >= 2 (one element spans 0).
  const int64_t first = it.sizes[split] / 2;
  Iteration low = it, high = it;
  low.sizes[split] = first;
  high.sizes[split] = it.sizes[split] - first;
  low.numel = it.numel / it.sizes[split] * first;
  high.numel = it.numel - low.numel;
  for (int k = 0; k < kMaxOperands; ++k) {
    if (((it.scalar_mask >> k) & 1u) != 0 || it.data[k] == nullptr) continue;
    // As integers: the pointers are the device's, never dereferenced here.
    high.data[k] = reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(it.data[k]) +
                                           static_cast<uintptr_t>(first * it.strides[k][split]));
  }
  split_for_32bit_indexing(low, limit, pieces);
  split_for_32bit_indexing(high, limit, pieces);
}

// The kernel's form of `it`, which fits_32bit_indexing.
template <int NOps>
Strided32<NOps> strided32(const Iteration& it) {
  Strided32<NOps> s;
  s.ndim = it.ndim;
  s.numel = static_cast<uint32_t>(it.numel);
  s.contiguous = it.contiguous;
  s.scalar_mask = it.scalar_mask;
  for (int d = 0; d < it.ndim; ++d) {
    s.sizes[d] = IntDivider(static_cast<uint32_t>(it.sizes[d] > 0 ? it.sizes[d] : 1));
    for (int k = 0; k < NOps; ++k) s.strides[d][k] = static_cast<int32_t>(it.strides[k][d]);
  }
  for (int k = 0; k < NOps; ++k) {
    s.data[k] = it.data[k];
    s.scalars[k] = it.scalars[k];
  }
  return s;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
