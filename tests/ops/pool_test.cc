// Conformance: max_pool2d(_with_indices), avg_pool2d, adaptive_avg_pool2d and
// their backwards against reference loops written here from PyTorch's
// documented definitions, for batched and unbatched inputs in every layout
// (channels-last included), ceil_mode, padding, dilation, count_include_pad
// and divisor_override, input gradients by finite differences (float64),
// and every error message.
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class Pool : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(Pool);

struct P {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  bool ceil;
};

std::string name_of(const std::vector<int64_t>& shape, const P& p) {
  std::ostringstream os;
  os << "x" << c10::IntArrayRef(shape) << " k " << p.kh << "x" << p.kw << " s " << p.sh << ","
     << p.sw << " p " << p.ph << "," << p.pw << " d " << p.dh << "," << p.dw
     << (p.ceil ? " ceil" : "");
  return os.str();
}

// PyTorch's documented output size: floor (or ceil) of
// (in + 2p - d(k-1) - 1) / s + 1, where with ceil_mode a last window that
// would start in the right padding is dropped.
int64_t pooled(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
  const double exact = static_cast<double>(in + 2 * p - d * (k - 1) - 1) / s;
  int64_t out = static_cast<int64_t>(ceil ? std::ceil(exact) : std::floor(exact)) + 1;
  if (ceil && (out - 1) * s >= in + p) --out;
  return out;
}

// The input viewed as planes: [planes, H, W].
struct Planes {
  int64_t planes, H, W;
};
Planes planes_of(const std::vector<int64_t>& shape) {
  const size_t d = shape.size();
  return {numel_of(shape) / (shape[d - 1] * shape[d - 2]), shape[d - 2], shape[d - 1]};
}
std::vector<int64_t> with_hw(std::vector<int64_t> shape, int64_t h, int64_t w) {
  shape[shape.size() - 2] = h;
  shape[shape.size() - 1] = w;
  return shape;
}

std::pair<Ref, Ref> ref_max_pool(const Ref& x, const P& p) {
  const Planes pl = planes_of(x.shape);
  const int64_t OH = pooled(pl.H, p.kh, p.sh, p.ph, p.dh, p.ceil);
  const int64_t OW = pooled(pl.W, p.kw, p.sw, p.pw, p.dw, p.ceil);
  const auto shape = with_hw(x.shape, OH, OW);
  Ref v(shape, std::vector<double>(static_cast<size_t>(numel_of(shape))));
  Ref idx = v;
  for (int64_t q = 0; q < pl.planes; ++q)
    for (int64_t i = 0; i < OH; ++i)
      for (int64_t j = 0; j < OW; ++j) {
        double best = -std::numeric_limits<double>::infinity();
        int64_t at = -1;
        for (int64_t a = 0; a < p.kh; ++a)
          for (int64_t b = 0; b < p.kw; ++b) {
            const int64_t h = i * p.sh - p.ph + a * p.dh, w = j * p.sw - p.pw + b * p.dw;
            if (h < 0 || h >= pl.H || w < 0 || w >= pl.W) continue;
            const double val = x.v[static_cast<size_t>((q * pl.H + h) * pl.W + w)];
            if (at < 0 || val > best || (std::isnan(val) && !std::isnan(best))) {
              best = val;
              at = h * pl.W + w;
            }
          }
        const size_t o = static_cast<size_t>((q * OH + i) * OW + j);
        v.v[o] = best;
        idx.v[o] = static_cast<double>(at);
      }
  return {v, idx};
}

// Gradient of sum(max_pool(x) * g): each g goes to its window's maximum.
Ref ref_max_pool_grad(const Ref& x, const Ref& idx, const Ref& g) {
  const Planes pl = planes_of(x.shape);
  const int64_t out_plane = numel_of(g.shape) / pl.planes;
  Ref gx(x.shape, std::vector<double>(x.v.size()));
  for (int64_t q = 0; q < pl.planes; ++q)
    for (int64_t o = 0; o < out_plane; ++o) {
      const size_t i = static_cast<size_t>(q * out_plane + o);
      gx.v[static_cast<size_t>(q * pl.H * pl.W + static_cast<int64_t>(idx.v[i]))] += g.v[i];
    }
  return gx;
}

struct AvgOpts {
  bool count_include_pad;
  std::optional<int64_t> divisor;
};

// avg_pool2d (dilation 1): mean over the window clipped to the padded input
// (count_include_pad) or to the input, or sum / divisor_override. fn visits
// (output index, input index, weight).
template <typename F>
void avg_taps(const std::vector<int64_t>& xs, const P& p, const AvgOpts& a, const F& fn) {
  const Planes pl = planes_of(xs);
  const int64_t OH = pooled(pl.H, p.kh, p.sh, p.ph, 1, p.ceil);
  const int64_t OW = pooled(pl.W, p.kw, p.sw, p.pw, 1, p.ceil);
  for (int64_t q = 0; q < pl.planes; ++q)
    for (int64_t i = 0; i < OH; ++i)
      for (int64_t j = 0; j < OW; ++j) {
        const int64_t h0 = i * p.sh - p.ph, w0 = j * p.sw - p.pw;
        const int64_t h1 = std::min(h0 + p.kh, pl.H + p.ph), w1 = std::min(w0 + p.kw, pl.W + p.pw);
        int64_t inside = 0;
        for (int64_t h = std::max<int64_t>(h0, 0); h < std::min(h1, pl.H); ++h)
          for (int64_t w = std::max<int64_t>(w0, 0); w < std::min(w1, pl.W); ++w) ++inside;
        const double div = a.divisor ? static_cast<double>(*a.divisor)
                           : a.count_include_pad ? static_cast<double>((h1 - h0) * (w1 - w0))
                                                 : static_cast<double>(inside);
        for (int64_t h = std::max<int64_t>(h0, 0); h < std::min(h1, pl.H); ++h)
          for (int64_t w = std::max<int64_t>(w0, 0); w < std::min(w1, pl.W); ++w)
            fn(static_cast<size_t>((q * OH + i) * OW + j),
               static_cast<size_t>((q * pl.H + h) * pl.W + w), 1.0 / div);
      }
}

std::vector<int64_t> avg_shape(const std::vector<int64_t>& xs, const P& p) {
  const Planes pl = planes_of(xs);
  return with_hw(xs, pooled(pl.H, p.kh, p.sh, p.ph, 1, p.ceil),
                 pooled(pl.W, p.kw, p.sw, p.pw, 1, p.ceil));
}

Ref ref_avg_pool(const Ref& x, const P& p, const AvgOpts& a) {
  const auto shape = avg_shape(x.shape, p);
  Ref y(shape, std::vector<double>(static_cast<size_t>(numel_of(shape))));
  avg_taps(x.shape, p, a, [&](size_t o, size_t i, double wt) { y.v[o] += x.v[i] * wt; });
  return y;
}

Ref ref_avg_pool_grad(const Ref& x, const P& p, const AvgOpts& a, const Ref& g) {
  Ref gx(x.shape, std::vector<double>(x.v.size()));
  avg_taps(x.shape, p, a, [&](size_t o, size_t i, double wt) { gx.v[i] += g.v[o] * wt; });
  return gx;
}

// adaptive_avg_pool2d: cell i covers rows [floor(i*H/OH), ceil((i+1)*H/OH)).
template <typename F>
void adaptive_taps(const std::vector<int64_t>& xs, int64_t OH, int64_t OW, const F& fn) {
  const Planes pl = planes_of(xs);
  for (int64_t q = 0; q < pl.planes; ++q)
    for (int64_t i = 0; i < OH; ++i)
      for (int64_t j = 0; j < OW; ++j) {
        const int64_t h0 = static_cast<int64_t>(std::floor(static_cast<double>(i * pl.H) / OH));
        const int64_t h1 =
            static_cast<int64_t>(std::ceil(static_cast<double>((i + 1) * pl.H) / OH));
        const int64_t w0 = static_cast<int64_t>(std::floor(static_cast<double>(j * pl.W) / OW));
        const int64_t w1 =
            static_cast<int64_t>(std::ceil(static_cast<double>((j + 1) * pl.W) / OW));
        const double wt = 1.0 / static_cast<double>((h1 - h0) * (w1 - w0));
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w)
            fn(static_cast<size_t>((q * OH + i) * OW + j),
               static_cast<size_t>((q * pl.H + h) * pl.W + w), wt);
      }
}

// ---- helpers ------------------------------------------------------------------------

Tol tol_for(ScalarType t) { return t == kDouble ? Tol{1e-12, 1e-12} : default_tol(t); }

at::Tensor channels_last(const at::Tensor& t) {
  at::Tensor cl = at::empty(t.sizes(), t.options(), c10::MemoryFormat::ChannelsLast);
  cl.copy_(t);
  return cl;
}

std::vector<Case> input_layouts(const std::vector<int64_t>& shape, ScalarType dtype,
                                c10::Device device, uint64_t seed) {
  std::vector<Case> cases = layouts(shape, dtype, device, {-3, 3}, seed);
  if (shape.size() == 4) {
    cases.push_back({"channels-last", channels_last(cases[0].tensor), cases[0].ref});
  }
  return cases;
}

const std::vector<std::vector<int64_t>>& shapes() {
  static const std::vector<std::vector<int64_t>> s = {
      {1, 1, 4, 4}, {2, 3, 7, 6}, {3, 5, 9}, {2, 4, 13, 13}};
  return s;
}

const std::vector<P>& pool_params() {
  static const std::vector<P> p = {
      {2, 2, 2, 2, 0, 0, 1, 1, false}, {3, 3, 2, 2, 1, 1, 1, 1, false},
      {3, 2, 2, 1, 1, 0, 1, 1, true},  {2, 3, 3, 2, 1, 1, 2, 1, true},
      {3, 3, 1, 1, 0, 1, 1, 2, false}, {1, 1, 1, 1, 0, 0, 1, 1, false},
  };
  return p;
}

// ---- max pooling ----------------------------------------------------------------------

TEST_P(Pool, MaxPoolValuesIndicesAndBackward) {
  uint64_t seed = 1;
  for (ScalarType dtype : {kFloat, kDouble, kHalf, kBFloat16}) {
    for (const auto& shape : shapes()) {
      for (const P& p : pool_params()) {
        const Planes pl = planes_of(shape);
        if (pooled(pl.H, p.kh, p.sh, p.ph, p.dh, p.ceil) < 1 ||
            pooled(pl.W, p.kw, p.sw, p.pw, p.dw, p.ceil) < 1) {
          continue;
        }
        const std::string name = name_of(shape, p) + " " + c10::toString(dtype);
        for (const Case& c : input_layouts(shape, dtype, device(), ++seed)) {
          const auto [v_ref, i_ref] = ref_max_pool(c.ref, p);
          const auto [v, idx] = at::max_pool2d_with_indices(
              c.tensor, {p.kh, p.kw}, {p.sh, p.sw}, {p.ph, p.pw}, {p.dh, p.dw}, p.ceil);
          EXPECT_TRUE(close(v, v_ref, dtype, Tol{0, 0})) << name << " " << c.name;
          EXPECT_TRUE(close(idx, i_ref, kLong)) << name << " " << c.name;
          EXPECT_TRUE(close(at::max_pool2d(c.tensor, {p.kh, p.kw}, {p.sh, p.sw}, {p.ph, p.pw},
                                           {p.dh, p.dw}, p.ceil),
                            v_ref, dtype, Tol{0, 0}))
              << name << " " << c.name;
          if (dtype != kFloat && dtype != kDouble) continue;
          const Ref g = random_ref(v_ref.shape, dtype, {-1, 1}, ++seed);
          const at::Tensor gx = at::max_pool2d_with_indices_backward(
              make_tensor(g, dtype, device()), c.tensor, {p.kh, p.kw}, {p.sh, p.sw},
              {p.ph, p.pw}, {p.dh, p.dw}, p.ceil, idx);
          EXPECT_TRUE(close(gx, ref_max_pool_grad(c.ref, i_ref, g), dtype, tol_for(dtype)))
              << name << " backward " << c.name;
        }
      }
    }
  }
}

TEST_P(Pool, MaxPoolDefaultsStrideToKernelAndNaNWins) {
  const at::Tensor x = make_tensor(
      Ref({1, 1, 2, 4}, {1, 5, 2, 3, 4, NAN, 0, 1}), kFloat, device());
  const auto [v, i] = at::max_pool2d_with_indices(x, {2});
  EXPECT_TRUE(close(v, Ref({1, 1, 1, 2}, {NAN, 3}), kFloat));
  EXPECT_TRUE(close(i, Ref({1, 1, 1, 2}, {5, 3}), kLong));
  // Ties: the first position wins.
  const auto [v2, i2] = at::max_pool2d_with_indices(at::ones({1, 2, 2}, options(kDouble)), {2});
  EXPECT_TRUE(close(i2, Ref({1, 1, 1}, {0}), kLong));
  // A zero-size batch pools to a zero-size batch.
  const auto [v3, i3] = at::max_pool2d_with_indices(at::ones({0, 2, 4, 4}, options(kFloat)), {2});
  EXPECT_EQ(v3.sizes(), c10::IntArrayRef({0, 2, 2, 2}));
}

// Kernel 2 / stride 2 with every window inside the input has its own loop
// (Note [2x2 max pooling]); a ceil_mode window sticking out takes the
// general one. Both follow PyTorch's rule: the first tap, replaced by a
// greater one or a NaN (so the last NaN names the window), ties keep the
// first, an all -inf window names its first element.
TEST_P(Pool, MaxPool2x2LoopAndGeneralLoopAgreeOnTiesNaNAndInfinity) {
  const double inf = std::numeric_limits<double>::infinity();
  // Windows: all -inf | NaN, 1, 2, NaN | four 3s.
  const std::vector<double> top = {-inf, -inf, NAN, 1, 3, 3}, bottom = {-inf, -inf, 2, NAN, 3, 3};
  for (const ScalarType dtype : {kFloat, kDouble, kBFloat16}) {
    std::vector<double> plain = top;
    plain.insert(plain.end(), bottom.begin(), bottom.end());
    const auto [v, i] = at::max_pool2d_with_indices(
        make_tensor(Ref({1, 1, 2, 6}, plain), dtype, device()), {2, 2});
    EXPECT_TRUE(close(v, Ref({1, 1, 1, 3}, {-inf, NAN, 3}), dtype, Tol{0, 0}));
    EXPECT_TRUE(close(i, Ref({1, 1, 1, 3}, {0, 9, 4}), kLong));
    // The same windows in a 3x7 input with ceil_mode: a partial row and
    // column of windows, so the general loop runs.
    std::vector<double> general = top;
    general.push_back(5);
    general.insert(general.end(), bottom.begin(), bottom.end());
    general.push_back(5);
    for (int k = 0; k < 7; ++k) general.push_back(k);
    const auto [gv, gi] = at::max_pool2d_with_indices(
        make_tensor(Ref({1, 1, 3, 7}, general), dtype, device()), {2, 2}, {2, 2}, {0, 0},
        {1, 1}, true);
    EXPECT_TRUE(close(gv, Ref({1, 1, 2, 4}, {-inf, NAN, 3, 5, 1, 3, 5, 6}), dtype, Tol{0, 0}));
    EXPECT_TRUE(close(gi, Ref({1, 1, 2, 4}, {0, 10, 4, 6, 15, 17, 19, 20}), kLong));
  }
}

// ---- average pooling ---------------------------------------------------------------------

TEST_P(Pool, AvgPoolAndBackward) {
  uint64_t seed = 500;
  const std::vector<AvgOpts> opts = {{true, std::nullopt}, {false, std::nullopt}, {true, 3}};
  for (ScalarType dtype : {kFloat, kDouble}) {
    for (const auto& shape : shapes()) {
      for (P p : pool_params()) {
        p.dh = p.dw = 1;
        const Planes pl = planes_of(shape);
        if (pooled(pl.H, p.kh, p.sh, p.ph, 1, p.ceil) < 1 ||
            pooled(pl.W, p.kw, p.sw, p.pw, 1, p.ceil) < 1) {
          continue;
        }
        for (const AvgOpts& a : opts) {
          const std::string name = name_of(shape, p) + " " + c10::toString(dtype) +
                                   (a.count_include_pad ? " include_pad" : "") +
                                   (a.divisor ? " divisor" : "");
          for (const Case& c : input_layouts(shape, dtype, device(), ++seed)) {
            const at::Tensor y = at::avg_pool2d(c.tensor, {p.kh, p.kw}, {p.sh, p.sw},
                                                {p.ph, p.pw}, p.ceil, a.count_include_pad,
                                                a.divisor);
            EXPECT_TRUE(close(y, ref_avg_pool(c.ref, p, a), dtype, tol_for(dtype)))
                << name << " " << c.name;
            const Ref g = random_ref(avg_shape(shape, p), dtype, {-1, 1}, ++seed);
            const at::Tensor gx = at::avg_pool2d_backward(
                make_tensor(g, dtype, device()), c.tensor, {p.kh, p.kw}, {p.sh, p.sw},
                {p.ph, p.pw}, p.ceil, a.count_include_pad, a.divisor);
            EXPECT_TRUE(close(gx, ref_avg_pool_grad(c.ref, p, a, g), dtype, tol_for(dtype)))
                << name << " backward " << c.name;
          }
        }
      }
    }
  }
}

// ---- adaptive average pooling ----------------------------------------------------------------

TEST_P(Pool, AdaptiveAvgPoolAndBackward) {
  uint64_t seed = 900;
  const std::vector<std::pair<int64_t, int64_t>> outs = {{1, 1}, {2, 3}, {3, 3}, {5, 4}, {7, 9}};
  for (ScalarType dtype : {kFloat, kDouble}) {
    for (const auto& shape : shapes()) {
      for (const auto& [oh, ow] : outs) {
        for (const Case& c : input_layouts(shape, dtype, device(), ++seed)) {
          const auto out_shape = with_hw(shape, oh, ow);
          Ref y_ref(out_shape, std::vector<double>(static_cast<size_t>(numel_of(out_shape))));
          adaptive_taps(shape, oh, ow,
                        [&](size_t o, size_t i, double wt) { y_ref.v[o] += c.ref.v[i] * wt; });
          const at::Tensor y = at::adaptive_avg_pool2d(c.tensor, {oh, ow});
          EXPECT_TRUE(close(y, y_ref, dtype, tol_for(dtype)))
              << c10::IntArrayRef(shape) << " -> " << oh << "x" << ow << " " << c.name;
          const Ref g = random_ref(out_shape, dtype, {-1, 1}, ++seed);
          Ref gx_ref(shape, std::vector<double>(c.ref.v.size()));
          adaptive_taps(shape, oh, ow,
                        [&](size_t o, size_t i, double wt) { gx_ref.v[i] += g.v[o] * wt; });
          const at::Tensor gx =
              at::_adaptive_avg_pool2d_backward(make_tensor(g, dtype, device()), c.tensor);
          EXPECT_TRUE(close(gx, gx_ref, dtype, tol_for(dtype)))
              << c10::IntArrayRef(shape) << " backward " << c.name;
        }
      }
    }
  }
}

// ---- finite differences ------------------------------------------------------------------------

// d/dx sum(pool(x) * r) by central differences against each backward.
TEST_P(Pool, InputGradientsMatchFiniteDifferences) {
  const std::vector<int64_t> shape = {2, 2, 5, 6};
  const at::Tensor x = make_tensor(random_ref(shape, kDouble, {-3, 3}, 77), kDouble, device());
  const Ref x0 = to_ref(x);
  struct Op {
    std::string name;
    std::function<at::Tensor(const at::Tensor&)> fwd;
    std::function<at::Tensor(const at::Tensor&, const at::Tensor&)> bwd;  // (r, x)
  };
  const std::vector<Op> ops = {
      {"max_pool2d",
       [](const at::Tensor& in) {
         return at::max_pool2d(in, {3, 2}, {2, 2}, {1, 1}, {1, 2}, true);
       },
       [](const at::Tensor& r, const at::Tensor& in) {
         const auto idx = std::get<1>(
             at::max_pool2d_with_indices(in, {3, 2}, {2, 2}, {1, 1}, {1, 2}, true));
         return at::max_pool2d_with_indices_backward(r, in, {3, 2}, {2, 2}, {1, 1}, {1, 2},
                                                     true, idx);
       }},
      {"avg_pool2d",
       [](const at::Tensor& in) { return at::avg_pool2d(in, {3, 3}, {2, 1}, {1, 1}, true, false); },
       [](const at::Tensor& r, const at::Tensor& in) {
         return at::avg_pool2d_backward(r, in, {3, 3}, {2, 1}, {1, 1}, true, false,
                                        std::nullopt);
       }},
      {"adaptive_avg_pool2d",
       [](const at::Tensor& in) { return at::adaptive_avg_pool2d(in, {3, 4}); },
       [](const at::Tensor& r, const at::Tensor& in) {
         return at::_adaptive_avg_pool2d_backward(r, in);
       }},
  };
  for (const Op& op : ops) {
    const at::Tensor y = op.fwd(x);
    const at::Tensor r = make_tensor(
        random_ref(std::vector<int64_t>(y.sizes().begin(), y.sizes().end()), kDouble, {-1, 1}, 78),
        kDouble, device());
    const Ref analytic = to_ref(op.bwd(r, x));
    const auto loss = [&](const Ref& in) {
      return at::sum(at::mul(op.fwd(make_tensor(in, kDouble, device())), r)).item<double>();
    };
    const double eps = 1e-6;
    for (int64_t i = 0; i < x0.numel(); ++i) {
      Ref plus = x0, minus = x0;
      plus.v[static_cast<size_t>(i)] += eps;
      minus.v[static_cast<size_t>(i)] -= eps;
      EXPECT_NEAR(analytic.v[static_cast<size_t>(i)], (loss(plus) - loss(minus)) / (2 * eps),
                  1e-6)
          << op.name << " element " << i;
    }
  }
}

// ---- errors ------------------------------------------------------------------------------------

TEST_P(Pool, ErrorsFollowPyTorchsChecks) {
  const at::Tensor x = at::ones({1, 2, 4, 4}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::max_pool2d(x, std::vector<int64_t>{}); }),
              HasSubstr("max_pool2d: kernel_size must be a single int, or a tuple of two ints"));
  EXPECT_THAT(errorOf([&] { at::max_pool2d(x, {2}, {1, 1, 1}); }),
              HasSubstr("stride must either be omitted, a single int, or a tuple of two ints"));
  EXPECT_THAT(errorOf([&] { at::max_pool2d(x, {0, 2}); }),
              HasSubstr("kernel size should be greater than zero, but got kH: 0 kW: 2"));
  EXPECT_THAT(errorOf([&] { at::max_pool2d(x, {2}, {0}); }),
              HasSubstr("stride should be greater than zero, but got dH: 0 dW: 0"));
  EXPECT_THAT(errorOf([&] { at::max_pool2d(x, {2}, {}, {0}, {0}); }),
              HasSubstr("dilation should be greater than zero"));
  EXPECT_THAT(errorOf([&] { at::max_pool2d(x, {3}, {1}, {2}); }),
              HasSubstr("pad should be non-negative and at most half of kernel size, but got "
                        "padH = 2, padW = 2, kH = 3, kW = 3"));
  EXPECT_THAT(errorOf([&] { at::avg_pool2d(x, {3}, {1}, {-1}); }),
              HasSubstr("pad should be non-negative and at most half of kernel size"));
  EXPECT_THAT(errorOf([&] { at::max_pool2d(x, {5}); }),
              HasSubstr("given input size: (2x4x4). Calculated output size: (2x0x0). Output "
                        "size is too small"));
  EXPECT_THAT(errorOf([&] { at::max_pool2d(at::ones({4, 4}, options(kFloat)), {2}); }),
              HasSubstr("expected a 3-d (unbatched) or 4-d (batched) input, but got input of "
                        "size [4, 4]"));
  EXPECT_THAT(errorOf([&] { at::max_pool2d(at::ones({1, 0, 4, 4}, options(kFloat)), {2}); }),
              HasSubstr("non-zero size for non-batch dimensions, but input has sizes "
                        "[1, 0, 4, 4] with dimension 1 being empty"));
  EXPECT_THAT(errorOf([&] { at::max_pool2d(at::ones({1, 2, 4, 4}, options(kBool)), {2}); }),
              HasSubstr("max_pool2d: dtype Bool is not supported"));
  EXPECT_THAT(errorOf([&] { at::avg_pool2d(x, {2}, {}, {0}, false, true, 0); }),
              HasSubstr("divisor must be not zero"));
  EXPECT_THAT(errorOf([&] { at::adaptive_avg_pool2d(x, {2, 2, 2}); }),
              HasSubstr("adaptive_avg_pool2d: output_size must be 2"));
  EXPECT_THAT(errorOf([&] { at::adaptive_avg_pool2d(x, {-1, 2}); }),
              HasSubstr("elements of output_size must be greater than or equal to 0"));
  // Backward: shapes, index dtype and range.
  // Named references, not a structured binding: a C++17 lambda cannot
  // capture one (clang refuses).
  const auto v_idx_tuple = at::max_pool2d_with_indices(x, {2});
  const auto& v = std::get<0>(v_idx_tuple);
  const auto& idx = std::get<1>(v_idx_tuple);
  EXPECT_THAT(errorOf([&] {
                at::max_pool2d_with_indices_backward(at::ones({1, 2, 3, 3}, options(kFloat)), x,
                                                     {2}, {2}, {0}, {1}, false, idx);
              }),
              HasSubstr("expected grad_output of size [1, 2, 2, 2] (the pooling's output), "
                        "but got [1, 2, 3, 3]"));
  EXPECT_THAT(errorOf([&] {
                at::max_pool2d_with_indices_backward(v, x, {2}, {2}, {0}, {1}, false,
                                                     at::zeros({1, 2, 2, 2}, options(kInt)));
              }),
              HasSubstr("expected Long indices of size [1, 2, 2, 2]"));
  EXPECT_THAT(errorOf([&] {
                at::max_pool2d_with_indices_backward(v, x, {2}, {2}, {0}, {1}, false,
                                                     at::full({1, 2, 2, 2}, 16, options(kLong)));
              }),
              HasSubstr("index 16 at position 0 is outside its input plane of 4x4 elements"));
  const at::Tensor one_bad = make_tensor(Ref({1, 2, 2, 2}, {0, 1, 4, 5, 0, -7, 2, 3}), kLong,
                                         device());
  EXPECT_THAT(errorOf([&] {
                at::max_pool2d_with_indices_backward(v, x, {2}, {2}, {0}, {1}, false, one_bad);
              }),
              HasSubstr("index -7 at position 5 is outside its input plane"));
  // Indices inside the plane but not in their own 2x2 window (not what the
  // forward returns) are still honoured: every gradient lands on its index,
  // summed, as PyTorch's scatter does (the dense 2x2 path must give way).
  const at::Tensor g4 = make_tensor(Ref({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), kFloat, device());
  const at::Tensor to_corner = at::zeros({1, 2, 2, 2}, options(kLong));
  std::vector<double> want(32, 0.0);
  want[0] = 1 + 2 + 3 + 4;
  want[16] = 5 + 6 + 7 + 8;
  EXPECT_TRUE(close(at::max_pool2d_with_indices_backward(g4, x, {2}, {2}, {0}, {1}, false,
                                                         to_corner),
                    Ref({1, 2, 4, 4}, want), kFloat));
  EXPECT_THAT(errorOf([&] {
                at::max_pool2d_with_indices_backward(
                    v, x, {2}, {2}, {0}, {1}, false,
                    at::full({1, 2, 2, 2}, std::numeric_limits<int64_t>::min(),
                             options(kLong)));
              }),
              HasSubstr("index -9223372036854775808 at position 0 is outside its input plane"));
  EXPECT_THAT(errorOf([&] {
                at::avg_pool2d_backward(at::ones({1, 2, 3, 3}, options(kDouble)), x, {2}, {2},
                                        {0}, false, true, std::nullopt);
              }),
              HasSubstr("expected grad_output of size [1, 2, 2, 2]"));
  EXPECT_THAT(errorOf([&] {
                at::_adaptive_avg_pool2d_backward(at::ones({2, 2, 2}, options(kFloat)), x);
              }),
              HasSubstr("must have the same number of dims"));
}

}  // namespace
}  // namespace ember_conformance
