// nn/modules/attention.h — torch::nn::MultiheadAttention and
// torch::scaled_dot_product_attention.
//
//   torch::nn::MultiheadAttention mha(torch::nn::MultiheadAttentionOptions(64, 8));
//   auto [out, weights] = mha(x, x, x);   // x [L, N, 64] -> out [L, N, 64], weights [N, L, L]
//   auto y = torch::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true);
//
// Both are composites of differentiable aten ops (matmul, softmax, masked
// fill through where, dropout), so autograd needs no derivative of its own.
// torch::scaled_dot_product_attention is a function of the nn library here,
// not an aten op (there is no at::scaled_dot_product_attention).
#pragma once

#include <optional>
#include <ostream>
#include <tuple>

#include "nn/arg.h"
#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/modules/linear.h"
#include "nn/pimpl.h"
#include "nn/types.h"

namespace torch {

// torch::scaled_dot_product_attention — softmax(q k^T * scale + mask) v
// over the last two dimensions: query [*, L, E], key [*, S, E], value
// [*, S, Ev] -> [*, L, Ev]. attn_mask broadcasts to [*, L, S]: a bool mask
// keeps where true; a float mask is added. is_causal masks key positions
// after the query's (no attn_mask then). scale defaults to 1 / sqrt(E).
at::Tensor scaled_dot_product_attention(const at::Tensor& query, const at::Tensor& key,
                                        const at::Tensor& value, const at::Tensor& attn_mask = {},
                                        double dropout_p = 0.0, bool is_causal = false,
                                        std::optional<double> scale = std::nullopt);

namespace nn {

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  TORCH_ARG(int64_t, embed_dim);
  TORCH_ARG(int64_t, num_heads);
  // Dropout on the attention weights, in training.
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bias) = true;
  // Appends learned bias_k / bias_v to the keys and values.
  TORCH_ARG(bool, add_bias_kv) = false;
  // Appends a zero key and value.
  TORCH_ARG(bool, add_zero_attn) = false;
  // Feature sizes of key and value (default embed_dim).
  TORCH_ARG(int64_t, kdim);
  TORCH_ARG(int64_t, vdim);
};

// torch::nn::MultiheadAttentionImpl — attention with num_heads heads of
// embed_dim / num_heads features, as libtorch's: inputs are time first
// (query [L, N, E], key [S, N, kdim], value [S, N, vdim]; unbatched [L, E]
// too); key_padding_mask [N, S] (true or non-zero = ignore that key);
// attn_mask [L, S] or [N * num_heads, L, S] (bool: true = masked; float:
// added). Returns (output [L, N, E], the attention weights [N, L, S]
// averaged over heads, or [N, num_heads, L, S] with average_attn_weights =
// false; undefined without need_weights).
class MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);

  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {},
                                     bool need_weights = true, const Tensor& attn_mask = {},
                                     bool average_attn_weights = true);
  void reset() override;
  // xavier_uniform_ projections, zero biases, xavier_normal_ bias_k/v.
  void _reset_parameters();
  void pretty_print(std::ostream& stream) const override;

  MultiheadAttentionOptions options;
  bool _qkv_same_embed_dim = true;
  Tensor in_proj_weight;  // [3 E, E] when kdim == vdim == E
  Tensor in_proj_bias;    // [3 E]
  Tensor bias_k;          // [1, 1, E]
  Tensor bias_v;
  Linear out_proj = nullptr;
  Tensor q_proj_weight;  // [E, E], [E, kdim], [E, vdim] otherwise
  Tensor k_proj_weight;
  Tensor v_proj_weight;
  int64_t head_dim = 0;
};
TORCH_MODULE(MultiheadAttention);

// Defined in attention.cc. See Note [Built-in modules instantiate Cloneable once].
extern template class Cloneable<MultiheadAttentionImpl>;

}  // namespace nn
}  // namespace torch
