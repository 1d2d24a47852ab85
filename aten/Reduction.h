// aten/Reduction.h — at::Reduction, the `reduction` argument of the loss ops
// (nll_loss, mse_loss, binary_cross_entropy, …), an int in their schemas.
//
//   at::Tensor loss = at::mse_loss(x, y, at::Reduction::Sum);
#pragma once

#include <cstdint>

namespace at {
namespace Reduction {

// at::Reduction::Reduction — the values PyTorch gives the enum (the schema
// default `Mean` is 1).
enum Reduction : int64_t {
  None = 0,  // one loss per element
  Mean = 1,  // the (weighted) mean of the losses
  Sum = 2,   // their sum
};

}  // namespace Reduction
}  // namespace at
