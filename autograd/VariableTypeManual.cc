// Autograd kernels written by hand, for ops whose autograd behaviour is not
// a derivative formula (autograd/derivatives.txt) nor the fallback's
// (autograd/fallback.cc):
//  - resize_: refused on a tensor that requires grad, as PyTorch does (a
//    resize changes the shape the graph recorded; there is no gradient for
//    it). Otherwise it runs below autograd; ADInplaceOrView bumps the
//    version.
#include <optional>

#include "aten/Operators.h"
#include "c10/core/impl/LocalDispatchKeySet.h"
#include "registration/library.h"

namespace torch {
namespace autograd {
namespace {

at::Tensor& resize_(c10::DispatchKeySet ks, at::Tensor& self, c10::IntArrayRef size,
                    std::optional<c10::MemoryFormat> memory_format) {
  TORCH_CHECK(!self.requires_grad(), "cannot resize variables that require grad: resize_ "
              "to ", size, " was called on a tensor of sizes ", self.sizes(), " that requires "
              "grad. Resize a detached tensor (t.detach().resize_(...)), or make a new one.");
  {
    at::AutoDispatchBelowADInplaceOrView below;
    at::_ops::resize_::redispatch(ks - c10::autograd_dispatch_keyset, self, size,
                                  memory_format);
  }
  return self;
}

}  // namespace
}  // namespace autograd
}  // namespace torch

TORCH_LIBRARY_IMPL(aten, Autograd, m) {
  m.impl("resize_", TORCH_FN(torch::autograd::resize_));
}
