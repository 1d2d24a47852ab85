// The CPU plugin's index_select, gather, scatter and scatter_add.
#include <array>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "aten/WrapDimUtils.h"
#include "backends/cpu/indexing.h"
#include "backends/cpu/indexing_utils.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

// A 0-d tensor seen as 1-d of size 1 (scatter and gather treat it so).
c10::IntArrayRef sizes_1d(const at::Tensor& t) {
  static const int64_t kOne[] = {1};
  return t.dim() == 0 ? c10::IntArrayRef(kOne, 1) : t.sizes();
}
c10::IntArrayRef strides_1d(const at::Tensor& t) {
  static const int64_t kOne[] = {1};
  return t.dim() == 0 ? c10::IntArrayRef(kOne, 1) : t.strides();
}

int64_t read_index(const at::Tensor& index, int64_t offset) {
  if (index.scalar_type() == c10::ScalarType::Int) {
    return static_cast<const int32_t*>(index.data_ptr())[offset];
  }
  return static_cast<const int64_t*>(index.data_ptr())[offset];
}

void check_select_index(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  at::native::check_index_select_args(self, index);
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  check_index_range(index, size, dim, /*allow_negative=*/false, "index_select()");
}

// index_select into a fresh contiguous tensor of `shape`.
void index_select_into(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                       void* dst) {
  if (self.dim() == 0) {
    std::memcpy(dst, self.data_ptr(), self.itemsize());
    return;
  }
  BlockPlan plan;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d < dim) {
      plan.pre_sizes.push_back(self.size(d));
      plan.pre_strides.push_back(self.stride(d));
    } else if (d > dim) {
      plan.post_sizes.push_back(self.size(d));
      plan.post_strides.push_back(self.stride(d));
    }
  }
  const int64_t n = index.numel();
  plan.offsets.resize(static_cast<size_t>(n));
  const int64_t istride = index.dim() == 0 ? 0 : index.stride(0);
  for (int64_t i = 0; i < n; ++i) {
    plan.offsets[static_cast<size_t>(i)] = read_index(index, i * istride) * self.stride(dim);
  }
  take_blocks(self, plan, dst);
}

// Note [Gather and scatter loops]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Both walk index's shape: the dims other than `dim` in an outer walk (in
// parallel when large; different outer positions touch different elements
// of the written tensor), `dim` itself in an inner loop that reads the index
// and moves one element.
struct DimLoop {
  std::vector<int64_t> outer_sizes;
  std::array<std::vector<int64_t>, 3> outer_strides;  // index, self, other
  int64_t inner = 0;
  int64_t inner_strides[3] = {};
};

// `other` is gather's output or scatter's src (may be undefined: value).
DimLoop make_dim_loop(const at::Tensor& index, const at::Tensor& self,
                      const at::Tensor* other, int64_t dim) {
  DimLoop loop;
  const at::Tensor* ts[3] = {&index, &self, other};
  const c10::IntArrayRef sizes = sizes_1d(index);
  for (size_t d = 0; d < sizes.size(); ++d) {
    for (size_t k = 0; k < 3; ++k) {
      const int64_t stride =
          ts[k] == nullptr || !ts[k]->defined() ? 0 : strides_1d(*ts[k])[d];
      if (static_cast<int64_t>(d) == dim) {
        loop.inner_strides[k] = stride;
      } else {
        loop.outer_strides[k].push_back(stride);
      }
    }
    if (static_cast<int64_t>(d) == dim) {
      loop.inner = sizes[d];
    } else {
      loop.outer_sizes.push_back(sizes[d]);
    }
  }
  return loop;
}

// PyTorch's gather/scatter dtype, shape and range checks.
void check_gather_scatter(const char* op, const at::Tensor& self, int64_t dim,
                          const at::Tensor& index, const at::Tensor* src) {
  at::native::check_gather_scatter_args(op, self, dim, index, src);
  if (index.numel() == 0) return;
  check_index_range(index, sizes_1d(self)[dim], dim, /*allow_negative=*/false, op);
}

}  // namespace

at::Tensor& index_select_out(const at::Tensor& self, int64_t dim,
                             const at::Tensor& index, at::Tensor& out) {
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), "index_select()");
  check_select_index(self, wrapped, index);
  check_out_dtype(out, self.scalar_type(), "index_select_out()");
  check_no_overlap(out, self, "index_select_out()");
  check_no_overlap(out, index, "index_select_out()");
  const std::vector<int64_t> shape = at::native::index_select_shape(self, wrapped, index);
  resize_output(out, shape, "index_select_out()");
  if (out.is_contiguous()) {
    index_select_into(self, wrapped, index, out.data_ptr());
  } else {
    at::Tensor tmp = empty_cpu(shape, self.scalar_type(), "index_select");
    index_select_into(self, wrapped, index, tmp.data_ptr());
    copy_into(out, tmp);
  }
  return out;
}

at::Tensor index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), "index_select()");
  check_select_index(self, wrapped, index);
  at::Tensor out =
      empty_cpu(at::native::index_select_shape(self, wrapped, index), self.scalar_type(), "index_select");
  index_select_into(self, wrapped, index, out.data_ptr());
  return out;
}

namespace {

void gather_into(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                 const at::Tensor& out) {
  const DimLoop loop = make_dim_loop(index, self, &out, dim);
  int64_t outer = 1;
  for (int64_t s : loop.outer_sizes) outer *= s;
  if (index.numel() == 0) return;
  dispatch_by_size(self.itemsize(), "gather", [&](auto tag) {
    using word_t = typename decltype(tag)::type;
    const int64_t* idx = static_cast<const int64_t*>(index.data_ptr());
    const word_t* src = static_cast<const word_t*>(self.data_ptr());
    word_t* dst = static_cast<word_t*>(out.data_ptr());
    const int64_t is = loop.inner_strides[0];
    const int64_t ss = loop.inner_strides[1];
    const int64_t os = loop.inner_strides[2];
    const int64_t n = loop.inner;
    parallel_for(outer, outer * n, [&](int64_t begin, int64_t end) {
      StridedWalk<3> walk(loop.outer_sizes,
                          {loop.outer_strides[0], loop.outer_strides[1],
                           loop.outer_strides[2]},
                          begin);
      for (int64_t o = begin; o < end; ++o, walk.next()) {
        const int64_t* ip = idx + walk.offset[0];
        const word_t* sp = src + walk.offset[1];
        word_t* op = dst + walk.offset[2];
        for (int64_t j = 0; j < n; ++j) op[j * os] = sp[ip[j * is] * ss];
      }
    });
  });
}

}  // namespace

at::Tensor gather(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                  bool sparse_grad) {
  (void)sparse_grad;  // only selects the gradient's layout in PyTorch
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), "gather()");
  check_gather_scatter("gather", self, wrapped, index, nullptr);
  at::Tensor out = empty_cpu(index.sizes(), self.scalar_type(), "gather");
  gather_into(self, wrapped, index, out);
  return out;
}

at::Tensor& gather_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                       bool sparse_grad, at::Tensor& out) {
  (void)sparse_grad;
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), "gather()");
  check_gather_scatter("gather", self, wrapped, index, nullptr);
  check_out_dtype(out, self.scalar_type(), "gather_out()");
  check_no_overlap(out, self, "gather_out()");
  check_no_overlap(out, index, "gather_out()");
  resize_output(out, index.sizes(), "gather_out()");
  check_no_internal_overlap(out, "gather_out()");
  gather_into(self, wrapped, index, out);
  return out;
}

// ---- scatter ------------------------------------------------------------------------

namespace {

enum class Reduce { kNone, kAdd, kMultiply };

Reduce parse_reduce(c10::string_view reduce, const char* op) {
  return at::native::scatter_reduce_is_add(reduce, op) ? Reduce::kAdd : Reduce::kMultiply;
}

template <typename T>
T combine(Reduce r, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return r == Reduce::kAdd ? (a || b) : r == Reduce::kMultiply ? (a && b) : b;
  } else if constexpr (std::is_integral_v<T>) {
    using W = wrap_t<T>;
    return r == Reduce::kAdd        ? static_cast<T>(static_cast<W>(a) + static_cast<W>(b))
           : r == Reduce::kMultiply ? static_cast<T>(static_cast<W>(a) * static_cast<W>(b))
                                    : b;
  } else {
    using O = opmath_t<T>;
    return r == Reduce::kAdd        ? static_cast<T>(static_cast<O>(a) + static_cast<O>(b))
           : r == Reduce::kMultiply ? static_cast<T>(static_cast<O>(a) * static_cast<O>(b))
                                    : b;
  }
}

// self (in place) op= src or value at index's positions. See Note [Gather
// and scatter loops].
void scatter_impl(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                  const at::Tensor* src, const c10::Scalar* value, Reduce r,
                  const char* op) {
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), op);
  check_gather_scatter(op, self, wrapped, index, src);
  check_no_internal_overlap(self, op);
  check_no_overlap(self, index, op);
  if (src != nullptr) check_no_overlap(self, *src, op);
  if (index.numel() == 0) return;
  const DimLoop loop = make_dim_loop(index, self, src, wrapped);
  int64_t outer = 1;
  for (int64_t s : loop.outer_sizes) outer *= s;
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), op, [&] {
    const scalar_t v = value != nullptr ? value->to<scalar_t>() : scalar_t();
    const int64_t* idx = static_cast<const int64_t*>(index.data_ptr());
    scalar_t* dst = static_cast<scalar_t*>(self.data_ptr());
    const scalar_t* from =
        src != nullptr ? static_cast<const scalar_t*>(src->data_ptr()) : nullptr;
    const int64_t is = loop.inner_strides[0];
    const int64_t ds = loop.inner_strides[1];
    const int64_t fs = loop.inner_strides[2];
    const int64_t n = loop.inner;
    parallel_for(outer, outer * n, [&](int64_t begin, int64_t end) {
      StridedWalk<3> walk(loop.outer_sizes,
                          {loop.outer_strides[0], loop.outer_strides[1],
                           loop.outer_strides[2]},
                          begin);
      for (int64_t o = begin; o < end; ++o, walk.next()) {
        const int64_t* ip = idx + walk.offset[0];
        scalar_t* dp = dst + walk.offset[1];
        if (from != nullptr) {
          const scalar_t* fp = from + walk.offset[2];
          for (int64_t j = 0; j < n; ++j) {
            scalar_t& x = dp[ip[j * is] * ds];
            x = combine(r, x, fp[j * fs]);
          }
        } else {
          for (int64_t j = 0; j < n; ++j) {
            scalar_t& x = dp[ip[j * is] * ds];
            x = combine(r, x, v);
          }
        }
      }
    });
  });
}

at::Tensor scatter_copy(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                        const at::Tensor* src, const c10::Scalar* value, Reduce r,
                        const char* op) {
  at::Tensor out = empty_cpu(self.sizes(), self.scalar_type(), op);
  copy_into(out, self);
  scatter_impl(out, dim, index, src, value, r, op);
  return out;
}

at::Tensor& scatter_out_impl(const at::Tensor& self, int64_t dim,
                             const at::Tensor& index, const at::Tensor* src,
                             const c10::Scalar* value, Reduce r, at::Tensor& out,
                             const char* op) {
  check_out_dtype(out, self.scalar_type(), op);
  // Checked before out changes, so that a bad call leaves out as it was.
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), op);
  check_gather_scatter(op, self, wrapped, index, src);
  resize_output(out, self.sizes(), op);
  copy_into(out, self);
  scatter_impl(out, dim, index, src, value, r, op);
  return out;
}

}  // namespace

at::Tensor scatter_src(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                       const at::Tensor& src) {
  return scatter_copy(self, dim, index, &src, nullptr, Reduce::kNone, "scatter");
}
at::Tensor& scatter__src(at::Tensor& self, int64_t dim, const at::Tensor& index,
                         const at::Tensor& src) {
  scatter_impl(self, dim, index, &src, nullptr, Reduce::kNone, "scatter_");
  return self;
}
at::Tensor& scatter_src_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                            const at::Tensor& src, at::Tensor& out) {
  return scatter_out_impl(self, dim, index, &src, nullptr, Reduce::kNone, out,
                          "scatter_out");
}
at::Tensor scatter_value(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                         const c10::Scalar& value) {
  return scatter_copy(self, dim, index, nullptr, &value, Reduce::kNone, "scatter");
}
at::Tensor& scatter__value(at::Tensor& self, int64_t dim, const at::Tensor& index,
                           const c10::Scalar& value) {
  scatter_impl(self, dim, index, nullptr, &value, Reduce::kNone, "scatter_");
  return self;
}
at::Tensor& scatter_value_out(const at::Tensor& self, int64_t dim,
                              const at::Tensor& index, const c10::Scalar& value,
                              at::Tensor& out) {
  return scatter_out_impl(self, dim, index, nullptr, &value, Reduce::kNone, out,
                          "scatter_out");
}
at::Tensor scatter_src_reduce(const at::Tensor& self, int64_t dim,
                              const at::Tensor& index, const at::Tensor& src,
                              c10::string_view reduce) {
  return scatter_copy(self, dim, index, &src, nullptr, parse_reduce(reduce, "scatter"),
                      "scatter");
}
at::Tensor& scatter__src_reduce(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                const at::Tensor& src, c10::string_view reduce) {
  scatter_impl(self, dim, index, &src, nullptr, parse_reduce(reduce, "scatter_"),
               "scatter_");
  return self;
}
at::Tensor& scatter_src_reduce_out(const at::Tensor& self, int64_t dim,
                                   const at::Tensor& index, const at::Tensor& src,
                                   c10::string_view reduce, at::Tensor& out) {
  return scatter_out_impl(self, dim, index, &src, nullptr,
                          parse_reduce(reduce, "scatter_out"), out, "scatter_out");
}
at::Tensor scatter_value_reduce(const at::Tensor& self, int64_t dim,
                                const at::Tensor& index, const c10::Scalar& value,
                                c10::string_view reduce) {
  return scatter_copy(self, dim, index, nullptr, &value,
                      parse_reduce(reduce, "scatter"), "scatter");
}
at::Tensor& scatter__value_reduce(at::Tensor& self, int64_t dim,
                                  const at::Tensor& index, const c10::Scalar& value,
                                  c10::string_view reduce) {
  scatter_impl(self, dim, index, nullptr, &value, parse_reduce(reduce, "scatter_"),
               "scatter_");
  return self;
}
at::Tensor& scatter_value_reduce_out(const at::Tensor& self, int64_t dim,
                                     const at::Tensor& index, const c10::Scalar& value,
                                     c10::string_view reduce, at::Tensor& out) {
  return scatter_out_impl(self, dim, index, nullptr, &value,
                          parse_reduce(reduce, "scatter_out"), out, "scatter_out");
}
at::Tensor scatter_add(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                       const at::Tensor& src) {
  return scatter_copy(self, dim, index, &src, nullptr, Reduce::kAdd, "scatter_add");
}
at::Tensor& scatter_add_(at::Tensor& self, int64_t dim, const at::Tensor& index,
                         const at::Tensor& src) {
  scatter_impl(self, dim, index, &src, nullptr, Reduce::kAdd, "scatter_add_");
  return self;
}
at::Tensor& scatter_add_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                            const at::Tensor& src, at::Tensor& out) {
  return scatter_out_impl(self, dim, index, &src, nullptr, Reduce::kAdd, out,
                          "scatter_add_out");
}

}  // namespace ember::cpu
