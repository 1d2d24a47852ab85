// backends/cpu/indexing_utils.h — the loops the indexing, join and sort
// kernels share: a multi-dimensional walk that tracks element offsets into
// several strided tensors, a two-thread parallel_for, views made without the
// dispatcher, and index-range checks with PyTorch's messages.
//
//   // Every position of `sizes`, row-major, with offsets into a and b:
//   StridedWalk<2> walk(sizes, {a.strides(), b.strides()}, /*start=*/0);
//   for (int64_t i = 0; i < n; ++i, walk.next()) {
//     pa[walk.offset[0]] = pb[walk.offset[1]];
//   }
//
// Internal to the CPU plugin. Offsets and strides are in elements, not
// bytes, since every tensor a walk visits has one element size.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "aten/JoinUtils.h"
#include "aten/Tensor.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/parallel_loops.h"
#include "c10/core/ScalarType.h"
#include "c10/util/ArrayRef.h"
#include "c10/util/Exception.h"

namespace ember::cpu {

// ember::cpu::StridedWalk<N>
//
// Visits the positions of `sizes` in row-major order (last dim fastest),
// starting at linear position `start`, keeping `offset[k]` = the dot
// product of the position with strides[k]. next() moves to the following
// position; it must not be called past the last one more than once (the
// offsets then wrap to the start, which is harmless). sizes may be empty
// (one position).
template <size_t N>
class StridedWalk {
 public:
  StridedWalk(c10::IntArrayRef sizes, const std::array<c10::IntArrayRef, N>& strides,
              int64_t start)
      : sizes_(sizes.begin(), sizes.end()), index_(sizes.size(), 0) {
    for (size_t k = 0; k < N; ++k) {
      TORCH_INTERNAL_ASSERT(strides[k].size() == sizes.size(),
                            "StridedWalk: one stride per dim");
      strides_[k].assign(strides[k].begin(), strides[k].end());
      offset[k] = 0;
    }
    int64_t rest = start;
    for (size_t d = sizes_.size(); d-- > 0;) {
      if (sizes_[d] == 0) break;
      index_[d] = rest % sizes_[d];
      rest /= sizes_[d];
      for (size_t k = 0; k < N; ++k) offset[k] += index_[d] * strides_[k][d];
    }
  }

  void next() {
    for (size_t d = sizes_.size(); d-- > 0;) {
      if (++index_[d] < sizes_[d]) {
        for (size_t k = 0; k < N; ++k) offset[k] += strides_[k][d];
        return;
      }
      index_[d] = 0;
      for (size_t k = 0; k < N; ++k) offset[k] -= (sizes_[d] - 1) * strides_[k][d];
    }
  }

  // The current position's coordinate along dim d.
  int64_t index(size_t d) const { return index_[d]; }

  int64_t offset[N];

 private:
  std::vector<int64_t> sizes_;
  std::vector<int64_t> index_;
  std::array<std::vector<int64_t>, N> strides_;
};

// ember::cpu::dispatch_by_size(element_size, op, f)
//
// Calls f(TypeTag<W>{}) with W an unsigned integer type of `element_size`
// bytes: kernels that only move elements are instantiated once per width,
// not once per dtype.
template <typename F>
void dispatch_by_size(size_t element_size, const char* op, F&& f) {
  switch (element_size) {
    case 1: return f(TypeTag<uint8_t>{});
    case 2: return f(TypeTag<uint16_t>{});
    case 4: return f(TypeTag<uint32_t>{});
    case 8: return f(TypeTag<uint64_t>{});
    default:
      TORCH_INTERNAL_ASSERT(false, op, ": no element width ", element_size);
  }
}

// ember::cpu::make_strided_view
//
// A view of `self`'s storage with other sizes, strides (elements) and
// offset, sharing the version counter; for kernels that need a restrided
// operand without a trip through the dispatcher.
at::Tensor make_strided_view(const at::Tensor& self, c10::IntArrayRef sizes,
                             c10::IntArrayRef strides, int64_t storage_offset);

// ember::cpu::expand_to
//
// `t` broadcast to `shape` as a view (stride 0 in broadcast dims). Throws,
// naming `op` and both shapes, when t does not broadcast to shape.
at::Tensor expand_to(const at::Tensor& t, c10::IntArrayRef shape, const char* op,
                     const char* what);

// ember::cpu::broadcast_shapes
//
// PyTorch's broadcast of two shapes; throws naming `op` and both shapes.
std::vector<int64_t> broadcast_shapes(c10::IntArrayRef a, c10::IntArrayRef b,
                                      const char* op);

// ember::cpu::check_index_range
//
// Every element of `index` (Long or Int, any strides) lies in [-size, size)
// when allow_negative, else in [0, size); throws IndexError "op: index 5 is
// out of bounds for dimension 0 with size 3." for the first that does not.
void check_index_range(const at::Tensor& index, int64_t size, int64_t dim,
                       bool allow_negative, const char* op);

// overlaps, check_out_dtype, check_no_overlap, check_no_internal_overlap:
// the core's (aten/JoinUtils.h), shared with the other backends.
using at::native::check_no_internal_overlap;
using at::native::check_no_overlap;
using at::native::check_out_dtype;
using at::native::overlaps;

// ember::cpu::BlockPlan
//
// Note [Block indexing]
// ~~~~~~~~~~~~~~~~~~~~~
// index_select, index.Tensor and index_put_ all address `self` as
// pre x picks x post: an element of the (contiguous) result at [p, b, q] is
// self's element at pre_offset(p) + offsets[b] + post_offset(q), where
// pre_offset and post_offset walk some of self's dims with self's strides
// and offsets[b] (element offsets, already bounds-checked) hold the
// contribution of the indexed dims. When the post dims are contiguous in
// self, each (p, b) is one memcpy of a whole row.
struct BlockPlan {
  std::vector<int64_t> pre_sizes, pre_strides;
  std::vector<int64_t> offsets;
  std::vector<int64_t> post_sizes, post_strides;
};

// Fills `dst`, contiguous [pre, picks, post] of self's element size, from
// self (in parallel over rows when large).
void take_blocks(const at::Tensor& self, const BlockPlan& plan, void* dst);
// Writes `src`, contiguous [pre, picks, post] of self's dtype, into self;
// with accumulate, adds instead (Bool: logical or). Repeated offsets are
// applied in order, so with accumulate they all count.
void put_blocks(const at::Tensor& self, const BlockPlan& plan, const void* src,
                bool accumulate, const char* op);


}  // namespace ember::cpu
