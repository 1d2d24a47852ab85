// nn/modules/transformer.h — torch::nn::TransformerEncoderLayer,
// TransformerEncoder, TransformerDecoderLayer, TransformerDecoder and
// Transformer, as libtorch's C++ modules (post-norm layers, time-first
// inputs [S, N, E]), built on MultiheadAttention, Linear, Dropout and
// LayerNorm.
//
//   torch::nn::TransformerEncoder encoder(torch::nn::TransformerEncoderOptions(
//       torch::nn::TransformerEncoderLayerOptions(64, 4).dim_feedforward(128), 2));
//   auto mask = torch::nn::TransformerImpl::generate_square_subsequent_mask(src.size(0));
//   auto h = encoder(src, mask);                  // src [S, N, 64] -> [S, N, 64]
//   torch::nn::Transformer model(torch::nn::TransformerOptions(64, 4, 2, 2));
//   auto y = model(src, tgt, {}, mask);           // tgt [T, N, 64] -> [T, N, 64]
//
// Masks follow MultiheadAttention: attn masks [L, S] (bool true = masked,
// float added), key padding masks [N, S] (true = ignore that position).
// As libtorch, an encoder/decoder's layers are copies (same initial
// values) of the layer given in its options. Not supported: libtorch's
// `Cloneable::clone()` of these modules.
#pragma once

#include <functional>
#include <ostream>
#include <variant>

#include "nn/arg.h"
#include "nn/enum.h"
#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/modules/activation.h"
#include "nn/modules/any.h"
#include "nn/modules/attention.h"
#include "nn/modules/linear.h"
#include "nn/modules/normalization.h"
#include "nn/modules/sequential.h"
#include "nn/pimpl.h"
#include "nn/types.h"

namespace torch {
namespace nn {

// The feed-forward activation: torch::kReLU, torch::kGELU or a function.
using activation_t =
    std::variant<enumtype::kReLU, enumtype::kGELU, std::function<Tensor(const Tensor&)>>;

struct TransformerEncoderLayerOptions {
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}
  TORCH_ARG(int64_t, d_model);
  TORCH_ARG(int64_t, nhead);
  TORCH_ARG(int64_t, dim_feedforward) = 2048;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(activation_t, activation) = torch::kReLU;
};

struct TransformerDecoderLayerOptions {
  TransformerDecoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}
  TORCH_ARG(int64_t, d_model);
  TORCH_ARG(int64_t, nhead);
  TORCH_ARG(int64_t, dim_feedforward) = 2048;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(activation_t, activation) = torch::kReLU;
};

// torch::nn::TransformerEncoderLayerImpl — self-attention then a
// feed-forward block, each followed by dropout, a residual add and
// LayerNorm (libtorch's parameter names: self_attn, linear1, linear2,
// norm1, norm2).
class TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options);

  // src [S, N, E] (or [S, E]); src_mask [S, S]; src_key_padding_mask [N, S].
  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {});
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr;
  LayerNorm norm2 = nullptr;
  Dropout dropout1 = nullptr;
  Dropout dropout2 = nullptr;
};
TORCH_MODULE(TransformerEncoderLayer);

// torch::nn::TransformerDecoderLayerImpl — self-attention, attention over
// the encoder's output (memory), then a feed-forward block; post-norm.
class TransformerDecoderLayerImpl : public Cloneable<TransformerDecoderLayerImpl> {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(TransformerDecoderLayerOptions options);

  // tgt [T, N, E], memory [S, N, E]; tgt_mask [T, T], memory_mask [T, S];
  // tgt_key_padding_mask [N, T], memory_key_padding_mask [N, S].
  Tensor forward(Tensor tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Dropout dropout1 = nullptr;
  LayerNorm norm1 = nullptr;
  MultiheadAttention multihead_attn = nullptr;
  Dropout dropout2 = nullptr;
  LayerNorm norm2 = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  Dropout dropout3 = nullptr;
  LayerNorm norm3 = nullptr;
};
TORCH_MODULE(TransformerDecoderLayer);

struct TransformerEncoderOptions {
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers);
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer_options,
                            int64_t num_layers);
  TORCH_ARG(TransformerEncoderLayer, encoder_layer) = nullptr;
  TORCH_ARG(int64_t, num_layers);
  // Applied to the last layer's output when not empty (e.g. a LayerNorm).
  TORCH_ARG(AnyModule, norm);
};

struct TransformerDecoderOptions {
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers);
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer_options,
                            int64_t num_layers);
  TORCH_ARG(TransformerDecoderLayer, decoder_layer) = nullptr;
  TORCH_ARG(int64_t, num_layers);
  TORCH_ARG(AnyModule, norm);
};

// torch::nn::TransformerEncoderImpl — num_layers copies of encoder_layer
// (`layers`, a ModuleList), then `norm` if given.
class TransformerEncoderImpl : public Cloneable<TransformerEncoderImpl> {
 public:
  TransformerEncoderImpl(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : TransformerEncoderImpl(TransformerEncoderOptions(std::move(encoder_layer), num_layers)) {}
  explicit TransformerEncoderImpl(TransformerEncoderOptions options);

  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {});
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerEncoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
TORCH_MODULE(TransformerEncoder);

// torch::nn::TransformerDecoderImpl — num_layers copies of decoder_layer,
// then `norm` if given.
class TransformerDecoderImpl : public Cloneable<TransformerDecoderImpl> {
 public:
  TransformerDecoderImpl(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : TransformerDecoderImpl(TransformerDecoderOptions(std::move(decoder_layer), num_layers)) {}
  explicit TransformerDecoderImpl(TransformerDecoderOptions options);

  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  TransformerDecoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
TORCH_MODULE(TransformerDecoder);

struct TransformerOptions {
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TransformerOptions(int64_t d_model, int64_t nhead, int64_t num_encoder_layers,
                     int64_t num_decoder_layers)
      : d_model_(d_model),
        nhead_(nhead),
        num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  TORCH_ARG(int64_t, d_model) = 512;
  TORCH_ARG(int64_t, nhead) = 8;
  TORCH_ARG(int64_t, num_encoder_layers) = 6;
  TORCH_ARG(int64_t, num_decoder_layers) = 6;
  TORCH_ARG(int64_t, dim_feedforward) = 2048;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(activation_t, activation) = torch::kReLU;
  // Used instead of the default TransformerEncoder / TransformerDecoder
  // when not empty; their forward must take (src, src_mask,
  // src_key_padding_mask) / (tgt, memory, tgt_mask, memory_mask,
  // tgt_key_padding_mask, memory_key_padding_mask).
  TORCH_ARG(AnyModule, custom_encoder);
  TORCH_ARG(AnyModule, custom_decoder);
};

// torch::nn::TransformerImpl — encoder (with a final LayerNorm) and decoder
// (with a final LayerNorm); parameters of more than one dimension drawn
// with xavier_uniform_.
class TransformerImpl : public Cloneable<TransformerImpl> {
 public:
  explicit TransformerImpl(TransformerOptions options);

  // src [S, N, E], tgt [T, N, E] -> [T, N, E].
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {},
                 const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& src_key_padding_mask = {},
                 const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  // [sz, sz] float mask: -inf above the diagonal (a position may not
  // attend to later ones), 0 elsewhere.
  static Tensor generate_square_subsequent_mask(int64_t sz);

  TransformerOptions options;
  AnyModule encoder;
  AnyModule decoder;
};
TORCH_MODULE(Transformer);

// Defined in transformer.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class Cloneable<TransformerEncoderLayerImpl>;
extern template class Cloneable<TransformerDecoderLayerImpl>;
extern template class Cloneable<TransformerEncoderImpl>;
extern template class Cloneable<TransformerDecoderImpl>;
extern template class Cloneable<TransformerImpl>;

}  // namespace nn
}  // namespace torch
