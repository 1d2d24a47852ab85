// c10/core/StridedExtent.h — how far a strided geometry reaches into its
// storage, with every step checked for overflow.
//
// Note [Strided extent]
// ~~~~~~~~~~~~~~~~~~~~~
// A tensor with sizes s and non-negative strides t reads the elements
// offset + sum_d i_d * t_d for 0 <= i_d < s_d, so it reaches
// extent = 1 + sum_d (s_d - 1) * t_d elements past its storage offset, or
// none when some size is 0. Every place that turns a caller's geometry into
// a storage size or a bounds check (empty_strided, as_strided, from_blob)
// computes this, and with sizes near 2^62 the products overflow: a
// wrapped sum would let a view reach outside its storage. These helpers
// return false instead, and their callers raise their own message; the
// checked_*_nbytes forms at the end raise the factories' messages (used by
// at::detail::empty_generic and the CPU plugin's empty, so that a device's
// empty and the CPU's refuse the same geometries with the same words).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"

namespace c10 {

// Sets *extent to the number of elements the geometry reaches (0 when any
// size is 0). Sizes and strides must be non-negative and as many as each
// other. False when the count does not fit in int64_t.
inline bool strided_extent(IntArrayRef sizes, IntArrayRef strides, int64_t* extent) {
  uint64_t last = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) {
      *extent = 0;
      return true;
    }
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    uint64_t step = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(sizes[d] - 1),
                               static_cast<uint64_t>(strides[d]), &step) ||
        __builtin_add_overflow(last, step, &last)) {
      return false;
    }
  }
  if (last >= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
  *extent = static_cast<int64_t>(last + 1);
  return true;
}

// Sets *bytes to the storage bytes the geometry needs from byte 0: (offset
// + extent) * itemsize, or 0 when it is empty (an empty view fits any
// storage). offset must be non-negative. False on overflow of int64_t.
inline bool strided_end_bytes(IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                              size_t itemsize, int64_t* bytes) {
  int64_t extent = 0;
  if (!strided_extent(sizes, strides, &extent)) return false;
  if (extent == 0) {
    *bytes = 0;
    return true;
  }
  int64_t end = 0;
  return !__builtin_add_overflow(offset, extent, &end) &&
         !__builtin_mul_overflow(end, static_cast<int64_t>(itemsize), bytes);
}

// Throws "<op>: sizes must be non-negative, but got …" for a negative size.
inline void check_sizes_non_negative(IntArrayRef sizes, const char* op) {
  for (size_t d = 0; d < sizes.size(); ++d) {
    TORCH_CHECK(sizes[d] >= 0, op, ": sizes must be non-negative, but got ", sizes, " (size ",
                sizes[d], " at dimension ", d, "). Pass sizes >= 0.");
  }
}

// The bytes a contiguous tensor of `sizes` with `itemsize`-byte elements
// needs; throws c10::Error naming `op` for a negative size or a count that
// does not fit in int64_t.
inline size_t checked_contiguous_nbytes(IntArrayRef sizes, size_t itemsize, const char* op) {
  check_sizes_non_negative(sizes, op);
  uint64_t bytes = itemsize;
  for (int64_t s : sizes) {
    TORCH_CHECK(!__builtin_mul_overflow(bytes, static_cast<uint64_t>(s), &bytes) &&
                    bytes <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
                op, ": a tensor of sizes ", sizes, " with ", itemsize,
                "-byte elements needs more bytes than a 64-bit size holds. Use smaller sizes.");
  }
  return static_cast<size_t>(bytes);
}

// The bytes a tensor of `sizes` and `strides` starting `storage_offset`
// elements into its storage needs (0 when it has no elements); throws
// c10::Error naming `op` for mismatched lengths, negative sizes or strides,
// and counts that do not fit in int64_t.
inline size_t checked_strided_nbytes(IntArrayRef sizes, IntArrayRef strides, size_t itemsize,
                                     size_t storage_offset, const char* op) {
  TORCH_CHECK(sizes.size() == strides.size(), op, ": got ", sizes.size(), " sizes ", sizes,
              " but ", strides.size(), " strides ", strides, "; pass one stride per dimension.");
  check_sizes_non_negative(sizes, op);
  for (size_t d = 0; d < strides.size(); ++d) {
    TORCH_CHECK(strides[d] >= 0, op, ": strides must be non-negative, but got ", strides,
                " (stride ", strides[d], " at dimension ", d, ").");
  }
  int64_t extent = 0;
  TORCH_CHECK(strided_extent(sizes, strides, &extent), op, ": sizes ", sizes, " with strides ",
              strides, " reach further than a 64-bit size holds. Use smaller sizes.");
  if (extent == 0) return 0;
  uint64_t elements = 0;
  TORCH_CHECK(!__builtin_add_overflow(static_cast<uint64_t>(extent),
                                      static_cast<uint64_t>(storage_offset), &elements),
              op, ": storage offset ", storage_offset, " overflows.");
  const int64_t elements_i64 = static_cast<int64_t>(
      std::min<uint64_t>(elements, static_cast<uint64_t>(std::numeric_limits<int64_t>::max())));
  return checked_contiguous_nbytes({elements_i64}, itemsize, op);
}

}  // namespace c10
