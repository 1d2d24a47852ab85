// backends/cuda/gather_scatter_ops.cc — gather and scatter (assign, add,
// multiply; src or value; functional, in place and out=) and scatter_add on
// the CUDA key. Argument checks are the core's (aten/JoinUtils.h), shared
// with the CPU plugin; the index's values are checked on the device before
// anything is written, and the first bad one (row-major, as the CPU scans)
// is thrown in the CPU's words (Note [CUDA index checks]). Duplicate
// indices: assignment keeps one of the writes (which one is unspecified, as
// in PyTorch); add and multiply combine atomically, so float results vary
// in their last bits between runs.
#include <algorithm>

#include "aten/Functions.h"
#include "aten/JoinUtils.h"
#include "aten/Resize.h"
#include "aten/Tensor.h"
#include "aten/WrapDimUtils.h"
#include "backends/cuda/CUDAIterator.h"
#include "backends/cuda/IndexSupport.h"
#include "c10/core/DeviceGuard.h"
#include "registration/library.h"

namespace ember {
namespace cuda {
namespace {

enum Reduce : int { kAssign = 0, kAdd = 1, kMultiply = 2 };

Reduce parse_reduce(c10::string_view reduce, const char* op) {
  return at::native::scatter_reduce_is_add(reduce, op) ? kAdd : kMultiply;
}

// The launch geometry over index's shape (a 0-d tensor as 1-d of size 1).
kernels::GatherScatter geometry(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                const at::Tensor* other, const char* op) {
  kernels::GatherScatter a;
  a.ndim = static_cast<int>(std::max<int64_t>(index.dim(), 1));
  TORCH_CHECK(a.ndim <= kernels::kMaxDims, op, ": the CUDA kernels handle up to ",
              kernels::kMaxDims, " dimensions, but the index has ", index.dim(), ".");
  auto stride_of = [](const at::Tensor& t, int d) { return t.dim() == 0 ? 0 : t.stride(d); };
  for (int d = 0; d < a.ndim; ++d) {
    a.sizes[d] = index.dim() == 0 ? 1 : index.size(d);
    a.index_strides[d] = stride_of(index, d);
    a.self_strides[d] = stride_of(self, d);
    a.other_strides[d] = other != nullptr ? stride_of(*other, d) : 0;
  }
  a.dim = static_cast<int>(dim);
  a.self_dim_size = self.dim() == 0 ? 1 : self.size(dim);
  a.numel = index.numel();
  a.index = index.data_ptr<int64_t>();
  a.self = self.data_ptr();
  a.other = other != nullptr ? other->data_ptr() : nullptr;
  a.element_size = static_cast<int>(self.element_size());
  a.dtype = kernel_dtype(self.scalar_type(), op, KernelDtypes::kAll);
  return a;
}

// Every index value in [0, self.size(dim)), checked on the device; throws
// the CPU's IndexError for the first that is not.
void check_index_values(kernels::GatherScatter a, const at::Tensor& index, const char* op) {
  const c10::Device device = index.device();
  BadPosition bad(device);
  a.bad_position = bad.ptr();
  {
    c10::DeviceGuard guard(device);
    CUDAIterator::check_launch(op, kernels::launch_gather_check(a, current_stream(device)));
  }
  const int64_t position = bad.read();
  if (position >= 0) {
    at::native::throw_index_out_of_bounds(op, index_at(index, position), a.dim,
                                          a.self_dim_size);
  }
}

void gather_into(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                 const at::Tensor& out, const char* op) {
  if (index.numel() == 0) return;
  const kernels::GatherScatter a = geometry(self, dim, index, &out, op);
  check_index_values(a, index, op);
  c10::DeviceGuard guard(self.device());
  CUDAIterator::check_launch(op, kernels::launch_gather(a, current_stream(self.device())));
}

at::Tensor gather(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                  bool /*sparse_grad: the gradient's layout in PyTorch*/) {
  const char* op = "gather";
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), "gather()");
  at::native::check_gather_scatter_args(op, self, wrapped, index, nullptr);
  check_index_device(self, index, op);
  at::Tensor out = empty_cuda(index.sizes(), self.scalar_type(), self.device(), op);
  gather_into(self, wrapped, index, out, op);
  return out;
}

at::Tensor& gather_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                       bool /*sparse_grad*/, at::Tensor& out) {
  const char* op = "gather";
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), "gather()");
  at::native::check_gather_scatter_args(op, self, wrapped, index, nullptr);
  check_index_device(self, index, op);
  at::native::check_out_dtype(out, self.scalar_type(), "gather_out()");
  at::native::check_no_overlap(out, self, "gather_out()");
  at::native::check_no_overlap(out, index, "gather_out()");
  at::native::resize_output(out, index.sizes(), "gather_out()");
  at::native::check_no_internal_overlap(out, "gather_out()");
  gather_into(self, wrapped, index, out, op);
  return out;
}

// self (in place) op= src or value at index's positions.
void scatter_impl(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                  const at::Tensor* src, const c10::Scalar* value, Reduce r, const char* op) {
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), op);
  at::native::check_gather_scatter_args(op, self, wrapped, index, src);
  check_index_device(self, index, op);
  if (src != nullptr) check_index_device(self, *src, op);
  at::native::check_no_internal_overlap(self, op);
  at::native::check_no_overlap(self, index, op);
  if (src != nullptr) at::native::check_no_overlap(self, *src, op);
  const c10::ScalarType t = self.scalar_type();
  if (index.numel() == 0) return;
  kernels::GatherScatter a = geometry(self, wrapped, index, src, op);
  a.reduce = r;
  if (value != nullptr) a.value_bits = scalar_bits(*value, t);
  check_index_values(a, index, op);
  c10::DeviceGuard guard(self.device());
  CUDAIterator::check_launch(op, kernels::launch_scatter(a, current_stream(self.device())));
}

at::Tensor scatter_copy(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                        const at::Tensor* src, const c10::Scalar* value, Reduce r,
                        const char* op) {
  // Checked before allocating, so that argument errors come first.
  at::native::check_gather_scatter_args(op, self, at::maybe_wrap_dim(dim, self.dim(), op),
                                        index, src);
  at::Tensor out = empty_cuda(self.sizes(), self.scalar_type(), self.device(), op);
  out.copy_(self);
  scatter_impl(out, dim, index, src, value, r, op);
  return out;
}

at::Tensor& scatter_out_impl(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                             const at::Tensor* src, const c10::Scalar* value, Reduce r,
                             at::Tensor& out, const char* op) {
  at::native::check_out_dtype(out, self.scalar_type(), op);
  // Checked before out changes, so that a bad call leaves out as it was.
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), op);
  at::native::check_gather_scatter_args(op, self, wrapped, index, src);
  at::native::resize_output(out, self.sizes(), op);
  out.copy_(self);
  scatter_impl(out, dim, index, src, value, r, op);
  return out;
}

at::Tensor scatter_src(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                       const at::Tensor& src) {
  return scatter_copy(self, dim, index, &src, nullptr, kAssign, "scatter");
}
at::Tensor& scatter__src(at::Tensor& self, int64_t dim, const at::Tensor& index,
                         const at::Tensor& src) {
  scatter_impl(self, dim, index, &src, nullptr, kAssign, "scatter_");
  return self;
}
at::Tensor& scatter_src_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                            const at::Tensor& src, at::Tensor& out) {
  return scatter_out_impl(self, dim, index, &src, nullptr, kAssign, out, "scatter_out");
}
at::Tensor scatter_value(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                         const c10::Scalar& value) {
  return scatter_copy(self, dim, index, nullptr, &value, kAssign, "scatter");
}
at::Tensor& scatter__value(at::Tensor& self, int64_t dim, const at::Tensor& index,
                           const c10::Scalar& value) {
  scatter_impl(self, dim, index, nullptr, &value, kAssign, "scatter_");
  return self;
}
at::Tensor& scatter_value_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                              const c10::Scalar& value, at::Tensor& out) {
  return scatter_out_impl(self, dim, index, nullptr, &value, kAssign, out, "scatter_out");
}
at::Tensor scatter_src_reduce(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                              const at::Tensor& src, c10::string_view reduce) {
  return scatter_copy(self, dim, index, &src, nullptr, parse_reduce(reduce, "scatter"),
                      "scatter");
}
at::Tensor& scatter__src_reduce(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                const at::Tensor& src, c10::string_view reduce) {
  scatter_impl(self, dim, index, &src, nullptr, parse_reduce(reduce, "scatter_"), "scatter_");
  return self;
}
at::Tensor& scatter_src_reduce_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                   const at::Tensor& src, c10::string_view reduce,
                                   at::Tensor& out) {
  return scatter_out_impl(self, dim, index, &src, nullptr, parse_reduce(reduce, "scatter_out"),
                          out, "scatter_out");
}
at::Tensor scatter_value_reduce(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                const c10::Scalar& value, c10::string_view reduce) {
  return scatter_copy(self, dim, index, nullptr, &value, parse_reduce(reduce, "scatter"),
                      "scatter");
}
at::Tensor& scatter__value_reduce(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                  const c10::Scalar& value, c10::string_view reduce) {
  scatter_impl(self, dim, index, nullptr, &value, parse_reduce(reduce, "scatter_"), "scatter_");
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
  return scatter_copy(self, dim, index, &src, nullptr, kAdd, "scatter_add");
}
at::Tensor& scatter_add_(at::Tensor& self, int64_t dim, const at::Tensor& index,
                         const at::Tensor& src) {
  scatter_impl(self, dim, index, &src, nullptr, kAdd, "scatter_add_");
  return self;
}
at::Tensor& scatter_add_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                            const at::Tensor& src, at::Tensor& out) {
  return scatter_out_impl(self, dim, index, &src, nullptr, kAdd, out, "scatter_add_out");
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("gather", TORCH_FN(gather));
  m.impl("gather.out", TORCH_FN(gather_out));
  m.impl("scatter.src", TORCH_FN(scatter_src));
  m.impl("scatter_.src", TORCH_FN(scatter__src));
  m.impl("scatter.src_out", TORCH_FN(scatter_src_out));
  m.impl("scatter.value", TORCH_FN(scatter_value));
  m.impl("scatter_.value", TORCH_FN(scatter__value));
  m.impl("scatter.value_out", TORCH_FN(scatter_value_out));
  m.impl("scatter.reduce", TORCH_FN(scatter_src_reduce));
  m.impl("scatter_.reduce", TORCH_FN(scatter__src_reduce));
  m.impl("scatter.reduce_out", TORCH_FN(scatter_src_reduce_out));
  m.impl("scatter.value_reduce", TORCH_FN(scatter_value_reduce));
  m.impl("scatter_.value_reduce", TORCH_FN(scatter__value_reduce));
  m.impl("scatter.value_reduce_out", TORCH_FN(scatter_value_reduce_out));
  m.impl("scatter_add", TORCH_FN(scatter_add));
  m.impl("scatter_add_", TORCH_FN(scatter_add_));
  m.impl("scatter_add.out", TORCH_FN(scatter_add_out));
}

}  // namespace cuda
}  // namespace ember
