#include "aten/WrapDimUtils.h"

#include <algorithm>

namespace at {

std::vector<int64_t> infer_size(c10::IntArrayRef shape, int64_t numel,
                                const char* where) {
  std::vector<int64_t> out = shape.vec();
  int64_t known = 1;
  int64_t infer_at = -1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      TORCH_CHECK(infer_at < 0, where, ": only one dimension can be inferred "
                  "(-1), but shape ", shape, " has several.");
      infer_at = static_cast<int64_t>(i);
    } else {
      TORCH_CHECK(out[i] >= 0, where, ": invalid shape dimension ", out[i],
                  " in ", shape, "; sizes must be non-negative (or -1 to infer).");
      known *= out[i];
    }
  }
  if (infer_at >= 0) {
    TORCH_CHECK(known != 0 && numel % known == 0, where, ": shape ", shape,
                " is invalid for input of size ", numel, ".");
    out[static_cast<size_t>(infer_at)] = numel / known;
  } else {
    TORCH_CHECK(known == numel, where, ": shape ", shape,
                " is invalid for input of size ", numel,
                "; the shape must hold exactly as many elements.");
  }
  return out;
}

std::vector<int64_t> infer_broadcast_shape(c10::IntArrayRef a, c10::IntArrayRef b,
                                           const char* where) {
  const size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    TORCH_CHECK(da == db || da == 1 || db == 1, where, ": shapes ", a, " and ", b,
                " cannot be broadcast together; the trailing dimensions must "
                "match or be 1.");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Walks the old dims in chunks that are contiguous with each other (each
// stride equals the next stride times the next size) and maps each chunk to
// a run of new dims with the same number of elements.
bool compute_view_strides(c10::IntArrayRef old_sizes, c10::IntArrayRef old_strides,
                          c10::IntArrayRef new_sizes, std::vector<int64_t>* new_strides) {
  new_strides->assign(new_sizes.size(), 0);
  int64_t numel = 1;
  for (int64_t s : old_sizes) numel *= s;
  if (numel == 0) {
    // Any strides do: use contiguous ones.
    int64_t stride = 1;
    for (size_t i = new_sizes.size(); i-- > 0;) {
      (*new_strides)[i] = stride;
      stride *= std::max<int64_t>(new_sizes[i], 1);
    }
    return true;
  }
  if (old_sizes.empty()) {
    // One element: every new dim has size 1, and any stride reaches it.
    std::fill(new_strides->begin(), new_strides->end(), 1);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = old_strides.empty() ? 1 : old_strides.back();
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[static_cast<size_t>(d)];
    const bool chunk_ends =
        d == 0 || (old_sizes[static_cast<size_t>(d - 1)] != 1 &&
                   old_strides[static_cast<size_t>(d - 1)] !=
                       tensor_numel * chunk_base_stride);
    if (chunk_ends) {
      while (view_d >= 0 &&
             (view_numel < tensor_numel || new_sizes[static_cast<size_t>(view_d)] == 1)) {
        (*new_strides)[static_cast<size_t>(view_d)] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[static_cast<size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = old_strides[static_cast<size_t>(d - 1)];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

}  // namespace at
