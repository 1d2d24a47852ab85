#include "nn/modules/attention.h"

#include <cmath>
#include <limits>
#include <vector>

#include "nn/functional.h"
#include "nn/init.h"

namespace torch {

namespace {
// -inf where `masked`, else `scores`.
at::Tensor fill_masked(const at::Tensor& scores, const at::Tensor& masked) {
  const at::Tensor neg_inf =
      at::full({}, -std::numeric_limits<double>::infinity(), scores.options());
  return at::where(masked, neg_inf, scores);
}
}  // namespace

at::Tensor scaled_dot_product_attention(const at::Tensor& query, const at::Tensor& key,
                                        const at::Tensor& value, const at::Tensor& attn_mask,
                                        double dropout_p, bool is_causal,
                                        std::optional<double> scale) {
  TORCH_CHECK(query.defined() && key.defined() && value.defined(), "scaled_dot_product_attention: "
              "query, key and value must be defined tensors.");
  TORCH_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2,
              "scaled_dot_product_attention: expected query, key and value of at least 2 "
              "dimensions [*, L, E], but got sizes ", query.sizes(), ", ", key.sizes(), ", ",
              value.sizes(), ".");
  TORCH_CHECK(query.size(-1) == key.size(-1), "scaled_dot_product_attention: query and key must "
              "have the same last dimension, but got ", query.size(-1), " and ", key.size(-1),
              ".");
  TORCH_CHECK(key.size(-2) == value.size(-2), "scaled_dot_product_attention: key and value must "
              "have the same sequence length (dimension -2), but got ", key.size(-2), " and ",
              value.size(-2), ".");
  TORCH_CHECK(dropout_p >= 0 && dropout_p <= 1, "scaled_dot_product_attention: dropout_p must "
              "be between 0 and 1, but got ", dropout_p, ".");
  TORCH_CHECK(!(is_causal && attn_mask.defined()), "scaled_dot_product_attention: pass either "
              "attn_mask or is_causal=true, not both.");
  const double s = scale.value_or(1.0 / std::sqrt(static_cast<double>(query.size(-1))));
  at::Tensor scores = at::matmul(query, key.transpose(-2, -1)) * s;  // [*, L, S]
  if (is_causal) {
    const int64_t l = query.size(-2), n = key.size(-2);
    const at::Tensor rows = at::arange(l, at::TensorOptions().dtype(at::kLong)).unsqueeze(1);
    const at::Tensor cols = at::arange(n, at::TensorOptions().dtype(at::kLong)).unsqueeze(0);
    scores = fill_masked(scores, cols > rows);
  } else if (attn_mask.defined()) {
    scores = attn_mask.scalar_type() == at::kBool ? fill_masked(scores, at::logical_not(attn_mask))
                                                  : scores + attn_mask;
  }
  at::Tensor weights = at::softmax(scores, -1);
  if (dropout_p > 0) weights = at::dropout(weights, dropout_p, /*train=*/true);
  return at::matmul(weights, value);
}

namespace nn {

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options)
    : options(options) {
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t e = options.embed_dim(), h = options.num_heads();
  TORCH_CHECK(e > 0 && h > 0, "MultiheadAttention: embed_dim and num_heads must be positive, "
              "but got embed_dim=", e, ", num_heads=", h, ".");
  TORCH_CHECK(e % h == 0, "MultiheadAttention: embed_dim (", e, ") must be divisible by "
              "num_heads (", h, ").");
  TORCH_CHECK(options.kdim() > 0 && options.vdim() > 0, "MultiheadAttention: kdim and vdim must "
              "be positive, but got kdim=", options.kdim(), ", vdim=", options.vdim(), ".");
  TORCH_CHECK(options.dropout() >= 0 && options.dropout() <= 1, "MultiheadAttention: dropout "
              "must be between 0 and 1, but got ", options.dropout(), ".");
  head_dim = e / h;
  _qkv_same_embed_dim = options.kdim() == e && options.vdim() == e;
  if (_qkv_same_embed_dim) {
    in_proj_weight = register_parameter("in_proj_weight", at::empty({3 * e, e}));
    q_proj_weight = register_parameter("q_proj_weight", Tensor(), false);
    k_proj_weight = register_parameter("k_proj_weight", Tensor(), false);
    v_proj_weight = register_parameter("v_proj_weight", Tensor(), false);
  } else {
    q_proj_weight = register_parameter("q_proj_weight", at::empty({e, e}));
    k_proj_weight = register_parameter("k_proj_weight", at::empty({e, options.kdim()}));
    v_proj_weight = register_parameter("v_proj_weight", at::empty({e, options.vdim()}));
    in_proj_weight = register_parameter("in_proj_weight", Tensor(), false);
  }
  in_proj_bias = register_parameter("in_proj_bias",
                                    options.bias() ? at::empty({3 * e}) : Tensor(), options.bias());
  out_proj = register_module("out_proj", Linear(LinearOptions(e, e).bias(options.bias())));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", at::empty({1, 1, e}));
    bias_v = register_parameter("bias_v", at::empty({1, 1, e}));
  } else {
    bias_k = Tensor();
    bias_v = Tensor();
  }
  _reset_parameters();
}

void MultiheadAttentionImpl::_reset_parameters() {
  if (_qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::constant_(in_proj_bias, 0.);
    init::constant_(out_proj->bias, 0.);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

void MultiheadAttentionImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "torch::nn::MultiheadAttention(embed_dim=" << options.embed_dim()
         << ", num_heads=" << options.num_heads() << ", dropout=" << options.dropout()
         << ", bias=" << options.bias() << ")";
}

namespace {
// A column of `pad` appended to the last dimension of a mask (for the
// extra key of add_bias_kv / add_zero_attn).
Tensor pad_mask(const Tensor& mask) {
  if (!mask.defined()) return mask;
  std::vector<int64_t> shape = mask.sizes().vec();
  shape.back() = 1;
  return at::cat({mask, at::zeros(shape, mask.options())}, -1);
}

// Boolean masks are "true = ignore"; others are added to the scores.
Tensor apply_mask(const Tensor& scores, const Tensor& mask) {
  if (!mask.defined()) return scores;
  return mask.scalar_type() == at::kBool ? fill_masked(scores, mask) : scores + mask;
}
}  // namespace

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(
    const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
    bool need_weights, const Tensor& attn_mask, bool average_attn_weights) {
  const int64_t e = options.embed_dim(), heads = options.num_heads();
  TORCH_CHECK(query.defined() && key.defined() && value.defined(), "MultiheadAttention: query, "
              "key and value must be defined tensors.");
  TORCH_CHECK(query.dim() == 2 || query.dim() == 3, "MultiheadAttention: expected a 2-d "
              "(unbatched [L, E]) or 3-d ([L, N, E]) query, but got a ", query.dim(),
              "-d query of sizes ", query.sizes(), ".");
  TORCH_CHECK(key.dim() == query.dim() && value.dim() == query.dim(), "MultiheadAttention: "
              "query, key and value must have the same number of dimensions, but got sizes ",
              query.sizes(), ", ", key.sizes(), ", ", value.sizes(), ".");
  TORCH_CHECK(query.size(-1) == e, "MultiheadAttention: expected query with embed_dim (", e,
              ") features in its last dimension, but got sizes ", query.sizes(), ".");
  TORCH_CHECK(key.size(-1) == options.kdim() && value.size(-1) == options.vdim(),
              "MultiheadAttention: expected key with kdim (", options.kdim(), ") and value with "
              "vdim (", options.vdim(), ") features, but got sizes ", key.sizes(), " and ",
              value.sizes(), ".");
  TORCH_CHECK(key.sizes().slice(0, key.dim() - 1) == value.sizes().slice(0, value.dim() - 1),
              "MultiheadAttention: key and value must agree in all but the last dimension, but "
              "got sizes ", key.sizes(), " and ", value.sizes(), ".");
  const bool batched = query.dim() == 3;
  const Tensor q_in = batched ? query : query.unsqueeze(1);
  const Tensor k_in = batched ? key : key.unsqueeze(1);
  const Tensor v_in = batched ? value : value.unsqueeze(1);
  Tensor padding = key_padding_mask;
  if (padding.defined() && !batched) padding = padding.unsqueeze(0);
  const int64_t l = q_in.size(0), n = q_in.size(1);
  TORCH_CHECK(k_in.size(1) == n, "MultiheadAttention: query and key must have the same batch "
              "size (dimension 1), but got sizes ", query.sizes(), " and ", key.sizes(), ".");

  // Projections.
  Tensor w_q, w_k, w_v, b_q, b_k, b_v;
  if (_qkv_same_embed_dim) {
    const auto w = in_proj_weight.chunk(3, 0);
    w_q = w[0];
    w_k = w[1];
    w_v = w[2];
  } else {
    w_q = q_proj_weight;
    w_k = k_proj_weight;
    w_v = v_proj_weight;
  }
  if (in_proj_bias.defined()) {
    const auto b = in_proj_bias.chunk(3, 0);
    b_q = b[0];
    b_k = b[1];
    b_v = b[2];
  }
  Tensor q = functional::linear(q_in, w_q, b_q);
  Tensor k = functional::linear(k_in, w_k, b_k);
  Tensor v = functional::linear(v_in, w_v, b_v);
  Tensor mask = attn_mask;
  if (mask.defined()) {
    TORCH_CHECK((mask.dim() == 2 && mask.size(0) == l && mask.size(1) == k_in.size(0)) ||
                    (mask.dim() == 3 && mask.size(0) == n * heads && mask.size(1) == l &&
                     mask.size(2) == k_in.size(0)),
                "MultiheadAttention: expected attn_mask of sizes [", l, ", ", k_in.size(0),
                "] or [", n * heads, ", ", l, ", ", k_in.size(0), "] (batch * num_heads, L, S), "
                "but got ", mask.sizes(), ".");
    if (mask.dim() == 2) mask = mask.unsqueeze(0);
  }
  if (padding.defined()) {
    TORCH_CHECK(padding.dim() == 2 && padding.size(0) == n && padding.size(1) == k_in.size(0),
                "MultiheadAttention: expected key_padding_mask of sizes [", n, ", ",
                k_in.size(0), "] (batch, S), but got ", padding.sizes(), ".");
  }
  if (bias_k.defined()) {
    k = at::cat({k, bias_k.expand({1, n, e})}, 0);
    v = at::cat({v, bias_v.expand({1, n, e})}, 0);
    mask = pad_mask(mask);
    padding = pad_mask(padding);
  }
  // Heads: [L, N, E] -> [N * heads, L, head_dim].
  q = q.reshape({l, n * heads, head_dim}).transpose(0, 1);
  k = k.reshape({k.size(0), n * heads, head_dim}).transpose(0, 1);
  v = v.reshape({v.size(0), n * heads, head_dim}).transpose(0, 1);
  if (options.add_zero_attn()) {
    k = at::cat({k, at::zeros({n * heads, 1, head_dim}, k.options())}, 1);
    v = at::cat({v, at::zeros({n * heads, 1, head_dim}, v.options())}, 1);
    mask = pad_mask(mask);
    padding = pad_mask(padding);
  }
  const int64_t s = k.size(1);
  Tensor scores = at::bmm(q * (1.0 / std::sqrt(static_cast<double>(head_dim))),
                          k.transpose(1, 2));  // [N * heads, L, S]
  scores = apply_mask(scores, mask);
  if (padding.defined()) {
    const Tensor per_head =
        padding.reshape({n, 1, 1, s}).expand({n, heads, 1, s}).reshape({n * heads, 1, s});
    scores = apply_mask(scores, per_head);
  }
  Tensor weights = at::softmax(scores, -1);
  if (options.dropout() > 0 && is_training()) {
    weights = at::dropout(weights, options.dropout(), /*train=*/true);
  }
  Tensor out = at::bmm(weights, v).transpose(0, 1).reshape({l, n, e});
  out = out_proj(out);
  Tensor returned;
  if (need_weights) {
    returned = weights.reshape({n, heads, l, s});
    if (average_attn_weights) returned = returned.mean({1});
    if (!batched) returned = returned.squeeze(0);
  }
  if (!batched) out = out.squeeze(1);
  return {out, returned};
}

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class Cloneable<MultiheadAttentionImpl>;

}  // namespace nn
}  // namespace torch
