// <ATen/Parallel.h> — at::set_num_threads / at::get_num_threads, as in libtorch.
#pragma once

#include "aten/Parallel.h"
