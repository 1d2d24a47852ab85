// aten/ScalarOps.h — a Scalar as a 0-dim "wrapped number" tensor, which type
// promotion treats like a Python number: `int_tensor * 2.5` is float32, not
// float64.
#pragma once

#include "aten/Functions.h"

namespace at {

// at::wrapped_scalar_tensor
//
// A 0-dim tensor of the Scalar's own dtype (Double, Long or Bool) holding
// its value, marked as a wrapped number. On the CPU it is built here
// directly (Note [Wrapped numbers without dispatch] in ScalarOps.cc); on
// other devices through at::scalar_tensor.
Tensor wrapped_scalar_tensor(const Scalar& s, Device device);

}  // namespace at
