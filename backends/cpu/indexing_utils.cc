// Helpers of indexing_utils.h.
#include "backends/cpu/indexing_utils.h"

#include <type_traits>
#include <utility>

#include "c10/core/TensorImpl.h"

namespace ember::cpu {

at::Tensor make_strided_view(const at::Tensor& self, c10::IntArrayRef sizes,
                             c10::IntArrayRef strides, int64_t storage_offset) {
  auto impl = c10::make_intrusive<c10::TensorImpl>(
      c10::Storage(self.storage()),
      c10::DispatchKeySet(c10::computeDispatchKey(self.device().type())),
      self.scalar_type());
  impl->set_sizes_and_strides(sizes, strides, storage_offset);
  impl->set_version_counter(self.unsafeGetTensorImpl()->version_counter());
  return at::Tensor(std::move(impl));
}

std::vector<int64_t> broadcast_shapes(c10::IntArrayRef a, c10::IntArrayRef b,
                                      const char* op) {
  return at::native::broadcast_shapes(a, b, op);
}

at::Tensor expand_to(const at::Tensor& t, c10::IntArrayRef shape, const char* op,
                     const char* what) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  const int64_t td = t.dim();
  TORCH_CHECK(td <= nd, op, ": ", what, " of shape ", t.sizes(),
              " cannot be broadcast to shape ", shape, ".");
  std::vector<int64_t> strides(shape.size(), 0);
  for (int64_t i = 0; i < td; ++i) {
    const int64_t d = nd - td + i;
    const int64_t s = t.size(i);
    TORCH_CHECK(s == shape[d] || s == 1, op, ": ", what, " of shape ", t.sizes(),
                " cannot be broadcast to shape ", shape, ".");
    strides[d] = s == shape[d] ? t.stride(i) : 0;
  }
  return make_strided_view(t, shape, strides, t.storage_offset());
}

void check_index_range(const at::Tensor& index, int64_t size, int64_t dim,
                       bool allow_negative, const char* op) {
  const int64_t n = index.numel();
  if (n == 0) return;
  auto check = [&](int64_t v) {
    if (!(v < size && (v >= 0 || (allow_negative && v >= -size)))) {
      at::native::throw_index_out_of_bounds(op, v, dim, size);
    }
  };
  auto scan = [&](auto tag) {
    using index_t = typename decltype(tag)::type;
    const index_t* p = static_cast<const index_t*>(index.data_ptr());
    if (index.is_contiguous()) {
      // Bounds first as a branch-free reduction, which vectorizes; the
      // message needs the offending value, found by a second scan only
      // when something is out of range.
      index_t lo = p[0], hi = p[0];
      for (int64_t i = 0; i < n; ++i) {
        lo = std::min(lo, p[i]);
        hi = std::max(hi, p[i]);
      }
      const int64_t min_ok = allow_negative ? -size : 0;
      if (static_cast<int64_t>(lo) >= min_ok && static_cast<int64_t>(hi) < size) return;
      for (int64_t i = 0; i < n; ++i) check(static_cast<int64_t>(p[i]));
      return;
    }
    StridedWalk<1> walk(index.sizes(), {index.strides()}, 0);
    for (int64_t i = 0; i < n; ++i, walk.next()) check(static_cast<int64_t>(p[walk.offset[0]]));
  };
  if (index.scalar_type() == c10::ScalarType::Int) {
    scan(TypeTag<int32_t>{});
  } else {
    TORCH_INTERNAL_ASSERT(index.scalar_type() == c10::ScalarType::Long, op,
                          ": index dtype ", index.scalar_type());
    scan(TypeTag<int64_t>{});
  }
}




namespace {

int64_t numel_of(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// Whether walking `sizes` with `strides` visits consecutive elements.
bool is_dense(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t expected = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

// The offsets of every position of sizes/strides, row-major.
std::vector<int64_t> all_offsets(const std::vector<int64_t>& sizes,
                                 const std::vector<int64_t>& strides) {
  const int64_t n = numel_of(sizes);
  std::vector<int64_t> out(static_cast<size_t>(n));
  StridedWalk<1> walk(sizes, {strides}, 0);
  for (int64_t i = 0; i < n; ++i, walk.next()) out[static_cast<size_t>(i)] = walk.offset[0];
  return out;
}

}  // namespace

void take_blocks(const at::Tensor& self, const BlockPlan& plan, void* dst) {
  const int64_t np = numel_of(plan.pre_sizes);
  const auto nb = static_cast<int64_t>(plan.offsets.size());
  const int64_t nq = numel_of(plan.post_sizes);
  if (np == 0 || nb == 0 || nq == 0) return;
  const bool dense = is_dense(plan.post_sizes, plan.post_strides);
  const std::vector<int64_t> post = dense ? std::vector<int64_t>()
                                          : all_offsets(plan.post_sizes, plan.post_strides);
  dispatch_by_size(self.itemsize(), "index", [&](auto tag) {
    using word_t = typename decltype(tag)::type;
    const word_t* src = static_cast<const word_t*>(self.data_ptr());
    word_t* out = static_cast<word_t*>(dst);
    const int64_t* offsets = plan.offsets.data();
    parallel_for(np * nb, np * nb * nq, [&](int64_t begin, int64_t end) {
      int64_t b = begin % nb;
      StridedWalk<1> walk(plan.pre_sizes, {plan.pre_strides}, begin / nb);
      for (int64_t r = begin; r < end; ++r) {
        const word_t* s = src + walk.offset[0] + offsets[b];
        word_t* d = out + r * nq;
        if (dense) {
          if (nq == 1) {
            *d = *s;
          } else {
            std::memcpy(d, s, static_cast<size_t>(nq) * sizeof(word_t));
          }
        } else {
          for (int64_t q = 0; q < nq; ++q) d[q] = s[post[static_cast<size_t>(q)]];
        }
        if (++b == nb) {
          b = 0;
          walk.next();
        }
      }
    });
  });
}

void put_blocks(const at::Tensor& self, const BlockPlan& plan, const void* src,
                bool accumulate, const char* op) {
  const int64_t np = numel_of(plan.pre_sizes);
  const auto nb = static_cast<int64_t>(plan.offsets.size());
  const int64_t nq = numel_of(plan.post_sizes);
  if (np == 0 || nb == 0 || nq == 0) return;
  const std::vector<int64_t> post = all_offsets(plan.post_sizes, plan.post_strides);
  // Different pre positions never write the same element (self has no
  // internal overlap), so the pre dim may be split between threads; picks
  // may repeat and stay on one thread, in order.
  auto run = [&](auto tag, auto combine) {
    using scalar_t = typename decltype(tag)::type;
    scalar_t* out = static_cast<scalar_t*>(self.data_ptr());
    const scalar_t* in = static_cast<const scalar_t*>(src);
    const int64_t* offsets = plan.offsets.data();
    parallel_for(np, np * nb * nq, [&](int64_t begin, int64_t end) {
      StridedWalk<1> walk(plan.pre_sizes, {plan.pre_strides}, begin);
      for (int64_t p = begin; p < end; ++p, walk.next()) {
        for (int64_t b = 0; b < nb; ++b) {
          scalar_t* d = out + walk.offset[0] + offsets[b];
          const scalar_t* s = in + (p * nb + b) * nq;
          for (int64_t q = 0; q < nq; ++q) {
            scalar_t& x = d[post[static_cast<size_t>(q)]];
            x = combine(x, s[q]);
          }
        }
      }
    });
  };
  if (!accumulate) {
    dispatch_by_size(self.itemsize(), op, [&](auto tag) {
      using word_t = typename decltype(tag)::type;
      run(tag, [](word_t, word_t v) { return v; });
    });
    return;
  }
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), op, [&] {
    run(TypeTag<scalar_t>{}, [](scalar_t a, scalar_t b) -> scalar_t {
      if constexpr (std::is_same_v<scalar_t, bool>) {
        return a || b;
      } else if constexpr (std::is_integral_v<scalar_t>) {
        return static_cast<scalar_t>(static_cast<wrap_t<scalar_t>>(a) +
                                     static_cast<wrap_t<scalar_t>>(b));
      } else {
        return static_cast<scalar_t>(static_cast<opmath_t<scalar_t>>(a) +
                                     static_cast<opmath_t<scalar_t>>(b));
      }
    });
  });
}


}  // namespace ember::cpu
