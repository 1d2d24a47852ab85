// backends/cpu/reductions_loops.h — the strided loop driver behind the CPU plugin's
// reductions (sum, mean, amax, amin, max.dim, min.dim, argmax, argmin).
//
// A reduction splits the input's dimensions into kept ones (one output
// element per position) and reduced ones (folded into that element).
// ReduceGeometry sorts and coalesces both groups; reduce_kernel then walks
// them with an `Ops` policy that says how to fold:
//
//   struct SumFloat {
//     using in_t = float;
//     using acc_t = double;
//     float* out;
//     acc_t identity() const { return 0; }
//     acc_t step(acc_t a, float x, int64_t /*index*/) const { return a + x; }
//     acc_t merge(acc_t earlier, acc_t later) const { return earlier + later; }
//     // A run of n inputs `stride` elements apart, the first at `index`.
//     acc_t run(acc_t a, const float* p, int64_t n, int64_t stride,
//               int64_t index) const;
//     void write(int64_t out_offset, acc_t a) const { out[out_offset] = a; }
//   };
//   ember::cpu::reduce_kernel(geometry, input_data, SumFloat{out_data});
//
// `index` is the element's position in the walk over the reduced dims
// (sorted by stride), which is its position along the dimension when one
// dimension is reduced; ops that report positions (max.dim, argmax) reduce
// one dimension only. Outputs are contiguous in the kept dims' order, so
// an output's offset is its linear index. Internal to the CPU plugin.
//
// Thread safety: the Ops object is shared by all threads; step/merge/run/
// write must not write shared state except through `write` (each output
// offset is written once, by one thread) and must not throw.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backends/cpu/parallel_loops.h"
#include "c10/util/ArrayRef.h"

namespace ember::cpu {

// Reductions accept at most this many dimensions (PyTorch's limit too).
constexpr int64_t kReduceMaxDims = 64;

// One dimension of a reduction: its size and its strides, in elements, in
// the input and in the output (0 for a reduced dimension).
struct ReduceDim {
  int64_t size;
  int64_t in_stride;
  int64_t out_stride;
};

// ember::cpu::ReduceGeometry
//
// `sizes`/`strides` describe the input (strides non-negative, in
// elements); `reduce[d]` says whether dimension d is reduced. Size-1
// dimensions are dropped; each group is sorted by input stride, outermost
// first, and neighbours that step like one dimension are merged (reduced
// ones only when `coalesce_reduced`, which an op reporting positions along
// one dimension turns off).
struct ReduceGeometry {
  ReduceGeometry(c10::IntArrayRef sizes, c10::IntArrayRef strides,
                 const std::vector<bool>& reduce, bool coalesce_reduced) {
    int64_t out_stride = 1;
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      const size_t u = static_cast<size_t>(d);
      if (reduce[u]) {
        num_reduced *= sizes[u];
        if (sizes[u] != 1) reduced.push_back({sizes[u], strides[u], 0});
      } else {
        num_outputs *= sizes[u];
        if (sizes[u] != 1) kept.push_back({sizes[u], strides[u], out_stride});
        out_stride *= sizes[u];
      }
    }
    sort_and_coalesce(&kept, true);
    sort_and_coalesce(&reduced, coalesce_reduced);
    // A reduction over nothing still folds the one element in.
    if (reduced.empty()) reduced.push_back({1, 0, 0});
  }

  // Whether a kept dimension has the smallest input stride: then each
  // reduction step should read a row of neighbouring outputs' inputs (See
  // Note [Reduction loop orders]).
  bool outer_mode() const {
    return !kept.empty() && reduced.back().in_stride != 1 &&
           kept.back().in_stride < reduced.back().in_stride;
  }

  std::vector<ReduceDim> kept;     // outermost first; may be empty
  std::vector<ReduceDim> reduced;  // outermost first; never empty
  int64_t num_outputs = 1;
  int64_t num_reduced = 1;

 private:
  static void sort_and_coalesce(std::vector<ReduceDim>* dims, bool coalesce) {
    // The vector holds innermost-first order; stable so ties keep it.
    std::reverse(dims->begin(), dims->end());
    std::stable_sort(dims->begin(), dims->end(),
                     [](const ReduceDim& a, const ReduceDim& b) {
                       return a.in_stride > b.in_stride;
                     });
    if (!coalesce) return;
    std::vector<ReduceDim> merged;
    for (const ReduceDim& d : *dims) {
      if (!merged.empty()) {
        ReduceDim& outer = merged.back();
        if (outer.in_stride == d.in_stride * d.size &&
            outer.out_stride == d.out_stride * d.size) {
          outer = {outer.size * d.size, d.in_stride, d.out_stride};
          continue;
        }
      }
      merged.push_back(d);
    }
    *dims = std::move(merged);
  }
};

// Row-major walk over dims (outermost first), tracking the offsets.
class DimWalker {
 public:
  DimWalker(const ReduceDim* dims, size_t ndim, int64_t start)
      : dims_(dims), ndim_(ndim) {
    for (size_t k = ndim; k-- > 0;) {
      idx_[k] = start % dims[k].size;
      start /= dims[k].size;
      in += idx_[k] * dims[k].in_stride;
      out += idx_[k] * dims[k].out_stride;
    }
  }
  void next() {
    for (size_t k = ndim_; k-- > 0;) {
      const ReduceDim& d = dims_[k];
      in += d.in_stride;
      out += d.out_stride;
      if (++idx_[k] < d.size) return;
      in -= d.in_stride * d.size;
      out -= d.out_stride * d.size;
      idx_[k] = 0;
    }
  }

  int64_t in = 0;
  int64_t out = 0;

 private:
  const ReduceDim* dims_;
  size_t ndim_;
  int64_t idx_[kReduceMaxDims];
};

namespace detail {

// Outputs per row in the outer loop order (a block of accumulators stays
// in L1).
constexpr int64_t kReduceBlock = 1024;

// Folds reduction positions [begin, end) of the output whose first input
// is at `base`.
template <typename Ops>
typename Ops::acc_t reduce_range(const Ops& ops, const ReduceGeometry& g,
                                 const typename Ops::in_t* base, int64_t begin,
                                 int64_t end, typename Ops::acc_t acc) {
  const ReduceDim& inner = g.reduced.back();
  if (g.reduced.size() == 1) {
    return ops.run(acc, base + begin * inner.in_stride, end - begin,
                   inner.in_stride, begin);
  }
  DimWalker outer(g.reduced.data(), g.reduced.size() - 1, begin / inner.size);
  int64_t j = begin % inner.size;
  for (int64_t pos = begin; pos < end; j = 0, outer.next()) {
    const int64_t len = std::min(inner.size - j, end - pos);
    acc = ops.run(acc, base + outer.in + j * inner.in_stride, len,
                  inner.in_stride, pos);
    pos += len;
  }
  return acc;
}

template <typename Ops>
void reduce_inner(const Ops& ops, const ReduceGeometry& g,
                  const typename Ops::in_t* in, int64_t threads) {
  using acc_t = typename Ops::acc_t;
  if (threads > 1 && g.num_outputs < threads) {
    // Few long reductions: split each one, then merge the parts in order.
    DimWalker w(g.kept.data(), g.kept.size(), 0);
    std::vector<acc_t> parts(static_cast<size_t>(threads));
    for (int64_t o = 0; o < g.num_outputs; ++o, w.next()) {
      const typename Ops::in_t* base = in + w.in;
      parallel_chunks(threads, g.num_reduced,
                      [&](int64_t c, int64_t begin, int64_t end) {
                        parts[static_cast<size_t>(c)] =
                            reduce_range(ops, g, base, begin, end, ops.identity());
                      });
      acc_t acc = parts[0];
      for (size_t c = 1; c < parts.size(); ++c) acc = ops.merge(acc, parts[c]);
      ops.write(w.out, acc);
    }
    return;
  }
  parallel_chunks(std::min(threads, g.num_outputs), g.num_outputs,
                  [&](int64_t, int64_t begin, int64_t end) {
                    DimWalker w(g.kept.data(), g.kept.size(), begin);
                    for (int64_t o = begin; o < end; ++o, w.next()) {
                      ops.write(w.out, reduce_range(ops, g, in + w.in, 0,
                                                    g.num_reduced, ops.identity()));
                    }
                  });
}

template <typename Ops>
void reduce_outer(const Ops& ops, const ReduceGeometry& g,
                  const typename Ops::in_t* in, int64_t threads) {
  using acc_t = typename Ops::acc_t;
  using in_t = typename Ops::in_t;
  const ReduceDim& row = g.kept.back();
  const int64_t blocks = (row.size + kReduceBlock - 1) / kReduceBlock;
  const int64_t tasks = g.num_outputs / row.size * blocks;
  parallel_chunks(std::min(threads, tasks), tasks,
                  [&](int64_t, int64_t begin, int64_t end) {
    acc_t buf[kReduceBlock];
    for (int64_t task = begin; task < end; ++task) {
      const DimWalker outer(g.kept.data(), g.kept.size() - 1, task / blocks);
      const int64_t j0 = task % blocks * kReduceBlock;
      const int64_t len = std::min(kReduceBlock, row.size - j0);
      const int64_t stride = row.in_stride;
      for (int64_t j = 0; j < len; ++j) buf[j] = ops.identity();
      const in_t* base = in + outer.in + j0 * stride;
      DimWalker r(g.reduced.data(), g.reduced.size(), 0);
      for (int64_t pos = 0; pos < g.num_reduced; ++pos, r.next()) {
        const in_t* __restrict p = base + r.in;
        if (stride == 1) {
          for (int64_t j = 0; j < len; ++j) buf[j] = ops.step(buf[j], p[j], pos);
        } else {
          for (int64_t j = 0; j < len; ++j) {
            buf[j] = ops.step(buf[j], p[j * stride], pos);
          }
        }
      }
      for (int64_t j = 0; j < len; ++j) {
        ops.write(outer.out + (j0 + j) * row.out_stride, buf[j]);
      }
    }
  });
}

}  // namespace detail

// Note [Reduction loop orders]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Inner order (a reduced dim is innermost in memory, e.g. sum over the last
// dim, or over everything): one output at a time, folding runs along the
// innermost reduced dim with Ops::run, which has the contiguous fast path;
// threads split the outputs, or, with fewer outputs than threads, each
// reduction, whose parts are merged in order (so a result depends on the
// thread count only through rounding). Outer order (a kept dim is innermost,
// e.g. sum over dim 0 of a row-major matrix): a block of neighbouring
// outputs keeps its accumulators in an array, and each reduction position
// adds one row of inputs to all of them, which reads memory in order and
// vectorizes; threads split the blocks.
template <typename Ops>
void reduce_kernel(const ReduceGeometry& g, const typename Ops::in_t* in,
                   const Ops& ops) {
  if (g.num_outputs == 0) return;
  if (g.num_reduced == 0) {
    for (int64_t o = 0; o < g.num_outputs; ++o) ops.write(o, ops.identity());
    return;
  }
  // The most threads any split below can use (long reductions are split
  // too, so not capped at num_outputs). See Note [One thread count for
  // every loop] in parallel_loops.h.
  const int64_t threads =
      parallel_threads(g.num_outputs * g.num_reduced, g.num_outputs * g.num_reduced);
  if (g.outer_mode()) {
    detail::reduce_outer(ops, g, in, threads);
  } else {
    detail::reduce_inner(ops, g, in, threads);
  }
}

}  // namespace ember::cpu
