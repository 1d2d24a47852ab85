// <ATen/ATen.h> — at::Tensor, TensorOptions and the at:: ops, as in libtorch.
// See docs/compat.md for what is supported.
#pragma once

#include <ATen/Dispatch.h>
#include <ATen/core/List.h>

#include "aten/CPUGeneratorImpl.h"
#include "aten/DeviceRuntime.h"
#include "aten/FromBlob.h"
#include "aten/Functions.h"
#include "aten/Parallel.h"
#include "aten/Reduction.h"
#include "aten/Tensor.h"
#include "aten/TensorFactory.h"
#include "aten/TensorOperators.h"
#include "aten/TensorOptions.h"
#include "c10/core/Scalar.h"
#include "c10/core/ScalarType.h"
#include "c10/util/Logging.h"
#include "c10/util/Optional.h"
