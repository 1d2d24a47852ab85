// aten/IndexDecompositions.cc — see IndexDecompositions.h.
#include "aten/IndexDecompositions.h"

#include "aten/Functions.h"
#include "aten/JoinUtils.h"
#include "registration/library.h"

namespace at {
namespace native {

Tensor& masked_fill__scalar_decomposed(Tensor& self, const Tensor& mask,
                                       const c10::Scalar& value) {
  check_masked_fill(self, mask);
  // A 0-d CPU tensor of self's dtype: a device's kernels take it by value
  // (Note [CPU scalars on a device]).
  const Tensor v = at::full({}, value, TensorOptions().dtype(self.scalar_type()));
  self.copy_(at::where(mask, v, self));
  return self;
}

Tensor& masked_fill__tensor_decomposed(Tensor& self, const Tensor& mask, const Tensor& value) {
  check_masked_fill_value(value);
  check_masked_fill(self, mask);
  self.copy_(at::where(mask, value.to(self.scalar_type()), self));
  return self;
}

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
  m.impl("masked_fill_.Scalar", TORCH_FN(masked_fill__scalar_decomposed));
  m.impl("masked_fill_.Tensor", TORCH_FN(masked_fill__tensor_decomposed));
}

}  // namespace native
}  // namespace at
