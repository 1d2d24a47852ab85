// avg_pool2d and avg_pool2d_backward on Long inputs (Note [Integer average
// pooling] in backends/cpu/pool.cc): integer sums divided with truncation
// toward zero, as PyTorch's CPU kernels compute them; max_pool2d on every
// integer dtype.
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class PoolLong : public OpTest {
 protected:
  at::Tensor longs(const std::vector<int64_t>& shape, const std::vector<double>& v) const {
    return make_tensor(Ref(shape, v), kLong, device());
  }
};
EMBER_INSTANTIATE_CONFORMANCE(PoolLong);

TEST_P(PoolLong, AvgPool2dTruncatesTowardZero) {
  const at::Tensor x = longs({1, 1, 2, 3}, {1, 2, -3, 4, 5, -7});
  const at::Tensor y = at::avg_pool2d(x, {2, 2}, {1, 1});
  EXPECT_EQ(y.scalar_type(), at::kLong);
  // Windows {1, 2, 4, 5} -> 12 / 4 = 3 and {2, -3, 5, -7} -> -3 / 4 = 0.
  EXPECT_TRUE(close(y, Ref({1, 1, 1, 2}, {3, 0}), kLong));
  const at::Tensor n = longs({2, 2, 2}, {-1, -2, -3, -4, 5, 6, 7, 9});
  // -10 / 4 = -2 (not -3), 27 / 4 = 6.
  EXPECT_TRUE(close(at::avg_pool2d(n, {2, 2}), Ref({2, 1, 1}, {-2, 6}), kLong));
}

TEST_P(PoolLong, AvgPool2dMatchesTheTruncatedDoubleResult) {
  const Ref r = random_ref({2, 3, 7, 6}, kLong, {-50, 50}, 21);
  const at::Tensor x = make_tensor(r, kLong, device());
  const at::Tensor xd = make_tensor(r, kDouble, device());
  for (const bool ceil_mode : {false, true}) {
    for (const bool include_pad : {false, true}) {
      for (const std::optional<int64_t> div : {std::optional<int64_t>(),
                                               std::optional<int64_t>(3)}) {
        const at::Tensor want =
            at::avg_pool2d(xd, {3, 2}, {2, 1}, {1, 1}, ceil_mode, include_pad, div)
                .to(at::kLong);  // double -> Long truncates toward zero
        EXPECT_TRUE(at::equal(
            at::avg_pool2d(x, {3, 2}, {2, 1}, {1, 1}, ceil_mode, include_pad, div), want))
            << "ceil_mode " << ceil_mode << " count_include_pad " << include_pad;
      }
    }
  }
}

TEST_P(PoolLong, AvgPool2dBackwardDividesEachCellsGradient) {
  const at::Tensor x = longs({1, 1, 2, 2}, {0, 0, 0, 0});
  // One window of 4: -7 / 4 = -1 reaches every input.
  const at::Tensor g = at::avg_pool2d_backward(longs({1, 1, 1, 1}, {-7}), x, {2, 2}, {1, 1},
                                               {0, 0}, false, true, std::nullopt);
  EXPECT_EQ(g.scalar_type(), at::kLong);
  EXPECT_TRUE(close(g, Ref({1, 1, 2, 2}, {-1, -1, -1, -1}), kLong));
  // Overlapping windows each add their own truncated share.
  const at::Tensor x3 = longs({1, 1, 1, 3}, {0, 0, 0});
  const at::Tensor g3 = at::avg_pool2d_backward(longs({1, 1, 1, 2}, {5, 9}), x3, {1, 2},
                                                {1, 1}, {0, 0}, false, true, std::nullopt);
  EXPECT_TRUE(close(g3, Ref({1, 1, 1, 3}, {2, 2 + 4, 4}), kLong));
}

TEST_P(PoolLong, AvgPool2dBackwardMatchesDoubleOnWholeShares) {
  // With divisor_override d, every share is trunc(g / d); a double gradient
  // of trunc(g / d) * d gives the same sums exactly.
  const Ref xr = random_ref({2, 2, 5, 5}, kLong, {-9, 9}, 22);
  const at::Tensor x = make_tensor(xr, kLong, device());
  const at::Tensor y = at::avg_pool2d(x, {2, 3}, {1, 2}, {1, 1}, true, true, 4);
  const std::vector<int64_t> shape(y.sizes().begin(), y.sizes().end());
  Ref gr = random_ref(shape, kLong, {-40, 40}, 23);
  const at::Tensor g = make_tensor(gr, kLong, device());
  for (double& v : gr.v) v = static_cast<double>(static_cast<int64_t>(v) / 4 * 4);
  const at::Tensor want =
      at::avg_pool2d_backward(make_tensor(gr, kDouble, device()), make_tensor(xr, kDouble,
                                                                              device()),
                              {2, 3}, {1, 2}, {1, 1}, true, true, 4)
          .to(at::kLong);
  EXPECT_TRUE(at::equal(
      at::avg_pool2d_backward(g, x, {2, 3}, {1, 2}, {1, 1}, true, true, 4), want));
}

TEST_P(PoolLong, OtherIntegralDtypesStayRefusedByAvgPoolAndMaxPoolBackward) {
  const at::Tensor i = at::zeros({1, 2, 2}, options(kInt));
  EXPECT_THAT(errorOf([&] { at::avg_pool2d(i, {2, 2}); }),
              HasSubstr("avg_pool2d: dtype Int is not supported; use a floating dtype or "
                        "Long"));
  const at::Tensor l = at::zeros({1, 2, 2}, options(kLong));
  // Named references, not a structured binding: a C++17 lambda cannot
  // capture one (clang refuses).
  const auto v_idx_tuple = at::max_pool2d_with_indices(l, {2, 2});
  const auto& v = std::get<0>(v_idx_tuple);
  const auto& idx = std::get<1>(v_idx_tuple);
  EXPECT_THAT(errorOf([&] {
                at::max_pool2d_with_indices_backward(v, l, {2, 2}, {2, 2}, {0, 0}, {1, 1},
                                                     false, idx);
              }),
              HasSubstr("max_pool2d_with_indices_backward: dtype Long is not supported; use a "
                        "floating dtype (convert"));
  EXPECT_THAT(errorOf([&] { at::max_pool2d(at::ones({1, 2, 4, 4}, options(kBool)), {2}); }),
              HasSubstr("max_pool2d: dtype Bool is not supported; use a floating dtype or an "
                        "integer dtype"));
}

// max_pool2d takes every integer dtype, as PyTorch's CPU kernel does since
// 2.1: the same values and indices as on doubles holding the same numbers,
// through the 2x2 loop and the general one (padding, dilation, ceil_mode).
TEST_P(PoolLong, MaxPool2dOnIntegersMatchesDouble) {
  struct Params {
    std::vector<int64_t> k, s, pad, dil;
    bool ceil;
  };
  const std::vector<Params> params = {{{2, 2}, {2, 2}, {0, 0}, {1, 1}, false},
                                      {{3, 3}, {2, 2}, {1, 1}, {1, 1}, true},
                                      {{2, 3}, {1, 2}, {1, 1}, {2, 1}, false}};
  uint64_t seed = 40;
  for (const ScalarType dtype : {kByte, kChar, kShort, kInt, kLong}) {
    const Domain domain = dtype == kByte ? Domain{0, 200} : Domain{-100, 100};
    const Ref r = random_ref({2, 3, 7, 6}, dtype, domain, ++seed);
    const at::Tensor x = make_tensor(r, dtype, device());
    const at::Tensor xd = make_tensor(r, kDouble, device());
    for (const Params& q : params) {
      const auto [v, i] = at::max_pool2d_with_indices(x, q.k, q.s, q.pad, q.dil, q.ceil);
      const auto [vd, id] = at::max_pool2d_with_indices(xd, q.k, q.s, q.pad, q.dil, q.ceil);
      EXPECT_EQ(v.scalar_type(), dtype);
      EXPECT_TRUE(close(v, to_ref(vd), dtype, Tol{0, 0})) << c10::toString(dtype);
      EXPECT_TRUE(at::equal(i, id)) << c10::toString(dtype);
      EXPECT_TRUE(at::equal(at::max_pool2d(x, q.k, q.s, q.pad, q.dil, q.ceil), v));
    }
  }
  // The lowest value still wins its window (it is not mistaken for an empty
  // window), and ties keep the first position.
  const double lowest = static_cast<double>(std::numeric_limits<int64_t>::lowest());
  const at::Tensor l = longs({1, 1, 2, 4}, {lowest, lowest, 7, 7, lowest, lowest, 7, 7});
  const auto [lv, li] = at::max_pool2d_with_indices(l, {2, 2});
  EXPECT_TRUE(at::equal(lv, longs({1, 1, 1, 2}, {lowest, 7})));
  EXPECT_TRUE(at::equal(li, longs({1, 1, 1, 2}, {0, 2})));
  const auto [pv, pi] = at::max_pool2d_with_indices(l, {3, 3}, {2, 2}, {1, 1});
  EXPECT_TRUE(at::equal(pv, longs({1, 1, 1, 2}, {lowest, 7})));
  EXPECT_TRUE(at::equal(pi, longs({1, 1, 1, 2}, {0, 2})));
}

}  // namespace
}  // namespace ember_conformance
