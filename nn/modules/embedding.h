// nn/modules/embedding.h — torch::nn::Embedding: a lookup table of vectors.
//
//   torch::nn::Embedding emb(torch::nn::EmbeddingOptions(1000, 64).padding_idx(0));
//   auto v = emb(tokens);   // int64 [B, T] -> [B, T, 64]
//   auto frozen = torch::nn::Embedding::from_pretrained(table);   // weight not trained
#pragma once

#include <ostream>

#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/options.h"
#include "nn/pimpl.h"

namespace torch {
namespace nn {

// torch::nn::EmbeddingImpl — weight [num_embeddings, embedding_dim] from
// N(0, 1) (or options._weight), with the padding_idx row zeroed; that row
// gets no gradient. max_norm and sparse are not supported (rejected).
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options);

  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // Integer indices of any shape -> [*, embedding_dim].
  Tensor forward(const Tensor& indices);

  EmbeddingOptions options;
  Tensor weight;
};

// torch::nn::Embedding — the holder, with from_pretrained.
class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  using Impl = EmbeddingImpl;

  // An Embedding whose weight is `embeddings` (2-d, shared, not copied);
  // it does not train when options.freeze() (the default).
  static Embedding from_pretrained(const Tensor& embeddings,
                                   const EmbeddingFromPretrainedOptions& options = {});
};

// Defined in embedding.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class Cloneable<EmbeddingImpl>;

}  // namespace nn
}  // namespace torch
