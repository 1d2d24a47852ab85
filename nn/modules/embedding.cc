#include "nn/modules/embedding.h"

#include "nn/functional.h"
#include "nn/init.h"

namespace torch {
namespace nn {

EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options) : options(std::move(options)) { reset(); }

void EmbeddingImpl::reset() {
  const int64_t rows = options.num_embeddings();
  const int64_t cols = options.embedding_dim();
  TORCH_CHECK(rows > 0 && cols > 0, "Embedding: num_embeddings and embedding_dim must be "
              "positive, but got num_embeddings=", rows, ", embedding_dim=", cols, ".");
  if (options.padding_idx().has_value()) {
    const int64_t idx = *options.padding_idx();
    TORCH_CHECK(idx < rows && idx >= -rows, "Embedding: padding_idx ", idx,
                " is out of range for ", rows,
                " embeddings; it must be in [-num_embeddings, num_embeddings).");
    if (idx < 0) options.padding_idx(idx + rows);
  }
  TORCH_CHECK(!options.sparse(), "Embedding: sparse=true is not supported (Ember has no sparse "
              "tensors); use sparse=false.");
  if (options._weight().defined()) {
    TORCH_CHECK(options._weight().dim() == 2 && options._weight().size(0) == rows &&
                    options._weight().size(1) == cols,
                "Embedding: _weight must have sizes [num_embeddings, embedding_dim] = [", rows,
                ", ", cols, "], but got ", options._weight().sizes(), ".");
    weight = register_parameter("weight", options._weight());
  } else {
    weight = register_parameter("weight", at::empty({rows, cols}));
    reset_parameters();
  }
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx().has_value()) {
    NoGradGuard no_grad;
    weight[*options.padding_idx()].fill_(0);
  }
}

void EmbeddingImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::Embedding(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx().has_value()) stream << ", padding_idx=" << *options.padding_idx();
  if (options.max_norm().has_value()) stream << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) stream << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) stream << ", scale_grad_by_freq=" << true;
  if (options.sparse()) stream << ", sparse=" << true;
  stream << ")";
}

Tensor EmbeddingImpl::forward(const Tensor& indices) {
  return functional::embedding(indices, weight,
                               functional::EmbeddingFuncOptions()
                                   .padding_idx(options.padding_idx())
                                   .max_norm(options.max_norm())
                                   .norm_type(options.norm_type())
                                   .scale_grad_by_freq(options.scale_grad_by_freq()));
}

Embedding Embedding::from_pretrained(const Tensor& embeddings,
                                     const EmbeddingFromPretrainedOptions& options) {
  TORCH_CHECK(embeddings.defined() && embeddings.dim() == 2, "Embedding::from_pretrained: "
              "expected a 2-d tensor [num_embeddings, embedding_dim], but got ",
              embeddings.defined() ? c10::str("sizes ", embeddings.sizes())
                                   : std::string("an undefined tensor"),
              ".");
  Embedding embedding(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                          ._weight(embeddings)
                          .padding_idx(options.padding_idx())
                          .max_norm(options.max_norm())
                          .norm_type(options.norm_type())
                          .scale_grad_by_freq(options.scale_grad_by_freq())
                          .sparse(options.sparse()));
  embedding->weight.set_requires_grad(!options.freeze());
  return embedding;
}

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class Cloneable<EmbeddingImpl>;

}  // namespace nn
}  // namespace torch
