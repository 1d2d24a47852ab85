// View ops: new TensorImpls over the same storage, sharing the version
// counter. They only compute metadata, so one CompositeExplicitAutograd
// kernel serves every backend.
#include <algorithm>
#include <numeric>

#include "aten/Functions.h"
#include "aten/WrapDimUtils.h"
#include "c10/core/StridedExtent.h"
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
  for (size_t i = 0; i < size.size(); ++i) {
    TORCH_CHECK(size[i] >= 0 && stride[i] >= 0, "as_strided: sizes and strides "
                "must be non-negative, but got size ", size, " and stride ",
                stride, ".");
  }
  // See Note [Strided extent]: a sum that wrapped would pass the check.
  int64_t needed = 0;
  TORCH_CHECK(c10::strided_end_bytes(size, stride, offset, self.itemsize(), &needed),
              "as_strided: size ", size, ", stride ", stride, " and storage offset ", offset,
              " reach further than a 64-bit size holds; the view must stay inside its "
              "storage of ", self.storage().nbytes(), " bytes.");
  TORCH_CHECK(needed <= static_cast<int64_t>(self.storage().nbytes()),
              "as_strided: size ", size, ", stride ", stride,
              " and storage offset ", offset, " reach byte ", needed,
              " of a storage of ", self.storage().nbytes(),
              " bytes; the view must stay inside its storage.");
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
  // Through the view op (not make_view), so autograd records it: reshape
  // is composite.
  if (compute_view_strides(self.sizes(), self.strides(), sizes, &strides)) {
    return self.view(sizes);
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
  return at::slice(self, dim, start, start + length, 1);
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


// detach: the same data without autograd history (the autograd package
// keeps this view out of the graph).
Tensor detach(const Tensor& self) {
  return make_view(self, self.sizes(), self.strides(), self.storage_offset());
}

// The diagonal of dims dim1 and dim2 (offset > 0 above the main diagonal,
// < 0 below) becomes the last dim of the view.
Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t n = self.dim();
  TORCH_CHECK(n >= 2, "diagonal: expected a tensor with at least 2 dimensions, "
              "but got a ", n, "-d tensor of sizes ", self.sizes(), ".");
  dim1 = maybe_wrap_dim(dim1, n, "diagonal");
  dim2 = maybe_wrap_dim(dim2, n, "diagonal");
  TORCH_CHECK(dim1 != dim2, "diagonal: dimensions dim1 and dim2 cannot be "
              "identical (both are ", dim1, "); pass two different dims.");
  int64_t storage_offset = self.storage_offset();
  int64_t length;
  if (offset >= 0) {
    length = std::max<int64_t>(std::min(self.size(dim1), self.size(dim2) - offset), 0);
    if (length > 0) storage_offset += offset * self.stride(dim2);
  } else {
    length = std::max<int64_t>(std::min(self.size(dim1) + offset, self.size(dim2)), 0);
    if (length > 0) storage_offset -= offset * self.stride(dim1);
  }
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < n; ++d) {
    if (d == dim1 || d == dim2) continue;
    sizes.push_back(self.size(d));
    strides.push_back(self.stride(d));
  }
  sizes.push_back(length);
  strides.push_back(self.stride(dim1) + self.stride(dim2));
  return make_view(self, sizes, strides, storage_offset);
}

// movedim: dims `source` move to positions `destination`; the others keep
// their order in the remaining positions.
Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  const int64_t n = self.dim();
  TORCH_CHECK(source.size() == destination.size(), "movedim: Invalid source or "
              "destination dims: source (", source, " dims) should contain the "
              "same number of dims as destination (", destination, " dims).");
  std::vector<int64_t> perm(static_cast<size_t>(n), -1);
  std::vector<bool> src_used(static_cast<size_t>(n), false);
  for (size_t i = 0; i < source.size(); ++i) {
    const int64_t s = maybe_wrap_dim(source[i], n, "movedim");
    const int64_t d = maybe_wrap_dim(destination[i], n, "movedim");
    TORCH_CHECK(!src_used[static_cast<size_t>(s)], "movedim: repeated dim in "
                "`source` (", source, "); pass each dim once.");
    TORCH_CHECK(perm[static_cast<size_t>(d)] == -1, "movedim: repeated dim in "
                "`destination` (", destination, "); pass each dim once.");
    src_used[static_cast<size_t>(s)] = true;
    perm[static_cast<size_t>(d)] = s;
  }
  int64_t next = 0;
  for (auto& p : perm) {
    if (p != -1) continue;
    while (src_used[static_cast<size_t>(next)]) ++next;
    p = next++;
  }
  return at::permute(self, perm);
}

Tensor movedim_int(const Tensor& self, int64_t source, int64_t destination) {
  return native::movedim(self, IntArrayRef(source), IntArrayRef(destination));
}

// split_with_sizes: consecutive views of the given lengths along dim.
std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes,
                                     int64_t dim) {
  TORCH_CHECK(self.dim() > 0, "split_with_sizes: expected a tensor with at "
              "least 1 dimension, but got a 0-d tensor.");
  dim = maybe_wrap_dim(dim, self.dim(), "split_with_sizes");
  const int64_t size = self.size(dim);
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    TORCH_CHECK(s >= 0, "split_with_sizes: split sizes must be non-negative, but "
                "got ", split_sizes, ".");
    total += s;
  }
  TORCH_CHECK(total == size, "split_with_sizes: split_sizes ", split_sizes,
              " must sum to the size of dimension ", dim, " (", size, "), but "
              "they sum to ", total, ".");
  std::vector<Tensor> parts;
  parts.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    parts.push_back(native::slice(self, dim, start, start + s, 1));
    start += s;
  }
  return parts;
}

// split: views of split_size along dim; the last may be smaller.
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  TORCH_CHECK(self.dim() > 0, "split: expected a tensor with at least 1 "
              "dimension, but got a 0-d tensor.");
  dim = maybe_wrap_dim(dim, self.dim(), "split");
  const int64_t size = self.size(dim);
  TORCH_CHECK(split_size > 0 || (split_size == 0 && size == 0), "split: "
              "split_size must be positive (or 0 for an empty dimension), but "
              "got split_size ", split_size, " for dimension ", dim,
              " of size ", size, ".");
  const int64_t count = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  std::vector<int64_t> sizes(static_cast<size_t>(count), split_size);
  sizes.back() = size - split_size * (count - 1);
  return native::split_with_sizes(self, sizes, dim);
}

std::vector<Tensor> split_sizes(const Tensor& self, IntArrayRef split_size,
                                int64_t dim) {
  return at::split_with_sizes(self, split_size, dim);
}

// chunk: `chunks` pieces of ceil(size / chunks) (fewer when they run out).
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  TORCH_CHECK(self.dim() > 0, "chunk: expected a tensor with at least 1 "
              "dimension, but got a 0-d tensor.");
  TORCH_CHECK(chunks > 0, "chunk: the number of chunks must be greater than "
              "0, but got ", chunks, ".");
  dim = maybe_wrap_dim(dim, self.dim(), "chunk");
  const int64_t size = self.size(dim);
  const int64_t split_size = (size + chunks - 1) / chunks;
  if (split_size == 0 && size == 0) {
    std::vector<int64_t> sizes(static_cast<size_t>(chunks), 0);
    return at::split_with_sizes(self, sizes, dim);
  }
  return at::split(self, split_size, dim);
}

// unbind: every index of dim as its own view.
std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  TORCH_CHECK(self.dim() > 0, "unbind: expected a tensor with at least 1 "
              "dimension, but got a 0-d tensor.");
  dim = maybe_wrap_dim(dim, self.dim(), "unbind");
  std::vector<Tensor> parts;
  parts.reserve(static_cast<size_t>(self.size(dim)));
  for (int64_t i = 0; i < self.size(dim); ++i) parts.push_back(native::select(self, dim, i));
  return parts;
}

Tensor expand_as(const Tensor& self, const Tensor& other) {
  return self.expand(other.sizes());
}

Tensor view_as(const Tensor& self, const Tensor& other) {
  return self.view(other.sizes());
}

Tensor reshape_as(const Tensor& self, const Tensor& other) {
  return self.reshape(other.sizes());
}

// flatten: dims start_dim..end_dim become one (a 0-d tensor becomes 1-d).
Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  if (self.dim() == 0) return self.reshape({1});
  start_dim = maybe_wrap_dim(start_dim, self.dim(), "flatten");
  end_dim = maybe_wrap_dim(end_dim, self.dim(), "flatten");
  TORCH_CHECK(start_dim <= end_dim, "flatten: start_dim (", start_dim, ") "
              "cannot come after end_dim (", end_dim, ").");
  if (start_dim == end_dim) return self;
  std::vector<int64_t> sizes;
  int64_t folded = 1;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d < start_dim || d > end_dim) {
      sizes.push_back(self.size(d));
    } else {
      folded *= self.size(d);
      if (d == end_dim) sizes.push_back(folded);
    }
  }
  return self.reshape(sizes);
}

// unflatten: dim becomes `sizes` (one entry may be -1).
Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  dim = maybe_wrap_dim(dim, self.dim(), "unflatten");
  TORCH_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty.");
  const std::vector<int64_t> inferred = infer_size(sizes, self.size(dim), "unflatten");
  std::vector<int64_t> shape = self.sizes().vec();
  shape.erase(shape.begin() + dim);
  shape.insert(shape.begin() + dim, inferred.begin(), inferred.end());
  return self.view(shape);
}

// ---- select_backward, slice_backward, diagonal_backward ---------------------------------
// A zero tensor of the forward input's sizes with the incoming gradient
// written into the view the forward op took. Ops of their own (not helpers
// of autograd/FunctionsManual.cc), as in PyTorch, so that derivatives.txt can
// give them a derivative (the forward view of the gradient), and written
// with other ops, so that every backend has them.

// Writes `grad` into `view` (a view of a fresh zero tensor) after checking
// that its shape is the one the forward op produced from `input_sizes`.
void write_grad(const Tensor& view, const Tensor& grad, const char* op, IntArrayRef input_sizes) {
  TORCH_CHECK(grad.defined(), op, ": expected a defined grad_output, but got an undefined "
              "tensor. Pass the gradient of the forward op's output.");
  TORCH_CHECK(view.sizes() == grad.sizes(), op, ": grad_output of sizes ", grad.sizes(),
              " does not match the forward output's sizes ", view.sizes(),
              " for an input of sizes ", input_sizes,
              ". Pass the gradient of the forward op's output and that op's input sizes.");
  view.copy_(grad);
}

Tensor select_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t dim,
                       int64_t index) {
  Tensor out = at::zeros(input_sizes, grad_output.options());
  write_grad(out.select(dim, index), grad_output, "select_backward", input_sizes);
  return out;
}

Tensor slice_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t dim,
                      int64_t start, int64_t end, int64_t step) {
  Tensor out = at::zeros(input_sizes, grad_output.options());
  write_grad(out.slice(dim, start, end, step), grad_output, "slice_backward", input_sizes);
  return out;
}

Tensor diagonal_backward(const Tensor& grad_output, IntArrayRef input_sizes, int64_t offset,
                         int64_t dim1, int64_t dim2) {
  Tensor out = at::zeros(input_sizes, grad_output.options());
  write_grad(out.diagonal(offset, dim1, dim2), grad_output, "diagonal_backward", input_sizes);
  return out;
}
}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("select_backward", TORCH_FN(at::native::select_backward));
  m.impl("slice_backward", TORCH_FN(at::native::slice_backward));
  m.impl("diagonal_backward", TORCH_FN(at::native::diagonal_backward));
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
  m.impl("detach", TORCH_FN(at::native::detach));
  m.impl("diagonal", TORCH_FN(at::native::diagonal));
  m.impl("split.Tensor", TORCH_FN(at::native::split));
  m.impl("split_with_sizes", TORCH_FN(at::native::split_with_sizes));
  m.impl("unbind.int", TORCH_FN(at::native::unbind));
}

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("reshape", TORCH_FN(at::native::reshape));
  m.impl("narrow", TORCH_FN(at::native::narrow));
  m.impl("contiguous", TORCH_FN(at::native::contiguous));
  m.impl("expand_as", TORCH_FN(at::native::expand_as));
  m.impl("view_as", TORCH_FN(at::native::view_as));
  m.impl("reshape_as", TORCH_FN(at::native::reshape_as));
  m.impl("flatten.using_ints", TORCH_FN(at::native::flatten));
  m.impl("unflatten.int", TORCH_FN(at::native::unflatten));
  m.impl("movedim.int", TORCH_FN(at::native::movedim_int));
  m.impl("movedim.intlist", TORCH_FN(at::native::movedim));
  m.impl("split.sizes", TORCH_FN(at::native::split_sizes));
  m.impl("chunk", TORCH_FN(at::native::chunk));
}
