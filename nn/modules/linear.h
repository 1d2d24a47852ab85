// nn/modules/linear.h — torch::nn::Linear, Identity and Flatten.
//
//   torch::nn::Linear fc(torch::nn::LinearOptions(784, 10).bias(false));
//   auto y = fc(torch::nn::Flatten()(x));   // x [N, 1, 28, 28] -> y [N, 10]
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/options.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::LinearImpl — y = x W^T + b, with W [out_features, in_features]
// drawn from kaiming_uniform_(a = sqrt(5)) and b from U(±1/sqrt(in_features)).
class LinearImpl : public Cloneable<LinearImpl> {
 public:
  LinearImpl(int64_t in_features, int64_t out_features)
      : LinearImpl(LinearOptions(in_features, out_features)) {}
  explicit LinearImpl(const LinearOptions& options);

  // Registers fresh parameters from `options` and initializes them.
  void reset() override;
  // Re-draws the parameters (PyTorch's default initialization).
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // input [*, in_features] -> [*, out_features].
  Tensor forward(const Tensor& input);

  LinearOptions options;
  Tensor weight;
  Tensor bias;  // undefined without bias
};
TORCH_MODULE(Linear);

// torch::nn::IdentityImpl — returns its input.
class IdentityImpl : public Cloneable<IdentityImpl> {
 public:
  IdentityImpl() = default;
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return input; }
};
TORCH_MODULE(Identity);

// torch::nn::FlattenImpl — flattens dims start_dim..end_dim (default 1..-1).
class FlattenImpl : public Cloneable<FlattenImpl> {
 public:
  explicit FlattenImpl(const FlattenOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  FlattenOptions options;
};
TORCH_MODULE(Flatten);

// Defined in linear.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class Cloneable<LinearImpl>;
extern template class Cloneable<IdentityImpl>;
extern template class Cloneable<FlattenImpl>;

}  // namespace nn
}  // namespace torch
