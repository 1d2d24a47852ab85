// Conformance: convolution, convolution_backward and conv2d against naive
// reference loops written here from the definition, in float32 and float64,
// for plain, strided, padded, dilated, grouped and depthwise cases, every
// input layout, channels-last inputs, transposed convolutions, 1-d
// convolutions, zero-size batches, the input gradient by finite differences,
// and every error message.
#include <cmath>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class Conv : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(Conv);

// ---- the reference ------------------------------------------------------------

struct Spec {
  int64_t N, C, H, W;    // input
  int64_t O, KH, KW;     // out channels, kernel
  int64_t sh, sw, ph, pw, dh, dw, G;
  bool bias;
  int64_t oph = 0, opw = 0;  // output padding (transposed only)
};

std::string name_of(const Spec& s, bool transposed) {
  std::ostringstream os;
  os << (transposed ? "transposed " : "") << "x[" << s.N << "," << s.C << "," << s.H << ","
     << s.W << "] w[" << s.O << "," << s.KH << "x" << s.KW << "] stride " << s.sh << ","
     << s.sw << " pad " << s.ph << "," << s.pw << " dil " << s.dh << "," << s.dw
     << " groups " << s.G << (s.bias ? " bias" : "");
  return os.str();
}

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}
int64_t transposed_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, int64_t op) {
  return (in - 1) * s - 2 * p + d * (k - 1) + op + 1;
}

// Flat index into a row-major 4-d array.
inline size_t at4(const std::vector<int64_t>& shape, int64_t a, int64_t b, int64_t c,
                  int64_t d) {
  return static_cast<size_t>(((a * shape[1] + b) * shape[2] + c) * shape[3] + d);
}

// Visits every (output position, input position, weight position) triple
// of a direct convolution of x (s's input shape) with weight [O, C/G, KH,
// KW]: f(y_index, x_index, w_index, o).
template <typename F>
void each_tap(const Spec& s, const std::vector<int64_t>& xs, const std::vector<int64_t>& ys,
              const std::vector<int64_t>& ws, const F& f) {
  const int64_t Cg = xs[1] / s.G, Og = ys[1] / s.G;
  for (int64_t n = 0; n < ys[0]; ++n)
    for (int64_t o = 0; o < ys[1]; ++o)
      for (int64_t i = 0; i < ys[2]; ++i)
        for (int64_t j = 0; j < ys[3]; ++j)
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t kh = 0; kh < s.KH; ++kh)
              for (int64_t kw = 0; kw < s.KW; ++kw) {
                const int64_t h = i * s.sh - s.ph + kh * s.dh;
                const int64_t w = j * s.sw - s.pw + kw * s.dw;
                if (h < 0 || h >= xs[2] || w < 0 || w >= xs[3]) continue;
                f(at4(ys, n, o, i, j), at4(xs, n, (o / Og) * Cg + c, h, w),
                  at4(ws, o, c, kh, kw), o);
              }
}

// y = conv(x, w) + b.
Ref ref_conv(const Spec& s, const Ref& x, const Ref& w, const Ref& b) {
  const std::vector<int64_t> ys = {s.N, s.O, out_size(s.H, s.KH, s.sh, s.ph, s.dh),
                                   out_size(s.W, s.KW, s.sw, s.pw, s.dw)};
  Ref y(ys, std::vector<double>(static_cast<size_t>(numel_of(ys))));
  each_tap(s, x.shape, ys, w.shape,
           [&](size_t yi, size_t xi, size_t wi, int64_t) { y.v[yi] += x.v[xi] * w.v[wi]; });
  if (s.bias) {
    for (size_t i = 0; i < y.v.size(); ++i) y.v[i] += b.v[(i / (ys[2] * ys[3])) % ys[1]];
  }
  return y;
}

// Gradients of sum(conv(x, w) * gy) for x, w and the bias.
std::tuple<Ref, Ref, Ref> ref_conv_grads(const Spec& s, const Ref& x, const Ref& w,
                                         const Ref& gy) {
  Ref gx(x.shape, std::vector<double>(x.v.size()));
  Ref gw(w.shape, std::vector<double>(w.v.size()));
  Ref gb({s.O}, std::vector<double>(static_cast<size_t>(s.O)));
  each_tap(s, x.shape, gy.shape, w.shape, [&](size_t yi, size_t xi, size_t wi, int64_t) {
    gx.v[xi] += gy.v[yi] * w.v[wi];
    gw.v[wi] += gy.v[yi] * x.v[xi];
  });
  const int64_t plane = gy.shape[2] * gy.shape[3];
  for (size_t i = 0; i < gy.v.size(); ++i) gb.v[(i / plane) % s.O] += gy.v[i];
  return {gx, gw, gb};
}

// Transposed convolution with weight [C, O/G, KH, KW]: each input element
// scatters into the output; y[n, g*O/G + o, i*s - p + kh*d, ...] +=
// x[n, c, i, j] * w[c, o, kh, kw] for c in group g.
Ref ref_conv_transposed(const Spec& s, const Ref& x, const Ref& w, const Ref& b) {
  const std::vector<int64_t> ys = {s.N, s.O,
                                   transposed_size(s.H, s.KH, s.sh, s.ph, s.dh, s.oph),
                                   transposed_size(s.W, s.KW, s.sw, s.pw, s.dw, s.opw)};
  Ref y(ys, std::vector<double>(static_cast<size_t>(numel_of(ys))));
  const int64_t Cg = s.C / s.G, Og = s.O / s.G;
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t c = 0; c < s.C; ++c)
      for (int64_t i = 0; i < s.H; ++i)
        for (int64_t j = 0; j < s.W; ++j)
          for (int64_t o = 0; o < Og; ++o)
            for (int64_t kh = 0; kh < s.KH; ++kh)
              for (int64_t kw = 0; kw < s.KW; ++kw) {
                const int64_t h = i * s.sh - s.ph + kh * s.dh;
                const int64_t ww = j * s.sw - s.pw + kw * s.dw;
                if (h < 0 || h >= ys[2] || ww < 0 || ww >= ys[3]) continue;
                y.v[at4(ys, n, (c / Cg) * Og + o, h, ww)] +=
                    x.v[at4(x.shape, n, c, i, j)] * w.v[at4(w.shape, c, o, kh, kw)];
              }
  if (s.bias) {
    for (size_t i = 0; i < y.v.size(); ++i) y.v[i] += b.v[(i / (ys[2] * ys[3])) % ys[1]];
  }
  return y;
}

// Gradients of sum(conv_transposed(x, w) * gy) for x and w (by the
// transposed definition above, differentiated term by term).
std::pair<Ref, Ref> ref_conv_transposed_grads(const Spec& s, const Ref& x, const Ref& w,
                                              const Ref& gy) {
  Ref gx(x.shape, std::vector<double>(x.v.size()));
  Ref gw(w.shape, std::vector<double>(w.v.size()));
  const int64_t Cg = s.C / s.G, Og = s.O / s.G;
  for (int64_t n = 0; n < s.N; ++n)
    for (int64_t c = 0; c < s.C; ++c)
      for (int64_t i = 0; i < s.H; ++i)
        for (int64_t j = 0; j < s.W; ++j)
          for (int64_t o = 0; o < Og; ++o)
            for (int64_t kh = 0; kh < s.KH; ++kh)
              for (int64_t kw = 0; kw < s.KW; ++kw) {
                const int64_t h = i * s.sh - s.ph + kh * s.dh;
                const int64_t ww = j * s.sw - s.pw + kw * s.dw;
                if (h < 0 || h >= gy.shape[2] || ww < 0 || ww >= gy.shape[3]) continue;
                const double g = gy.v[at4(gy.shape, n, (c / Cg) * Og + o, h, ww)];
                gx.v[at4(x.shape, n, c, i, j)] += g * w.v[at4(w.shape, c, o, kh, kw)];
                gw.v[at4(w.shape, c, o, kh, kw)] += g * x.v[at4(x.shape, n, c, i, j)];
              }
  return {gx, gw};
}

// ---- helpers --------------------------------------------------------------------

Tol tol_for(ScalarType t) { return t == kFloat ? Tol{2e-4, 2e-4} : Tol{1e-10, 1e-10}; }

// The input in a channels-last layout (same values).
at::Tensor channels_last(const at::Tensor& t) {
  at::Tensor cl = at::empty(t.sizes(), t.options(), c10::MemoryFormat::ChannelsLast);
  cl.copy_(t);
  return cl;
}

// Every layout of the input the suite covers: layouts() plus channels-last.
std::vector<Case> input_layouts(const std::vector<int64_t>& shape, ScalarType dtype,
                                c10::Device device, uint64_t seed) {
  std::vector<Case> cases = layouts(shape, dtype, device, {-2, 2}, seed);
  cases.push_back({"channels-last", channels_last(cases[0].tensor), cases[0].ref});
  return cases;
}

const std::vector<Spec>& specs() {
  static const std::vector<Spec> s = {
      // N  C  H  W   O KH KW sh sw ph pw dh dw G  bias
      {1, 1, 5, 5, 2, 3, 3, 1, 1, 0, 0, 1, 1, 1, true},
      {2, 3, 7, 6, 4, 3, 2, 2, 1, 1, 0, 1, 1, 1, true},
      {3, 4, 8, 8, 6, 3, 3, 1, 1, 2, 2, 2, 2, 2, false},
      {2, 4, 6, 7, 8, 3, 3, 2, 2, 1, 1, 1, 1, 4, true},   // depthwise, multiplier 2
      {2, 3, 6, 6, 3, 3, 3, 1, 1, 1, 1, 1, 1, 3, false},  // depthwise
      {2, 2, 5, 5, 3, 1, 1, 3, 2, 0, 0, 1, 1, 1, true},   // 1x1, strided
      {1, 2, 3, 3, 2, 5, 5, 1, 1, 1, 1, 1, 1, 1, true},   // kernel = padded input
      {2, 3, 9, 5, 2, 2, 3, 3, 2, 1, 1, 2, 1, 1, true},   // stride, pad and dilation mixed
      {4, 1, 28, 28, 8, 3, 3, 1, 1, 0, 0, 1, 1, 1, true},  // the CNN's first layer
  };
  return s;
}

// ---- forward and backward against the reference ---------------------------------

TEST_P(Conv, ForwardAndBackwardMatchTheReference) {
  uint64_t seed = 1;
  for (ScalarType dtype : {kFloat, kDouble}) {
    for (const Spec& s : specs()) {
      const std::string name = name_of(s, false) + " " + c10::toString(dtype);
      const Ref w = random_ref({s.O, s.C / s.G, s.KH, s.KW}, dtype, {-1, 1}, ++seed);
      const Ref b = random_ref({s.O}, dtype, {-1, 1}, ++seed);
      const at::Tensor wt = make_tensor(w, dtype, device());
      const std::optional<at::Tensor> bt =
          s.bias ? std::optional<at::Tensor>(make_tensor(b, dtype, device())) : std::nullopt;
      for (const Case& c : input_layouts({s.N, s.C, s.H, s.W}, dtype, device(), ++seed)) {
        const Ref expected = ref_conv(s, c.ref, w, b);
        const at::Tensor y = at::convolution(c.tensor, wt, bt, {s.sh, s.sw}, {s.ph, s.pw},
                                             {s.dh, s.dw}, false, {0, 0}, s.G);
        EXPECT_TRUE(close(y, expected, dtype, tol_for(dtype))) << name << " " << c.name;
        if (c.name == "channels-last" && s.C > 1 && s.O > 1) {
          EXPECT_EQ(y.stride(1), 1) << name << ": channels-last in, channels-last out";
        }
        // Backward: the gradients of sum(y * gy).
        const Ref gy = random_ref(expected.shape, dtype, {-1, 1}, ++seed);
        const auto [gx_ref, gw_ref, gb_ref] = ref_conv_grads(s, c.ref, w, gy);
        at::Tensor gyt = make_tensor(gy, dtype, device());
        if (c.name == "channels-last") gyt = channels_last(gyt);
        const auto [gx, gw, gb] = at::convolution_backward(
            gyt, c.tensor, wt, std::vector<int64_t>{s.O}, {s.sh, s.sw}, {s.ph, s.pw},
            {s.dh, s.dw}, false, {0, 0}, s.G, {true, true, true});
        EXPECT_TRUE(close(gx, gx_ref, dtype, tol_for(dtype))) << name << " grad_input " << c.name;
        EXPECT_TRUE(close(gw, gw_ref, dtype, tol_for(dtype))) << name << " grad_weight " << c.name;
        EXPECT_TRUE(close(gb, gb_ref, dtype, tol_for(dtype))) << name << " grad_bias " << c.name;
      }
    }
  }
}

TEST_P(Conv, OutputMaskLeavesUnrequestedGradientsUndefined) {
  const Spec s{2, 4, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 2, true};
  for (ScalarType dtype : {kFloat, kDouble}) {
    const Ref x = random_ref({2, 4, 6, 6}, dtype, {-1, 1}, 3);
    const Ref w = random_ref({4, 2, 3, 3}, dtype, {-1, 1}, 4);
    const Ref gy = random_ref({2, 4, 6, 6}, dtype, {-1, 1}, 5);
    const auto [gx_ref, gw_ref, gb_ref] = ref_conv_grads(s, x, w, gy);
    const at::Tensor xt = make_tensor(x, dtype, device()), wt = make_tensor(w, dtype, device());
    const at::Tensor gyt = make_tensor(gy, dtype, device());
    for (int mask = 0; mask < 8; ++mask) {
      const std::vector<bool> m = {(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
      const auto [gx, gw, gb] = at::convolution_backward(
          gyt, xt, wt, std::nullopt, {1}, {1}, {1}, false, {0}, 2, m);
      EXPECT_EQ(gx.defined(), m[0]);
      EXPECT_EQ(gw.defined(), m[1]);
      EXPECT_EQ(gb.defined(), m[2]);
      if (m[0]) {
        EXPECT_TRUE(close(gx, gx_ref, dtype, tol_for(dtype))) << mask;
      }
      if (m[1]) {
        EXPECT_TRUE(close(gw, gw_ref, dtype, tol_for(dtype))) << mask;
      }
      if (m[2]) {
        EXPECT_TRUE(close(gb, gb_ref, dtype, tol_for(dtype))) << mask;
      }
    }
  }
}

TEST_P(Conv, TransposedMatchesTheReference) {
  const std::vector<Spec> cases = {
      // N  C  H  W  O KH KW sh sw ph pw dh dw G  bias oph opw
      {1, 2, 3, 3, 3, 3, 3, 1, 1, 0, 0, 1, 1, 1, true},
      {2, 4, 4, 5, 6, 3, 2, 2, 1, 1, 0, 1, 1, 2, true, 1, 0},
      {2, 3, 3, 4, 3, 3, 3, 2, 3, 1, 1, 2, 1, 3, false, 1, 2},  // depthwise
      {1, 2, 4, 4, 2, 2, 2, 1, 1, 0, 0, 3, 2, 1, true, 2, 1},   // output_padding < dilation
  };
  uint64_t seed = 100;
  for (ScalarType dtype : {kFloat, kDouble}) {
    for (const Spec& s : cases) {
      const std::string name = name_of(s, true) + " " + c10::toString(dtype);
      const Ref w = random_ref({s.C, s.O / s.G, s.KH, s.KW}, dtype, {-1, 1}, ++seed);
      const Ref b = random_ref({s.O}, dtype, {-1, 1}, ++seed);
      const at::Tensor wt = make_tensor(w, dtype, device());
      const std::optional<at::Tensor> bt =
          s.bias ? std::optional<at::Tensor>(make_tensor(b, dtype, device())) : std::nullopt;
      for (const Case& c : input_layouts({s.N, s.C, s.H, s.W}, dtype, device(), ++seed)) {
        const Ref expected = ref_conv_transposed(s, c.ref, w, b);
        const at::Tensor y = at::convolution(c.tensor, wt, bt, {s.sh, s.sw}, {s.ph, s.pw},
                                             {s.dh, s.dw}, true, {s.oph, s.opw}, s.G);
        EXPECT_TRUE(close(y, expected, dtype, tol_for(dtype))) << name << " " << c.name;
        const Ref gy = random_ref(expected.shape, dtype, {-1, 1}, ++seed);
        const auto [gx_ref, gw_ref] = ref_conv_transposed_grads(s, c.ref, w, gy);
        Ref gb_ref({s.O}, std::vector<double>(static_cast<size_t>(s.O)));
        const int64_t plane = gy.shape[2] * gy.shape[3];
        for (size_t i = 0; i < gy.v.size(); ++i) gb_ref.v[(i / plane) % s.O] += gy.v[i];
        const auto [gx, gw, gb] = at::convolution_backward(
            make_tensor(gy, dtype, device()), c.tensor, wt, std::vector<int64_t>{s.O},
            {s.sh, s.sw}, {s.ph, s.pw}, {s.dh, s.dw}, true, {s.oph, s.opw}, s.G,
            {true, true, true});
        EXPECT_TRUE(close(gx, gx_ref, dtype, tol_for(dtype))) << name << " grad_input " << c.name;
        EXPECT_TRUE(close(gw, gw_ref, dtype, tol_for(dtype))) << name << " grad_weight " << c.name;
        EXPECT_TRUE(close(gb, gb_ref, dtype, tol_for(dtype))) << name << " grad_bias " << c.name;
      }
    }
  }
}

TEST_P(Conv, OneDimensionalConvolution) {
  // A 1-d convolution is the 2-d one with H = 1.
  const Spec s{2, 4, 1, 9, 6, 1, 3, 1, 2, 0, 1, 1, 2, 2, true};
  for (ScalarType dtype : {kFloat, kDouble}) {
    const Ref x = random_ref({2, 4, 1, 9}, dtype, {-1, 1}, 7);
    const Ref w = random_ref({6, 2, 1, 3}, dtype, {-1, 1}, 8);
    const Ref b = random_ref({6}, dtype, {-1, 1}, 9);
    Ref expected = ref_conv(s, x, w, b);
    const at::Tensor xt = make_tensor(x, dtype, device()).squeeze(2);
    const at::Tensor wt = make_tensor(w, dtype, device()).squeeze(2);
    const at::Tensor y = at::convolution(xt, wt, make_tensor(b, dtype, device()), {2}, {1},
                                         {2}, false, {0}, 2);
    ASSERT_EQ(y.dim(), 3);
    expected.shape.erase(expected.shape.begin() + 2);
    EXPECT_TRUE(close(y, expected, dtype, tol_for(dtype)));
    Ref gy = random_ref({2, 6, 1, expected.shape[2]}, dtype, {-1, 1}, 10);
    auto [gx_ref, gw_ref, gb_ref] = ref_conv_grads(s, x, w, gy);
    const auto [gx, gw, gb] = at::convolution_backward(
        make_tensor(gy, dtype, device()).squeeze(2), xt, wt, std::nullopt, {2}, {1}, {2},
        false, {0}, 2, {true, true, true});
    gx_ref.shape.erase(gx_ref.shape.begin() + 2);
    gw_ref.shape.erase(gw_ref.shape.begin() + 2);
    EXPECT_TRUE(close(gx, gx_ref, dtype, tol_for(dtype)));
    EXPECT_TRUE(close(gw, gw_ref, dtype, tol_for(dtype)));
    EXPECT_TRUE(close(gb, gb_ref, dtype, tol_for(dtype)));
  }
}

TEST_P(Conv, ZeroSizeBatchAndChannels) {
  for (ScalarType dtype : {kFloat, kDouble}) {
    const auto opts = options(dtype);
    const at::Tensor w = at::ones({3, 2, 3, 3}, opts);
    const at::Tensor x = at::ones({0, 2, 5, 5}, opts);
    const at::Tensor y = at::convolution(x, w, std::nullopt, {1}, {0}, {1}, false, {0}, 1);
    EXPECT_EQ(y.sizes(), c10::IntArrayRef({0, 3, 3, 3}));
    const auto [gx, gw, gb] = at::convolution_backward(
        at::ones({0, 3, 3, 3}, opts), x, w, std::vector<int64_t>{3}, {1}, {0}, {1}, false,
        {0}, 1, {true, true, true});
    EXPECT_EQ(gx.sizes(), x.sizes());
    EXPECT_TRUE(close(gw, Ref({3, 2, 3, 3}, std::vector<double>(54, 0.0)), dtype));
    EXPECT_TRUE(close(gb, Ref({3}, {0, 0, 0}), dtype));
    // No input channels: the result is the bias.
    const at::Tensor b = make_tensor(Ref({2}, {1.5, -2}), dtype, device());
    const at::Tensor y0 = at::convolution(at::ones({1, 0, 3, 3}, opts),
                                          at::ones({2, 0, 2, 2}, opts), b, {1}, {0}, {1},
                                          false, {0}, 1);
    EXPECT_TRUE(close(y0, Ref({1, 2, 2, 2}, {1.5, 1.5, 1.5, 1.5, -2, -2, -2, -2}), dtype));
  }
}

// ---- finite differences -------------------------------------------------------------

// d/dx of sum(conv(x, w) * r) by central differences, against the input
// gradient convolution_backward gives for grad_output r (float64).
TEST_P(Conv, InputGradientMatchesFiniteDifferences) {
  struct FdCase {
    Spec s;
    bool transposed;
  };
  const std::vector<FdCase> cases = {
      {{2, 4, 5, 6, 4, 3, 2, 2, 1, 1, 1, 1, 2, 2, true}, false},
      {{1, 3, 4, 4, 3, 3, 3, 1, 1, 1, 1, 1, 1, 3, false}, false},
      {{1, 2, 3, 3, 4, 3, 3, 2, 2, 1, 0, 1, 1, 2, true, 1, 1}, true},
  };
  for (const FdCase& fc : cases) {
    const Spec& s = fc.s;
    const std::vector<int64_t> ws = fc.transposed
                                        ? std::vector<int64_t>{s.C, s.O / s.G, s.KH, s.KW}
                                        : std::vector<int64_t>{s.O, s.C / s.G, s.KH, s.KW};
    at::Tensor x = make_tensor(random_ref({s.N, s.C, s.H, s.W}, kDouble, {-1, 1}, 21), kDouble,
                               device());
    const at::Tensor w = make_tensor(random_ref(ws, kDouble, {-1, 1}, 22), kDouble, device());
    const auto conv = [&](const at::Tensor& in) {
      return at::convolution(in, w, std::nullopt, {s.sh, s.sw}, {s.ph, s.pw}, {s.dh, s.dw},
                             fc.transposed, {s.oph, s.opw}, s.G);
    };
    const at::Tensor y = conv(x);
    const Ref r = random_ref(std::vector<int64_t>(y.sizes().begin(), y.sizes().end()),
                             kDouble, {-1, 1}, 23);
    const at::Tensor rt = make_tensor(r, kDouble, device());
    const auto loss = [&](const at::Tensor& in) {
      return at::sum(at::mul(conv(in), rt)).item<double>();
    };
    const at::Tensor gx = std::get<0>(at::convolution_backward(
        rt, x, w, std::nullopt, {s.sh, s.sw}, {s.ph, s.pw}, {s.dh, s.dw}, fc.transposed,
        {s.oph, s.opw}, s.G, {true, false, false}));
    const Ref analytic = to_ref(gx);
    const Ref x0 = to_ref(x);
    const double eps = 1e-6;
    for (int64_t i = 0; i < x0.numel(); ++i) {
      Ref plus = x0, minus = x0;
      plus.v[static_cast<size_t>(i)] += eps;
      minus.v[static_cast<size_t>(i)] -= eps;
      const double numeric = (loss(make_tensor(plus, kDouble, device())) -
                              loss(make_tensor(minus, kDouble, device()))) /
                             (2 * eps);
      EXPECT_NEAR(analytic.v[static_cast<size_t>(i)], numeric, 1e-6)
          << name_of(s, fc.transposed) << " element " << i;
    }
  }
}

// ---- conv2d ---------------------------------------------------------------------------

TEST_P(Conv, Conv2dAcceptsUnbatchedInputsAndDefaults) {
  const Spec s{1, 3, 6, 5, 4, 3, 3, 1, 1, 0, 0, 1, 1, 1, false};
  for (ScalarType dtype : {kFloat, kDouble}) {
    const Ref x = random_ref({1, 3, 6, 5}, dtype, {-1, 1}, 31);
    const Ref w = random_ref({4, 3, 3, 3}, dtype, {-1, 1}, 32);
    Ref expected = ref_conv(s, x, w, Ref({4}, {0, 0, 0, 0}));
    const at::Tensor wt = make_tensor(w, dtype, device());
    const at::Tensor xt = make_tensor(x, dtype, device());
    EXPECT_TRUE(close(at::conv2d(xt, wt), expected, dtype, tol_for(dtype)));
    const at::Tensor y = at::conv2d(xt.squeeze(0), wt);
    expected.shape.erase(expected.shape.begin());
    EXPECT_TRUE(close(y, expected, dtype, tol_for(dtype)));
  }
}

TEST_P(Conv, Conv2dPaddingStrings) {
  for (ScalarType dtype : {kFloat, kDouble}) {
    for (int64_t k : {3, 4}) {
      for (int64_t d : {1, 2}) {
        // 'same': the reference pads total = d*(k-1), the extra one at the end.
        const int64_t total = d * (k - 1);
        const Ref x = random_ref({2, 2, 7, 6}, dtype, {-1, 1}, 41);
        const Ref w = random_ref({3, 2, k, k}, dtype, {-1, 1}, 42);
        Ref padded({2, 2, 7 + total, 6 + total},
                   std::vector<double>(static_cast<size_t>(2 * 2 * (7 + total) * (6 + total))));
        for (int64_t n = 0; n < 2; ++n)
          for (int64_t c = 0; c < 2; ++c)
            for (int64_t h = 0; h < 7; ++h)
              for (int64_t ww = 0; ww < 6; ++ww)
                padded.v[at4(padded.shape, n, c, h + total / 2, ww + total / 2)] =
                    x.v[at4(x.shape, n, c, h, ww)];
        const Spec s{2, 2, 7 + total, 6 + total, 3, k, k, 1, 1, 0, 0, d, d, 1, false};
        const Ref expected = ref_conv(s, padded, w, Ref({3}, {0, 0, 0}));
        const at::Tensor xt = make_tensor(x, dtype, device());
        const at::Tensor wt = make_tensor(w, dtype, device());
        const at::Tensor y = at::conv2d(xt, wt, std::nullopt, 1, "same", d);
        EXPECT_EQ(y.sizes(), c10::IntArrayRef({2, 3, 7, 6}));
        EXPECT_TRUE(close(y, expected, dtype, tol_for(dtype))) << "k " << k << " d " << d;
        if (d * (k - 1) + 1 > 6) continue;  // 'valid' needs the kernel to fit
        const Spec v{2, 2, 7, 6, 3, k, k, 1, 1, 0, 0, d, d, 1, false};
        EXPECT_TRUE(close(at::conv2d(xt, wt, std::nullopt, 1, "valid", d),
                          ref_conv(v, x, w, Ref({3}, {0, 0, 0})), dtype, tol_for(dtype)));
      }
    }
  }
  const at::Tensor x = at::ones({1, 1, 4, 4}, options(kFloat));
  const at::Tensor w = at::ones({1, 1, 3, 3}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::conv2d(x, w, std::nullopt, 1, "full"); }),
              HasSubstr("conv2d: invalid padding string 'full'; it should be one of "
                        "{'valid', 'same'}"));
  EXPECT_THAT(errorOf([&] { at::conv2d(x, w, std::nullopt, 2, "same"); }),
              HasSubstr("padding='same' is not supported for strided convolutions"));
}

// ---- errors ------------------------------------------------------------------------------

TEST_P(Conv, ErrorsNameTheShapes) {
  const auto f = options(kFloat);
  const at::Tensor x = at::ones({2, 3, 8, 8}, f);
  const at::Tensor w = at::ones({4, 3, 3, 3}, f);
  const auto conv = [&](const at::Tensor& in, const at::Tensor& wt,
                        std::optional<at::Tensor> b = std::nullopt,
                        std::vector<int64_t> stride = {1}, std::vector<int64_t> pad = {0},
                        std::vector<int64_t> dil = {1}, int64_t groups = 1,
                        bool transposed = false, std::vector<int64_t> op = {0}) {
    return at::convolution(in, wt, b, stride, pad, dil, transposed, op, groups);
  };
  EXPECT_THAT(errorOf([&] { conv(at::ones({2, 1, 8, 8}, f), w); }),
              HasSubstr("convolution: given groups=1, weight of size [4, 3, 3, 3], expected "
                        "input[2, 1, 8, 8] to have 3 channels, but got 1 channels instead"));
  EXPECT_THAT(errorOf([&] { conv(x, at::ones({4, 3, 3}, f)); }),
              HasSubstr("expected 4-dimensional weight for 4-dimensional input of size "
                        "[2, 3, 8, 8], but got weight of size [4, 3, 3]"));
  EXPECT_THAT(errorOf([&] { conv(at::ones({3, 8, 8, 8, 8}, f), at::ones({4, 3, 3, 3, 3}, f)); }),
              HasSubstr("only 1-d and 2-d convolutions are implemented"));
  EXPECT_THAT(errorOf([&] { conv(at::ones({1, 3, 2, 2}, f), w); }),
              HasSubstr("calculated padded input size per channel: (2 x 2). Kernel size: "
                        "(3 x 3). Kernel size can't be greater than actual input size"));
  EXPECT_THAT(errorOf([&] { conv(at::ones({1, 3, 2, 2}, f), w, std::nullopt, {1}, {0}, {2}); }),
              HasSubstr("Kernel size: (5 x 5)"));
  EXPECT_THAT(errorOf([&] { conv(x, at::ones({4, 3, 0, 3}, f)); }),
              HasSubstr("expected a kernel of positive sizes, but got weight of size "
                        "[4, 3, 0, 3]"));
  EXPECT_THAT(errorOf([&] { conv(at::ones({2, 3, 0, 8}, f), w, std::nullopt, {1}, {2}); }),
              HasSubstr("expected input's spatial dimensions to have positive length, but "
                        "input has a shape of [2, 3, 0, 8]"));
  EXPECT_THAT(errorOf([&] { conv(x, w, std::nullopt, {0}); }),
              HasSubstr("non-positive stride is not supported (stride=[0, 0])"));
  EXPECT_THAT(errorOf([&] { conv(x, w, std::nullopt, {1, -1}); }),
              HasSubstr("non-positive stride is not supported"));
  EXPECT_THAT(errorOf([&] { conv(x, w, std::nullopt, {1}, {-1}); }),
              HasSubstr("negative padding is not supported"));
  EXPECT_THAT(errorOf([&] { conv(x, w, std::nullopt, {1}, {0}, {0}); }),
              HasSubstr("dilation should be greater than zero"));
  EXPECT_THAT(errorOf([&] { conv(x, w, std::nullopt, {1, 1, 1}); }),
              HasSubstr("expected stride to be a single integer value or a list of 2 values "
                        "to match the convolution dimensions, but got stride=[1, 1, 1]"));
  EXPECT_THAT(errorOf([&] { conv(x, w, std::nullopt, {1}, {0}, {1}, 0); }),
              HasSubstr("non-positive groups is not supported"));
  EXPECT_THAT(errorOf([&] {
                conv(at::ones({2, 6, 8, 8}, f), at::ones({3, 3, 3, 3}, f), std::nullopt, {1},
                     {0}, {1}, 2);
              }),
              HasSubstr("given groups=2, expected weight to be divisible by 2 at dimension 0, "
                        "but got weight of size [3, 3, 3, 3] instead"));
  EXPECT_THAT(errorOf([&] { conv(x, w, at::ones({3}, f)); }),
              HasSubstr("expected bias to be 1-dimensional with 4 elements, but got bias of "
                        "size [3] instead"));
  EXPECT_THAT(errorOf([&] { conv(x, at::ones({4, 3, 3, 3}, options(kDouble))); }),
              HasSubstr("input (Float) and weight (Double) must have the same dtype"));
  EXPECT_THAT(errorOf([&] { conv(x, w, at::ones({4}, options(kDouble))); }),
              HasSubstr("input (Float) and bias (Double) must have the same dtype"));
  EXPECT_THAT(errorOf([&] {
                conv(at::ones({1, 3, 4, 4}, options(kLong)),
                     at::ones({4, 3, 3, 3}, options(kLong)));
              }),
              HasSubstr("convolution: dtype Long is not supported; use float32 or float64"));
  // Transposed: channels come from weight dim 0, output_padding is bounded.
  EXPECT_THAT(errorOf([&] {
                conv(at::ones({1, 3, 4, 4}, f), w, std::nullopt, {1}, {0}, {1}, 1, true);
              }),
              HasSubstr("given groups=1, transposed=1, weight of size [4, 3, 3, 3], expected "
                        "input[1, 3, 4, 4] to have 4 channels, but got 3 channels instead"));
  EXPECT_THAT(errorOf([&] {
                conv(at::ones({1, 4, 4, 4}, f), w, std::nullopt, {2}, {0}, {1}, 1, true, {2});
              }),
              HasSubstr("output padding must be smaller than either stride or dilation"));
  EXPECT_THAT(errorOf([&] {
                conv(at::ones({1, 4, 1, 1}, f), w, std::nullopt, {1}, {2}, {1}, 1, true);
              }),
              HasSubstr("output size is too small"));
  // Backward: grad_output must be the forward's output.
  EXPECT_THAT(errorOf([&] {
                at::convolution_backward(at::ones({2, 4, 5, 5}, f), x, w, std::nullopt, {1},
                                         {0}, {1}, false, {0}, 1, {true, true, true});
              }),
              HasSubstr("convolution_backward: expected grad_output of size [2, 4, 6, 6] (the "
                        "convolution's output), but got [2, 4, 5, 5]"));
  EXPECT_THAT(errorOf([&] {
                at::convolution_backward(at::ones({2, 4, 6, 6}, f), x, w, std::nullopt, {1},
                                         {0}, {1}, false, {0}, 1, {true, true});
              }),
              HasSubstr("output_mask must have 3 entries"));
  // conv2d's own checks.
  EXPECT_THAT(errorOf([&] { at::conv2d(at::ones({8, 8}, f), w); }),
              HasSubstr("expected 3D (unbatched) or 4D (batched) input to conv2d, but got "
                        "input of size: [8, 8]"));
}

}  // namespace
}  // namespace ember_conformance
