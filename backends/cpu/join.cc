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

using at::native::CatPlan;
using at::native::cat_skips;

void cat_into(at::TensorList tensors, const CatPlan& plan, const at::Tensor& out) {
  int64_t offset = 0;
  for (const at::Tensor& t : tensors) {
    if (cat_skips(t)) continue;
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
  const CatPlan plan = at::native::plan_cat(tensors, dim, "torch.cat()");
  at::Tensor out = empty_cpu(plan.shape, plan.dtype, "cat");
  cat_into(tensors, plan, out);
  return out;
}

at::Tensor& cat_out(at::TensorList tensors, int64_t dim, at::Tensor& out) {
  const char* op = "torch.cat()";
  const CatPlan plan = at::native::plan_cat(tensors, dim, op);
  at::native::check_cat_out(tensors, plan, out, op);
  resize_output(out, plan.shape, "cat");
  check_no_internal_overlap(out, op);
  cat_into(tensors, plan, out);
  return out;
}

}  // namespace ember::cpu
