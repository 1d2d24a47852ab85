// <torch/all.h> — everything of libtorch's C++ API that Ember has; the same
// as <torch/torch.h> (libtorch's torch.h includes all.h).
#pragma once

#include <torch/torch.h>  // IWYU pragma: export
