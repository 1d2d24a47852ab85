// <torch/autograd.h> — autograd's C++ API, as in libtorch: backward, grad,
// custom Functions, grad modes, anomaly mode, the profiler and the memory
// statistics it reads (c10::cpu_allocator_stats, c10::cpu_memory_summary).
#pragma once

#include "autograd/anomaly_mode.h"
#include "autograd/autograd.h"
#include "autograd/custom_function.h"
#include "autograd/engine.h"
#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "autograd/gradcheck.h"
#include "autograd/graph_dot.h"
#include "autograd/profiler.h"
#include "c10/core/CPUAllocator.h"
