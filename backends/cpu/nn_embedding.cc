// embedding and embedding_dense_backward on the CPU: rows of a table picked
// by index, and the gradient summed back into the table's rows.
#include <cstdint>
#include <cstring>
#include <vector>

#include "aten/JoinUtils.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/nn.h"
#include "backends/cpu/nn_utils.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

void check_indices(const at::Tensor& indices, const char* op) {
  nn::check_defined(indices, op, "indices");
  at::native::check_embedding_indices(indices, op);
}

// The indices as int64, each checked against [0, rows).
std::vector<int64_t> checked_indices(const at::Tensor& indices, int64_t rows, const char* op) {
  const at::Tensor idx = nn::contiguous(indices);
  const int64_t n = idx.numel();
  std::vector<int64_t> out(static_cast<size_t>(n));
  if (idx.scalar_type() == c10::kLong) {
    const int64_t* p = static_cast<const int64_t*>(idx.data_ptr());
    for (int64_t i = 0; i < n; ++i) out[i] = p[i];
  } else {
    const int32_t* p = static_cast<const int32_t*>(idx.data_ptr());
    for (int64_t i = 0; i < n; ++i) out[i] = p[i];
  }
  for (int64_t i = 0; i < n; ++i) {
    if (out[i] < 0 || out[i] >= rows) {
      at::native::throw_embedding_index_out_of_range(op, out[i], rows);
    }
  }
  return out;
}

}  // namespace

at::Tensor embedding_cpu(const at::Tensor& weight, const at::Tensor& indices,
                         int64_t /*padding_idx*/, bool /*scale_grad_by_freq*/,
                         bool /*sparse*/) {
  const char* op = "embedding";
  nn::check_defined(weight, op, "weight");
  at::native::check_embedding_weight(weight, op);
  check_indices(indices, op);
  const std::vector<int64_t> idx = checked_indices(indices, weight.size(0), op);
  std::vector<int64_t> shape = indices.sizes().vec();
  const int64_t dim = weight.size(1);
  shape.push_back(dim);
  at::Tensor out = empty_cpu(shape, weight.scalar_type(), op);
  const at::Tensor w = nn::contiguous(weight);
  const size_t row_bytes = static_cast<size_t>(dim) * w.element_size();
  const char* src = static_cast<const char*>(w.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  const int64_t n = static_cast<int64_t>(idx.size());
  if (row_bytes == 0) return out;
  nn::parallel_for(n, n * dim, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      std::memcpy(dst + static_cast<size_t>(i) * row_bytes,
                  src + static_cast<size_t>(idx[i]) * row_bytes, row_bytes);
    }
  });
  return out;
}

at::Tensor embedding_dense_backward_cpu(const at::Tensor& grad_output,
                                        const at::Tensor& indices, int64_t num_weights,
                                        int64_t padding_idx, bool scale_grad_by_freq) {
  const char* op = "embedding_dense_backward";
  nn::check_defined(grad_output, op, "grad_output");
  nn::check_floating(grad_output, op, "grad_output");
  check_indices(indices, op);
  at::native::check_embedding_backward_shapes(grad_output, indices, num_weights, op);
  const int64_t n = indices.numel();
  const int64_t dim = grad_output.size(-1);
  const std::vector<int64_t> idx = checked_indices(indices, num_weights, op);
  std::vector<int64_t> counts;
  if (scale_grad_by_freq) {
    counts.assign(static_cast<size_t>(num_weights), 0);
    for (const int64_t v : idx) ++counts[static_cast<size_t>(v)];
  }
  const at::Tensor g = nn::contiguous(grad_output);
  at::Tensor grad_weight = empty_cpu({num_weights, dim}, grad_output.scalar_type(), op);
  EMBER_DISPATCH_FLOATING_TYPES(grad_output.scalar_type(), op, [&] {
    using acc_t = nn::acc_type_t<scalar_t>;
    // Accumulate in acc_t so that many rows landing on one index do not
    // lose precision (Half/BFloat16 especially).
    std::vector<acc_t> acc(static_cast<size_t>(num_weights * dim), acc_t(0));
    const scalar_t* gp = static_cast<const scalar_t*>(g.data_ptr());
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = idx[static_cast<size_t>(i)];
      if (v == padding_idx) continue;
      const acc_t scale =
          scale_grad_by_freq ? acc_t(1) / static_cast<acc_t>(counts[static_cast<size_t>(v)])
                             : acc_t(1);
      acc_t* __restrict row = acc.data() + v * dim;
      const scalar_t* __restrict src = gp + i * dim;
      for (int64_t j = 0; j < dim; ++j) row[j] += static_cast<acc_t>(src[j]) * scale;
    }
    scalar_t* out = static_cast<scalar_t*>(grad_weight.data_ptr());
    for (size_t k = 0; k < acc.size(); ++k) out[k] = static_cast<scalar_t>(acc[k]);
  });
  return grad_weight;
}

}  // namespace ember::cpu
