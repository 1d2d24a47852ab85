// nn/modules/resample.h — torch::nn::Upsample, PixelShuffle, PixelUnshuffle,
// EmbeddingBag, Dropout1d, AlphaDropout, FeatureAlphaDropout and Unflatten.
//
//   torch::nn::Upsample up(torch::nn::UpsampleOptions()
//                              .scale_factor(std::vector<double>{2, 2})
//                              .mode(torch::kBilinear).align_corners(false));
//   torch::nn::EmbeddingBag bag(torch::nn::EmbeddingBagOptions(1000, 16).mode(torch::kSum));
//   auto v = bag(tokens, offsets);   // 1-d int64 tokens, bag starts -> [B, 16]
//
// Forward calls the functional form (nn/functional.h), a composite of
// differentiable aten ops.
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/options.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::UpsampleImpl — F::interpolate with the module's options
// (kNearest, kLinear for [N, C, L], kBilinear for [N, C, H, W]).
class UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  UpsampleOptions options;
};
TORCH_MODULE(Upsample);

// torch::nn::PixelShuffleImpl — [*, C r^2, H, W] -> [*, C, H r, W r].
class PixelShuffleImpl : public Cloneable<PixelShuffleImpl> {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  PixelShuffleOptions options;
};
TORCH_MODULE(PixelShuffle);

// torch::nn::PixelUnshuffleImpl — the inverse of PixelShuffle.
class PixelUnshuffleImpl : public Cloneable<PixelUnshuffleImpl> {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  PixelUnshuffleOptions options;
};
TORCH_MODULE(PixelUnshuffle);

// torch::nn::EmbeddingBagImpl — weight [num_embeddings, embedding_dim] from
// N(0, 1) (or options._weight), padding_idx's row zeroed; forward reduces
// bags of rows with options.mode() (kMean by default). sparse is rejected.
class EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(EmbeddingBagOptions options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // input [B, L] (offsets undefined) or 1-d with offsets -> [B, embedding_dim].
  Tensor forward(const Tensor& input, const Tensor& offsets = {},
                 const Tensor& per_sample_weights = {});

  EmbeddingBagOptions options;
  Tensor weight;
};
TORCH_MODULE(EmbeddingBag);

// torch::nn::Dropout1dImpl — zeroes whole channels of [N, C, L] ([C, L]).
class Dropout1dImpl : public Cloneable<Dropout1dImpl> {
 public:
  explicit Dropout1dImpl(double p) : Dropout1dImpl(Dropout1dOptions(p)) {}
  explicit Dropout1dImpl(const Dropout1dOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);

  Dropout1dOptions options;
};
TORCH_MODULE(Dropout1d);

// torch::nn::AlphaDropoutImpl / FeatureAlphaDropoutImpl — dropout for SELU
// networks (elements / whole channels); the identity in eval.
class AlphaDropoutImpl : public Cloneable<AlphaDropoutImpl> {
 public:
  explicit AlphaDropoutImpl(double p) : AlphaDropoutImpl(AlphaDropoutOptions(p)) {}
  explicit AlphaDropoutImpl(const AlphaDropoutOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  AlphaDropoutOptions options;
};
TORCH_MODULE(AlphaDropout);

class FeatureAlphaDropoutImpl : public Cloneable<FeatureAlphaDropoutImpl> {
 public:
  explicit FeatureAlphaDropoutImpl(double p)
      : FeatureAlphaDropoutImpl(FeatureAlphaDropoutOptions(p)) {}
  explicit FeatureAlphaDropoutImpl(const FeatureAlphaDropoutOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  FeatureAlphaDropoutOptions options;
};
TORCH_MODULE(FeatureAlphaDropout);

// torch::nn::UnflattenImpl — splits dimension dim into sizes (one may be -1).
class UnflattenImpl : public Cloneable<UnflattenImpl> {
 public:
  UnflattenImpl(int64_t dim, std::vector<int64_t> sizes)
      : UnflattenImpl(UnflattenOptions(dim, std::move(sizes))) {}
  explicit UnflattenImpl(UnflattenOptions options) : options(std::move(options)) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);

  UnflattenOptions options;
};
TORCH_MODULE(Unflatten);

// Defined in resample.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class Cloneable<UpsampleImpl>;
extern template class Cloneable<PixelShuffleImpl>;
extern template class Cloneable<PixelUnshuffleImpl>;
extern template class Cloneable<EmbeddingBagImpl>;
extern template class Cloneable<Dropout1dImpl>;
extern template class Cloneable<AlphaDropoutImpl>;
extern template class Cloneable<FeatureAlphaDropoutImpl>;
extern template class Cloneable<UnflattenImpl>;

}  // namespace nn
}  // namespace torch
