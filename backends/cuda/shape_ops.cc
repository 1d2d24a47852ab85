// backends/cuda/shape_ops.cc — cat, index_select, embedding and its backward,
// on the CUDA key. Shapes, dtypes and errors are the core's (aten/JoinUtils.h),
// shared with the CPU plugin; an out-of-range index is found on the device
// and reported as the CPU reports it (Note [CUDA index checks] in
// kernels/launch.h).
#include <cstdint>
#include <vector>

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

// ---- cat -------------------------------------------------------------------------------

void check_same_cuda_device(at::TensorList tensors, c10::Device device, const char* op) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (at::native::cat_skips(tensors[i])) continue;
    check_same_device(op, device, tensors[i].device(), " (tensor number ", i,
                      "). Move them to one device first (tensor.to()).");
  }
}

// Each input is copied into its slice of `out` (copy_ converts dtypes).
void cat_into(at::TensorList tensors, const at::native::CatPlan& plan, const at::Tensor& out) {
  int64_t offset = 0;
  for (const at::Tensor& t : tensors) {
    if (at::native::cat_skips(t)) continue;
    const int64_t n = t.size(plan.dim);
    if (n == 0) continue;
    out.narrow(plan.dim, offset, n).copy_(t);
    offset += n;
  }
}

c10::Device first_device(at::TensorList tensors) {
  for (const at::Tensor& t : tensors) {
    if (!at::native::cat_skips(t)) return t.device();
  }
  return tensors[0].device();
}

at::Tensor cat(at::TensorList tensors, int64_t dim) {
  const at::native::CatPlan plan = at::native::plan_cat(tensors, dim, "torch.cat()");
  const c10::Device device = first_device(tensors);
  check_same_cuda_device(tensors, device, "torch.cat()");
  at::Tensor out = empty_cuda(plan.shape, plan.dtype, device, "cat");
  cat_into(tensors, plan, out);
  return out;
}

at::Tensor& cat_out(at::TensorList tensors, int64_t dim, at::Tensor& out) {
  const char* op = "torch.cat()";
  const at::native::CatPlan plan = at::native::plan_cat(tensors, dim, op);
  at::native::check_cat_out(tensors, plan, out, op);
  check_same_cuda_device(tensors, out.device(), op);
  at::native::resize_output(out, plan.shape, "cat");
  at::native::check_no_internal_overlap(out, op);
  cat_into(tensors, plan, out);
  return out;
}

// ---- index_select and embedding -------------------------------------------------------

// out (contiguous, of index_select_shape) = self's elements picked along dim.
void index_select_into(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                       const at::Tensor& out, const char* op, bool embedding) {
  const at::Tensor src = self.contiguous();
  const at::Tensor idx = index.contiguous();
  kernels::IndexSelect a;
  a.src = src.data_ptr();
  a.dst = out.data_ptr();
  a.index = idx.data_ptr();
  a.index_is_int32 = idx.scalar_type() == c10::kInt;
  a.count = idx.numel();
  a.size = self.dim() == 0 ? 1 : self.size(dim);
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d < dim) a.pre *= self.size(d);
    if (d > dim) a.post *= self.size(d);
  }
  a.element_size = static_cast<int>(self.itemsize());
  BadPosition bad(self.device());
  a.bad_position = bad.ptr();
  {
    c10::DeviceGuard guard(self.device());
    CUDAIterator::check_launch(op, kernels::launch_index_select(a, current_stream(self.device())));
  }
  const int64_t position = bad.read();
  if (position < 0) return;
  const int64_t v = index_at(idx, position);
  if (embedding) at::native::throw_embedding_index_out_of_range(op, v, a.size);
  at::native::throw_index_out_of_bounds(op, v, dim, a.size);
}

at::Tensor index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), "index_select()");
  at::native::check_index_select_args(self, index);
  check_index_device(self, index, "index_select()");
  at::Tensor out = empty_cuda(at::native::index_select_shape(self, wrapped, index),
                              self.scalar_type(), self.device(), "index_select");
  index_select_into(self, wrapped, index, out, "index_select()", false);
  return out;
}

at::Tensor& index_select_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                             at::Tensor& out) {
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), "index_select()");
  at::native::check_index_select_args(self, index);
  check_index_device(self, index, "index_select()");
  at::native::check_out_dtype(out, self.scalar_type(), "index_select_out()");
  at::native::check_no_overlap(out, self, "index_select_out()");
  at::native::check_no_overlap(out, index, "index_select_out()");
  const std::vector<int64_t> shape = at::native::index_select_shape(self, wrapped, index);
  at::native::resize_output(out, shape, "index_select_out()");
  if (out.is_contiguous()) {
    index_select_into(self, wrapped, index, out, "index_select()", false);
  } else {
    at::Tensor tmp = empty_cuda(shape, self.scalar_type(), self.device(), "index_select");
    index_select_into(self, wrapped, index, tmp, "index_select()", false);
    out.copy_(tmp);
  }
  return out;
}

at::Tensor embedding(const at::Tensor& weight, const at::Tensor& indices,
                     int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/, bool /*sparse*/) {
  const char* op = "embedding";
  TORCH_CHECK(weight.defined() && indices.defined(), op, ": weight and indices must be "
              "defined tensors.");
  at::native::check_embedding_weight(weight, op);
  at::native::check_embedding_indices(indices, op);
  check_index_device(weight, indices, op);
  std::vector<int64_t> shape = indices.sizes().vec();
  shape.push_back(weight.size(1));
  at::Tensor out = empty_cuda(shape, weight.scalar_type(), weight.device(), op);
  index_select_into(weight, 0, indices.reshape({-1}), out, op, true);
  return out;
}

at::Tensor embedding_dense_backward(const at::Tensor& grad_output, const at::Tensor& indices,
                                    int64_t num_weights, int64_t padding_idx,
                                    bool scale_grad_by_freq) {
  const char* op = "embedding_dense_backward";
  TORCH_CHECK(grad_output.defined() && indices.defined(), op, ": grad_output and indices "
              "must be defined tensors.");
  TORCH_CHECK(c10::isFloatingType(grad_output.scalar_type()), op, ": expected a floating "
              "grad_output, but got ", grad_output.scalar_type(), ".");
  at::native::check_embedding_indices(indices, op);
  at::native::check_embedding_backward_shapes(grad_output, indices, num_weights, op);
  check_index_device(grad_output, indices, op);
  if (c10::isReducedFloatingType(grad_output.scalar_type())) {
    // Half and BFloat16 gradients accumulate in float (the kernel's atomic
    // adds), rounded once at the end, as PyTorch's.
    return cuda::embedding_dense_backward(grad_output.to(c10::kFloat), indices, num_weights,
                                          padding_idx, scale_grad_by_freq)
        .to(grad_output.scalar_type());
  }
  const c10::Device device = grad_output.device();
  const int64_t dim = grad_output.size(-1);
  at::Tensor grad_weight =
      empty_cuda({num_weights, dim}, grad_output.scalar_type(), device, op);
  grad_weight.fill_(0);
  const at::Tensor g = grad_output.contiguous();
  const at::Tensor idx = indices.contiguous();
  at::Tensor counts;
  if (scale_grad_by_freq) {
    counts = empty_cuda({num_weights}, c10::kLong, device, op);
    counts.fill_(0);
  }
  kernels::EmbeddingBackward a;
  a.grad = g.data_ptr();
  a.index = idx.data_ptr();
  a.index_is_int32 = idx.scalar_type() == c10::kInt;
  a.n = idx.numel();
  a.dim = dim;
  a.num_weights = num_weights;
  a.padding_idx = padding_idx;
  a.counts = scale_grad_by_freq ? static_cast<unsigned long long*>(counts.data_ptr()) : nullptr;
  a.grad_weight = grad_weight.data_ptr();
  a.dtype = kernel_dtype(grad_output.scalar_type(), op);
  BadPosition bad(device);
  a.bad_position = bad.ptr();
  {
    c10::DeviceGuard guard(device);
    CUDAIterator::check_launch(op, kernels::launch_embedding_backward(a, current_stream(device)));
  }
  const int64_t position = bad.read();
  if (position >= 0) {
    at::native::throw_embedding_index_out_of_range(op, index_at(idx, position), num_weights);
  }
  return grad_weight;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("cat", TORCH_FN(cat));
  m.impl("cat.out", TORCH_FN(cat_out));
  m.impl("index_select", TORCH_FN(index_select));
  m.impl("index_select.out", TORCH_FN(index_select_out));
  m.impl("embedding", TORCH_FN(embedding));
  m.impl("embedding_dense_backward", TORCH_FN(embedding_dense_backward));
}

}  // namespace cuda
}  // namespace ember
