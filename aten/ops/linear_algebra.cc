// matmul and linear, written in terms of mm, bmm and addmm, so that every
// backend with those three gets them.
#include "aten/Functions.h"
#include "aten/WrapDimUtils.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

// PyTorch's matmul rules: 1-d x 1-d is a dot product, 2-d x 2-d is mm, a
// 1-d operand gets a dimension prepended (left) or appended (right) and
// removed from the result, and batch dimensions broadcast.
Tensor matmul(const Tensor& a, const Tensor& b) {
  const int64_t da = a.dim(), db = b.dim();
  TORCH_CHECK(da > 0 && db > 0, "matmul: both arguments need at least 1 "
              "dimension, but got ", da, "-d and ", db, "-d tensors.");
  if (da == 1 && db == 1) {
    TORCH_CHECK(a.size(0) == b.size(0), "matmul: 1-d tensors of sizes ",
                a.size(0), " and ", b.size(0), " cannot be multiplied; a dot "
                "product needs equal sizes.");
    return at::mm(a.unsqueeze(0), b.unsqueeze(1)).view({});
  }
  if (da == 2 && db == 1) return at::mm(a, b.unsqueeze(1)).squeeze(1);
  if (da == 1 && db == 2) return at::mm(a.unsqueeze(0), b).squeeze(0);
  if (da == 2 && db == 2) return at::mm(a, b);
  // Batched: broadcast the batch dims, fold them into one, use bmm.
  const Tensor a2 = da == 1 ? a.unsqueeze(0) : a;
  const Tensor b2 = db == 1 ? b.unsqueeze(1) : b;
  const int64_t n = a2.size(-2), k = a2.size(-1), k2 = b2.size(-2), m = b2.size(-1);
  TORCH_CHECK(k == k2, "matmul: mat1 and mat2 shapes cannot be multiplied (",
              n, "x", k, " and ", k2, "x", m, ").");
  const IntArrayRef batch_a = a2.sizes().slice(0, static_cast<size_t>(a2.dim() - 2));
  const IntArrayRef batch_b = b2.sizes().slice(0, static_cast<size_t>(b2.dim() - 2));
  std::vector<int64_t> batch = infer_broadcast_shape(batch_a, batch_b, "matmul");
  int64_t nbatch = 1;
  for (int64_t s : batch) nbatch *= s;
  std::vector<int64_t> ea = batch, eb = batch;
  ea.insert(ea.end(), {n, k});
  eb.insert(eb.end(), {k, m});
  const Tensor fa = a2.expand(ea).reshape({nbatch, n, k});
  const Tensor fb = b2.expand(eb).reshape({nbatch, k, m});
  std::vector<int64_t> out_shape = batch;
  if (da > 1) out_shape.push_back(n);
  if (db > 1) out_shape.push_back(m);
  return at::bmm(fa, fb).view(out_shape);
}

// y = x W^T + b over the last dimension of x.
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  TORCH_CHECK(weight.dim() == 2, "linear: weight must be 2-d [out_features, "
              "in_features], but got ", weight.dim(), "-d with sizes ",
              weight.sizes(), ".");
  TORCH_CHECK(input.dim() >= 1 && input.size(-1) == weight.size(1),
              "linear: input's last dimension (", input.dim() ? input.size(-1) : 0,
              ") must equal weight's in_features (", weight.size(1),
              "); input sizes ", input.sizes(), ", weight sizes ", weight.sizes(), ".");
  const bool has_bias = bias.has_value() && bias->defined();
  if (input.dim() == 2) {
    return has_bias ? at::addmm(*bias, input, weight.t()) : at::mm(input, weight.t());
  }
  std::vector<int64_t> out_shape = input.sizes().vec();
  out_shape.back() = weight.size(0);
  const Tensor flat = input.reshape({-1, input.size(-1)});
  const Tensor y = has_bias ? at::addmm(*bias, flat, weight.t()) : at::mm(flat, weight.t());
  return y.view(out_shape);
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("matmul", TORCH_FN(at::native::matmul));
  m.impl("linear", TORCH_FN(at::native::linear));
}
