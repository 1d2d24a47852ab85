// View ops: new TensorImpls over the same storage, sharing the version
// counter. They only compute metadata, so one CompositeExplicitAutograd
// kernel serves every backend.
#include <algorithm>
#include <numeric>

#include "aten/Functions.h"
#include "aten/WrapDimUtils.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

// A view of `self` with the given geometry. See Note [Version counter].
Tensor make_view(const Tensor& self, IntArrayRef sizes, IntArrayRef strides,
                 int64_t storage_offset) {
  auto impl = c10::make_intrusive<c10::TensorImpl>(
      c10::Storage(self.storage()),
      c10::DispatchKeySet(c10::computeDispatchKey(self.device().type())),
      self.scalar_type());
  impl->set_sizes_and_strides(sizes, strides, storage_offset);
  impl->set_version_counter(self.unsafeGetTensorImpl()->version_counter());
  return Tensor(std::move(impl));
}

Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                  std::optional<int64_t> storage_offset) {
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  TORCH_CHECK(size.size() == stride.size(), "as_strided: got ", size.size(),
              " sizes ", size, " but ", stride.size(), " strides ", stride,
              "; pass one stride per dimension.");
  TORCH_CHECK(offset >= 0, "as_strided: storage offset must be non-negative, "
              "but got ", offset, ".");
  int64_t last = offset;
  bool empty = false;
  for (size_t i = 0; i < size.size(); ++i) {
    TORCH_CHECK(size[i] >= 0 && stride[i] >= 0, "as_strided: sizes and strides "
                "must be non-negative, but got size ", size, " and stride ",
                stride, ".");
    empty = empty || size[i] == 0;
    last += (size[i] - 1) * stride[i];
  }
  if (!empty) {
    const int64_t needed = (last + 1) * static_cast<int64_t>(self.itemsize());
    TORCH_CHECK(needed <= static_cast<int64_t>(self.storage().nbytes()),
                "as_strided: size ", size, ", stride ", stride,
                " and storage offset ", offset, " reach byte ", needed,
                " of a storage of ", self.storage().nbytes(),
                " bytes; the view must stay inside its storage.");
  }
  return make_view(self, size, stride, offset);
}

Tensor view(const Tensor& self, IntArrayRef size) {
  const std::vector<int64_t> shape = infer_size(size, self.numel(), "view");
  std::vector<int64_t> strides;
  TORCH_CHECK(compute_view_strides(self.sizes(), self.strides(), shape, &strides),
              "view: size ", IntArrayRef(shape), " is not compatible with the "
              "input's size ", self.sizes(), " and stride ", self.strides(),
              " (at least one dimension spans across two contiguous "
              "subspaces). Use .reshape(...) instead.");
  return make_view(self, shape, strides, self.storage_offset());
}

Tensor reshape(const Tensor& self, IntArrayRef shape) {
  const std::vector<int64_t> sizes = infer_size(shape, self.numel(), "reshape");
  std::vector<int64_t> strides;
  if (compute_view_strides(self.sizes(), self.strides(), sizes, &strides)) {
    return make_view(self, sizes, strides, self.storage_offset());
  }
  return at::clone(self, MemoryFormat::Contiguous).view(sizes);
}

Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  const int64_t n = self.dim();
  dim0 = maybe_wrap_dim(dim0, n, "transpose");
  dim1 = maybe_wrap_dim(dim1, n, "transpose");
  if (n == 0) return make_view(self, {}, {}, self.storage_offset());
  std::vector<int64_t> sizes = self.sizes().vec();
  std::vector<int64_t> strides = self.strides().vec();
  std::swap(sizes[static_cast<size_t>(dim0)], sizes[static_cast<size_t>(dim1)]);
  std::swap(strides[static_cast<size_t>(dim0)], strides[static_cast<size_t>(dim1)]);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor t(const Tensor& self) {
  TORCH_CHECK(self.dim() <= 2, "t: expected a tensor with <= 2 dimensions, but "
              "got ", self.dim(), "-d; use transpose(dim0, dim1) or permute.");
  return self.dim() < 2 ? make_view(self, self.sizes(), self.strides(),
                                    self.storage_offset())
                        : native::transpose(self, 0, 1);
}

Tensor permute(const Tensor& self, IntArrayRef dims) {
  const int64_t n = self.dim();
  TORCH_CHECK(static_cast<int64_t>(dims.size()) == n, "permute: the number of "
              "dims ", dims.size(), " does not match the tensor's ", n,
              " dimensions; pass a permutation of all of them.");
  std::vector<int64_t> sizes(dims.size()), strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = maybe_wrap_dim(dims[i], n, "permute");
    TORCH_CHECK(!seen[static_cast<size_t>(d)], "permute: dim ", d,
                " is repeated in ", dims, "; pass each dimension once.");
    seen[static_cast<size_t>(d)] = true;
    sizes[i] = self.sizes()[static_cast<size_t>(d)];
    strides[i] = self.strides()[static_cast<size_t>(d)];
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor expand(const Tensor& self, IntArrayRef size, bool /*implicit*/) {
  const int64_t n = self.dim();
  const int64_t m = static_cast<int64_t>(size.size());
  TORCH_CHECK(m >= n, "expand: the number of sizes provided (", m,
              ") must be greater or equal to the number of dimensions in the "
              "tensor (", n, ").");
  std::vector<int64_t> sizes(size.size()), strides(size.size());
  for (int64_t i = m - 1; i >= 0; --i) {
    const int64_t j = i - (m - n);  // matching dim of self, or < 0 (new)
    const int64_t target = size[static_cast<size_t>(i)];
    if (j < 0) {
      TORCH_CHECK(target >= 0, "expand: size ", target, " at new leading "
                  "dimension ", i, " must be non-negative (-1 is only allowed "
                  "for existing dimensions).");
      sizes[static_cast<size_t>(i)] = target;
      strides[static_cast<size_t>(i)] = 0;
      continue;
    }
    const int64_t cur = self.sizes()[static_cast<size_t>(j)];
    const int64_t want = target == -1 ? cur : target;
    TORCH_CHECK(cur == want || cur == 1, "expand: the expanded size of the tensor (",
                want, ") must match the existing size (", cur,
                ") at non-singleton dimension ", i, ". Target sizes: ", size,
                ". Tensor sizes: ", self.sizes());
    sizes[static_cast<size_t>(i)] = want;
    strides[static_cast<size_t>(i)] =
        cur == want ? self.strides()[static_cast<size_t>(j)] : 0;
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor unsqueeze(const Tensor& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim() + 1, "unsqueeze");
  std::vector<int64_t> sizes = self.sizes().vec();
  std::vector<int64_t> strides = self.strides().vec();
  const size_t d = static_cast<size_t>(dim);
  const int64_t stride = d < sizes.size() ? sizes[d] * strides[d] : 1;
  sizes.insert(sizes.begin() + dim, 1);
  strides.insert(strides.begin() + dim, stride);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze(const Tensor& self) {
  std::vector<int64_t> sizes, strides;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (self.size(i) != 1) {
      sizes.push_back(self.size(i));
      strides.push_back(self.stride(i));
    }
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze_dim(const Tensor& self, int64_t dim) {
  dim = maybe_wrap_dim(dim, self.dim(), "squeeze");
  if (self.dim() == 0 || self.size(dim) != 1) {
    return make_view(self, self.sizes(), self.strides(), self.storage_offset());
  }
  std::vector<int64_t> sizes = self.sizes().vec();
  std::vector<int64_t> strides = self.strides().vec();
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  TORCH_CHECK_INDEX(self.dim() > 0, "select: cannot select from a 0-d tensor; "
                    "it has no dimension to index.");
  dim = maybe_wrap_dim(dim, self.dim(), "select");
  const int64_t size = self.size(dim);
  TORCH_CHECK_INDEX(index >= -size && index < size, "select: index ", index,
                    " is out of range for tensor of size ", self.sizes(),
                    " at dimension ", dim, ".");
  if (index < 0) index += size;
  std::vector<int64_t> sizes = self.sizes().vec();
  std::vector<int64_t> strides = self.strides().vec();
  const int64_t offset = self.storage_offset() + index * strides[static_cast<size_t>(dim)];
  sizes.erase(sizes.begin() + dim);
  strides.erase(strides.begin() + dim);
  return make_view(self, sizes, strides, offset);
}

Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start_opt,
             std::optional<int64_t> end_opt, int64_t step) {
  TORCH_CHECK_INDEX(self.dim() > 0, "slice: cannot slice a 0-d tensor.");
  dim = maybe_wrap_dim(dim, self.dim(), "slice");
  TORCH_CHECK(step > 0, "slice: step must be positive, but got ", step, ".");
  const int64_t size = self.size(dim);
  auto clamp = [size](int64_t v) {
    if (v < 0) v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  const int64_t start = clamp(start_opt.value_or(0));
  const int64_t end = std::max(start, clamp(end_opt.value_or(size)));
  std::vector<int64_t> sizes = self.sizes().vec();
  std::vector<int64_t> strides = self.strides().vec();
  const size_t d = static_cast<size_t>(dim);
  const int64_t offset = self.storage_offset() + start * strides[d];
  sizes[d] = (end - start + step - 1) / step;
  strides[d] *= step;
  return make_view(self, sizes, strides, offset);
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  TORCH_CHECK(self.dim() > 0, "narrow: cannot narrow a 0-d tensor.");
  dim = maybe_wrap_dim(dim, self.dim(), "narrow");
  const int64_t size = self.size(dim);
  TORCH_CHECK_INDEX(start >= -size && start <= size, "narrow: start ", start,
                    " is out of range for dimension ", dim, " of size ", size, ".");
  if (start < 0) start += size;
  TORCH_CHECK(length >= 0 && start + length <= size, "narrow: start (", start,
              ") + length (", length, ") exceeds dimension size (", size, ").");
  return native::slice(self, dim, start, start + length, 1);
}

Tensor alias(const Tensor& self) {
  return make_view(self, self.sizes(), self.strides(), self.storage_offset());
}

Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  TORCH_CHECK(memory_format == MemoryFormat::Contiguous, "contiguous: memory "
              "format ", memory_format, " is not supported yet; use "
              "MemoryFormat::Contiguous.");
  if (self.is_contiguous()) return self;
  return at::clone(self, MemoryFormat::Contiguous);
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("as_strided", TORCH_FN(at::native::as_strided));
  m.impl("view", TORCH_FN(at::native::view));
  m.impl("transpose.int", TORCH_FN(at::native::transpose));
  m.impl("t", TORCH_FN(at::native::t));
  m.impl("permute", TORCH_FN(at::native::permute));
  m.impl("expand", TORCH_FN(at::native::expand));
  m.impl("unsqueeze", TORCH_FN(at::native::unsqueeze));
  m.impl("squeeze", TORCH_FN(at::native::squeeze));
  m.impl("squeeze.dim", TORCH_FN(at::native::squeeze_dim));
  m.impl("select.int", TORCH_FN(at::native::select));
  m.impl("slice.Tensor", TORCH_FN(at::native::slice));
  m.impl("alias", TORCH_FN(at::native::alias));
}

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("reshape", TORCH_FN(at::native::reshape));
  m.impl("narrow", TORCH_FN(at::native::narrow));
  m.impl("contiguous", TORCH_FN(at::native::contiguous));
}
