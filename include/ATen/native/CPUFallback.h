// <ATen/native/CPUFallback.h> — at::native::cpu_fallback, the boxed fallback
// that runs ops a backend lacks on the CPU, as in libtorch.
#pragma once

#include "aten/CPUFallback.h"
