// nn/modules/rectifiers.h — torch::nn::LeakyReLU, PReLU, ELU, SELU,
// Softplus and Hardtanh, and the channel dropouts Dropout2d and Dropout3d.
// (ReLU, GELU and Dropout are in nn/modules/activation.h.)
//
//   torch::nn::Sequential d(torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 8, 4).stride(2)),
//                           torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions()
//                                                    .negative_slope(0.2)),
//                           torch::nn::Dropout2d(0.25));
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/options.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::LeakyReLUImpl — x, or negative_slope * x below 0.
class LeakyReLUImpl : public Cloneable<LeakyReLUImpl> {
 public:
  explicit LeakyReLUImpl(const LeakyReLUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);

  LeakyReLUOptions options;
};
TORCH_MODULE(LeakyReLU);

// torch::nn::ELUImpl — x, or alpha * (exp(x) - 1) below 0.
class ELUImpl : public Cloneable<ELUImpl> {
 public:
  explicit ELUImpl(const ELUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);

  ELUOptions options;
};
TORCH_MODULE(ELU);

// torch::nn::SELUImpl — the self-normalizing ELU.
class SELUImpl : public Cloneable<SELUImpl> {
 public:
  explicit SELUImpl(const SELUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);

  SELUOptions options;
};
TORCH_MODULE(SELU);

// torch::nn::SoftplusImpl — a smooth ReLU, log(1 + exp(beta x)) / beta.
class SoftplusImpl : public Cloneable<SoftplusImpl> {
 public:
  explicit SoftplusImpl(const SoftplusOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  SoftplusOptions options;
};
TORCH_MODULE(Softplus);

// torch::nn::HardtanhImpl — clamp(x, min_val, max_val).
class HardtanhImpl : public Cloneable<HardtanhImpl> {
 public:
  explicit HardtanhImpl(const HardtanhOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);

  HardtanhOptions options;
};
TORCH_MODULE(Hardtanh);

// torch::nn::PReLUImpl — LeakyReLU with a learned slope: parameter weight
// [num_parameters], filled with init.
class PReLUImpl : public Cloneable<PReLUImpl> {
 public:
  explicit PReLUImpl(const PReLUOptions& options = {});
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  PReLUOptions options;
  Tensor weight;
};
TORCH_MODULE(PReLU);

// torch::nn::Dropout2dImpl / Dropout3dImpl — in training, zeroes each whole
// channel of [N, C, H, W] ([N, C, D, H, W]) with probability p and scales
// the others by 1 / (1 - p); the identity in eval.
template <int64_t D>
class ChannelDropoutImpl : public Module {
 public:
  explicit ChannelDropoutImpl(double p) : ChannelDropoutImpl(DropoutOptions(p)) {}
  explicit ChannelDropoutImpl(const DropoutOptions& options = {});
  void reset();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);

  DropoutOptions options;
};
class Dropout2dImpl : public detail::CloneableAs<Dropout2dImpl, ChannelDropoutImpl<2>> {
 public:
  using CloneableAs::CloneableAs;
};
TORCH_MODULE(Dropout2d);
class Dropout3dImpl : public detail::CloneableAs<Dropout3dImpl, ChannelDropoutImpl<3>> {
 public:
  using CloneableAs::CloneableAs;
};
TORCH_MODULE(Dropout3d);

extern template class ChannelDropoutImpl<2>;
extern template class ChannelDropoutImpl<3>;

// Defined in rectifiers.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class Cloneable<LeakyReLUImpl>;
extern template class Cloneable<ELUImpl>;
extern template class Cloneable<SELUImpl>;
extern template class Cloneable<SoftplusImpl>;
extern template class Cloneable<HardtanhImpl>;
extern template class Cloneable<PReLUImpl>;
extern template class detail::CloneableAs<Dropout2dImpl, ChannelDropoutImpl<2>>;
extern template class detail::CloneableAs<Dropout3dImpl, ChannelDropoutImpl<3>>;

}  // namespace nn
}  // namespace torch
