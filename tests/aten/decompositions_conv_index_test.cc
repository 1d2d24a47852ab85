// The CompositeExplicitAutograd decompositions of the index, pooling and
// convolution ops (aten/IndexDecompositions.h, PoolDecompositions.h,
// ConvDecompositions.h), which backends without their own kernels run
// (CUDA, third parties), against the CPU plugin's kernels on the same
// inputs: values, indices, gradients and the errors (the same words: the
// checks are shared). The losses, norms, reductions and comparisons are in
// decompositions_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <vector>

#include <ATen/ATen.h>

#include "aten/ConvDecompositions.h"
#include "aten/IndexDecompositions.h"
#include "aten/PoolDecompositions.h"
#include "tests/aten/decomposition_test_util.h"
#include "tests/support/error_of.h"

namespace {

using ember_test::errorOf;

using ember_test::expect_close;

TEST(IndexDecompositions, MaskedFillMatchesTheCpuKernel) {
  at::manual_seed(7);
  const at::Tensor x = at::randn({3, 4});
  const at::Tensor mask = at::rand({3, 4}).lt(0.5), row = at::rand({4}).lt(0.5);
  for (const at::Tensor& m : {mask, row}) {
    at::Tensor a = x.clone(), b = x.clone();
    at::native::masked_fill__scalar_decomposed(a, m, -2.5);
    b.masked_fill_(m, -2.5);
    EXPECT_TRUE(at::equal(a, b));
    at::Tensor c = x.clone(), d = x.clone();
    at::native::masked_fill__tensor_decomposed(c, m, at::full({}, 7.0, at::kDouble));
    d.masked_fill_(m, at::full({}, 7.0, at::kDouble));
    EXPECT_TRUE(at::equal(c, d));
  }
  // Integer self: the value converted as the CPU converts it; a
  // non-contiguous self.
  at::Tensor i = at::arange(12).reshape({3, 4}).t(), j = i.clone().t().contiguous().t();
  at::native::masked_fill__scalar_decomposed(i, mask.t(), 2.9);
  j.masked_fill_(mask.t(), 2.9);
  EXPECT_TRUE(at::equal(i, j));
  // The same errors.
  at::Tensor y = x.clone();
  EXPECT_EQ(errorOf([&] { at::native::masked_fill__scalar_decomposed(y, mask.to(at::kLong), 1); }),
            errorOf([&] { y.masked_fill_(mask.to(at::kLong), 1); }));
  EXPECT_EQ(errorOf([&] { at::native::masked_fill__scalar_decomposed(y, at::ones({2, 1, 4}, at::kBool), 1); }),
            errorOf([&] { y.masked_fill_(at::ones({2, 1, 4}, at::kBool), 1); }));
  EXPECT_EQ(errorOf([&] { at::native::masked_fill__tensor_decomposed(y, mask, at::ones({1})); }),
            errorOf([&] { y.masked_fill_(mask, at::ones({1})); }));
}


TEST(PoolDecompositions, MaxPool2dMatchesTheCpuKernel) {
  at::manual_seed(8);
  struct Case {
    std::vector<int64_t> shape, kernel, stride, padding, dilation;
    bool ceil;
  };
  const std::vector<Case> cases = {
      {{2, 3, 8, 8}, {2}, {}, {0}, {1}, false},           // the CNN's 2x2
      {{2, 3, 9, 7}, {3}, {2}, {1}, {1}, false},          // padding
      {{3, 9, 7}, {3, 2}, {2, 1}, {1, 0}, {2, 1}, false}, // unbatched, dilation
      {{1, 2, 10, 11}, {3}, {2}, {1}, {1}, true},         // ceil_mode
      {{1, 1, 5, 5}, {4}, {3}, {2}, {1}, true},
  };
  for (const Case& c : cases) {
    for (c10::ScalarType dt : {at::kFloat, at::kDouble, at::kLong}) {
      SCOPED_TRACE(::testing::Message() << c.shape.size() << "-d k" << c.kernel[0] << " "
                                        << dt);
      const at::Tensor x = at::randn(c.shape).mul(10).to(dt);
      const auto cpu = at::max_pool2d_with_indices(x, c.kernel, c.stride, c.padding,
                                                   c.dilation, c.ceil);
      const auto dec = at::native::max_pool2d_with_indices_decomposed(
          x, c.kernel, c.stride, c.padding, c.dilation, c.ceil);
      EXPECT_TRUE(at::equal(std::get<0>(dec), std::get<0>(cpu))) << std::get<0>(dec) << std::get<0>(cpu);
      EXPECT_TRUE(at::equal(std::get<1>(dec), std::get<1>(cpu))) << std::get<1>(dec) << std::get<1>(cpu);
      if (dt == at::kLong) continue;
      const at::Tensor g = at::randn(std::get<0>(cpu).sizes()).to(dt);
      expect_close(at::native::max_pool2d_with_indices_backward_decomposed(
                       g, x, c.kernel, c.stride, c.padding, c.dilation, c.ceil, std::get<1>(cpu)),
                   at::max_pool2d_with_indices_backward(g, x, c.kernel, c.stride, c.padding,
                                                        c.dilation, c.ceil, std::get<1>(cpu)),
                   1e-12);
    }
  }
  // Ties go to the first element; a window of -inf names its first element
  // inside the input (its padded taps tie with it).
  at::Tensor t = at::zeros({1, 1, 4, 4});
  t.narrow(2, 0, 2).narrow(3, 0, 2).fill_(-INFINITY);
  const auto cpu = at::max_pool2d_with_indices(t, {3}, {2}, {1}, {1}, false);
  const auto dec = at::native::max_pool2d_with_indices_decomposed(t, {3}, {2}, {1}, {1}, false);
  EXPECT_TRUE(at::equal(std::get<1>(dec), std::get<1>(cpu))) << std::get<1>(dec) << std::get<1>(cpu);
  EXPECT_TRUE(at::equal(std::get<0>(dec), std::get<0>(cpu)));
  // The same errors.
  const at::Tensor x = at::randn({1, 2, 5, 5});
  EXPECT_EQ(errorOf([&] { at::native::max_pool2d_with_indices_decomposed(x, {2}, {0}, {0}, {1}, false); }),
            errorOf([&] { at::max_pool2d_with_indices(x, {2}, {0}, {0}, {1}, false); }));
  EXPECT_EQ(errorOf([&] { at::native::max_pool2d_with_indices_decomposed(x, {2}, {}, {2}, {1}, false); }),
            errorOf([&] { at::max_pool2d_with_indices(x, {2}, {}, {2}, {1}, false); }));
  const at::Tensor bad = at::full({1, 2, 2, 2}, 99, at::kLong), g = at::ones({1, 2, 2, 2});
  EXPECT_EQ(errorOf([&] { at::native::max_pool2d_with_indices_backward_decomposed(g, x, {2}, {}, {0}, {1}, false, bad); }),
            errorOf([&] { at::max_pool2d_with_indices_backward(g, x, {2}, {}, {0}, {1}, false, bad); }));
}


TEST(ConvDecompositions, ConvolutionMatchesTheCpuKernel) {
  at::manual_seed(9);
  struct Case {
    std::vector<int64_t> input, weight, stride, padding, dilation, output_padding;
    bool transposed;
    int64_t groups;
  };
  const std::vector<Case> cases = {
      {{2, 3, 8, 7}, {4, 3, 3, 3}, {1}, {1}, {1}, {0}, false, 1},             // the CNN's
      {{2, 4, 9, 8}, {6, 2, 3, 2}, {2, 1}, {1, 0}, {1, 2}, {0}, false, 2},    // groups, dilation
      {{3, 2, 11}, {5, 2, 4}, {2}, {1}, {1}, {0}, false, 1},                  // 1-d
      {{2, 4, 5, 6}, {4, 3, 3, 3}, {2}, {1}, {1}, {1}, true, 1},              // transposed
      {{1, 4, 4, 5}, {4, 1, 2, 3}, {1, 2}, {0, 1}, {2, 1}, {0, 1}, true, 2},  // grouped transposed
      {{1, 3, 1, 1}, {2, 3, 1, 1}, {1}, {0}, {1}, {0}, false, 1},             // 1x1
  };
  for (const Case& c : cases) {
    for (c10::ScalarType dt : {at::kDouble, at::kFloat}) {
      SCOPED_TRACE(::testing::Message() << c.input.size() << "-d in, transposed " << c.transposed
                                        << ", groups " << c.groups << ", " << dt);
      const double tol = dt == at::kFloat ? 1e-4 : 1e-10;
      const at::Tensor x = at::randn(c.input).to(dt), w = at::randn(c.weight).to(dt);
      const int64_t out_channels = c.transposed ? c.weight[1] * c.groups : c.weight[0];
      const at::Tensor b = at::randn({out_channels}).to(dt);
      const at::Tensor cpu = at::convolution(x, w, b, c.stride, c.padding, c.dilation,
                                             c.transposed, c.output_padding, c.groups);
      expect_close(at::native::convolution_decomposed(x, w, b, c.stride, c.padding, c.dilation,
                                                      c.transposed, c.output_padding, c.groups),
                   cpu, tol);
      const at::Tensor g = at::randn(cpu.sizes()).to(dt);
      for (const std::vector<bool>& mask :
           {std::vector<bool>{true, true, true}, std::vector<bool>{true, false, false},
            std::vector<bool>{false, true, false}}) {
        const auto want = at::convolution_backward(g, x, w, std::vector<int64_t>{out_channels},
                                                   c.stride, c.padding, c.dilation, c.transposed,
                                                   c.output_padding, c.groups, mask);
        const auto got = at::native::convolution_backward_decomposed(
            g, x, w, std::vector<int64_t>{out_channels}, c.stride, c.padding, c.dilation,
            c.transposed, c.output_padding, c.groups, mask);
        EXPECT_EQ(std::get<0>(got).defined(), mask[0]);
        EXPECT_EQ(std::get<1>(got).defined(), mask[1]);
        EXPECT_EQ(std::get<2>(got).defined(), mask[2]);
        if (mask[0]) expect_close(std::get<0>(got), std::get<0>(want), tol);
        if (mask[1]) expect_close(std::get<1>(got), std::get<1>(want), tol);
        if (mask[2]) expect_close(std::get<2>(got), std::get<2>(want), tol);
      }
    }
  }
  // The same errors.
  const at::Tensor x = at::randn({1, 3, 5, 5}), w = at::randn({2, 3, 3, 3});
  EXPECT_EQ(errorOf([&] { at::native::convolution_decomposed(x, w, std::nullopt, {1}, {0}, {1}, false, {0}, 2); }),
            errorOf([&] { at::convolution(x, w, std::nullopt, {1}, {0}, {1}, false, {0}, 2); }));
  EXPECT_EQ(errorOf([&] { at::native::convolution_decomposed(x, w, std::nullopt, {1}, {0}, {9}, false, {0}, 1); }),
            errorOf([&] { at::convolution(x, w, std::nullopt, {1}, {0}, {9}, false, {0}, 1); }));
  EXPECT_EQ(errorOf([&] {
              at::native::convolution_backward_decomposed(at::ones({1, 2, 2, 2}), x, w, std::nullopt, {1}, {0},
                                                          {1}, false, {0}, 1, {true, true, true});
            }),
            errorOf([&] {
              at::convolution_backward(at::ones({1, 2, 2, 2}), x, w, std::nullopt, {1}, {0}, {1}, false,
                                       {0}, 1, {true, true, true});
            }));
}


TEST(PoolDecompositions, AvgPool2dMatchesTheCpuKernel) {
  at::manual_seed(10);
  struct Case {
    std::vector<int64_t> shape, kernel, stride, padding;
    bool ceil, count_include_pad;
    std::optional<int64_t> divisor;
  };
  const std::vector<Case> cases = {
      {{2, 3, 8, 8}, {2}, {}, {0}, false, true, std::nullopt},
      {{2, 3, 9, 7}, {3}, {2}, {1}, false, true, std::nullopt},
      {{2, 3, 9, 7}, {3}, {2}, {1}, false, false, std::nullopt},
      {{3, 9, 7}, {3, 2}, {2, 1}, {1, 0}, true, false, std::nullopt},  // unbatched, ceil_mode
      {{1, 2, 10, 11}, {3}, {2}, {1}, true, true, 5},
      {{1, 1, 5, 5}, {4}, {3}, {2}, true, false, std::nullopt},
  };
  for (const Case& c : cases) {
    for (c10::ScalarType dt : {at::kFloat, at::kDouble, at::kLong}) {
      SCOPED_TRACE(::testing::Message() << c.shape.size() << "-d k" << c.kernel[0] << " ceil "
                                        << c.ceil << " pad " << c.count_include_pad << " " << dt);
      const at::Tensor x = at::randn(c.shape).mul(20).to(dt);
      const at::Tensor cpu = at::avg_pool2d(x, c.kernel, c.stride, c.padding, c.ceil,
                                            c.count_include_pad, c.divisor);
      const at::Tensor dec = at::native::avg_pool2d_decomposed(x, c.kernel, c.stride, c.padding,
                                                               c.ceil, c.count_include_pad, c.divisor);
      if (dt == at::kLong) {
        EXPECT_TRUE(at::equal(dec, cpu)) << dec << cpu;  // truncating division, as the CPU
      } else {
        expect_close(dec, cpu, dt == at::kFloat ? 1e-5 : 1e-12);
      }
      const at::Tensor g = at::randn(cpu.sizes()).mul(20).to(dt);
      const at::Tensor want = at::avg_pool2d_backward(g, x, c.kernel, c.stride, c.padding, c.ceil,
                                                      c.count_include_pad, c.divisor);
      const at::Tensor got = at::native::avg_pool2d_backward_decomposed(
          g, x, c.kernel, c.stride, c.padding, c.ceil, c.count_include_pad, c.divisor);
      if (dt == at::kLong) {
        EXPECT_TRUE(at::equal(got, want)) << got << want;
      } else {
        expect_close(got, want, dt == at::kFloat ? 1e-5 : 1e-12);
      }
    }
  }
  const at::Tensor x = at::randn({1, 2, 5, 5});
  EXPECT_EQ(errorOf([&] { at::native::avg_pool2d_decomposed(x, {2}, {}, {0}, false, true, 0); }),
            errorOf([&] { at::avg_pool2d(x, {2}, {}, {0}, false, true, 0); }));
  EXPECT_EQ(errorOf([&] { at::native::avg_pool2d_decomposed(x.to(at::kInt), {2}, {}, {0}, false, true, std::nullopt); }),
            errorOf([&] { at::avg_pool2d(x.to(at::kInt), {2}, {}, {0}, false, true, std::nullopt); }));
}


TEST(PoolDecompositions, AdaptiveAvgPool2dMatchesTheCpuKernel) {
  at::manual_seed(11);
  using Sizes = std::vector<int64_t>;
  for (const Sizes& shape : {Sizes{2, 3, 7, 9}, Sizes{3, 5, 5}}) {
    for (const Sizes& out : {Sizes{1, 1}, Sizes{3, 4}, Sizes{7, 9}, Sizes{10, 2}}) {
      for (c10::ScalarType dt : {at::kFloat, at::kDouble}) {
        SCOPED_TRACE(::testing::Message() << shape.size() << "-d to " << out[0] << "x" << out[1]
                                          << " " << dt);
        const double tol = dt == at::kFloat ? 1e-5 : 1e-12;
        const at::Tensor x = at::randn(shape).to(dt);
        const at::Tensor cpu = at::_adaptive_avg_pool2d(x, out);
        expect_close(at::native::adaptive_avg_pool2d_decomposed(x, out), cpu, tol);
        const at::Tensor g = at::randn(cpu.sizes()).to(dt);
        expect_close(at::native::adaptive_avg_pool2d_backward_decomposed(g, x),
                     at::_adaptive_avg_pool2d_backward(g, x), tol);
      }
    }
  }
  const at::Tensor x = at::randn({1, 2, 5, 5});
  EXPECT_EQ(errorOf([&] { at::native::adaptive_avg_pool2d_decomposed(x, {2, -1}); }),
            errorOf([&] { at::_adaptive_avg_pool2d(x, {2, -1}); }));
  EXPECT_EQ(errorOf([&] { at::native::adaptive_avg_pool2d_backward_decomposed(at::ones({1, 2, 3}), x); }),
            errorOf([&] { at::_adaptive_avg_pool2d_backward(at::ones({1, 2, 3}), x); }));
}


TEST(IndexDecompositions, NonzeroAndMaskedSelectMatchTheCpuKernels) {
  at::manual_seed(12);
  at::Tensor x = at::randn({4, 5, 3}).gt(0.3).to(at::kFloat);
  x.select(0, 1).select(0, 2).fill_(NAN);  // NaN is nonzero
  for (const at::Tensor& t : {x, x.transpose(0, 2), x.to(at::kLong), x.ne(0), at::zeros({3, 2}),
                              at::full({}, 2.0), at::full({}, 0.0), at::ones({0, 4})}) {
    SCOPED_TRACE(t.sizes());
    EXPECT_TRUE(at::equal(at::native::nonzero_decomposed(t), at::nonzero(t)));
  }
  const at::Tensor v = at::randn({4, 5}), m = at::rand({4, 5}).lt(0.4), row = at::rand({5}).lt(0.5);
  EXPECT_TRUE(at::equal(at::native::masked_select_decomposed(v, m), at::masked_select(v, m)));
  EXPECT_TRUE(at::equal(at::native::masked_select_decomposed(v, row), at::masked_select(v, row)));
  EXPECT_TRUE(at::equal(at::native::masked_select_decomposed(v.select(1, 0), m.t()),
                        at::masked_select(v.select(1, 0), m.t())));  // both broadcast
  EXPECT_EQ(at::native::masked_select_decomposed(v, at::zeros({4, 5}, at::kBool)).numel(), 0);
  EXPECT_EQ(errorOf([&] { at::native::masked_select_decomposed(v, m.to(at::kLong)); }),
            errorOf([&] { at::masked_select(v, m.to(at::kLong)); }));
  EXPECT_EQ(errorOf([&] { at::native::masked_select_decomposed(v, at::ones({3}, at::kBool)); }),
            errorOf([&] { at::masked_select(v, at::ones({3}, at::kBool)); }));
}


TEST(IndexDecompositions, IndexAndIndexPutMatchTheCpuKernels) {
  at::manual_seed(13);
  using Idx = std::vector<std::optional<at::Tensor>>;
  const at::Tensor x = at::randn({4, 5, 6});
  const at::Tensor i2 = at::tensor({0, 3, -1, 2}, at::kLong), i3 = at::tensor({1, 4}, at::kLong).reshape({2, 1});
  const at::Tensor mask = at::rand({4, 5}).lt(0.5);
  const std::vector<Idx> cases = {
      {i2},                                   // one index
      {i2, std::nullopt, i2.abs()},           // separated: B goes first
      {std::nullopt, i3, at::tensor({0, 5, 2}, at::kLong).remainder(6)},  // adjacent, broadcast
      {std::nullopt, i2.to(at::kInt)},        // Int, negative
      {mask},                                 // a 2-d mask
      {std::nullopt, std::nullopt, at::rand({6}).lt(0.5).to(at::kByte)},  // Byte mask
      {i2.narrow(0, 0, 2), at::tensor({true, false, false, true, false})},  // 2 of 5
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE(c);
    const at::Tensor want = at::index(x, cases[c]);
    const at::Tensor got = at::native::index_decomposed(x, cases[c]);
    EXPECT_TRUE(at::equal(got, want)) << got.sizes() << " vs " << want.sizes();
    // index_put_ with accumulate (repeated positions add up) and without.
    const at::Tensor v = at::randn(want.sizes());
    for (bool acc : {true, false}) {
      at::Tensor a = x.clone(), b = x.clone();
      a.index_put_(cases[c], v, acc);
      at::native::index_put__decomposed(b, cases[c], v, acc);
      expect_close(b, a, 1e-6);
    }
  }
  // Values broadcast, with a leading 1 dim dropped; a non-contiguous self.
  at::Tensor a = x.transpose(0, 2).clone().transpose(0, 2), b = a.clone().transpose(0, 2).contiguous().transpose(0, 2);
  a.index_put_({i2}, at::ones({1, 1, 6}), true);
  at::native::index_put__decomposed(b, {i2}, at::ones({1, 1, 6}), true);
  EXPECT_TRUE(at::equal(a, b));
  // The same errors.
  const Idx out_of_range = {at::tensor({0, 4}, at::kLong)};
  EXPECT_EQ(errorOf([&] { at::native::index_decomposed(x, out_of_range); }),
            errorOf([&] { at::index(x, out_of_range); }));
  const Idx too_many = {i2, i2, i2, i2};
  EXPECT_EQ(errorOf([&] { at::native::index_decomposed(x, too_many); }),
            errorOf([&] { at::index(x, too_many); }));
  const Idx floats = {at::ones({2})};
  EXPECT_EQ(errorOf([&] { at::native::index_decomposed(x, floats); }),
            errorOf([&] { at::index(x, floats); }));
  const Idx mismatch = {i2, at::tensor({0, 1, 2}, at::kLong)};
  EXPECT_EQ(errorOf([&] { at::native::index_decomposed(x, mismatch); }),
            errorOf([&] { at::index(x, mismatch); }));
  const Idx bad_mask = {at::ones({3, 5}, at::kBool)};
  EXPECT_EQ(errorOf([&] { at::native::index_decomposed(x, bad_mask); }),
            errorOf([&] { at::index(x, bad_mask); }));
  at::Tensor y = x.clone();
  EXPECT_EQ(errorOf([&] { at::native::index_put__decomposed(y, {i2}, at::ones({3, 5, 6}), false); }),
            errorOf([&] { y.index_put_({i2}, at::ones({3, 5, 6}), false); }));
  EXPECT_EQ(errorOf([&] { at::native::index_put__decomposed(y, {i2}, at::ones({4, 5, 6}, at::kDouble), false); }),
            errorOf([&] { y.index_put_({i2}, at::ones({4, 5, 6}, at::kDouble), false); }));
  EXPECT_TRUE(at::equal(y, x));  // the failed calls wrote nothing
}


}  // namespace
