// The functional forms of nn/options_more.h: group/instance norm, 1-d and
// adaptive pooling, interpolate, pixel (un)shuffle, embedding_bag and alpha
// dropout. Each is a composite of differentiable aten ops (reshape,
// mean, batch_norm, max_pool2d, index_select, scatter_add, max.dim, ...),
// so autograd needs no derivative of its own; none is an aten op (there is
// no at::group_norm etc.).
#include <cmath>
#include <optional>
#include <unordered_map>
#include <variant>
#include <vector>

#include "c10/util/Exception.h"
#include "c10/util/StringUtil.h"
#include "aten/TensorFactory.h"
#include "nn/functional.h"

namespace torch {
namespace nn {
namespace functional {
namespace {

void check_defined(const char* where, const char* what, const Tensor& t) {
  TORCH_CHECK(t.defined(), where, ": the ", what, " tensor is undefined; pass a tensor.");
}

// [1, C, 1, ...] for a per-channel tensor of C elements against input [N, C, *].
Tensor per_channel(const Tensor& t, const Tensor& input) {
  std::vector<int64_t> shape(input.dim(), 1);
  shape[1] = input.size(1);
  return t.reshape(shape);
}

void check_rank(const char* where, const Tensor& input, int64_t spatial, const char* layout) {
  check_defined(where, "input", input);
  TORCH_CHECK(input.dim() == spatial + 1 || input.dim() == spatial + 2, where, ": expected a ",
              spatial + 1, "-d (unbatched) or ", spatial + 2, "-d (batched) input ", layout,
              ", but got a ", input.dim(), "-d input of sizes ", input.sizes(), ".");
}

// Cell i of `out` cells over `in` elements: [floor(i in / out), ceil((i + 1) in / out)).
int64_t cell_start(int64_t i, int64_t in, int64_t out) { return (i * in) / out; }
int64_t cell_end(int64_t i, int64_t in, int64_t out) { return ((i + 1) * in + out - 1) / out; }

Tensor long_tensor(const std::vector<int64_t>& values) {
  return at::tensor(c10::ArrayRef<int64_t>(values));
}

}  // namespace

// ---- normalization ----

Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options) {
  check_defined("group_norm", "input", input);
  TORCH_CHECK(input.dim() >= 2, "group_norm: expected an input [N, C, *] with at least 2 "
              "dimensions, but got sizes ", input.sizes(), ".");
  const int64_t groups = options.num_groups(), channels = input.size(1);
  TORCH_CHECK(groups > 0 && channels % groups == 0, "group_norm: the input's channels (",
              channels, ", dimension 1 of sizes ", input.sizes(), ") must be divisible by "
              "num_groups (", groups, ").");
  for (const Tensor* t : {&options.weight(), &options.bias()}) {
    TORCH_CHECK(!t->defined() || t->numel() == channels, "group_norm: expected weight and bias "
                "of ", channels, " elements (the input's channels), but got sizes ",
                t->sizes(), ".");
  }
  const Tensor x = input.reshape({input.size(0), groups, -1});
  const Tensor centered = x - x.mean({2}, /*keepdim=*/true);
  const Tensor var = (centered * centered).mean({2}, /*keepdim=*/true);
  Tensor y = (centered * at::rsqrt(var + options.eps())).reshape(input.sizes());
  if (options.weight().defined()) y = y * per_channel(options.weight(), input);
  if (options.bias().defined()) y = y + per_channel(options.bias(), input);
  return y;
}

// As PyTorch does: batch_norm of the input seen as [1, N * C, *], with the
// per-channel tensors repeated N times; the running statistics get the
// mean of their N updated copies.
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options) {
  check_defined("instance_norm", "input", input);
  TORCH_CHECK(input.dim() >= 3, "instance_norm: expected an input [N, C, *] with at least one "
              "spatial dimension, but got sizes ", input.sizes(), ".");
  const int64_t n = input.size(0), c = input.size(1);
  const Tensor& rm = options.running_mean();
  const Tensor& rv = options.running_var();
  TORCH_CHECK(rm.defined() == rv.defined(), "instance_norm: running_mean and running_var must "
              "both be defined or both undefined.");
  TORCH_CHECK(options.use_input_stats() || rm.defined(), "instance_norm: use_input_stats=false "
              "needs running_mean and running_var; pass them or use the input's statistics.");
  if (options.use_input_stats()) {
    TORCH_CHECK(input.numel() / std::max<int64_t>(n * c, 1) > 1, "instance_norm: expected "
                "more than 1 spatial element when training, but got input of sizes ",
                input.sizes(), ".");
  }
  for (const Tensor* t : {&options.weight(), &options.bias(), &rm, &rv}) {
    TORCH_CHECK(!t->defined() || t->numel() == c, "instance_norm: expected weight, bias and "
                "running statistics of ", c, " elements (the input's channels), but got sizes ",
                t->sizes(), ".");
  }
  auto repeat = [&](const Tensor& t) {
    return t.defined() ? std::optional<Tensor>(t.reshape({1, c}).expand({n, c}).reshape({n * c}))
                       : std::nullopt;
  };
  std::optional<Tensor> rm_n, rv_n;
  if (rm.defined()) {
    rm_n = repeat(rm)->clone();
    rv_n = repeat(rv)->clone();
  }
  std::vector<int64_t> shape = input.sizes().vec();
  shape[1] = n * c;
  shape[0] = 1;
  const Tensor y = at::batch_norm(input.reshape(shape), repeat(options.weight()),
                                  repeat(options.bias()), rm_n, rv_n, options.use_input_stats(),
                                  options.momentum(), options.eps(), /*cudnn_enabled=*/false);
  if (rm.defined() && options.use_input_stats()) {
    at::NoGradGuard no_grad;
    rm.copy_(rm_n->reshape({n, c}).mean({0}));
    rv.copy_(rv_n->reshape({n, c}).mean({0}));
  }
  return y.reshape(input.sizes());
}

// ---- pooling ----

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options) {
  check_rank("max_pool1d", input, 1, "[C, L] / [N, C, L]");
  const int64_t k = (*options.kernel_size())[0], s = (*options.stride())[0],
                p = (*options.padding())[0], d = (*options.dilation())[0];
  TORCH_CHECK(k > 0 && s > 0 && d > 0, "max_pool1d: kernel_size, stride and dilation must be "
              "positive, but got kernel_size=", k, ", stride=", s, ", dilation=", d, ".");
  TORCH_CHECK(p >= 0 && 2 * p <= k, "max_pool1d: padding must be between 0 and half of "
              "kernel_size (", k, "), but got ", p, ".");
  const int64_t one = 1, zero = 0;
  return at::max_pool2d(input.unsqueeze(-2), {one, k}, {one, s}, {zero, p}, {one, d},
                        options.ceil_mode())
      .squeeze(-2);
}

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options) {
  check_rank("avg_pool1d", input, 1, "[C, L] / [N, C, L]");
  const int64_t k = (*options.kernel_size())[0], s = (*options.stride())[0],
                p = (*options.padding())[0];
  TORCH_CHECK(k > 0 && s > 0, "avg_pool1d: kernel_size and stride must be positive, but got "
              "kernel_size=", k, ", stride=", s, ".");
  TORCH_CHECK(p >= 0 && 2 * p <= k, "avg_pool1d: padding must be between 0 and half of "
              "kernel_size (", k, "), but got ", p, ".");
  const int64_t one = 1, zero = 0;
  return at::avg_pool2d(input.unsqueeze(-2), {one, k}, {one, s}, {zero, p}, options.ceil_mode(),
                        options.count_include_pad(), options.divisor_override())
      .squeeze(-2);
}

namespace {
void check_adaptive(const char* where, const Tensor& input, int64_t spatial,
                    at::IntArrayRef output_size) {
  check_rank(where, input, spatial, spatial == 1 ? "[C, L] / [N, C, L]" : "[C, H, W] / [N, C, H, W]");
  for (int64_t i = 1; i <= spatial; ++i) {
    TORCH_CHECK(input.size(-i) > 0, where, ": expected non-empty spatial dimensions, but got "
                "input of sizes ", input.sizes(), ".");
  }
  for (int64_t v : output_size) {
    TORCH_CHECK(v > 0, where, ": output_size must be positive, but got ", output_size, ".");
  }
}
}  // namespace

Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options) {
  check_adaptive("adaptive_avg_pool1d", input, 1, options.output_size());
  const int64_t sizes[2] = {1, (*options.output_size())[0]};
  return at::adaptive_avg_pool2d(input.unsqueeze(-2), sizes).squeeze(-2);
}

Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options) {
  check_adaptive("adaptive_avg_pool2d", input, 2, options.output_size());
  return at::adaptive_avg_pool2d(input, options.output_size());
}

Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options) {
  check_adaptive("adaptive_max_pool2d", input, 2, options.output_size());
  const int64_t h = input.size(-2), w = input.size(-1);
  const int64_t oh = (*options.output_size())[0], ow = (*options.output_size())[1];
  if (h % oh == 0 && w % ow == 0) {  // equal cells: a plain max pool
    const int64_t k[2] = {h / oh, w / ow};
    return at::max_pool2d(input, k, k);
  }
  std::vector<Tensor> cells;
  cells.reserve(oh * ow);
  for (int64_t i = 0; i < oh; ++i) {
    const int64_t h0 = cell_start(i, h, oh), h1 = cell_end(i, h, oh);
    for (int64_t j = 0; j < ow; ++j) {
      const int64_t w0 = cell_start(j, w, ow), w1 = cell_end(j, w, ow);
      const Tensor cell = input.narrow(-2, h0, h1 - h0).narrow(-1, w0, w1 - w0);
      cells.push_back(std::get<0>(cell.flatten(-2, -1).max(-1)));
    }
  }
  std::vector<int64_t> shape = input.sizes().vec();
  shape[shape.size() - 2] = oh;
  shape[shape.size() - 1] = ow;
  return at::stack(cells, -1).reshape(shape);
}

// ---- interpolate ----

namespace {
enum class Resample { kNearest, kNearestExact, kLinear, kCubic, kArea };

// The source coordinate of each output element along one dimension, as
// two neighbours and the weight of the second.
struct Taps {
  std::vector<int64_t> lo, hi;
  std::vector<double> weight;
};

Taps linear_taps(int64_t in, int64_t out, double scale, bool align_corners) {
  Taps taps;
  for (int64_t i = 0; i < out; ++i) {
    double src;
    if (align_corners) {
      src = out > 1 ? static_cast<double>(i) * (in - 1) / (out - 1) : 0.0;
    } else {
      src = std::max((i + 0.5) * scale - 0.5, 0.0);
    }
    const int64_t lo = std::min<int64_t>(static_cast<int64_t>(std::floor(src)), in - 1);
    taps.lo.push_back(lo);
    taps.hi.push_back(std::min<int64_t>(lo + 1, in - 1));
    taps.weight.push_back(src - static_cast<double>(lo));
  }
  return taps;
}

// Cubic convolution (Keys, A = -0.75, as PyTorch's bicubic): four
// neighbours floor(src) - 1 ... floor(src) + 2 (clamped to the input) and
// their weights; the source coordinate is not clamped at 0.
struct CubicTaps {
  std::vector<int64_t> index[4];
  std::vector<double> weight[4];
};

CubicTaps cubic_taps(int64_t in, int64_t out, double scale, bool align_corners) {
  constexpr double A = -0.75;
  auto near = [](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };       // |x| <= 1
  auto far = [](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };  // 1 < |x| < 2
  CubicTaps taps;
  for (int64_t i = 0; i < out; ++i) {
    double src;
    if (align_corners) {
      src = out > 1 ? static_cast<double>(i) * (in - 1) / (out - 1) : 0.0;
    } else {
      src = (i + 0.5) * scale - 0.5;
    }
    const double floor_src = std::floor(src);
    const double t = src - floor_src;
    const double w[4] = {far(t + 1), near(t), near(1 - t), far(2 - t)};
    for (int k = 0; k < 4; ++k) {
      const int64_t at = static_cast<int64_t>(floor_src) - 1 + k;
      taps.index[k].push_back(std::min<int64_t>(std::max<int64_t>(at, 0), in - 1));
      taps.weight[k].push_back(w[k]);
    }
  }
  return taps;
}

std::vector<int64_t> nearest_taps(int64_t in, int64_t out, double scale, bool exact) {
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < out; ++i) {
    const double src = exact ? (i + 0.5) * scale : i * scale;
    idx.push_back(std::min<int64_t>(static_cast<int64_t>(std::floor(src)), in - 1));
  }
  return idx;
}
}  // namespace

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options) {
  check_defined("interpolate", "input", input);
  TORCH_CHECK(!options.antialias(), "interpolate: antialias=true is not implemented in Ember.");
  const std::string mode = enumtype::get_enum_name(options.mode());
  Resample kind;
  int64_t rank = 0;  // required input rank, 0 = 3 or 4
  if (std::holds_alternative<enumtype::kNearest>(options.mode())) {
    kind = Resample::kNearest;
  } else if (std::holds_alternative<enumtype::kNearestExact>(options.mode())) {
    kind = Resample::kNearestExact;
  } else if (std::holds_alternative<enumtype::kArea>(options.mode())) {
    kind = Resample::kArea;
  } else if (std::holds_alternative<enumtype::kLinear>(options.mode())) {
    kind = Resample::kLinear;
    rank = 3;
  } else if (std::holds_alternative<enumtype::kBilinear>(options.mode())) {
    kind = Resample::kLinear;
    rank = 4;
  } else if (std::holds_alternative<enumtype::kTrilinear>(options.mode())) {
    kind = Resample::kLinear;
    rank = 5;
  } else {
    kind = Resample::kCubic;  // kBicubic
    rank = 4;
  }
  TORCH_CHECK(input.dim() >= 3 && input.dim() <= 5, "interpolate: expected a 3-d [N, C, L], "
              "4-d [N, C, H, W] or 5-d [N, C, D, H, W] input, but got a ", input.dim(),
              "-d input of sizes ", input.sizes(), ".");
  TORCH_CHECK(rank == 0 || input.dim() == rank, "interpolate: mode ", mode, " expects a ", rank,
              "-d input, but got a ", input.dim(), "-d input of sizes ", input.sizes(), ".");
  TORCH_CHECK(kind == Resample::kLinear || kind == Resample::kCubic ||
                  !options.align_corners().has_value(),
              "interpolate: align_corners can only be set with the interpolating modes kLinear, "
              "kBilinear, kBicubic and kTrilinear, but mode is ", mode, ".");
  const auto& size = options.size();
  const auto& scale_factor = options.scale_factor();
  TORCH_CHECK(size.has_value() != scale_factor.has_value(), "interpolate: give exactly one of "
              "size and scale_factor, but ", size ? "both" : "neither", " were given.");
  const size_t spatial = static_cast<size_t>(input.dim() - 2);
  const size_t given = size ? size->size() : scale_factor->size();
  TORCH_CHECK(given == spatial, "interpolate: expected ", size ? "size" : "scale_factor",
              " with ", spatial, " values (one per spatial dimension of the ", input.dim(),
              "-d input), but got ", given, ".");
  std::vector<int64_t> out_sizes(spatial);
  std::vector<double> scales(spatial);
  const bool use_scale_factor = scale_factor && !options.recompute_scale_factor().value_or(false);
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t in = input.size(static_cast<int64_t>(d) + 2);
    if (size) {
      out_sizes[d] = (*size)[d];
    } else {
      TORCH_CHECK((*scale_factor)[d] > 0, "interpolate: scale_factor must be positive, but got ",
                  (*scale_factor)[d], ".");
      out_sizes[d] = static_cast<int64_t>(std::floor(in * (*scale_factor)[d]));
    }
    TORCH_CHECK(out_sizes[d] > 0 && in > 0, "interpolate: input and output sizes must be "
                "positive, but got input ", input.sizes(), " and output size ", out_sizes[d],
                " for spatial dimension ", d, ".");
    scales[d] = use_scale_factor ? 1.0 / (*scale_factor)[d]
                                 : static_cast<double>(in) / static_cast<double>(out_sizes[d]);
  }
  if (kind == Resample::kArea) {
    if (spatial == 3) return adaptive_avg_pool3d(input, AdaptiveAvgPool3dFuncOptions(out_sizes));
    return spatial == 1
               ? adaptive_avg_pool1d(input, AdaptiveAvgPool1dFuncOptions(out_sizes[0]))
               : adaptive_avg_pool2d(input, AdaptiveAvgPool2dFuncOptions(out_sizes));
  }
  // Separable: one dimension at a time.
  Tensor y = input;
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t dim = static_cast<int64_t>(d) + 2;
    const int64_t in = input.size(dim);
    if (kind == Resample::kNearest || kind == Resample::kNearestExact) {
      y = y.index_select(dim, long_tensor(nearest_taps(in, out_sizes[d], scales[d],
                                                       kind == Resample::kNearestExact)));
      continue;
    }
    std::vector<int64_t> shape(input.dim(), 1);
    shape[dim] = out_sizes[d];
    if (kind == Resample::kCubic) {
      const CubicTaps taps =
          cubic_taps(in, out_sizes[d], scales[d], options.align_corners().value_or(false));
      Tensor sum;
      for (int k = 0; k < 4; ++k) {
        const Tensor weight = at::tensor(c10::ArrayRef<double>(taps.weight[k]))
                                  .to(y.scalar_type())
                                  .reshape(shape);
        const Tensor term = y.index_select(dim, long_tensor(taps.index[k])) * weight;
        sum = sum.defined() ? sum + term : term;
      }
      y = sum;
      continue;
    }
    const Taps taps = linear_taps(in, out_sizes[d], scales[d], options.align_corners().value_or(false));
    const Tensor weight =
        at::tensor(c10::ArrayRef<double>(taps.weight)).to(y.scalar_type()).reshape(shape);
    y = y.index_select(dim, long_tensor(taps.lo)) * (1 - weight) +
        y.index_select(dim, long_tensor(taps.hi)) * weight;
  }
  return y;
}

// ---- pixel shuffle ----

Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& options) {
  check_defined("pixel_shuffle", "input", input);
  const int64_t r = options.upscale_factor();
  TORCH_CHECK(input.dim() >= 3, "pixel_shuffle: expected an input [*, C, H, W] with at least 3 "
              "dimensions, but got sizes ", input.sizes(), ".");
  TORCH_CHECK(r > 0, "pixel_shuffle: upscale_factor must be positive, but got ", r, ".");
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  TORCH_CHECK(c % (r * r) == 0, "pixel_shuffle: the input's channels (", c, ", dimension -3 of "
              "sizes ", input.sizes(), ") must be divisible by upscale_factor squared (", r * r,
              ").");
  std::vector<int64_t> batch(input.sizes().begin(), input.sizes().end() - 3);
  const int64_t nb = static_cast<int64_t>(batch.size());
  std::vector<int64_t> split = batch, perm, out = batch;
  split.insert(split.end(), {c / (r * r), r, r, h, w});
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  perm.insert(perm.end(), {nb, nb + 3, nb + 1, nb + 4, nb + 2});
  out.insert(out.end(), {c / (r * r), h * r, w * r});
  return input.reshape(split).permute(perm).reshape(out);
}

Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& options) {
  check_defined("pixel_unshuffle", "input", input);
  const int64_t r = options.downscale_factor();
  TORCH_CHECK(input.dim() >= 3, "pixel_unshuffle: expected an input [*, C, H, W] with at least "
              "3 dimensions, but got sizes ", input.sizes(), ".");
  TORCH_CHECK(r > 0, "pixel_unshuffle: downscale_factor must be positive, but got ", r, ".");
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  TORCH_CHECK(h % r == 0 && w % r == 0, "pixel_unshuffle: the input's height and width (", h,
              ", ", w, ") must be divisible by downscale_factor (", r, ").");
  std::vector<int64_t> batch(input.sizes().begin(), input.sizes().end() - 3);
  const int64_t nb = static_cast<int64_t>(batch.size());
  std::vector<int64_t> split = batch, perm, out = batch;
  split.insert(split.end(), {c, h / r, r, w / r, r});
  for (int64_t i = 0; i < nb; ++i) perm.push_back(i);
  perm.insert(perm.end(), {nb, nb + 2, nb + 4, nb + 1, nb + 3});
  out.insert(out.end(), {c * r * r, h / r, w / r});
  return input.reshape(split).permute(perm).reshape(out);
}

// ---- embedding_bag ----

Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                     const EmbeddingBagFuncOptions& options) {
  check_defined("embedding_bag", "input", input);
  check_defined("embedding_bag", "weight", weight);
  TORCH_CHECK(weight.dim() == 2, "embedding_bag: expected a 2-d weight [num_embeddings, "
              "embedding_dim], but got sizes ", weight.sizes(), ".");
  TORCH_CHECK(!c10::isFloatingType(input.scalar_type()) && input.scalar_type() != at::kBool,
              "embedding_bag: expected integer indices, but got ", input.scalar_type(), ".");
  TORCH_CHECK(!options.sparse(), "embedding_bag: sparse=true is not supported (Ember has no "
              "sparse tensors); use sparse=false.");
  const bool is_sum = std::holds_alternative<enumtype::kSum>(options.mode());
  const bool is_max = std::holds_alternative<enumtype::kMax>(options.mode());
  TORCH_CHECK(!(is_max && options.scale_grad_by_freq()), "embedding_bag: scale_grad_by_freq "
              "is not supported with mode kMax (as in PyTorch); use kSum or kMean.");
  const Tensor& psw = options.per_sample_weights();
  TORCH_CHECK(!psw.defined() || is_sum, "embedding_bag: per_sample_weights is only supported "
              "with mode kSum, but mode is ", enumtype::get_enum_name(options.mode()), ".");
  TORCH_CHECK(!psw.defined() || psw.sizes() == input.sizes(), "embedding_bag: per_sample_weights "
              "must have the input's sizes ", input.sizes(), ", but got ", psw.sizes(), ".");
  const Tensor indices = input.to(at::kLong).reshape({-1}).contiguous();
  const int64_t total = indices.numel();
  // Bag boundaries: starts[b] .. starts[b + 1].
  std::vector<int64_t> starts;
  if (input.dim() == 2) {
    TORCH_CHECK(!options.offsets().defined(), "embedding_bag: offsets must be undefined for a "
                "2-d input [B, L] (each row is a bag), but got offsets of sizes ",
                options.offsets().sizes(), ".");
    for (int64_t b = 0; b <= input.size(0); ++b) starts.push_back(b * input.size(1));
  } else {
    TORCH_CHECK(input.dim() == 1, "embedding_bag: expected a 1-d input with offsets or a 2-d "
                "input [B, L], but got a ", input.dim(), "-d input of sizes ", input.sizes(),
                ".");
    const Tensor& offsets = options.offsets();
    TORCH_CHECK(offsets.defined() && offsets.dim() == 1, "embedding_bag: a 1-d input needs "
                "1-d offsets (the start of each bag), but got ",
                offsets.defined() ? "offsets of sizes " : "none", offsets.defined()
                    ? c10::str(offsets.sizes()) : std::string(), ".");
    const Tensor o = offsets.to(at::kLong).contiguous();
    const int64_t* p = o.data_ptr<int64_t>();
    starts.assign(p, p + o.numel());
    if (!options.include_last_offset()) starts.push_back(total);
    TORCH_CHECK(starts.size() >= 2 || !options.include_last_offset(), "embedding_bag: with "
                "include_last_offset, offsets needs at least 1 entry.");
    TORCH_CHECK(starts.empty() || starts[0] == 0, "embedding_bag: offsets[0] must be 0, but got ",
                starts.empty() ? 0 : starts[0], ".");
    for (size_t i = 1; i < starts.size(); ++i) {
      TORCH_CHECK(starts[i - 1] <= starts[i] && starts[i] <= total, "embedding_bag: offsets "
                  "must be non-decreasing and at most the number of indices (", total,
                  "), but got ", starts[i - 1], " then ", starts[i], ".");
    }
  }
  const int64_t bags = static_cast<int64_t>(starts.size()) - 1;
  // Which positions count (padding_idx left out), and the bag of each.
  std::optional<int64_t> pad = options.padding_idx();
  if (pad && *pad < 0) *pad += weight.size(0);
  const int64_t* idx = indices.data_ptr<int64_t>();
  std::vector<int64_t> kept, bag_of;
  std::vector<double> count(bags, 0.0);
  for (int64_t b = 0; b < bags; ++b) {
    for (int64_t i = starts[b]; i < starts[b + 1]; ++i) {
      if (pad && idx[i] == *pad) continue;
      kept.push_back(i);
      bag_of.push_back(b);
      count[b] += 1;
    }
  }
  if (options.max_norm()) {
    detail::embedding_renorm_(weight, indices, *options.max_norm(), options.norm_type());
  }
  const Tensor positions = long_tensor(kept);
  Tensor rows = weight.index_select(0, indices.index_select(0, positions));  // [kept, D]
  if (options.scale_grad_by_freq()) {
    // Each row's gradient divided by how often its index occurs in the
    // input; the forward value stays exactly the row.
    std::unordered_map<int64_t, int64_t> frequency;
    for (int64_t i = 0; i < total; ++i) ++frequency[idx[i]];
    std::vector<double> inverse;
    inverse.reserve(kept.size());
    for (int64_t i : kept) inverse.push_back(1.0 / static_cast<double>(frequency[idx[i]]));
    const Tensor s = at::tensor(c10::ArrayRef<double>(inverse)).to(rows.scalar_type()).unsqueeze(1);
    const Tensor fixed = rows.detach();
    rows = fixed + (rows - fixed) * s;
  }
  if (psw.defined()) rows = rows * psw.reshape({-1}).index_select(0, positions).unsqueeze(1);
  const int64_t dim = weight.size(1);
  if (is_max) {
    std::vector<Tensor> out;
    size_t k = 0;
    for (int64_t b = 0; b < bags; ++b) {
      const int64_t n = static_cast<int64_t>(count[b]);
      out.push_back(n == 0 ? at::zeros({dim}, weight.options())
                           : std::get<0>(rows.narrow(0, static_cast<int64_t>(k), n).max(0)));
      k += static_cast<size_t>(n);
    }
    return bags == 0 ? at::zeros({0, dim}, weight.options()) : at::stack(out, 0);
  }
  const Tensor target = long_tensor(bag_of).unsqueeze(1).expand({-1, dim});
  Tensor sums = at::zeros({bags, dim}, weight.options()).scatter_add(0, target, rows);
  if (is_sum) return sums;
  for (double& c : count) c = std::max(c, 1.0);
  return sums / at::tensor(c10::ArrayRef<double>(count)).to(weight.scalar_type()).unsqueeze(1);
}

// ---- alpha dropout ----

namespace {
// SELU's negative saturation value, -scale * alpha.
constexpr double kAlphaPrime = -1.7580993408473766;

Tensor alpha_dropout_impl(const char* where, Tensor input, const DropoutFuncOptions& options,
                          bool feature) {
  check_defined(where, "input", input);
  TORCH_CHECK(options.p() >= 0 && options.p() <= 1, where, ": the probability p must be "
              "between 0 and 1, but got ", options.p(), ".");
  if (!options.training() || options.p() == 0) return input;
  if (feature) {
    TORCH_CHECK(input.dim() >= 2, where, ": expected an input [N, C, *] with at least 2 "
                "dimensions, but got sizes ", input.sizes(), ".");
  }
  const double p = options.p();
  std::vector<int64_t> mask_shape = input.sizes().vec();
  if (feature) {
    for (size_t i = 2; i < mask_shape.size(); ++i) mask_shape[i] = 1;
  }
  Tensor y;
  if (p == 1) {
    y = input * 0;
  } else {
    // keep ~ Bernoulli(1 - p); x' = a (x keep + alpha' (1 - keep)) + b keeps mean 0, variance 1.
    const Tensor keep = at::bernoulli(at::full(mask_shape, 1 - p, input.options()));
    const double a = 1.0 / std::sqrt((kAlphaPrime * kAlphaPrime * p + 1) * (1 - p));
    const double b = -a * kAlphaPrime * p;
    y = (input * keep + (1 - keep) * kAlphaPrime) * a + b;
  }
  if (options.inplace()) {
    at::NoGradGuard no_grad;
    return input.copy_(y);
  }
  return y;
}
}  // namespace

Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& options) {
  return alpha_dropout_impl("alpha_dropout", std::move(input), options, false);
}

Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& options) {
  return alpha_dropout_impl("feature_alpha_dropout", std::move(input), options, true);
}

}  // namespace functional
}  // namespace nn
}  // namespace torch
