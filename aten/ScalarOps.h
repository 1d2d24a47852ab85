// aten/ScalarOps.h — a Scalar as a 0-dim "wrapped number" tensor, which type
// promotion treats like a Python number: `int_tensor * 2.5` is float32, not
// float64.
#pragma once

#include "aten/Functions.h"

namespace at {

// at::wrapped_scalar_tensor
inline Tensor wrapped_scalar_tensor(const Scalar& s, Device device) {
  Tensor t = at::scalar_tensor(s, TensorOptions().dtype(s.type()).device(device));
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

}  // namespace at
