// backends/cuda/kernels/middle_sums.cuh — the middle-dimension reductions
// of the CUDA reductions over dimensions (Note [CUDA middle sums]: sum, and
// prod, max, min, all, any): their launches and what each thread combines, __host__ __device__ and free of the toolkit, so that
// //tests/backends/cuda:sum_plan_test runs the launches' grids on the host
// against the CPU's sum.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "backends/cuda/kernels/dtypes.cuh"

#ifdef __CUDACC__
#define EMBER_HD_MIDDLE __host__ __device__ __forceinline__
#else
#define EMBER_HD_MIDDLE inline
#endif

namespace ember {
namespace cuda {
namespace kernels {

// Note [CUDA middle sums]
// ~~~~~~~~~~~~~~~~~~~~~~~
// The contiguous [outer, rows, inner] array is summed over rows. A block of
// kColumns x kRowThreads threads sums kColumns adjacent columns of one outer
// index: thread (x, y) adds rows y, y + kRowThreads, ... of column x (a warp
// reads kColumns consecutive elements of a row: coalesced), then the
// kRowThreads partial sums of each column are added in y order. When the
// blocks would not fill the GPU and rows are many, the rows are cut into
// slices (grid z), each writing its partial to a workspace [slice][o][i];
// a second launch sums those over the slices, as the [1, slices, outer *
// inner] array. The order of every addition is fixed: the same input gives
// the same bits.
constexpr int kMiddleColumns = 32;
constexpr int kMiddleRowThreads = 8;
constexpr int64_t kMiddleFillBlocks = 256;  // blocks below which rows are sliced
constexpr int64_t kMiddleMaxOuterBlocks = 65535;

// One launch of the middle-sum kernel.
struct MiddleLaunch {
  bool from_workspace = false;  // reads the workspace (else the input)
  bool to_workspace = false;    // writes the workspace (else the output)
  int64_t outer = 0, rows = 0, inner = 0;
  int64_t rows_per_slice = 0;
  int64_t grid_x = 0, grid_y = 0, grid_z = 0;  // column blocks, outer blocks, slices
};

// The launches for [outer, rows, inner] (one or two) and the workspace they
// need, in accumulators (0 for one launch).
struct MiddlePlan {
  int count = 0;
  MiddleLaunch launch[2];
  int64_t workspace_elems = 0;
};

inline MiddlePlan middle_plan(int64_t outer, int64_t rows, int64_t inner) {
  MiddlePlan p;
  if (outer == 0 || inner == 0) return p;  // nothing to write
  const int64_t column_blocks = (inner + kMiddleColumns - 1) / kMiddleColumns;
  const int64_t outer_blocks = outer < kMiddleMaxOuterBlocks ? outer : kMiddleMaxOuterBlocks;
  int64_t slices = 1;
  if (column_blocks * outer_blocks < kMiddleFillBlocks && rows >= 512) {
    slices = (kMiddleFillBlocks + column_blocks * outer_blocks - 1) / (column_blocks * outer_blocks);
    if (slices > rows / 256) slices = rows / 256;
    if (slices > 65535) slices = 65535;
    if (slices < 1) slices = 1;
  }
  MiddleLaunch& first = p.launch[0];
  first.outer = outer;
  first.rows = rows;
  first.inner = inner;
  first.grid_x = column_blocks;
  first.grid_y = outer_blocks;
  first.grid_z = slices;
  first.rows_per_slice = slices == 1 ? rows : (rows + slices - 1) / slices;
  first.to_workspace = slices > 1;
  p.count = 1;
  if (slices > 1) {
    const int64_t n = outer * inner;
    MiddleLaunch& second = p.launch[1];
    second.from_workspace = true;
    second.outer = 1;
    second.rows = slices;
    second.inner = n;
    second.rows_per_slice = slices;
    second.grid_x = (n + kMiddleColumns - 1) / kMiddleColumns;
    second.grid_y = 1;
    second.grid_z = 1;
    p.count = 2;
    p.workspace_elems = slices * n;
  }
  return p;
}

// How a middle reduction combines: identity(), load(element) into Acc,
// combine(a, b). The same launches reduce with any of them (the second
// launch reads the first's Acc partials).
template <typename Acc>
struct MiddleSum {
  EMBER_HD_MIDDLE static Acc identity() { return Acc(0); }
  template <typename T>
  EMBER_HD_MIDDLE static Acc load(T x) { return convert<Acc>(x); }
  EMBER_HD_MIDDLE static Acc combine(Acc a, Acc b) { return a + b; }
};

// Integers multiply wrapping, as the CPU's.
template <typename Acc>
struct MiddleProd {
  EMBER_HD_MIDDLE static Acc identity() { return Acc(1); }
  template <typename T>
  EMBER_HD_MIDDLE static Acc load(T x) { return convert<Acc>(x); }
  EMBER_HD_MIDDLE static Acc combine(Acc a, Acc b) {
    if constexpr (std::is_integral<Acc>::value) {
      return static_cast<Acc>(static_cast<wrap_t<Acc>>(a) * static_cast<wrap_t<Acc>>(b));
    } else {
      return a * b;
    }
  }
};

// An integer type's extremes as constants (usable in device code).
template <typename T>
struct IntBounds {
  static constexpr T kLowest = std::numeric_limits<T>::lowest();
  static constexpr T kMax = std::numeric_limits<T>::max();
};

// max / min of values in the input's type; NaN wins (PyTorch's).
template <typename T, bool kMax>
struct MiddleExtreme {
  EMBER_HD_MIDDLE static T identity() {
    if constexpr (std::is_same<T, bool>::value) {
      return !kMax;
    } else if constexpr (is_floating_v<T>) {
      return T(kMax ? -INFINITY : INFINITY);
    } else {
      return kMax ? IntBounds<T>::kLowest : IntBounds<T>::kMax;
    }
  }
  EMBER_HD_MIDDLE static T load(T x) { return x; }
  EMBER_HD_MIDDLE static T combine(T a, T b) {
    const opmath_t<T> x = static_cast<opmath_t<T>>(a), y = static_cast<opmath_t<T>>(b);
    if constexpr (is_floating_v<T>) {
      if (x != x) return a;
      if (y != y) return b;
    }
    return (kMax ? y > x : y < x) ? b : a;
  }
};

// all / any: Bool partials; an element is true when it is not zero (NaN is).
template <bool kAll>
struct MiddleLogical {
  EMBER_HD_MIDDLE static bool identity() { return kAll; }
  template <typename T>
  EMBER_HD_MIDDLE static bool load(T x) { return convert<bool>(x); }
  EMBER_HD_MIDDLE static bool combine(bool a, bool b) { return kAll ? (a && b) : (a || b); }
};

// What thread (x, y) of a block of `l` combines for outer index o, column
// `column` (block x's first + x) and slice `slice` (block z).
template <typename T, typename Acc, typename Op = MiddleSum<Acc>>
EMBER_HD_MIDDLE Acc middle_partial(const T* in, const MiddleLaunch& l, int64_t o, int64_t column,
                                   int64_t slice, int y) {
  Acc acc = Op::identity();
  const int64_t first = slice * l.rows_per_slice;
  const int64_t last = first + l.rows_per_slice < l.rows ? first + l.rows_per_slice : l.rows;
  if (column >= l.inner || first >= last) return acc;  // (no rows: `in` may be null)
  const T* col = in + o * l.rows * l.inner + column;
  for (int64_t r = first + y; r < last; r += kMiddleRowThreads) {
    acc = Op::combine(acc, Op::load(col[r * l.inner]));
  }
  return acc;
}

// Where that column's total goes: out + slice * outer * inner + o * inner + column.
EMBER_HD_MIDDLE int64_t middle_out_index(const MiddleLaunch& l, int64_t o, int64_t column,
                                         int64_t slice) {
  return slice * l.outer * l.inner + o * l.inner + column;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
