// Conv3d, ConvTranspose3d, MaxPool3d, AvgPool3d, AdaptiveAvgPool3d and
// AdaptiveMaxPool1d/3d (issue 15): values against direct loops over the
// elements (written here from the definitions), gradients against finite
// differences, error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include <torch/torch.h>

#include "tests/support/error_of.h"

namespace {

namespace F = torch::nn::functional;
using ::testing::HasSubstr;
using ember_test::errorOf;
using torch::autograd::variable_list;

std::vector<double> values(const torch::Tensor& t) {
  const auto c = t.detach().to(torch::kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

void expect_near(const torch::Tensor& actual, const std::vector<double>& expected,
                 double tol = 1e-9) {
  const auto v = values(actual);
  ASSERT_EQ(v.size(), expected.size());
  for (size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], expected[i], tol) << "element " << i;
}

// Row-major offset of a 5-d index.
struct Shape5 {
  std::vector<int64_t> s;
  explicit Shape5(const torch::Tensor& t) : s(t.sizes().vec()) {}
  Shape5(std::vector<int64_t> sizes) : s(std::move(sizes)) {}
  int64_t at(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) const {
    return (((a * s[1] + b) * s[2] + c) * s[3] + d) * s[4] + e;
  }
};

int64_t conv_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) {
  return (in + 2 * p - d * (k - 1) - 1) / s + 1;
}

// out[n, o, z, y, x] = b[o] + sum over c in o's group and the kernel of
// in[n, c, z*s - p + kz*d, ...] * w[o, c', kz, ky, kx].
std::vector<double> conv3d_loop(const torch::Tensor& input, const torch::Tensor& weight,
                                const torch::Tensor& bias, std::vector<int64_t> s,
                                std::vector<int64_t> p, std::vector<int64_t> d, int64_t groups,
                                std::vector<int64_t>* out_shape) {
  const auto in = values(input), w = values(weight);
  const auto b = bias.defined() ? values(bias) : std::vector<double>{};
  const Shape5 is(input), ws(weight);
  const int64_t n = is.s[0], cout = ws.s[0], cin_g = ws.s[1], cout_g = cout / groups;
  int64_t o[3];
  for (int i = 0; i < 3; ++i) o[i] = conv_out(is.s[2 + i], ws.s[2 + i], s[i], p[i], d[i]);
  const Shape5 os({n, cout, o[0], o[1], o[2]});
  *out_shape = os.s;
  std::vector<double> out(n * cout * o[0] * o[1] * o[2], 0.0);
  for (int64_t bn = 0; bn < n; ++bn)
    for (int64_t oc = 0; oc < cout; ++oc)
      for (int64_t z = 0; z < o[0]; ++z)
        for (int64_t y = 0; y < o[1]; ++y)
          for (int64_t x = 0; x < o[2]; ++x) {
            double acc = b.empty() ? 0.0 : b[oc];
            for (int64_t ci = 0; ci < cin_g; ++ci) {
              const int64_t c = (oc / cout_g) * cin_g + ci;
              for (int64_t kz = 0; kz < ws.s[2]; ++kz)
                for (int64_t ky = 0; ky < ws.s[3]; ++ky)
                  for (int64_t kx = 0; kx < ws.s[4]; ++kx) {
                    const int64_t iz = z * s[0] - p[0] + kz * d[0],
                                  iy = y * s[1] - p[1] + ky * d[1],
                                  ix = x * s[2] - p[2] + kx * d[2];
                    if (iz < 0 || iy < 0 || ix < 0 || iz >= is.s[2] || iy >= is.s[3] ||
                        ix >= is.s[4])
                      continue;
                    acc += in[is.at(bn, c, iz, iy, ix)] * w[ws.at(oc, ci, kz, ky, kx)];
                  }
            }
            out[os.at(bn, oc, z, y, x)] = acc;
          }
  return out;
}

// Each input element scatters in[n, c, z, y, x] * w[c, o', kz, ky, kx] to
// out[n, o, z*s - p + kz*d, ...].
std::vector<double> conv_transpose3d_loop(const torch::Tensor& input, const torch::Tensor& weight,
                                          const torch::Tensor& bias, std::vector<int64_t> s,
                                          std::vector<int64_t> p, std::vector<int64_t> op,
                                          std::vector<int64_t> d, int64_t groups,
                                          std::vector<int64_t>* out_shape) {
  const auto in = values(input), w = values(weight);
  const auto b = bias.defined() ? values(bias) : std::vector<double>{};
  const Shape5 is(input), ws(weight);
  const int64_t n = is.s[0], cin = is.s[1], cout_g = ws.s[1], cout = cout_g * groups,
                cin_g = cin / groups;
  int64_t o[3];
  for (int i = 0; i < 3; ++i) {
    o[i] = (is.s[2 + i] - 1) * s[i] - 2 * p[i] + d[i] * (ws.s[2 + i] - 1) + op[i] + 1;
  }
  const Shape5 os({n, cout, o[0], o[1], o[2]});
  *out_shape = os.s;
  std::vector<double> out(n * cout * o[0] * o[1] * o[2], 0.0);
  for (int64_t bn = 0; bn < n; ++bn)
    for (int64_t oc = 0; oc < cout; ++oc)
      for (int64_t z = 0; z < o[0]; ++z)
        for (int64_t y = 0; y < o[1]; ++y)
          for (int64_t x = 0; x < o[2]; ++x) out[os.at(bn, oc, z, y, x)] = b.empty() ? 0 : b[oc];
  for (int64_t bn = 0; bn < n; ++bn)
    for (int64_t c = 0; c < cin; ++c)
      for (int64_t z = 0; z < is.s[2]; ++z)
        for (int64_t y = 0; y < is.s[3]; ++y)
          for (int64_t x = 0; x < is.s[4]; ++x)
            for (int64_t oi = 0; oi < cout_g; ++oi)
              for (int64_t kz = 0; kz < ws.s[2]; ++kz)
                for (int64_t ky = 0; ky < ws.s[3]; ++ky)
                  for (int64_t kx = 0; kx < ws.s[4]; ++kx) {
                    const int64_t oz = z * s[0] - p[0] + kz * d[0],
                                  oy = y * s[1] - p[1] + ky * d[1],
                                  ox = x * s[2] - p[2] + kx * d[2];
                    if (oz < 0 || oy < 0 || ox < 0 || oz >= o[0] || oy >= o[1] || ox >= o[2])
                      continue;
                    const int64_t oc = (c / cin_g) * cout_g + oi;
                    out[os.at(bn, oc, oz, oy, ox)] +=
                        in[is.at(bn, c, z, y, x)] * w[ws.at(c, oi, kz, ky, kx)];
                  }
  return out;
}

int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  int64_t o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (o - 1) * s >= in + p) --o;
  return o;
}

// Max or average of each window, straight from PyTorch's documented
// definitions (avg: the divisor counts the padding with count_include_pad
// but never the part of a ceil_mode window past the padding).
std::vector<double> pool3d_loop(const torch::Tensor& input, std::vector<int64_t> k,
                                std::vector<int64_t> s, std::vector<int64_t> p,
                                std::vector<int64_t> d, bool ceil_mode, bool max,
                                bool count_include_pad, std::vector<int64_t>* out_shape) {
  const auto in = values(input);
  const Shape5 is(input);
  int64_t o[3];
  for (int i = 0; i < 3; ++i) o[i] = pool_out(is.s[2 + i], k[i], s[i], p[i], d[i], ceil_mode);
  const Shape5 os({is.s[0], is.s[1], o[0], o[1], o[2]});
  *out_shape = os.s;
  std::vector<double> out;
  for (int64_t bn = 0; bn < is.s[0]; ++bn)
    for (int64_t c = 0; c < is.s[1]; ++c)
      for (int64_t z = 0; z < o[0]; ++z)
        for (int64_t y = 0; y < o[1]; ++y)
          for (int64_t x = 0; x < o[2]; ++x) {
            double best = -std::numeric_limits<double>::infinity(), sum = 0;
            int64_t inside = 0, padded = 1;
            const int64_t at[3] = {z, y, x};
            for (int i = 0; i < 3; ++i) {
              const int64_t start = at[i] * s[i] - p[i];
              padded *= std::min(start + k[i], is.s[2 + i] + p[i]) - start;
            }
            for (int64_t kz = 0; kz < k[0]; ++kz)
              for (int64_t ky = 0; ky < k[1]; ++ky)
                for (int64_t kx = 0; kx < k[2]; ++kx) {
                  const int64_t iz = z * s[0] - p[0] + kz * d[0],
                                iy = y * s[1] - p[1] + ky * d[1],
                                ix = x * s[2] - p[2] + kx * d[2];
                  if (iz < 0 || iy < 0 || ix < 0 || iz >= is.s[2] || iy >= is.s[3] ||
                      ix >= is.s[4])
                    continue;
                  const double v = in[is.at(bn, c, iz, iy, ix)];
                  best = std::max(best, v);
                  sum += v;
                  ++inside;
                }
            out.push_back(max ? best : sum / (count_include_pad ? padded : inside));
          }
  return out;
}

TEST(VolumeCompat, Conv3dMatchesADirectLoop) {
  torch::manual_seed(30);
  struct Case {
    std::vector<int64_t> s, p, d;
    int64_t groups;
  };
  for (const Case& c : {Case{{1, 1, 1}, {0, 0, 0}, {1, 1, 1}, 1},
                        Case{{2, 1, 2}, {1, 0, 1}, {1, 2, 1}, 2}}) {
    const auto x = torch::randn({2, 4, 5, 5, 4}, torch::kDouble);
    const auto w = torch::randn({6, 4 / c.groups, 2, 3, 2}, torch::kDouble);
    const auto b = torch::randn({6}, torch::kDouble);
    std::vector<int64_t> shape;
    const auto expected = conv3d_loop(x, w, b, c.s, c.p, c.d, c.groups, &shape);
    const auto y = F::conv3d(x, w, F::Conv3dFuncOptions()
                                       .bias(b)
                                       .stride(c.s)
                                       .padding(c.p)
                                       .dilation(c.d)
                                       .groups(c.groups));
    ASSERT_EQ(y.sizes().vec(), shape);
    expect_near(y, expected);
  }
  // padding 'same' keeps the size; an odd total padding puts the extra
  // element at the end (kernel 2: 0 + 1, kernel 4: 1 + 2).
  const auto x = torch::randn({1, 2, 4, 3, 5}, torch::kDouble);
  const auto w = torch::randn({3, 2, 2, 3, 4}, torch::kDouble);
  const auto same = F::conv3d(x, w, F::Conv3dFuncOptions().padding(torch::kSame));
  ASSERT_EQ(same.sizes(), (std::vector<int64_t>{1, 3, 4, 3, 5}));
  auto padded = x;
  const int64_t before[3] = {0, 1, 1}, after[3] = {1, 1, 2};
  for (int i = 0; i < 3; ++i) {
    auto zeros = [&](int64_t n) {
      auto shape = padded.sizes().vec();
      shape[2 + i] = n;
      return torch::zeros(shape, torch::kDouble);
    };
    padded = torch::cat({zeros(before[i]), padded, zeros(after[i])}, 2 + i);
  }
  std::vector<int64_t> shape;
  expect_near(same, conv3d_loop(padded, w, torch::Tensor(), {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, 1,
                                &shape));

  torch::nn::Conv3d conv(torch::nn::Conv3dOptions(2, 4, {3, 1, 2}).padding({1, 0, 1}).bias(false));
  EXPECT_EQ(conv->weight.sizes(), (std::vector<int64_t>{4, 2, 3, 1, 2}));
  EXPECT_FALSE(conv->bias.defined());
  const auto unbatched = torch::randn({2, 3, 3, 3});
  EXPECT_TRUE(torch::allclose(conv(unbatched), conv(unbatched.unsqueeze(0)).squeeze(0)));
  std::ostringstream printed;
  printed << *conv;
  EXPECT_EQ(printed.str(), "torch::nn::Conv3d(2, 4, kernel_size=[3, 1, 2], stride=[1, 1, 1], "
                           "padding=[1, 0, 1], bias=false)");

  auto xg = torch::randn({1, 2, 3, 4, 3}, torch::kDouble).requires_grad_();
  auto wg = torch::randn({2, 1, 2, 2, 2}, torch::kDouble).requires_grad_();
  auto bg = torch::randn({2}, torch::kDouble).requires_grad_();
  EXPECT_TRUE(torch::autograd::gradcheck([](const variable_list& in) {
    return variable_list{F::conv3d(in[0], in[1], F::Conv3dFuncOptions()
                                                     .bias(in[2])
                                                     .stride({2, 1, 1})
                                                     .padding({1, 1, 0})
                                                     .dilation({1, 2, 1})
                                                     .groups(2))};
  }, {xg, wg, bg}));

  EXPECT_THAT(errorOf([&] { conv(torch::randn({2, 3, 3})); }),
              HasSubstr("Conv3d: expected a 4-d [C, D, H, W] or 5-d [N, C, D, H, W] input, but "
                        "got a 3-d input of sizes [2, 3, 3]."));
  EXPECT_THAT(errorOf([&] { F::conv3d(torch::randn({1, 3, 4, 4, 4}), torch::randn({2, 2, 1, 1, 1})); }),
              HasSubstr("conv3d: the input has 3 channels (sizes [1, 3, 4, 4, 4]) but the weight "
                        "[2, 2, 1, 1, 1] with groups=1 expects 2."));
  EXPECT_THAT(errorOf([&] { F::conv3d(torch::randn({1, 2, 2, 4, 4}), torch::randn({2, 2, 3, 1, 1})); }),
              HasSubstr("conv3d: the input of sizes [1, 2, 2, 4, 4] (depth 2 with padding 0) is "
                        "smaller than the kernel's depth 3 with dilation 1."));
  EXPECT_THAT(errorOf([] { torch::nn::Conv3d(torch::nn::Conv3dOptions(2, 2, 3).stride(2).padding(torch::kSame)); }),
              HasSubstr("Conv3d: padding='same' is not supported for strided convolutions"));
  EXPECT_THAT(errorOf([] { torch::nn::Conv3d(torch::nn::Conv3dOptions(3, 2, 3).groups(2)); }),
              HasSubstr("Conv3d: in_channels (3) and out_channels (2) must both be divisible by "
                        "groups (2)."));
}

TEST(VolumeCompat, ConvTranspose3dMatchesADirectLoop) {
  torch::manual_seed(31);
  struct Case {
    std::vector<int64_t> s, p, op, d;
    int64_t groups;
  };
  for (const Case& c : {Case{{1, 1, 1}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, 1},
                        Case{{2, 3, 1}, {1, 0, 1}, {1, 2, 0}, {1, 1, 2}, 2},
                        // depth 1, kernel taps entirely inside the padding
                        Case{{1, 1, 1}, {2, 0, 0}, {0, 0, 0}, {2, 1, 1}, 1}}) {
    const int64_t depth = c.p[0] == 2 ? 1 : 3;
    const auto x = torch::randn({2, 4, depth, 3, 2}, torch::kDouble);
    const auto w = torch::randn({4, 3, 3, 2, 2}, torch::kDouble);
    const auto b = torch::randn({3 * c.groups}, torch::kDouble);
    std::vector<int64_t> shape;
    const auto expected = conv_transpose3d_loop(x, w, b, c.s, c.p, c.op, c.d, c.groups, &shape);
    const auto y = F::conv_transpose3d(x, w, F::ConvTranspose3dFuncOptions()
                                                 .bias(b)
                                                 .stride(c.s)
                                                 .padding(c.p)
                                                 .output_padding(c.op)
                                                 .dilation(c.d)
                                                 .groups(c.groups));
    ASSERT_EQ(y.sizes().vec(), shape);
    expect_near(y, expected);
  }
  torch::nn::ConvTranspose3d up(torch::nn::ConvTranspose3dOptions(4, 2, 4).stride(2).padding(1));
  EXPECT_EQ(up->weight.sizes(), (std::vector<int64_t>{4, 2, 4, 4, 4}));
  EXPECT_EQ(up(torch::randn({1, 4, 2, 3, 4})).sizes(), (std::vector<int64_t>{1, 2, 4, 6, 8}));
  std::ostringstream printed;
  printed << *up;
  EXPECT_EQ(printed.str(), "torch::nn::ConvTranspose3d(4, 2, kernel_size=[4, 4, 4], "
                           "stride=[2, 2, 2], padding=[1, 1, 1])");

  auto xg = torch::randn({1, 2, 2, 3, 2}, torch::kDouble).requires_grad_();
  auto wg = torch::randn({2, 1, 3, 2, 2}, torch::kDouble).requires_grad_();
  auto bg = torch::randn({2}, torch::kDouble).requires_grad_();
  EXPECT_TRUE(torch::autograd::gradcheck([](const variable_list& in) {
    return variable_list{F::conv_transpose3d(in[0], in[1], F::ConvTranspose3dFuncOptions()
                                                               .bias(in[2])
                                                               .stride({2, 1, 2})
                                                               .padding({1, 0, 0})
                                                               .output_padding({1, 0, 1})
                                                               .groups(2))};
  }, {xg, wg, bg}));
  EXPECT_THAT(errorOf([&] { F::conv_transpose3d(torch::randn({1, 2, 2, 2, 2}), torch::randn({2, 1, 1, 1, 1}), F::ConvTranspose3dFuncOptions().output_padding(1)); }),
              HasSubstr("conv_transpose3d: output_padding must be smaller than either stride or "
                        "dilation, but got output_padding=[1, 1, 1], stride=[1, 1, 1], "
                        "dilation=[1, 1, 1]."));
  EXPECT_THAT(errorOf([&] { up(torch::randn({1, 3, 2, 2, 2})); }),
              HasSubstr("conv_transpose3d: the input has 3 channels (sizes [1, 3, 2, 2, 2]) but "
                        "the weight [4, 2, 4, 4, 4] expects 4 (its dimension 0)."));
}

TEST(VolumeCompat, Pool3dMatchesADirectLoop) {
  torch::manual_seed(32);
  const auto x = torch::randn({2, 2, 5, 6, 5}, torch::kDouble);
  struct Case {
    std::vector<int64_t> k, s, p, d;
    bool ceil_mode, count_include_pad;
  };
  for (const Case& c : {Case{{2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, false, true},
                        Case{{3, 2, 3}, {2, 1, 2}, {1, 1, 1}, {1, 1, 1}, true, true},
                        Case{{3, 3, 2}, {2, 2, 1}, {1, 0, 1}, {1, 1, 1}, true, false},
                        Case{{2, 3, 2}, {1, 2, 3}, {1, 1, 0}, {2, 1, 2}, false, false}}) {
    std::vector<int64_t> shape;
    const auto expected_max =
        pool3d_loop(x, c.k, c.s, c.p, c.d, c.ceil_mode, true, false, &shape);
    const auto y = F::max_pool3d(x, F::MaxPool3dFuncOptions(c.k)
                                        .stride(c.s)
                                        .padding(c.p)
                                        .dilation(c.d)
                                        .ceil_mode(c.ceil_mode));
    ASSERT_EQ(y.sizes().vec(), shape);
    expect_near(y, expected_max);
    if (c.d == std::vector<int64_t>{1, 1, 1}) {
      const auto expected_avg =
          pool3d_loop(x, c.k, c.s, c.p, c.d, c.ceil_mode, false, c.count_include_pad, &shape);
      const auto a = F::avg_pool3d(x, F::AvgPool3dFuncOptions(c.k)
                                          .stride(c.s)
                                          .padding(c.p)
                                          .ceil_mode(c.ceil_mode)
                                          .count_include_pad(c.count_include_pad));
      ASSERT_EQ(a.sizes().vec(), shape);
      expect_near(a, expected_avg);
    }
  }
  // divisor_override divides every window's sum by the same number.
  const auto summed = F::avg_pool3d(x, F::AvgPool3dFuncOptions(2).divisor_override(3));
  EXPECT_TRUE(torch::allclose(summed * 3, F::avg_pool3d(x, F::AvgPool3dFuncOptions(2)) * 8));
  torch::nn::MaxPool3d pool(torch::nn::MaxPool3dOptions(2).stride(1));
  EXPECT_TRUE(torch::equal(pool(x[0]), pool(x).select(0, 0)));
  std::ostringstream printed;
  printed << *pool << " " << *torch::nn::AvgPool3d(3);
  EXPECT_EQ(printed.str(), "torch::nn::MaxPool3d(kernel_size=[2, 2, 2], stride=[1, 1, 1], "
                           "padding=[0, 0, 0], dilation=[1, 1, 1], ceil_mode=false) "
                           "torch::nn::AvgPool3d(kernel_size=[3, 3, 3], stride=[3, 3, 3], "
                           "padding=[0, 0, 0])");

  auto xg = torch::randn({1, 2, 4, 3, 4}, torch::kDouble).requires_grad_();
  EXPECT_TRUE(torch::autograd::gradcheck([](const variable_list& in) {
    return variable_list{
        F::max_pool3d(in[0], F::MaxPool3dFuncOptions({2, 2, 3}).stride(2).padding(1).ceil_mode(true)),
        F::avg_pool3d(in[0], F::AvgPool3dFuncOptions({3, 2, 2}).stride({1, 2, 2}).padding(1)
                                 .count_include_pad(false))};
  }, {xg}));
  EXPECT_THAT(errorOf([&] { F::max_pool3d(x, F::MaxPool3dFuncOptions(2).padding(2)); }),
              HasSubstr("max_pool3d: padding must be between 0 and half of kernel_size (2), but "
                        "got 2."));
  EXPECT_THAT(errorOf([&] { F::avg_pool3d(x.narrow(2, 0, 1), F::AvgPool3dFuncOptions(2)); }),
              HasSubstr("avg_pool3d: the input of sizes [2, 2, 1, 6, 5] is too small for "
                        "kernel_size 2 with padding 0 and dilation 1; the output would be "
                        "empty."));
  EXPECT_THAT(errorOf([&] { pool(x[0][0]); }),
              HasSubstr("max_pool3d: expected a 4-d (unbatched) or 5-d (batched) input [C, D, "
                        "H, W] / [N, C, D, H, W], but got a 3-d input of sizes [5, 6, 5]."));
}

TEST(VolumeCompat, AdaptivePool3dAndAdaptiveMaxPool1d) {
  torch::manual_seed(33);
  const auto x = torch::randn({2, 3, 5, 4, 7}, torch::kDouble);
  const auto avg = torch::nn::AdaptiveAvgPool3d(torch::nn::AdaptiveAvgPool3dOptions({2, 4, 3}))(x);
  const auto mx = F::adaptive_max_pool3d(x, F::AdaptiveMaxPool3dFuncOptions({2, 4, 3}));
  ASSERT_EQ(avg.sizes(), (std::vector<int64_t>{2, 3, 2, 4, 3}));
  ASSERT_EQ(mx.sizes(), avg.sizes());
  // Cells [floor(i in / out), ceil((i + 1) in / out)) per dimension.
  auto cell = [](int64_t i, int64_t in, int64_t out) {
    return std::pair<int64_t, int64_t>{i * in / out, ((i + 1) * in + out - 1) / out};
  };
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 4; ++b)
      for (int64_t c = 0; c < 3; ++c) {
        const auto [d0, d1] = cell(a, 5, 2);
        const auto [h0, h1] = cell(b, 4, 4);
        const auto [w0, w1] = cell(c, 7, 3);
        const auto box = x.narrow(2, d0, d1 - d0).narrow(3, h0, h1 - h0).narrow(4, w0, w1 - w0);
        const auto at = [&](const torch::Tensor& t) { return t.select(2, a).select(2, b).select(2, c); };
        EXPECT_TRUE(torch::allclose(at(avg), box.mean({2, 3, 4})));
        EXPECT_TRUE(torch::equal(at(mx), box.amax({2, 3, 4})));
      }
  const auto seq = torch::tensor({3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0}, torch::kDouble).reshape({1, 7});
  // 7 -> 3: cells [0, 3), [2, 5), [4, 7).
  expect_near(torch::nn::AdaptiveMaxPool1d(3)(seq), {4, 5, 9});
  std::ostringstream printed;
  printed << *torch::nn::AdaptiveMaxPool3d(torch::nn::AdaptiveMaxPool3dOptions({1, 2, 3}));
  EXPECT_EQ(printed.str(), "torch::nn::AdaptiveMaxPool3d(output_size=[1, 2, 3])");

  auto xg = torch::randn({1, 2, 3, 5, 4}, torch::kDouble).requires_grad_();
  EXPECT_TRUE(torch::autograd::gradcheck([](const variable_list& in) {
    return variable_list{F::adaptive_avg_pool3d(in[0], F::AdaptiveAvgPool3dFuncOptions({2, 3, 3})),
                         F::adaptive_max_pool3d(in[0], F::AdaptiveMaxPool3dFuncOptions({2, 2, 3})),
                         F::adaptive_max_pool1d(in[0].flatten(2), F::AdaptiveMaxPool1dFuncOptions(4))};
  }, {xg}));
  EXPECT_THAT(errorOf([&] { F::adaptive_avg_pool3d(x, F::AdaptiveAvgPool3dFuncOptions({2, 0, 1})); }),
              HasSubstr("adaptive_avg_pool3d: output_size must be positive, but got [2, 0, 1]."));
  EXPECT_THAT(errorOf([&] { F::adaptive_max_pool1d(x, F::AdaptiveMaxPool1dFuncOptions(2)); }),
              HasSubstr("adaptive_max_pool1d: expected a 2-d (unbatched) or 3-d (batched) input "
                        "[C, L] / [N, C, L], but got a 5-d input of sizes [2, 3, 5, 4, 7]."));
}

// Keys' cubic convolution kernel with a = -0.75, from its definition.
double keys(double x) {
  const double a = -0.75, ax = std::abs(x);
  if (ax <= 1) return (a + 2) * ax * ax * ax - (a + 3) * ax * ax + 1;
  if (ax < 2) return a * ax * ax * ax - 5 * a * ax * ax + 8 * a * ax - 4 * a;
  return 0;
}

double source(int64_t i, int64_t in, int64_t out, bool align_corners) {
  if (align_corners) return out > 1 ? static_cast<double>(i) * (in - 1) / (out - 1) : 0.0;
  return (i + 0.5) * static_cast<double>(in) / out - 0.5;
}

TEST(ResampleCompat, BicubicAndTrilinear) {
  torch::manual_seed(34);
  const auto img = torch::randn({2, 1, 4, 5}, torch::kDouble);
  const auto v = values(img);
  for (bool align : {false, true}) {
    const auto y = F::interpolate(img, F::InterpolateFuncOptions()
                                           .size(std::vector<int64_t>{7, 3})
                                           .mode(torch::kBicubic)
                                           .align_corners(align));
    ASSERT_EQ(y.sizes(), (std::vector<int64_t>{2, 1, 7, 3}));
    std::vector<double> expected;
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t i = 0; i < 7; ++i)
        for (int64_t j = 0; j < 3; ++j) {
          const double sy = source(i, 4, 7, align), sx = source(j, 5, 3, align);
          double acc = 0;
          for (int64_t a = -1; a <= 2; ++a)
            for (int64_t b = -1; b <= 2; ++b) {
              const int64_t ty = static_cast<int64_t>(std::floor(sy)) + a,
                            tx = static_cast<int64_t>(std::floor(sx)) + b;
              const int64_t cy = std::clamp<int64_t>(ty, 0, 3), cx = std::clamp<int64_t>(tx, 0, 4);
              acc += v[(n * 4 + cy) * 5 + cx] * keys(sy - ty) * keys(sx - tx);
            }
          expected.push_back(acc);
        }
    expect_near(y, expected);
  }
  // Trilinear reproduces a multilinear function at the (clamped) source
  // coordinates.
  auto f = [](double d, double h, double w) { return 1 + d - 2 * h + 0.5 * w + d * h * w; };
  std::vector<double> grid;
  for (int d = 0; d < 3; ++d)
    for (int h = 0; h < 4; ++h)
      for (int w = 0; w < 2; ++w) grid.push_back(f(d, h, w));
  const auto vol = torch::tensor(grid, torch::kDouble).reshape({1, 1, 3, 4, 2});
  for (bool align : {false, true}) {
    const auto y = torch::nn::Upsample(torch::nn::UpsampleOptions()
                                           .size(std::vector<int64_t>{5, 2, 4})
                                           .mode(torch::kTrilinear)
                                           .align_corners(align))(vol);
    std::vector<double> expected;
    for (int64_t d = 0; d < 5; ++d)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t w = 0; w < 4; ++w) {
          auto at = [&](int64_t i, int64_t in, int64_t out) {
            return std::clamp(source(i, in, out, align), 0.0, static_cast<double>(in - 1));
          };
          expected.push_back(f(at(d, 3, 5), at(h, 4, 2), at(w, 2, 4)));
        }
    expect_near(y, expected);
  }
  // 5-d nearest and area reach the 3-d forms.
  EXPECT_TRUE(torch::equal(
      F::interpolate(vol, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2, 1, 1})),
      vol.index_select(2, torch::tensor({0, 0, 1, 1, 2, 2}, torch::kLong))));
  EXPECT_TRUE(torch::allclose(
      F::interpolate(vol, F::InterpolateFuncOptions().size(std::vector<int64_t>{1, 2, 1}).mode(torch::kArea)),
      F::adaptive_avg_pool3d(vol, F::AdaptiveAvgPool3dFuncOptions({1, 2, 1}))));
  auto xg = torch::randn({1, 1, 3, 4}, torch::kDouble).requires_grad_();
  auto vg = torch::randn({1, 1, 2, 3, 2}, torch::kDouble).requires_grad_();
  EXPECT_TRUE(torch::autograd::gradcheck([](const variable_list& in) {
    return variable_list{
        F::interpolate(in[0], F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.5, 0.75})
                                  .mode(torch::kBicubic).align_corners(false)),
        F::interpolate(in[1], F::InterpolateFuncOptions().size(std::vector<int64_t>{3, 2, 3})
                                  .mode(torch::kTrilinear).align_corners(true))};
  }, {xg, vg}));
  EXPECT_THAT(errorOf([&] {
                F::interpolate(vol, F::InterpolateFuncOptions().size(std::vector<int64_t>{2, 2, 2})
                                        .mode(torch::kBicubic));
              }),
              HasSubstr("interpolate: mode kBicubic expects a 4-d input, but got a 5-d input"));
}

}  // namespace
