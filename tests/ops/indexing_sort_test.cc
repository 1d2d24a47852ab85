// Conformance: sort and topk against hand-written references (a stable
// sort of each slice with NaN above every number), for every dtype, the
// layouts of conformance.h, every dim, and out=.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class Sorting : public OpTest {
 protected:
  at::Tensor T(std::vector<int64_t> shape, std::vector<double> v,
               ScalarType dtype = kFloat) const {
    return make_tensor(Ref(std::move(shape), std::move(v)), dtype, device());
  }
};
EMBER_INSTANTIATE_CONFORMANCE(Sorting);

constexpr Tol kExact{0, 0};
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Values and positions of the first k of each slice along dim, ordered by
// `before` (a strict order in which NaN is largest) and then by position.
std::pair<Ref, Ref> order_ref(const Ref& x, int64_t dim, int64_t k, bool descending) {
  auto key_less = [](double a, double b) {
    if (std::isnan(a)) return false;
    return std::isnan(b) || a < b;
  };
  Ref values, indices;
  values.shape = x.shape;
  if (!x.shape.empty()) values.shape[static_cast<size_t>(dim)] = k;
  indices.shape = values.shape;
  values.v.resize(static_cast<size_t>(numel_of(values.shape)));
  indices.v.resize(values.v.size());
  const int64_t n = x.shape.empty() ? 1 : x.shape[static_cast<size_t>(dim)];
  for (int64_t o = 0; o < values.numel(); ++o) {
    auto pos = unravel(o, values.shape);
    if (!pos.empty() && pos[static_cast<size_t>(dim)] != 0) continue;  // one pass per slice
    std::vector<int64_t> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    auto at = [&](int64_t i) {
      auto p = pos;
      if (!p.empty()) p[static_cast<size_t>(dim)] = i;
      return x.at(p);
    };
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
      return descending ? key_less(at(b), at(a)) : key_less(at(a), at(b));
    });
    for (int64_t i = 0; i < k; ++i) {
      auto p = pos;
      if (!p.empty()) p[static_cast<size_t>(dim)] = i;
      values.at(p) = at(perm[static_cast<size_t>(i)]);
      indices.at(p) = static_cast<double>(perm[static_cast<size_t>(i)]);
    }
  }
  return {values, indices};
}

TEST_P(Sorting, SortEveryDtypeLayoutDimAndDirection) {
  for (ScalarType dtype : all_dtypes()) {
    for (const auto& shape : test_shapes()) {
      for (const Case& c : layouts(shape, dtype, device(), {-3, 3}, 301)) {
        const int64_t nd = static_cast<int64_t>(shape.size());
        for (int64_t dim = nd == 0 ? -1 : -nd; dim < std::max<int64_t>(nd, 1); ++dim) {
          const int64_t d = dim < 0 ? dim + std::max<int64_t>(nd, 1) : dim;
          for (bool descending : {false, true}) {
            SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + c.name + " dim " +
                         std::to_string(dim) + (descending ? " descending" : ""));
            const int64_t n = nd == 0 ? 1 : shape[static_cast<size_t>(d)];
            const auto [rv, ri] = order_ref(c.ref, d, n, descending);
            // Random integers repeat: only a stable sort matches the indices.
            const auto [v, i] = at::sort(c.tensor, /*stable=*/true, dim, descending);
            EXPECT_TRUE(close(v, rv, dtype, kExact));
            EXPECT_TRUE(close(i, ri, kLong, kExact));
            const auto [v2, i2] = c.tensor.sort(dim, descending);
            EXPECT_TRUE(close(v2, rv, dtype, kExact));
            EXPECT_TRUE(close(i2, ri, kLong, kExact));
          }
        }
      }
    }
  }
}

TEST_P(Sorting, SortNaNIsLargestAndOutVariants) {
  const at::Tensor x = T({6}, {3, kNaN, -1, kNaN, 7, -1});
  {
    const auto [v, i] = at::sort(x);
    EXPECT_TRUE(close(v, Ref({6}, {-1, -1, 3, 7, kNaN, kNaN}), kFloat, kExact));
    EXPECT_TRUE(close(i, Ref({6}, {2, 5, 0, 4, 1, 3}), kLong, kExact));
  }
  {
    const auto [v, i] = at::sort(x, 0, /*descending=*/true);
    EXPECT_TRUE(close(v, Ref({6}, {kNaN, kNaN, 7, 3, -1, -1}), kFloat, kExact));
    EXPECT_TRUE(close(i, Ref({6}, {1, 3, 4, 0, 2, 5}), kLong, kExact));
  }
  at::Tensor values = at::empty({0}, options(kFloat));
  at::Tensor indices = at::empty({0}, options(kLong));
  auto r = at::sort_out(values, indices, x);
  EXPECT_TRUE(&std::get<0>(r) == &values && &std::get<1>(r) == &indices);
  EXPECT_TRUE(close(values, Ref({6}, {-1, -1, 3, 7, kNaN, kNaN}), kFloat, kExact));
  EXPECT_TRUE(close(indices, Ref({6}, {2, 5, 0, 4, 1, 3}), kLong, kExact));
  at::Tensor v2 = at::empty({0}, options(kFloat));
  at::Tensor i2 = at::empty({0}, options(kLong));
  at::sort_out(v2, i2, x, /*stable=*/true, 0, true);
  EXPECT_TRUE(close(i2, Ref({6}, {1, 3, 4, 0, 2, 5}), kLong, kExact));
  // A large input sorts its slices in parallel.
  const Ref big = random_ref({2000, 40}, kDouble, {}, 7);
  const auto [bv, bi] = at::sort(make_tensor(big, kDouble, device()), 1);
  const auto [rv, ri] = order_ref(big, 1, 40, false);
  EXPECT_TRUE(close(bv, rv, kDouble, kExact));
  EXPECT_TRUE(close(bi, ri, kLong, kExact));

  at::Tensor bad = at::empty({0}, options(kInt));
  EXPECT_THAT(errorOf([&] { at::sort_out(values, bad, x); }),
              HasSubstr("expected out tensor to have dtype Long, but got Int"));
  EXPECT_THAT(errorOf([&] { at::sort(x, 1); }), HasSubstr("dimension 1 is out of range"));
}

TEST_P(Sorting, TopkEveryDtypeLayoutAndDirection) {
  for (ScalarType dtype : all_dtypes()) {
    if (dtype == kBool) continue;
    for (const Case& c : layouts({4, 6}, dtype, device(), {-20, 20}, 311)) {
      for (int64_t dim : {0, 1, -1}) {
        const int64_t d = dim < 0 ? dim + 2 : dim;
        const int64_t n = c.ref.shape[static_cast<size_t>(d)];
        for (int64_t k : {int64_t{0}, int64_t{1}, n / 2, n}) {
          for (bool largest : {true, false}) {
            SCOPED_TRACE(std::string(c10::toString(dtype)) + " " + c.name + " dim " +
                         std::to_string(dim) + " k " + std::to_string(k) +
                         (largest ? " largest" : " smallest"));
            const auto [rv, ri] = order_ref(c.ref, d, k, largest);
            const auto [v, i] = at::topk(c.tensor, k, dim, largest);
            EXPECT_TRUE(close(v, rv, dtype, kExact));
            // Ties: topk promises no order among equal values, but Ember
            // gives the lower position first, as the stable reference.
            EXPECT_TRUE(close(i, ri, kLong, kExact));
            at::Tensor ov = at::empty({0}, options(dtype));
            at::Tensor oi = at::empty({0}, options(kLong));
            c.tensor.topk(k, dim, largest, /*sorted=*/false);
            at::topk_out(ov, oi, c.tensor, k, dim, largest);
            EXPECT_TRUE(close(ov, rv, dtype, kExact));
            EXPECT_TRUE(close(oi, ri, kLong, kExact));
          }
        }
      }
    }
  }
}

TEST_P(Sorting, TopkEdgeCasesAndErrors) {
  const at::Tensor x = T({5}, {1, kNaN, 5, -2, 5});
  {
    const auto [v, i] = at::topk(x, 2);
    EXPECT_TRUE(close(v, Ref({2}, {kNaN, 5}), kFloat, kExact));
    EXPECT_TRUE(close(i, Ref({2}, {1, 2}), kLong, kExact));
  }
  {
    const auto [v, i] = at::topk(x, 2, 0, /*largest=*/false);
    EXPECT_TRUE(close(v, Ref({2}, {-2, 1}), kFloat, kExact));
    EXPECT_TRUE(close(i, Ref({2}, {3, 0}), kLong, kExact));
  }
  {
    const auto [v, i] = at::topk(T({}, {4}), 1);
    EXPECT_TRUE(close(v, Ref({}, {4}), kFloat, kExact));
    EXPECT_TRUE(close(i, Ref({}, {0}), kLong, kExact));
  }
  {
    const auto [v, i] = at::topk(T({0, 3}, {}), 2);
    EXPECT_TRUE(close(v, Ref({0, 2}, {}), kFloat, kExact));
  }
  EXPECT_THAT(errorOf([&] { at::topk(x, 6); }),
              HasSubstr("selected index k out of range: k is 6 but dimension 0 has size 5"));
  EXPECT_THAT(errorOf([&] { at::topk(x, -1); }), HasSubstr("k out of range"));
  EXPECT_THAT(errorOf([&] { at::topk(T({2}, {1, 0}, kBool), 1); }),
              HasSubstr("not implemented for 'Bool'"));
}

}  // namespace
}  // namespace ember_conformance
