// <ATen/TensorIndexing.h> — at::indexing (torch::indexing): Slice, None,
// Ellipsis, TensorIndex, and Tensor::index / index_put_ with them, as in
// libtorch. <ATen/ATen.h> and <torch/torch.h> include it already.
#pragma once

#include "aten/TensorIndexing.h"
