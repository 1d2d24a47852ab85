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
  // One entry per dim of self: the Long/Int index tensor applied to it, or
  // undefined. Masks expand into their nonzero columns.
  std::vector<at::Tensor> per_dim;
  std::vector<at::Tensor> keep_alive;
  int64_t consumed = 0;
  for (const auto& entry : indices) {
    if (!entry.has_value() || !entry->defined()) {
      per_dim.emplace_back();
      ++consumed;
      continue;
    }
    const at::Tensor& idx = *entry;
    const c10::ScalarType t = idx.scalar_type();
    if (t == c10::ScalarType::Bool || t == c10::ScalarType::Byte) {
      TORCH_CHECK_INDEX(idx.dim() > 0, op, ": a 0-dimensional boolean index is not "
                        "supported; unsqueeze it or index with a 1-d mask instead.");
      TORCH_CHECK_INDEX(consumed + idx.dim() <= nd, op, ": too many indices for tensor "
                        "of dimension ", nd, " (the mask of shape ", idx.sizes(),
                        " at position ", per_dim.size(), " reaches past the last dim).");
      for (int64_t j = 0; j < idx.dim(); ++j) {
        TORCH_CHECK_INDEX(idx.size(j) == self.size(consumed + j), op, ": The shape of "
                          "the mask ", idx.sizes(), " at index ", j, " does not match "
                          "the shape of the indexed tensor ", self.sizes(), " at index ",
                          consumed + j, ".");
      }
      at::Tensor mask = idx;
      if (t == c10::ScalarType::Byte) {
        mask = empty_cpu(idx.sizes(), c10::ScalarType::Bool, op);
        copy_into(mask, idx);
      }
      const at::Tensor nz = nonzero(mask);  // [n, m], contiguous
      keep_alive.push_back(nz);
      for (int64_t j = 0; j < idx.dim(); ++j) {
        per_dim.push_back(make_strided_view(nz, {nz.size(0)}, {idx.dim()}, j));
      }
      consumed += idx.dim();
      continue;
    }
    TORCH_CHECK_INDEX(t == c10::ScalarType::Long || t == c10::ScalarType::Int, op,
                      ": tensors used as indices must be long, int, byte or bool "
                      "tensors, but got an index of dtype ", t, ".");
    TORCH_CHECK_INDEX(consumed < nd, op, ": too many indices for tensor of dimension ",
                      nd, " (got ", indices.size(), ").");
    per_dim.push_back(idx);
    ++consumed;
  }
  TORCH_CHECK_INDEX(consumed <= nd, op, ": too many indices for tensor of dimension ",
                    nd, " (got ", indices.size(), ").");
  per_dim.resize(static_cast<size_t>(nd));

  // B: the broadcast of the index tensors.
  std::vector<int64_t> b_shape;
  std::vector<int64_t> indexed;
  for (int64_t d = 0; d < nd; ++d) {
    const at::Tensor& idx = per_dim[static_cast<size_t>(d)];
    if (!idx.defined()) continue;
    if (indexed.empty()) {
      b_shape.assign(idx.sizes().begin(), idx.sizes().end());
    } else {
      const size_t n = std::max(b_shape.size(), idx.sizes().size());
      std::vector<int64_t> out(n);
      for (size_t i = 0; i < n; ++i) {
        const int64_t x = i < n - b_shape.size() ? 1 : b_shape[i - (n - b_shape.size())];
        const int64_t y = i < n - idx.sizes().size() ? 1 : idx.size(static_cast<int64_t>(i - (n - idx.sizes().size())));
        if (!(x == y || x == 1 || y == 1)) {
          std::string shapes;
          for (const at::Tensor& t : per_dim) {
            if (!t.defined()) continue;
            shapes += (shapes.empty() ? "" : ", ") + c10::str(t.sizes());
          }
          C10_THROW_ERROR(IndexError, c10::str(op, ": shape mismatch: indexing tensors "
                                               "could not be broadcast together with "
                                               "shapes ", shapes, "."));
        }
        out[i] = x == 1 ? y : x;
      }
      b_shape = out;
    }
    indexed.push_back(d);
    check_index_range(idx, self.size(d), d, /*allow_negative=*/true, op);
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
  TORCH_CHECK(values.scalar_type() == self.scalar_type(), op, ": Index put requires "
              "the source and destination dtypes match, got ", self.scalar_type(),
              " for the destination and ", values.scalar_type(), " for the source. "
              "Convert values with .to(self.scalar_type()).");
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
