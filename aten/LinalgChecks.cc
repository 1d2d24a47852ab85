// aten/LinalgChecks.cc — see LinalgChecks.h.
#include "aten/LinalgChecks.h"

#include "c10/util/Exception.h"

namespace at {
namespace native {

void check_matmul_operands(const Tensor& a, const Tensor& b, int64_t dim, const char* where) {
  TORCH_CHECK(a.dim() == dim && b.dim() == dim, where, ": expected ", dim,
              "-d tensors, but got ", a.dim(), "-d and ", b.dim(), "-d.");
  TORCH_CHECK(a.size(-1) == b.size(-2), where, ": mat1 and mat2 shapes cannot be "
              "multiplied (", a.size(-2), "x", a.size(-1), " and ", b.size(-2), "x",
              b.size(-1), ").");
  TORCH_CHECK(dim == 2 || a.size(0) == b.size(0), where, ": batch sizes differ: ",
              a.size(0), " and ", b.size(0), ".");
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), where, ": expected both "
              "matrices to have the same dtype, but got ", a.scalar_type(),
              " and ", b.scalar_type(), ".");
  TORCH_CHECK(a.scalar_type() != c10::ScalarType::Bool, where, ": Bool matrices "
              "cannot be multiplied (PyTorch has no bool matmul on the CPU); "
              "convert them to an integer or floating dtype with .to().");
}

}  // namespace native
}  // namespace at
