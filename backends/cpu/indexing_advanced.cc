// The CPU plugin's advanced indexing: index.Tensor (self[indices]) and
// index_put_ (self[indices] = values).
//
// Note [Advanced indexing]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// indices[k] applies to one dim of self (None: the whole dim) or, for a Bool
// or Byte mask of m dims, to m dims, which it replaces with the m columns of
// its nonzero() coordinates. The index tensors then broadcast together to
// one shape B. The result is self's dims before the first indexed dim, then
// B, then the dims after the last — when the indexed dims are adjacent;
// when a None separates two of them, B comes first, then every dim that is
// not indexed, in order (NumPy's and PyTorch's rule). Either way the result
// is pre x B x post, which take_blocks/put_blocks walk (See Note [Block
// indexing]). Integer indices may be negative (counted from the end).
#include <algorithm>
#include <vector>

#include "aten/JoinUtils.h"
#include "backends/cpu/indexing.h"
#include "backends/cpu/indexing_utils.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

struct IndexPlan {
  BlockPlan blocks;
  std::vector<int64_t> result_shape;
};

IndexPlan make_plan(const at::Tensor& self,
                    const std::vector<std::optional<at::Tensor>>& indices,
                    const char* op) {
  const int64_t nd = self.dim();
  const at::native::IndexedDims dims = at::native::expand_indices(self, indices, op);
  const std::vector<at::Tensor>& per_dim = dims.per_dim;
  const std::vector<int64_t>& indexed = dims.indexed;
  const std::vector<int64_t>& b_shape = dims.b_shape;
  for (int64_t d : indexed) {
    check_index_range(per_dim[static_cast<size_t>(d)], self.size(d), d,
                      /*allow_negative=*/true, op);
  }

  IndexPlan plan;
  BlockPlan& bp = plan.blocks;
  const bool adjacent =
      indexed.empty() || indexed.back() - indexed.front() + 1 ==
                             static_cast<int64_t>(indexed.size());
  for (int64_t d = 0; d < nd; ++d) {
    if (per_dim[static_cast<size_t>(d)].defined()) continue;
    const bool before = adjacent && !indexed.empty() && d < indexed.front();
    (before ? bp.pre_sizes : bp.post_sizes).push_back(self.size(d));
    (before ? bp.pre_strides : bp.post_strides).push_back(self.stride(d));
  }
  plan.result_shape = bp.pre_sizes;
  plan.result_shape.insert(plan.result_shape.end(), b_shape.begin(), b_shape.end());
  plan.result_shape.insert(plan.result_shape.end(), bp.post_sizes.begin(),
                           bp.post_sizes.end());

  // offsets[b]: the sum over the indexed dims of wrap(index) * stride.
  int64_t nb = 1;
  for (int64_t s : b_shape) nb *= s;
  bp.offsets.assign(static_cast<size_t>(nb), 0);
  for (int64_t d : indexed) {
    const at::Tensor e = expand_to(per_dim[static_cast<size_t>(d)], b_shape, op, "index");
    const int64_t size = self.size(d);
    const int64_t stride = self.stride(d);
    StridedWalk<1> walk(b_shape, {e.strides()}, 0);
    const bool is_int = e.scalar_type() == c10::ScalarType::Int;
    const void* data = e.data_ptr();
    for (int64_t b = 0; b < nb; ++b, walk.next()) {
      int64_t v = is_int ? static_cast<const int32_t*>(data)[walk.offset[0]]
                         : static_cast<const int64_t*>(data)[walk.offset[0]];
      if (v < 0) v += size;
      bp.offsets[static_cast<size_t>(b)] += v * stride;
    }
  }
  return plan;
}

}  // namespace

at::Tensor index(const at::Tensor& self,
                 const std::vector<std::optional<at::Tensor>>& indices) {
  const IndexPlan plan = make_plan(self, indices, "index");
  at::Tensor out = empty_cpu(plan.result_shape, self.scalar_type(), "index");
  take_blocks(self, plan.blocks, out.data_ptr());
  return out;
}

at::Tensor& index_out(const at::Tensor& self,
                      const std::vector<std::optional<at::Tensor>>& indices,
                      at::Tensor& out) {
  check_out_dtype(out, self.scalar_type(), "index_out");
  check_no_overlap(out, self, "index_out");
  const at::Tensor result = index(self, indices);
  resize_output(out, result.sizes(), "index_out");
  copy_into(out, result);
  return out;
}

at::Tensor& index_put_(at::Tensor& self,
                       const std::vector<std::optional<at::Tensor>>& indices,
                       const at::Tensor& values, bool accumulate) {
  const char* op = "index_put_";
  at::native::check_index_put_dtype(self, values, op);
  check_no_internal_overlap(self, op);
  const IndexPlan plan = make_plan(self, indices, op);
  // Leading size-1 dims of values beyond the result's rank are dropped, as
  // PyTorch does, before broadcasting.
  c10::IntArrayRef vsizes = values.sizes();
  c10::IntArrayRef vstrides = values.strides();
  while (vsizes.size() > plan.result_shape.size() && vsizes[0] == 1) {
    vsizes = vsizes.slice(1);
    vstrides = vstrides.slice(1);
  }
  const at::Tensor trimmed =
      make_strided_view(values, vsizes, vstrides, values.storage_offset());
  bool fits = vsizes.size() <= plan.result_shape.size();
  for (size_t i = 0; fits && i < vsizes.size(); ++i) {
    const int64_t r = plan.result_shape[plan.result_shape.size() - vsizes.size() + i];
    fits = vsizes[i] == r || vsizes[i] == 1;
  }
  TORCH_CHECK(fits, op, ": shape mismatch: value tensor of shape ", values.sizes(),
              " cannot be broadcast to indexing result of shape ",
              c10::IntArrayRef(plan.result_shape), ".");
  // A contiguous copy in result order; it also makes values that alias self
  // safe to read while self is written.
  at::Tensor src = empty_cpu(plan.result_shape, self.scalar_type(), op);
  copy_into(src, trimmed);
  put_blocks(self, plan.blocks, src.data_ptr(), accumulate, op);
  return self;
}

}  // namespace ember::cpu
