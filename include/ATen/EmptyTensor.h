// <ATen/EmptyTensor.h> — at::detail::empty_generic / empty_strided_generic
// and c10::dtype_or_default, as in libtorch: how a backend makes its tensors.
#pragma once

#include "aten/EmptyTensor.h"
