#include "nn/modules/transformer.h"

#include <limits>
#include <string>
#include <utility>

#include "nn/functional.h"
#include "nn/init.h"

namespace torch {
namespace nn {
namespace {

void check_layer_options(const char* name, int64_t d_model, int64_t nhead,
                         int64_t dim_feedforward, double dropout) {
  TORCH_CHECK(d_model > 0 && nhead > 0 && dim_feedforward > 0, name, ": d_model, nhead and "
              "dim_feedforward must be positive, but got d_model=", d_model, ", nhead=", nhead,
              ", dim_feedforward=", dim_feedforward, ".");
  TORCH_CHECK(d_model % nhead == 0, name, ": d_model (", d_model, ") must be divisible by "
              "nhead (", nhead, ").");
  TORCH_CHECK(dropout >= 0 && dropout <= 1, name, ": dropout must be between 0 and 1, but got ",
              dropout, ".");
}

Tensor activate(const activation_t& activation, const Tensor& x) {
  if (std::holds_alternative<enumtype::kReLU>(activation)) return at::relu(x);
  if (std::holds_alternative<enumtype::kGELU>(activation)) return functional::gelu(x);
  const auto& fn = std::get<std::function<Tensor(const Tensor&)>>(activation);
  TORCH_CHECK(static_cast<bool>(fn), "Transformer: the activation function is empty; pass "
              "torch::kReLU, torch::kGELU or a callable.");
  return fn(x);
}

const char* activation_name(const activation_t& activation) {
  if (std::holds_alternative<enumtype::kReLU>(activation)) return "kReLU";
  if (std::holds_alternative<enumtype::kGELU>(activation)) return "kGELU";
  return "<function>";
}

// The values of `from`'s parameters and buffers copied into `to` (a module
// of the same structure): libtorch's layers are clone()s of the given one.
void copy_state(const Module& from, Module& to) {
  NoGradGuard no_grad;
  const auto params = from.named_parameters();
  for (auto& item : to.named_parameters()) item.value().copy_(params[item.key()]);
  const auto buffers = from.named_buffers();
  for (auto& item : to.named_buffers()) item.value().copy_(buffers[item.key()]);
}

void xavier_matrices(Module& module) {
  for (auto& p : module.parameters()) {
    if (p.dim() > 1) init::xavier_uniform_(p);
  }
}

void check_stack(const char* name, bool layer_given, int64_t num_layers) {
  TORCH_CHECK(layer_given, name, ": the layer in the options is empty (nullptr); pass a "
              "constructed layer or its options.");
  TORCH_CHECK(num_layers > 0, name, ": num_layers must be positive, but got ", num_layers, ".");
}

}  // namespace

// ---- TransformerEncoderLayer ----

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options)
    : options(std::move(options)) {
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  const auto& o = options;
  check_layer_options("TransformerEncoderLayer", o.d_model(), o.nhead(), o.dim_feedforward(),
                      o.dropout());
  self_attn = register_module(
      "self_attn",
      MultiheadAttention(MultiheadAttentionOptions(o.d_model(), o.nhead()).dropout(o.dropout())));
  linear1 = register_module("linear1", Linear(o.d_model(), o.dim_feedforward()));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2", Linear(o.dim_feedforward(), o.d_model()));
  norm1 = register_module("norm1", LayerNorm(LayerNormOptions({o.d_model()})));
  norm2 = register_module("norm2", LayerNorm(LayerNormOptions({o.d_model()})));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
}

void TransformerEncoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
}

void TransformerEncoderLayerImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::TransformerEncoderLayer(d_model=" << options.d_model()
         << ", nhead=" << options.nhead() << ", dim_feedforward=" << options.dim_feedforward()
         << ", dropout=" << options.dropout()
         << ", activation=" << activation_name(options.activation()) << ")";
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  const Tensor attended = std::get<0>(self_attn(src, src, src, src_key_padding_mask,
                                                /*need_weights=*/false, src_mask));
  Tensor x = norm1(src + dropout1(attended));
  const Tensor ff = linear2(dropout(activate(options.activation(), linear1(x))));
  return norm2(x + dropout2(ff));
}

// ---- TransformerDecoderLayer ----

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(TransformerDecoderLayerOptions options)
    : options(std::move(options)) {
  reset();
}

void TransformerDecoderLayerImpl::reset() {
  const auto& o = options;
  check_layer_options("TransformerDecoderLayer", o.d_model(), o.nhead(), o.dim_feedforward(),
                      o.dropout());
  const auto attention = MultiheadAttentionOptions(o.d_model(), o.nhead()).dropout(o.dropout());
  self_attn = register_module("self_attn", MultiheadAttention(attention));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  norm1 = register_module("norm1", LayerNorm(LayerNormOptions({o.d_model()})));
  multihead_attn = register_module("multihead_attn", MultiheadAttention(attention));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
  norm2 = register_module("norm2", LayerNorm(LayerNormOptions({o.d_model()})));
  linear1 = register_module("linear1", Linear(o.d_model(), o.dim_feedforward()));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2", Linear(o.dim_feedforward(), o.d_model()));
  dropout3 = register_module("dropout3", Dropout(o.dropout()));
  norm3 = register_module("norm3", LayerNorm(LayerNormOptions({o.d_model()})));
}

void TransformerDecoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  multihead_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
  norm3->reset_parameters();
}

void TransformerDecoderLayerImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::TransformerDecoderLayer(d_model=" << options.d_model()
         << ", nhead=" << options.nhead() << ", dim_feedforward=" << options.dim_feedforward()
         << ", dropout=" << options.dropout()
         << ", activation=" << activation_name(options.activation()) << ")";
}

Tensor TransformerDecoderLayerImpl::forward(Tensor tgt, const Tensor& memory,
                                            const Tensor& tgt_mask, const Tensor& memory_mask,
                                            const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask) {
  TORCH_CHECK(memory.defined(), "TransformerDecoderLayer: memory (the encoder's output) is "
              "undefined; pass a tensor [S, N, E].");
  const Tensor self = std::get<0>(self_attn(tgt, tgt, tgt, tgt_key_padding_mask,
                                            /*need_weights=*/false, tgt_mask));
  tgt = norm1(tgt + dropout1(self));
  const Tensor cross = std::get<0>(multihead_attn(tgt, memory, memory, memory_key_padding_mask,
                                                  /*need_weights=*/false, memory_mask));
  tgt = norm2(tgt + dropout2(cross));
  const Tensor ff = linear2(dropout(activate(options.activation(), linear1(tgt))));
  return norm3(tgt + dropout3(ff));
}

// ---- TransformerEncoder / TransformerDecoder ----

TransformerEncoderOptions::TransformerEncoderOptions(TransformerEncoderLayer encoder_layer,
                                                     int64_t num_layers)
    : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
TransformerEncoderOptions::TransformerEncoderOptions(
    const TransformerEncoderLayerOptions& encoder_layer_options, int64_t num_layers)
    : encoder_layer_(TransformerEncoderLayer(encoder_layer_options)), num_layers_(num_layers) {}

TransformerDecoderOptions::TransformerDecoderOptions(TransformerDecoderLayer decoder_layer,
                                                     int64_t num_layers)
    : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
TransformerDecoderOptions::TransformerDecoderOptions(
    const TransformerDecoderLayerOptions& decoder_layer_options, int64_t num_layers)
    : decoder_layer_(TransformerDecoderLayer(decoder_layer_options)), num_layers_(num_layers) {}

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions options)
    : options(std::move(options)) {
  reset();
}

void TransformerEncoderImpl::reset() {
  const auto& layer = options.encoder_layer();
  check_stack("TransformerEncoder", !layer.is_empty(), options.num_layers());
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) {
    TransformerEncoderLayer copy(layer->options);
    copy_state(*layer, *copy);
    layers->push_back(copy);
  }
  norm = options.norm();
  if (!norm.is_empty()) register_module("norm", norm.ptr());
}

void TransformerEncoderImpl::reset_parameters() {
  for (size_t i = 0; i < layers->size(); ++i) {
    layers->ptr<TransformerEncoderLayerImpl>(i)->reset_parameters();
  }
}

void TransformerEncoderImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::TransformerEncoder(num_layers=" << options.num_layers() << ")";
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& src_mask,
                                       const Tensor& src_key_padding_mask) {
  Tensor x = src;
  for (size_t i = 0; i < layers->size(); ++i) {
    x = layers->ptr<TransformerEncoderLayerImpl>(i)->forward(x, src_mask, src_key_padding_mask);
  }
  return norm.is_empty() ? x : norm.forward(x);
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions options)
    : options(std::move(options)) {
  reset();
}

void TransformerDecoderImpl::reset() {
  const auto& layer = options.decoder_layer();
  check_stack("TransformerDecoder", !layer.is_empty(), options.num_layers());
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) {
    TransformerDecoderLayer copy(layer->options);
    copy_state(*layer, *copy);
    layers->push_back(copy);
  }
  norm = options.norm();
  if (!norm.is_empty()) register_module("norm", norm.ptr());
}

void TransformerDecoderImpl::reset_parameters() {
  for (size_t i = 0; i < layers->size(); ++i) {
    layers->ptr<TransformerDecoderLayerImpl>(i)->reset_parameters();
  }
}

void TransformerDecoderImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::TransformerDecoder(num_layers=" << options.num_layers() << ")";
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory,
                                       const Tensor& tgt_mask, const Tensor& memory_mask,
                                       const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask) {
  Tensor x = tgt;
  for (size_t i = 0; i < layers->size(); ++i) {
    x = layers->ptr<TransformerDecoderLayerImpl>(i)->forward(
        x, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
  }
  return norm.is_empty() ? x : norm.forward(x);
}

// ---- Transformer ----

TransformerImpl::TransformerImpl(TransformerOptions options) : options(std::move(options)) {
  reset();
}

void TransformerImpl::reset() {
  const auto& o = options;
  if (o.custom_encoder().is_empty()) {
    encoder = AnyModule(TransformerEncoder(
        TransformerEncoderOptions(TransformerEncoderLayerOptions(o.d_model(), o.nhead())
                                      .dim_feedforward(o.dim_feedforward())
                                      .dropout(o.dropout())
                                      .activation(o.activation()),
                                  o.num_encoder_layers())
            .norm(AnyModule(LayerNorm(LayerNormOptions({o.d_model()}))))));
  } else {
    encoder = o.custom_encoder();
  }
  if (o.custom_decoder().is_empty()) {
    decoder = AnyModule(TransformerDecoder(
        TransformerDecoderOptions(TransformerDecoderLayerOptions(o.d_model(), o.nhead())
                                      .dim_feedforward(o.dim_feedforward())
                                      .dropout(o.dropout())
                                      .activation(o.activation()),
                                  o.num_decoder_layers())
            .norm(AnyModule(LayerNorm(LayerNormOptions({o.d_model()}))))));
  } else {
    decoder = o.custom_decoder();
  }
  register_module("encoder", encoder.ptr());
  register_module("decoder", decoder.ptr());
  reset_parameters();
}

void TransformerImpl::reset_parameters() { xavier_matrices(*this); }

void TransformerImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Transformer(d_model=" << options.d_model() << ", nhead="
         << options.nhead() << ", num_encoder_layers=" << options.num_encoder_layers()
         << ", num_decoder_layers=" << options.num_decoder_layers() << ")";
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask,
                                const Tensor& tgt_mask, const Tensor& memory_mask,
                                const Tensor& src_key_padding_mask,
                                const Tensor& tgt_key_padding_mask,
                                const Tensor& memory_key_padding_mask) {
  TORCH_CHECK(src.defined() && tgt.defined(), "Transformer: src and tgt must be defined "
              "tensors.");
  TORCH_CHECK(src.dim() == 3 && tgt.dim() == 3, "Transformer: expected src [S, N, E] and tgt "
              "[T, N, E], but got sizes ", src.sizes(), " and ", tgt.sizes(), ".");
  TORCH_CHECK(src.size(1) == tgt.size(1), "Transformer: src and tgt must have the same batch "
              "size (dimension 1), but got sizes ", src.sizes(), " and ", tgt.sizes(), ".");
  TORCH_CHECK(src.size(2) == options.d_model() && tgt.size(2) == options.d_model(),
              "Transformer: src and tgt must have d_model (", options.d_model(), ") features "
              "(dimension 2), but got sizes ", src.sizes(), " and ", tgt.sizes(), ".");
  const Tensor memory = encoder.forward(src, src_mask, src_key_padding_mask);
  return decoder.forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                         memory_key_padding_mask);
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz) {
  TORCH_CHECK(sz > 0, "Transformer::generate_square_subsequent_mask: the size must be "
              "positive, but got ", sz, ".");
  const Tensor rows = at::arange(sz, at::TensorOptions().dtype(at::kLong)).unsqueeze(1);
  const Tensor cols = at::arange(sz, at::TensorOptions().dtype(at::kLong)).unsqueeze(0);
  return at::where(cols > rows, -std::numeric_limits<double>::infinity(), 0.0)
      .to(at::kFloat);
}

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class Cloneable<TransformerEncoderLayerImpl>;
template class Cloneable<TransformerDecoderLayerImpl>;
template class Cloneable<TransformerEncoderImpl>;
template class Cloneable<TransformerDecoderImpl>;
template class Cloneable<TransformerImpl>;

}  // namespace nn
}  // namespace torch
