// The CPU plugin's sort and topk: each slice along `dim` is copied into a
// buffer of (key, position) pairs, ordered there, and written back; slices
// run in parallel when the tensor is large.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "aten/WrapDimUtils.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/indexing_utils.h"
#include "backends/cpu/sort.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

// Strict weak orders with NaN above every number (NaNs equal each other).
template <typename K>
bool nan_last_less(K a, K b) {
  return (!is_nan(a) && is_nan(b)) || a < b;
}
template <typename K>
bool nan_first_greater(K a, K b) {
  return (is_nan(a) && !is_nan(b)) || a > b;
}

// The dims other than `dim`, and self's and the result's strides on them.
struct SliceLoop {
  std::vector<int64_t> sizes;
  std::vector<int64_t> self_strides;
  std::vector<int64_t> out_strides;
  int64_t count = 1;
};

SliceLoop slice_loop(const at::Tensor& self, const at::Tensor& out, int64_t dim) {
  SliceLoop loop;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d == dim) continue;
    loop.sizes.push_back(self.size(d));
    loop.self_strides.push_back(self.stride(d));
    loop.out_strides.push_back(out.stride(d));
    loop.count *= self.size(d);
  }
  return loop;
}

// For every slice: fill the buffer with (key, position), order the first k
// with `order(buffer, k)`, write k values and indices (contiguous outputs
// of self's shape with size k at dim).
template <typename scalar_t, typename Order>
void per_slice(const at::Tensor& self, int64_t dim, int64_t k, const at::Tensor& values,
               const at::Tensor& indices, const Order& order) {
  using key_t = opmath_t<scalar_t>;
  const int64_t n = self.dim() == 0 ? 1 : self.size(dim);
  const int64_t ss = self.dim() == 0 ? 1 : self.stride(dim);
  const int64_t os = values.dim() == 0 ? 1 : values.stride(dim);
  const SliceLoop loop = slice_loop(self, values, dim);
  const scalar_t* src = static_cast<const scalar_t*>(self.data_ptr());
  scalar_t* vout = static_cast<scalar_t*>(values.data_ptr());
  int64_t* iout = static_cast<int64_t*>(indices.data_ptr());
  if (n == 0 || loop.count == 0) return;
  parallel_for(loop.count, loop.count * n * 8, [&](int64_t begin, int64_t end) {
    std::vector<std::pair<key_t, int64_t>> buf(static_cast<size_t>(n));
    StridedWalk<2> walk(loop.sizes, {loop.self_strides, loop.out_strides}, begin);
    for (int64_t s = begin; s < end; ++s, walk.next()) {
      const scalar_t* p = src + walk.offset[0];
      for (int64_t i = 0; i < n; ++i) {
        buf[static_cast<size_t>(i)] = {static_cast<key_t>(p[i * ss]), i};
      }
      order(buf, k);
      for (int64_t i = 0; i < k; ++i) {
        const auto& e = buf[static_cast<size_t>(i)];
        vout[walk.offset[1] + i * os] = p[e.second * ss];
        iout[walk.offset[1] + i * os] = e.second;
      }
    }
  });
}

std::vector<int64_t> with_size(const at::Tensor& self, int64_t dim, int64_t k) {
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  if (self.dim() > 0) shape[static_cast<size_t>(dim)] = k;
  return shape;
}

void sort_into(const at::Tensor& self, int64_t dim, bool descending,
               const at::Tensor& values, const at::Tensor& indices) {
  const int64_t n = self.dim() == 0 ? 1 : self.size(dim);
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), "sort", [&] {
    using key_t = opmath_t<scalar_t>;
    using entry = std::pair<key_t, int64_t>;
    per_slice<scalar_t>(self, dim, n, values, indices,
                        [descending](std::vector<entry>& buf, int64_t) {
                          if (descending) {
                            std::stable_sort(buf.begin(), buf.end(),
                                             [](const entry& a, const entry& b) {
                                               return nan_first_greater(a.first, b.first);
                                             });
                          } else {
                            std::stable_sort(buf.begin(), buf.end(),
                                             [](const entry& a, const entry& b) {
                                               return nan_last_less(a.first, b.first);
                                             });
                          }
                        });
  });
}

void check_outputs(const at::Tensor& self, at::Tensor& values, at::Tensor& indices,
                   const char* op) {
  check_out_dtype(values, self.scalar_type(), op);
  check_out_dtype(indices, c10::ScalarType::Long, op);
  check_no_overlap(values, self, op);
  check_no_overlap(indices, self, op);
  check_no_overlap(values, indices, op);
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> sort_stable(const at::Tensor& self,
                                               std::optional<bool> stable, int64_t dim,
                                               bool descending) {
  (void)stable;  // always stable
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), "sort");
  at::Tensor values = empty_cpu(self.sizes(), self.scalar_type(), "sort");
  at::Tensor indices = empty_cpu(self.sizes(), c10::ScalarType::Long, "sort");
  sort_into(self, wrapped, descending, values, indices);
  return {values, indices};
}

std::tuple<at::Tensor&, at::Tensor&> sort_values_stable(
    const at::Tensor& self, std::optional<bool> stable, int64_t dim, bool descending,
    at::Tensor& values, at::Tensor& indices) {
  (void)stable;
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), "sort");
  check_outputs(self, values, indices, "sort_out");
  auto [v, i] = sort_stable(self, stable, wrapped, descending);
  resize_output(values, self.sizes(), "sort_out");
  resize_output(indices, self.sizes(), "sort_out");
  copy_into(values, v);
  copy_into(indices, i);
  return {values, indices};
}

std::tuple<at::Tensor, at::Tensor> topk(const at::Tensor& self, int64_t k, int64_t dim,
                                        bool largest, bool sorted) {
  (void)sorted;  // results are always in order, which sorted=false allows
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), "topk");
  const int64_t n = self.dim() == 0 ? 1 : self.size(wrapped);
  TORCH_CHECK_INDEX(k >= 0 && k <= n, "topk: selected index k out of range: k is ", k,
                    " but dimension ", wrapped, " has size ", n,
                    "; pick 0 <= k <= ", n, ".");
  TORCH_CHECK(self.scalar_type() != c10::ScalarType::Bool,
              "topk: \"topk_cpu\" not implemented for 'Bool'; convert the input to an "
              "integral or floating dtype first.");
  at::Tensor values = empty_cpu(with_size(self, wrapped, k), self.scalar_type(), "topk");
  at::Tensor indices =
      empty_cpu(with_size(self, wrapped, k), c10::ScalarType::Long, "topk");
  if (k == 0) return {values, indices};
  EMBER_DISPATCH_ALL_TYPES_BUT_BOOL(self.scalar_type(), "topk", [&] {
    using key_t = opmath_t<scalar_t>;
    using entry = std::pair<key_t, int64_t>;
    // Ties go to the lower position, so the order is total and repeatable.
    per_slice<scalar_t>(self, wrapped, k, values, indices,
                        [largest](std::vector<entry>& buf, int64_t kk) {
                          auto mid = buf.begin() + kk;
                          if (largest) {
                            std::partial_sort(buf.begin(), mid, buf.end(),
                                              [](const entry& a, const entry& b) {
                                                if (nan_first_greater(a.first, b.first)) return true;
                                                if (nan_first_greater(b.first, a.first)) return false;
                                                return a.second < b.second;
                                              });
                          } else {
                            std::partial_sort(buf.begin(), mid, buf.end(),
                                              [](const entry& a, const entry& b) {
                                                if (nan_last_less(a.first, b.first)) return true;
                                                if (nan_last_less(b.first, a.first)) return false;
                                                return a.second < b.second;
                                              });
                          }
                        });
  });
  return {values, indices};
}

std::tuple<at::Tensor&, at::Tensor&> topk_out(const at::Tensor& self, int64_t k,
                                              int64_t dim, bool largest, bool sorted,
                                              at::Tensor& values, at::Tensor& indices) {
  check_outputs(self, values, indices, "topk_out");
  auto [v, i] = topk(self, k, dim, largest, sorted);
  resize_output(values, v.sizes(), "topk_out");
  resize_output(indices, i.sizes(), "topk_out");
  copy_into(values, v);
  copy_into(indices, i);
  return {values, indices};
}

}  // namespace ember::cpu
