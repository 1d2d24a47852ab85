// matmul, linear, mv, dot, outer and baddbmm, written in terms of mm, bmm,
// addmm and pointwise ops, so that every backend with those gets them (and
// autograd differentiates them through their parts).
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
    return at::dot(a, b);
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

// Matrix-vector product: [n, m] @ [m] -> [n].
Tensor mv(const Tensor& self, const Tensor& vec) {
  TORCH_CHECK(self.dim() == 2 && vec.dim() == 1, "mv: expected a 2-d matrix "
              "and a 1-d vector, but got ", self.dim(), "-d and ", vec.dim(),
              "-d tensors.");
  TORCH_CHECK(self.size(1) == vec.size(0), "mv: size mismatch, got matrix ",
              self.size(0), "x", self.size(1), " and vector ", vec.size(0),
              "; the vector needs ", self.size(1), " elements.");
  return at::mm(self, vec.unsqueeze(1)).squeeze(1);
}

// Inner product of two 1-d tensors of the same size and dtype.
Tensor dot(const Tensor& self, const Tensor& other) {
  TORCH_CHECK(self.dim() == 1 && other.dim() == 1, "dot: 1D tensors expected, "
              "but got ", self.dim(), "D and ", other.dim(), "D tensors.");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), "dot: expected both "
              "vectors to have same dtype, but found ", self.scalar_type(),
              " and ", other.scalar_type(), ".");
  TORCH_CHECK(self.size(0) == other.size(0), "dot: inconsistent tensor size, "
              "expected tensor [", self.size(0), "] and src [", other.size(0),
              "] to have the same number of elements, but got ", self.size(0),
              " and ", other.size(0), " elements respectively.");
  return at::mm(self.unsqueeze(0), other.unsqueeze(1)).view({});
}

// Outer product: [n] x [m] -> [n, m], with type promotion as mul.
Tensor outer(const Tensor& self, const Tensor& vec2) {
  TORCH_CHECK(self.dim() == 1 && vec2.dim() == 1, "outer: expected 1-d "
              "vectors, but got ", self.dim(), "-d and ", vec2.dim(), "-d tensors.");
  return at::mul(self.reshape({self.size(0), 1}), vec2);
}

// beta * self + alpha * (batch1 @ batch2), self broadcast to [b, n, m].
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
               const Scalar& beta, const Scalar& alpha) {
  const Tensor prod = at::bmm(batch1, batch2);
  TORCH_CHECK(self.scalar_type() == prod.scalar_type(), "baddbmm: self has "
              "dtype ", self.scalar_type(), " but the batches are ",
              prod.scalar_type(), ".");
  infer_broadcast_shape(self.sizes(), prod.sizes(), "baddbmm");
  TORCH_CHECK(self.dim() <= 3, "baddbmm: self must broadcast to ", prod.sizes(),
              ", but has sizes ", self.sizes(), ".");
  const Tensor scaled = alpha.toDouble() == 1.0 ? prod : at::mul(prod, alpha);
  if (beta.toDouble() == 0.0) return scaled;  // self is ignored, NaN included
  const Tensor expanded = self.expand(prod.sizes());
  return at::add(scaled, beta.toDouble() == 1.0 ? expanded : at::mul(expanded, beta));
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("matmul", TORCH_FN(at::native::matmul));
  m.impl("linear", TORCH_FN(at::native::linear));
  m.impl("mv", TORCH_FN(at::native::mv));
  m.impl("dot", TORCH_FN(at::native::dot));
  m.impl("outer", TORCH_FN(at::native::outer));
  m.impl("baddbmm", TORCH_FN(at::native::baddbmm));
}
