// backends/cuda/sort_ops.cc — sort and topk (functional and out=) on the
// CUDA key: the sorted dim moved last and made contiguous, every row ordered
// by one CUB radix sort on keys that order as the CPU plugin orders (Note
// [CUDA sort] in kernels/launch.h), the first k of each row kept, and the
// dim moved back. Every dtype (topk: all but Bool, as on the CPU). The CPU's
// checks and messages (backends/cpu/sort.cc).
// Simple, not tuned: topk sorts whole rows (PyTorch selects the k with a
// radix select first), and sorted=false still returns them in order.
#include <string>
#include <tuple>
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

std::vector<int64_t> with_size(const at::Tensor& t, int64_t dim, int64_t k) {
  std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
  if (t.dim() > 0) shape[static_cast<size_t>(dim)] = k;
  return shape;
}

// The first k of every slice of self along `dim` (wrapped), sorted stably,
// ascending or descending: contiguous values and Long indices of self's
// shape with size k at dim.
std::tuple<at::Tensor, at::Tensor> sort_first(const at::Tensor& self, int64_t dim, int64_t k,
                                              bool descending, const char* op) {
  const kernels::Dtype kd = kernel_dtype(self.scalar_type(), op, KernelDtypes::kAll);
  const int64_t n = self.dim() == 0 ? 1 : self.size(dim);
  TORCH_CHECK(n <= kernels::kMaxSortRow, op, ": the CUDA sort orders slices of up to ",
              kernels::kMaxSortRow, " elements, but dim ", dim, " has ", n,
              "; sort a view of the tensor split along that dim, or sort on the CPU.");
  at::Tensor values = empty_cuda(with_size(self, dim, k), self.scalar_type(), self.device(), op);
  at::Tensor indices = empty_cuda(with_size(self, dim, k), c10::kLong, self.device(), op);
  if (values.numel() == 0) return {values, indices};
  // The sorted dim last: rows of n contiguous elements; results as rows of k.
  const int64_t last = self.dim() - 1;
  const bool moved = self.dim() > 1 && dim != last;
  const at::Tensor src = moved ? self.transpose(dim, last).contiguous() : self.contiguous();
  at::Tensor row_values = values, row_indices = indices;
  if (moved) {
    row_values = empty_cuda(with_size(src, last, k), self.scalar_type(), self.device(), op);
    row_indices = empty_cuda(with_size(src, last, k), c10::kLong, self.device(), op);
  }
  kernels::SortArgs a;
  a.in = src.data_ptr();
  a.values = row_values.data_ptr();
  a.indices = row_indices.data_ptr<int64_t>();
  a.rows = src.numel() / n;
  a.n = n;
  a.k = k;
  a.dtype = kd;
  a.descending = descending;
  {
    c10::DeviceGuard guard(self.device());
    CUDAIterator::check_launch(op, kernels::sort_workspace_bytes(&a));
    const at::Tensor workspace =
        empty_cuda({static_cast<int64_t>(a.workspace_bytes)}, c10::kByte, self.device(), op);
    a.workspace = workspace.data_ptr();
    CUDAIterator::check_launch(op, kernels::launch_sort(a, current_stream(self.device())));
  }
  if (moved) {
    values.copy_(row_values.transpose(dim, last));
    indices.copy_(row_indices.transpose(dim, last));
  }
  return {values, indices};
}

void check_outputs(const at::Tensor& self, const at::Tensor& values, const at::Tensor& indices,
                   const char* op) {
  for (const at::Tensor* out : {&values, &indices}) {
    check_same_device(op, self.device(), out->device(), " (an output). Pass outputs on ",
                      self.device(), ".");
  }
  at::native::check_out_dtype(values, self.scalar_type(), op);
  at::native::check_out_dtype(indices, c10::kLong, op);
  at::native::check_no_overlap(values, self, op);
  at::native::check_no_overlap(indices, self, op);
  at::native::check_no_overlap(values, indices, op);
}

std::tuple<at::Tensor, at::Tensor> sort_stable_cuda(const at::Tensor& self,
                                               std::optional<bool> /*stable: always*/,
                                               int64_t dim, bool descending) {
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), "sort");
  const int64_t n = self.dim() == 0 ? 1 : self.size(wrapped);
  return sort_first(self, wrapped, n, descending, "sort");
}

std::tuple<at::Tensor&, at::Tensor&> sort_values_stable_cuda(const at::Tensor& self,
                                                        std::optional<bool> stable, int64_t dim,
                                                        bool descending, at::Tensor& values,
                                                        at::Tensor& indices) {
  at::maybe_wrap_dim(dim, self.dim(), "sort");
  check_outputs(self, values, indices, "sort_out");
  auto [v, i] = sort_stable_cuda(self, stable, dim, descending);
  at::native::resize_output(values, self.sizes(), "sort_out");
  at::native::resize_output(indices, self.sizes(), "sort_out");
  values.copy_(v);
  indices.copy_(i);
  return {values, indices};
}

std::tuple<at::Tensor, at::Tensor> topk_cuda(const at::Tensor& self, int64_t k, int64_t dim,
                                        bool largest, bool /*sorted: always in order*/) {
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), "topk");
  const int64_t n = self.dim() == 0 ? 1 : self.size(wrapped);
  TORCH_CHECK_INDEX(k >= 0 && k <= n, "topk: selected index k out of range: k is ", k,
                    " but dimension ", wrapped, " has size ", n, "; pick 0 <= k <= ", n, ".");
  TORCH_CHECK(self.scalar_type() != c10::ScalarType::Bool,
              "topk: \"topk_cuda\" not implemented for 'Bool'; convert the input to an "
              "integral or floating dtype first.");
  return sort_first(self, wrapped, k, largest, "topk");
}

std::tuple<at::Tensor&, at::Tensor&> topk_out_cuda(const at::Tensor& self, int64_t k, int64_t dim,
                                              bool largest, bool sorted, at::Tensor& values,
                                              at::Tensor& indices) {
  check_outputs(self, values, indices, "topk_out");
  auto [v, i] = topk_cuda(self, k, dim, largest, sorted);
  at::native::resize_output(values, v.sizes(), "topk_out");
  at::native::resize_output(indices, i.sizes(), "topk_out");
  values.copy_(v);
  indices.copy_(i);
  return {values, indices};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("sort.stable", TORCH_FN(sort_stable_cuda));
  m.impl("sort.values_stable", TORCH_FN(sort_values_stable_cuda));
  m.impl("topk", TORCH_FN(topk_cuda));
  m.impl("topk.values", TORCH_FN(topk_out_cuda));
}

}  // namespace cuda
}  // namespace ember
