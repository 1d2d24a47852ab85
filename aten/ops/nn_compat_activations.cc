// selu, prelu and feature_dropout (channel dropout, behind nn::Dropout2d and
// friends): written in terms of other ops and registered for
// CompositeImplicitAutograd, as in PyTorch.
#include <vector>

#include "aten/Functions.h"
#include "aten/TensorOperators.h"
#include "registration/library.h"

namespace at {
namespace native {
namespace {

// scale * elu(x, alpha), with the constants of Klambauer et al. (2017).
Tensor selu(const Tensor& self) {
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  return at::elu(self, kAlpha, kScale);
}

// max(0, x) + weight * min(0, x), weight [1] or [C] for input [N, C, *].
Tensor prelu(const Tensor& self, const Tensor& weight) {
  TORCH_CHECK(self.defined() && weight.defined(),
              "prelu: the input and the weight must be defined tensors.");
  TORCH_CHECK(weight.dim() <= 1, "prelu: expected a weight of 0 or 1 dimensions, but got ",
              weight.dim(), " dimensions.");
  const int64_t n = weight.numel();
  Tensor w = weight.reshape({n});
  if (n != 1) {
    TORCH_CHECK(self.dim() >= 1, "prelu: a weight of ", n, " elements needs an input with a "
                "channel dimension, but the input is 0-d; use one weight (num_parameters=1).");
    const int64_t channel_dim = self.dim() >= 2 ? 1 : 0;
    TORCH_CHECK(self.size(channel_dim) == n, "prelu: mismatch of parameter numbers and input "
                "channel size: found ", n, " weights and ", self.size(channel_dim),
                " channels (dim ", channel_dim, " of an input of size ", self.sizes(),
                "); set num_parameters to the channel count or to 1.");
    std::vector<int64_t> shape(static_cast<size_t>(self.dim()), 1);
    shape[static_cast<size_t>(channel_dim)] = n;
    w = w.reshape(shape);
  }
  return at::where(self > 0, self, w * self);
}

// Zeroes whole channels: one Bernoulli(1 - p) draw per (sample, channel) of
// an input [N, C, *] (or [C, *]), scaled by 1 / (1 - p); the identity when
// not training or p = 0.
Tensor feature_dropout(const Tensor& input, double p, bool train) {
  TORCH_CHECK(p >= 0 && p <= 1, "feature_dropout: dropout probability has to be between 0 "
              "and 1, but got ", p, ".");
  if (!train || p == 0) return input;
  TORCH_CHECK(input.dim() >= 2, "feature_dropout: expected an input of at least 2 dimensions "
              "([N, C, *] or [C, *]), but got ", input.dim(), "; use dropout for elementwise "
              "dropout.");
  if (p == 1) return input * at::zeros({}, input.options());
  std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1);
  shape[0] = input.size(0);
  shape[1] = input.size(1);
  Tensor keep = at::empty(shape, input.options().requires_grad(false));
  keep.bernoulli_(1 - p);
  keep.div_(1 - p);
  return input * keep;
}

}  // namespace
}  // namespace native
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeImplicitAutograd, m) {
  m.impl("selu", TORCH_FN(at::native::selu));
  m.impl("prelu", TORCH_FN(at::native::prelu));
  m.impl("feature_dropout", TORCH_FN(at::native::feature_dropout));
}
