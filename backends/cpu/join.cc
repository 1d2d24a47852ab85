// The CPU plugin's cat: each input is copied into its slice of the result
// with copy_into, which is one memcpy when the slice and the input are
// contiguous of one dtype (dim 0 of contiguous inputs) and a parallel,
// converting TensorIterator loop otherwise.
#include <vector>

#include "aten/WrapDimUtils.h"
#include "backends/cpu/TensorIterator.h"
#include "backends/cpu/indexing_utils.h"
#include "backends/cpu/join.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

// Legacy: a 1-d tensor of size 0 takes no part, whatever its dim count.
bool skipped(const at::Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

struct CatPlan {
  int64_t dim = 0;
  std::vector<int64_t> shape;
  c10::ScalarType dtype = c10::ScalarType::Undefined;
};

CatPlan plan_cat(at::TensorList tensors, int64_t dim, const char* op) {
  TORCH_CHECK(!tensors.empty(), op, ": expected a non-empty list of Tensors.");
  std::vector<const at::Tensor*> all;
  for (size_t i = 0; i < tensors.size(); ++i) {
    TORCH_CHECK(tensors[i].defined(), op, ": tensor number ", i,
                " in the list is undefined.");
    TORCH_CHECK(tensors[i].dim() > 0, op, ": zero-dimensional tensor (at position ",
                i, ") cannot be concatenated. Unsqueeze it to 1-d first.");
    all.push_back(&tensors[i]);
  }
  CatPlan plan;
  plan.dtype = at::result_type(c10::ArrayRef<const at::Tensor*>(all));
  const at::Tensor* first = nullptr;
  size_t first_i = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!skipped(tensors[i])) {
      first = &tensors[i];
      first_i = i;
      break;
    }
  }
  if (first == nullptr) {  // every input is a legacy empty tensor
    (void)at::maybe_wrap_dim(dim, 1, op);
    plan.shape = {0};
    return plan;
  }
  plan.dim = at::maybe_wrap_dim(dim, first->dim(), op);
  plan.shape.assign(first->sizes().begin(), first->sizes().end());
  plan.shape[static_cast<size_t>(plan.dim)] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const at::Tensor& t = tensors[i];
    if (skipped(t)) continue;
    TORCH_CHECK(t.dim() == first->dim(), op, ": Tensors must have same number of "
                "dimensions: got ", first->dim(), " (tensor number ", first_i,
                ") and ", t.dim(), " (tensor number ", i, ").");
    for (int64_t d = 0; d < t.dim(); ++d) {
      if (d == plan.dim) continue;
      TORCH_CHECK(t.size(d) == first->size(d), op, ": Sizes of tensors must match "
                  "except in dimension ", plan.dim, ". Expected size ", first->size(d),
                  " but got size ", t.size(d), " for tensor number ", i,
                  " in the list (shapes ", first->sizes(), " and ", t.sizes(), ").");
    }
    plan.shape[static_cast<size_t>(plan.dim)] += t.size(plan.dim);
  }
  return plan;
}

void cat_into(at::TensorList tensors, const CatPlan& plan, const at::Tensor& out) {
  int64_t offset = 0;
  for (const at::Tensor& t : tensors) {
    if (skipped(t)) continue;
    const int64_t n = t.size(plan.dim);
    if (n == 0) continue;
    std::vector<int64_t> sizes(out.sizes().begin(), out.sizes().end());
    sizes[static_cast<size_t>(plan.dim)] = n;
    const at::Tensor slice = make_strided_view(
        out, sizes, out.strides(), out.storage_offset() + offset * out.stride(plan.dim));
    copy_into(slice, t);
    offset += n;
  }
}

}  // namespace

at::Tensor cat(at::TensorList tensors, int64_t dim) {
  const CatPlan plan = plan_cat(tensors, dim, "torch.cat()");
  at::Tensor out = empty_cpu(plan.shape, plan.dtype, "cat");
  cat_into(tensors, plan, out);
  return out;
}

at::Tensor& cat_out(at::TensorList tensors, int64_t dim, at::Tensor& out) {
  const char* op = "torch.cat()";
  const CatPlan plan = plan_cat(tensors, dim, op);
  TORCH_CHECK(out.defined(), op, ": the out= tensor is undefined; pass a tensor.");
  TORCH_CHECK(at::can_cast(plan.dtype, out.scalar_type()), op, ": input types can't be "
              "cast to the desired output type ", out.scalar_type(), " (the inputs "
              "promote to ", plan.dtype, ").");
  for (const at::Tensor& t : tensors) {
    TORCH_CHECK(!overlaps(out, t), op, ": unsupported operation: the input tensors "
                "cannot refer to any of the output memory locations. Pass an out= "
                "tensor that shares no memory with the inputs.");
  }
  resize_output(out, plan.shape, "cat");
  check_no_internal_overlap(out, op);
  cat_into(tensors, plan, out);
  return out;
}

}  // namespace ember::cpu
