// The CUDA plugin's cuDNN layer (backends/cuda/CuDNN.h, Note [cuDNN at run
// time]) without a GPU: cuDNN 9 loads from the toolkit, the convolution
// descriptors made from at::native::conv_plan's geometry give cuDNN's output
// shape equal to the plan's (direct, grouped, strided, dilated, padded, 1-d
// and transposed), cuDNN's refusals come back as c10::Error with its words,
// and without a device nothing is usable. The CuDNNDisabled tests run in
// their own binary with EMBER_CUDNN=0 (BUILD.bazel).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <ATen/ATen.h>

#include "aten/ConvUtils.h"
#include "backends/cuda/CuDNN.h"
#include "tests/support/error_of.h"

namespace {

namespace cudnn = ember::cuda::cudnn;
using ::testing::HasSubstr;

TEST(CuDNN, Loads9FromTheToolkit) {
  const cudnn::Library& lib = cudnn::library();
  ASSERT_TRUE(lib.available) << lib.reason;
  EXPECT_EQ(lib.version / 10000, 9u);
  EXPECT_TRUE(lib.reason.empty());
  EXPECT_EQ(&cudnn::library(), &lib);  // loaded once
}

struct Conv {
  std::vector<int64_t> input, weight;
  std::vector<int64_t> stride, padding, dilation, output_padding;
  bool transposed = false;
  int64_t groups = 1;
};

std::string describe(const Conv& c) {
  auto list = [](const std::vector<int64_t>& v) {
    std::string s = "[";
    for (int64_t x : v) s += std::to_string(x) + ",";
    return s + "]";
  };
  return "input " + list(c.input) + " weight " + list(c.weight) + " stride " + list(c.stride) +
         " padding " + list(c.padding) + " dilation " + list(c.dilation) + " output_padding " +
         list(c.output_padding) + (c.transposed ? " transposed" : "") + " groups " +
         std::to_string(c.groups);
}

// The geometry of `c` as the plugin's kernels get it (conv_plan on
// tensors of those shapes).
at::native::ConvGeometry geometry_of(const Conv& c) {
  const at::Tensor input = at::empty(c.input), weight = at::empty(c.weight);
  return at::native::conv_plan(input, weight, std::nullopt, c.stride, c.padding, c.dilation,
                               c.transposed, c.output_padding, c.groups, "convolution",
                               /*half_types=*/true)
      .g;
}

// cuDNN's output shape for the descriptors' X, W and convolution: the
// geometry's Y (for a transposed convolution Y is its input).
void expect_cudnn_agrees(const Conv& c, c10::ScalarType type, bool nhwc) {
  SCOPED_TRACE(describe(c) + " " + c10::toString(type) + (nhwc ? " NHWC" : " NCHW"));
  const at::native::ConvGeometry g = geometry_of(c);
  cudnn::ConvDescriptors d(g, type, "convolution", nhwc);
  const cudnn::Library& lib = cudnn::library();
  int n = 0, ch = 0, h = 0, w = 0;
  ASSERT_EQ(lib.cudnnGetConvolution2dForwardOutputDim(d.conv, d.x, d.w, &n, &ch, &h, &w),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(n, g.N);
  EXPECT_EQ(ch, g.Cy);
  EXPECT_EQ(h, g.Hy);
  EXPECT_EQ(w, g.Wy);
  EXPECT_EQ(d.math, type == c10::kFloat ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH);
  // The layout: dense NCHW, or dense NHWC (channels last).
  for (const auto& [desc, c, hh, ww] :
       {std::tuple<cudnnTensorDescriptor_t, int64_t, int64_t, int64_t>{d.x, g.Cx, g.Hx, g.Wx},
        {d.y, g.Cy, g.Hy, g.Wy}}) {
    cudnnDataType_t dt;
    int sn, sc, sh, sw, nn, cc, h2, w2;
    ASSERT_EQ(lib.cudnnGetTensor4dDescriptor(desc, &dt, &nn, &cc, &h2, &w2, &sn, &sc, &sh, &sw),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cc, c);
    if (nhwc) {
      EXPECT_EQ(std::vector<int64_t>({sn, sc, sh, sw}),
                std::vector<int64_t>({hh * ww * c, 1, ww * c, c}));
    } else {
      EXPECT_EQ(std::vector<int64_t>({sn, sc, sh, sw}),
                std::vector<int64_t>({c * hh * ww, hh * ww, ww, 1}));
    }
  }
}

TEST(CuDNN, DescriptorsGiveThePlansOutputShape) {
  ASSERT_TRUE(cudnn::library().available) << cudnn::library().reason;
  // The CNN of //tools:train, a 1-d convolution, grouped/depthwise,
  // strided and dilated ones, transposed with output padding.
  std::vector<Conv> convs = {
      {{64, 1, 28, 28}, {16, 1, 3, 3}, {1}, {1}, {1}, {0}},
      {{64, 16, 14, 14}, {32, 16, 3, 3}, {1}, {1}, {1}, {0}},
      {{2, 4, 50}, {6, 4, 5}, {2}, {3}, {1}, {0}},
      {{3, 8, 17, 9}, {12, 2, 3, 2}, {2, 1}, {1, 0}, {2, 3}, {0}, false, 4},
      {{1, 6, 11, 11}, {6, 1, 3, 3}, {1}, {1}, {1}, {0}, false, 6},
      {{2, 6, 7, 5}, {6, 4, 3, 3}, {2, 3}, {1, 2}, {1}, {1, 2}, true, 1},
      {{2, 6, 7, 5}, {6, 2, 2, 3}, {3}, {0}, {2}, {2}, true, 3},
  };
  std::mt19937 rng(11);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 200; ++i) {
    Conv c;
    c.groups = pick(1, 3);
    const int64_t k = pick(1, 4), s = pick(1, 3), d = pick(1, 2);
    c.input = {pick(1, 3), c.groups * pick(1, 3), k * d + pick(0, 9), pick(1, 3) * d + pick(0, 9)};
    c.weight = {c.groups * pick(1, 3), c.input[1] / c.groups, k, pick(1, 3)};
    c.stride = {s, pick(1, 3)};
    c.padding = {pick(0, 2), pick(0, 1)};
    c.dilation = {d, 1};
    c.output_padding = {0};
    if (pick(0, 3) == 0) {  // transposed: weight [Cin, Cout/G, KH, KW]
      c.transposed = true;
      c.weight[0] = c.input[1];
      c.weight[1] = pick(1, 3);
      c.output_padding = {pick(0, static_cast<int>(s) - 1), 0};
    }
    try {
      (void)geometry_of(c);  // sizes conv_plan refuses (an empty output) are its tests'
    } catch (const c10::Error&) {
      continue;
    }
    convs.push_back(c);
  }
  for (const Conv& c : convs) {
    for (c10::ScalarType type : {c10::kFloat, c10::kHalf, c10::kBFloat16}) {
      expect_cudnn_agrees(c, type, /*nhwc=*/false);
      expect_cudnn_agrees(c, type, /*nhwc=*/true);
    }
  }
}

TEST(CuDNN, RefusalsComeBackAsErrorsInCuDNNsWords) {
  at::native::ConvGeometry g;
  g.N = 1;
  g.Cx = g.Cy = 2;
  g.Hx = g.Wx = g.Hy = g.Wy = 4;
  g.KH = g.KW = 1;
  g.dh = 0;  // cuDNN takes dilations >= 1
  EXPECT_THAT(ember_test::errorOf([&] { cudnn::ConvDescriptors d(g, c10::kFloat, "conv_op"); }),
              HasSubstr("conv_op: cuDNN cudnnSetConvolution2dDescriptor failed: "
                        "CUDNN_STATUS_BAD_PARAM"));
  g.dh = 1;
  g.Hx = int64_t{1} << 31;
  EXPECT_EQ(ember_test::errorOf([&] { cudnn::ConvDescriptors d(g, c10::kFloat, "conv_op"); }),
            "conv_op: cuDNN takes a height up to 2147483647, but got 2147483648.");
  g.Hx = 4;
  EXPECT_THAT(ember_test::errorOf([&] { cudnn::ConvDescriptors d(g, c10::kDouble, "conv_op"); }),
              HasSubstr("cuDNN: no convolution for dtype Double (it has Float, Half and "
                        "BFloat16)."));
  EXPECT_EQ(
      ember_test::errorOf([] { cudnn::check(CUDNN_STATUS_NOT_SUPPORTED, "an_op", "a call"); }),
      "an_op: cuDNN a call failed: CUDNN_STATUS_NOT_SUPPORTED (status 3000).");
  EXPECT_NO_THROW(cudnn::check(CUDNN_STATUS_SUCCESS, "an_op", "a call"));
  EXPECT_TRUE(cudnn::is_supported(c10::kBFloat16));
  EXPECT_FALSE(cudnn::is_supported(c10::kDouble));
}

// CI has no device: cudnnCreate cannot succeed, so nothing is usable, and
// the reason says what failed.
TEST(CuDNN, NothingIsUsableWithoutADevice) {
  std::string why;
  EXPECT_FALSE(cudnn::usable(c10::Device(c10::kCUDA, 0), &why));
  EXPECT_FALSE(why.empty());
  std::string again;
  EXPECT_FALSE(cudnn::usable(c10::Device(c10::kCUDA, 0), &again));  // remembered
  EXPECT_EQ(again, why);
}

TEST(CuDNNDisabled, ByEmberCudnn0) {
  const cudnn::Library& lib = cudnn::library();
  EXPECT_FALSE(lib.available);
  EXPECT_EQ(lib.reason, "disabled by EMBER_CUDNN=0");
  std::string why;
  EXPECT_FALSE(cudnn::usable(c10::Device(c10::kCUDA, 0), &why));
  EXPECT_EQ(why, "disabled by EMBER_CUDNN=0");
  at::native::ConvGeometry g;
  EXPECT_EQ(ember_test::errorOf([&] { cudnn::ConvDescriptors d(g, c10::kFloat, "conv_op"); }),
            "conv_op: cuDNN is not available: disabled by EMBER_CUDNN=0.");
}

}  // namespace
