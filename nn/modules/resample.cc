#include "nn/modules/resample.h"

#include <variant>

#include "nn/functional.h"
#include "nn/init.h"

namespace torch {
namespace nn {

namespace {
template <typename T>
void print_list(std::ostream& stream, const std::vector<T>& values) {
  stream << "[";
  for (size_t i = 0; i < values.size(); ++i) stream << (i == 0 ? "" : ", ") << values[i];
  stream << "]";
}
}  // namespace

// ---- Upsample ----

void UpsampleImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Upsample(";
  if (options.scale_factor()) {
    stream << "scale_factor=";
    print_list(stream, *options.scale_factor());
  } else if (options.size()) {
    stream << "size=";
    print_list(stream, *options.size());
  }
  stream << ", mode=" << enumtype::get_enum_name(options.mode()) << ")";
}

Tensor UpsampleImpl::forward(const Tensor& input) {
  functional::InterpolateFuncOptions f;
  f.size(options.size()).scale_factor(options.scale_factor()).align_corners(
      options.align_corners());
  std::visit([&](auto mode) { f.mode(mode); }, options.mode());
  return functional::interpolate(input, f);
}

// ---- PixelShuffle, PixelUnshuffle ----

void PixelShuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}
Tensor PixelShuffleImpl::forward(const Tensor& input) {
  return functional::pixel_shuffle(input, options);
}

void PixelUnshuffleImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}
Tensor PixelUnshuffleImpl::forward(const Tensor& input) {
  return functional::pixel_unshuffle(input, options);
}

// ---- EmbeddingBag ----

EmbeddingBagImpl::EmbeddingBagImpl(EmbeddingBagOptions options) : options(std::move(options)) {
  reset();
}

void EmbeddingBagImpl::reset() {
  const int64_t rows = options.num_embeddings(), cols = options.embedding_dim();
  TORCH_CHECK(rows > 0 && cols > 0, "EmbeddingBag: num_embeddings and embedding_dim must be "
              "positive, but got num_embeddings=", rows, ", embedding_dim=", cols, ".");
  if (options.padding_idx().has_value()) {
    const int64_t idx = *options.padding_idx();
    TORCH_CHECK(idx < rows && idx >= -rows, "EmbeddingBag: padding_idx ", idx,
                " is out of range for ", rows,
                " embeddings; it must be in [-num_embeddings, num_embeddings).");
    if (idx < 0) options.padding_idx(idx + rows);
  }
  TORCH_CHECK(!options.sparse(), "EmbeddingBag: sparse=true is not supported (Ember has no "
              "sparse tensors); use sparse=false.");
  if (options._weight().defined()) {
    TORCH_CHECK(options._weight().dim() == 2 && options._weight().size(0) == rows &&
                    options._weight().size(1) == cols,
                "EmbeddingBag: _weight must have sizes [num_embeddings, embedding_dim] = [",
                rows, ", ", cols, "], but got ", options._weight().sizes(), ".");
    weight = register_parameter("weight", options._weight());
  } else {
    weight = register_parameter("weight", at::empty({rows, cols}));
    reset_parameters();
  }
}

void EmbeddingBagImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx().has_value()) {
    NoGradGuard no_grad;
    weight[*options.padding_idx()].fill_(0);
  }
}

void EmbeddingBagImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::EmbeddingBag(num_embeddings=" << options.num_embeddings()
         << ", embedding_dim=" << options.embedding_dim()
         << ", mode=" << enumtype::get_enum_name(options.mode());
  if (options.padding_idx().has_value()) stream << ", padding_idx=" << *options.padding_idx();
  if (options.include_last_offset()) stream << ", include_last_offset=true";
  stream << ")";
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets,
                                 const Tensor& per_sample_weights) {
  return functional::embedding_bag(input, weight,
                                   functional::EmbeddingBagFuncOptions()
                                       .offsets(offsets)
                                       .mode(options.mode())
                                       .max_norm(options.max_norm())
                                       .norm_type(options.norm_type())
                                       .scale_grad_by_freq(options.scale_grad_by_freq())
                                       .per_sample_weights(per_sample_weights)
                                       .include_last_offset(options.include_last_offset())
                                       .padding_idx(options.padding_idx()));
}

// ---- dropouts ----

namespace {
void check_p(const char* where, double p) {
  TORCH_CHECK(p >= 0. && p <= 1., where, ": the probability p must be between 0 and 1, but "
              "got ", p, ".");
}
void print_dropout(std::ostream& stream, const char* name, const DropoutOptions& o) {
  stream << std::boolalpha << "torch::nn::" << name << "(p=" << o.p()
         << ", inplace=" << o.inplace() << ")";
}
functional::DropoutFuncOptions func(const DropoutOptions& o, bool training) {
  return functional::DropoutFuncOptions().p(o.p()).inplace(o.inplace()).training(training);
}
}  // namespace

Dropout1dImpl::Dropout1dImpl(const Dropout1dOptions& options) : options(options) { reset(); }
void Dropout1dImpl::reset() { check_p("Dropout1d", options.p()); }
void Dropout1dImpl::pretty_print(std::ostream& stream) const {
  print_dropout(stream, "Dropout1d", options);
}
Tensor Dropout1dImpl::forward(Tensor input) {
  return functional::dropout1d(std::move(input), func(options, is_training()));
}

AlphaDropoutImpl::AlphaDropoutImpl(const AlphaDropoutOptions& options) : options(options) {
  reset();
}
void AlphaDropoutImpl::reset() { check_p("AlphaDropout", options.p()); }
void AlphaDropoutImpl::pretty_print(std::ostream& stream) const {
  print_dropout(stream, "AlphaDropout", options);
}
Tensor AlphaDropoutImpl::forward(const Tensor& input) {
  return functional::alpha_dropout(input, func(options, is_training()));
}

FeatureAlphaDropoutImpl::FeatureAlphaDropoutImpl(const FeatureAlphaDropoutOptions& options)
    : options(options) {
  reset();
}
void FeatureAlphaDropoutImpl::reset() { check_p("FeatureAlphaDropout", options.p()); }
void FeatureAlphaDropoutImpl::pretty_print(std::ostream& stream) const {
  print_dropout(stream, "FeatureAlphaDropout", options);
}
Tensor FeatureAlphaDropoutImpl::forward(const Tensor& input) {
  return functional::feature_alpha_dropout(input, func(options, is_training()));
}

// ---- Unflatten ----

void UnflattenImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Unflatten(dim=" << options.dim() << ", unflattened_size=";
  print_list(stream, options.sizes());
  stream << ")";
}

Tensor UnflattenImpl::forward(const Tensor& input) {
  return at::unflatten(input, options.dim(), options.sizes());
}

// See Note [Built-in modules instantiate Cloneable once] in nn/cloneable.h.
template class Cloneable<UpsampleImpl>;
template class Cloneable<PixelShuffleImpl>;
template class Cloneable<PixelUnshuffleImpl>;
template class Cloneable<EmbeddingBagImpl>;
template class Cloneable<Dropout1dImpl>;
template class Cloneable<AlphaDropoutImpl>;
template class Cloneable<FeatureAlphaDropoutImpl>;
template class Cloneable<UnflattenImpl>;

}  // namespace nn
}  // namespace torch
