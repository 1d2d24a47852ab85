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
// return false instead, and their callers raise their own message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "c10/util/ArrayRef.h"

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

}  // namespace c10
