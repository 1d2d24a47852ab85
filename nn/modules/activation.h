// nn/modules/activation.h — torch::nn::ReLU, GELU, Tanh, Sigmoid, Softmax,
// LogSoftmax and Dropout: modules without parameters.
//
//   torch::nn::Sequential head(torch::nn::ReLU(), torch::nn::Dropout(0.2),
//                              torch::nn::Linear(64, 10), torch::nn::LogSoftmax(1));
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/options.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::ReLUImpl — max(x, 0); inplace overwrites the input.
class ReLUImpl : public Cloneable<ReLUImpl> {
 public:
  explicit ReLUImpl(const ReLUOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);

  ReLUOptions options;
};
TORCH_MODULE(ReLU);

// torch::nn::GELUImpl — x * Φ(x), exact ("none") or tanh-approximated.
class GELUImpl : public Cloneable<GELUImpl> {
 public:
  explicit GELUImpl(GELUOptions options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  GELUOptions options;
};
TORCH_MODULE(GELU);

// torch::nn::TanhImpl
class TanhImpl : public Cloneable<TanhImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
TORCH_MODULE(Tanh);

// torch::nn::SigmoidImpl
class SigmoidImpl : public Cloneable<SigmoidImpl> {
 public:
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};
TORCH_MODULE(Sigmoid);

// torch::nn::SoftmaxImpl — softmax along options.dim().
class SoftmaxImpl : public Cloneable<SoftmaxImpl> {
 public:
  explicit SoftmaxImpl(int64_t dim) : SoftmaxImpl(SoftmaxOptions(dim)) {}
  explicit SoftmaxImpl(const SoftmaxOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  SoftmaxOptions options;
};
TORCH_MODULE(Softmax);

// torch::nn::LogSoftmaxImpl — log(softmax) along options.dim(), computed stably.
class LogSoftmaxImpl : public Cloneable<LogSoftmaxImpl> {
 public:
  explicit LogSoftmaxImpl(int64_t dim) : LogSoftmaxImpl(LogSoftmaxOptions(dim)) {}
  explicit LogSoftmaxImpl(const LogSoftmaxOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  LogSoftmaxOptions options;
};
TORCH_MODULE(LogSoftmax);

// torch::nn::DropoutImpl — in training, zeroes each element with
// probability p and scales the others by 1 / (1 - p); in eval, the identity.
class DropoutImpl : public Cloneable<DropoutImpl> {
 public:
  explicit DropoutImpl(double p) : DropoutImpl(DropoutOptions(p)) {}
  explicit DropoutImpl(const DropoutOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);

  DropoutOptions options;
};
TORCH_MODULE(Dropout);

// Defined in activation.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class Cloneable<ReLUImpl>;
extern template class Cloneable<GELUImpl>;
extern template class Cloneable<TanhImpl>;
extern template class Cloneable<SigmoidImpl>;
extern template class Cloneable<SoftmaxImpl>;
extern template class Cloneable<LogSoftmaxImpl>;
extern template class Cloneable<DropoutImpl>;

}  // namespace nn
}  // namespace torch
