// Conformance: softmax, log_softmax (softmax.int / log_softmax.int, _softmax,
// _log_softmax and their .out variants) and their backward ops against
// double-precision references and finite differences.
#include <cmath>
#include <limits>

#include "tests/ops/nn_test_util.h"

namespace ember_conformance {
namespace {

using nn_test::check_finite_differences;
using nn_test::random_tensor;

class NnSoftmax : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(NnSoftmax);

struct Split {
  int64_t outer = 1, n = 1, inner = 1;
};

Split split(const std::vector<int64_t>& shape, int64_t dim) {
  Split s;
  const int64_t nd = static_cast<int64_t>(shape.size());
  if (nd == 0) return s;
  if (dim < 0) dim += nd;
  for (int64_t d = 0; d < nd; ++d) {
    if (d < dim) s.outer *= shape[d];
    if (d > dim) s.inner *= shape[d];
  }
  s.n = shape[static_cast<size_t>(dim)];
  return s;
}

// softmax (or log_softmax) of x along dim, in double.
Ref softmax_ref(const Ref& x, int64_t dim, bool log) {
  const Split s = split(x.shape, dim);
  Ref y = x;
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      auto at = [&](int64_t j) -> size_t { return static_cast<size_t>((o * s.n + j) * s.inner + i); };
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < s.n; ++j) m = std::max(m, x.v[at(j)]);
      double sum = 0;
      for (int64_t j = 0; j < s.n; ++j) sum += std::exp(x.v[at(j)] - m);
      for (int64_t j = 0; j < s.n; ++j) {
        y.v[at(j)] = log ? x.v[at(j)] - m - std::log(sum) : std::exp(x.v[at(j)] - m) / sum;
      }
    }
  }
  return y;
}

// The backward of softmax (or log_softmax) from its output y.
Ref softmax_backward_ref(const Ref& g, const Ref& y, int64_t dim, bool log) {
  const Split s = split(y.shape, dim);
  Ref r = y;
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      auto at = [&](int64_t j) -> size_t { return static_cast<size_t>((o * s.n + j) * s.inner + i); };
      double dot = 0;
      for (int64_t j = 0; j < s.n; ++j) dot += log ? g.v[at(j)] : g.v[at(j)] * y.v[at(j)];
      for (int64_t j = 0; j < s.n; ++j) {
        r.v[at(j)] = log ? g.v[at(j)] - std::exp(y.v[at(j)]) * dot
                         : y.v[at(j)] * (g.v[at(j)] - dot);
      }
    }
  }
  return r;
}

const std::vector<std::vector<int64_t>>& shapes() {
  static const std::vector<std::vector<int64_t>> s = {
      {}, {0}, {7}, {3, 5}, {2, 3, 4}, {4, 0, 3}, {1, 9}};
  return s;
}

Tol tol_for(ScalarType dtype) {
  return dtype == kFloat ? Tol{1e-5, 3e-6} : default_tol(dtype);
}

TEST_P(NnSoftmax, MatchesReferenceOnEveryDimLayoutAndDtype) {
  for (const ScalarType dtype : {kFloat, kDouble, kHalf, kBFloat16}) {
    for (const auto& shape : shapes()) {
      const int64_t nd = std::max<int64_t>(static_cast<int64_t>(shape.size()), 1);
      for (const Case& c : layouts(shape, dtype, device(), {-4, 4}, 11)) {
        for (int64_t dim = -nd; dim < nd; ++dim) {
          const std::string what = c.name + " dim " + std::to_string(dim) + " " +
                                   std::string(c10::toString(dtype));
          EXPECT_TRUE(close(at::softmax(c.tensor, dim), softmax_ref(c.ref, dim, false),
                            dtype, tol_for(dtype)))
              << what;
          EXPECT_TRUE(close(c.tensor.log_softmax(dim), softmax_ref(c.ref, dim, true), dtype,
                            tol_for(dtype)))
              << what;
          EXPECT_TRUE(close(at::_softmax(c.tensor, dim, false), softmax_ref(c.ref, dim, false),
                            dtype, tol_for(dtype)))
              << what;
        }
        EXPECT_TRUE(close(c.tensor, c.ref, dtype, Tol{0, 0})) << "input changed: " << c.name;
      }
    }
  }
}

TEST_P(NnSoftmax, LongRowsAndMoreColumnsThanABlock) {
  Ref r;
  // Long rows with a tail; the middle dim with 300 columns after it (more
  // than one block of 256).
  for (const auto& [shape, dim] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
           {{3, 1003}, 1}, {{2, 3, 300}, 1}, {{2, 3, 300}, 0}, {{40, 1000}, -1},
           // Short rows, processed in groups of 4096 elements (several
           // groups, and on two threads for the largest).
           {{300, 30}, 1}, {{5000, 1}, 1}, {{2000, 30}, -1}, {{70, 63}, 1}}) {
    for (const bool strided : {false, true}) {
      const at::Tensor x = random_tensor(shape, kFloat, {-10, 10}, 5, strided, &r);
      EXPECT_TRUE(close(at::softmax(x, dim), softmax_ref(r, dim, false), kFloat,
                        tol_for(kFloat)));
      EXPECT_TRUE(close(at::log_softmax(x, dim), softmax_ref(r, dim, true), kFloat,
                        Tol{1e-5, 1e-5}));
    }
  }
}

TEST_P(NnSoftmax, IsStableForLargeAndInfiniteInputs) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const ScalarType dtype : {kFloat, kDouble}) {
    const at::Tensor big = make_tensor(Ref({3}, {1000, 1001, 1002}), dtype, device());
    const Ref small({3}, {0, 1, 2});
    EXPECT_TRUE(close(at::softmax(big, 0), softmax_ref(small, 0, false), dtype));
    EXPECT_TRUE(close(at::log_softmax(big, 0), softmax_ref(small, 0, true), dtype));
    const at::Tensor masked = make_tensor(Ref({2, 2}, {0, -inf, -inf, 3}), dtype, device());
    EXPECT_TRUE(close(at::softmax(masked, 1), Ref({2, 2}, {1, 0, 0, 1}), dtype));
    EXPECT_TRUE(close(at::log_softmax(masked, 1), Ref({2, 2}, {0, -inf, -inf, 0}), dtype));
    // A NaN, or a row of -inf only, makes the row NaN, as in PyTorch.
    const at::Tensor bad = make_tensor(Ref({2, 2}, {nan, 1, -inf, -inf}), dtype, device());
    EXPECT_TRUE(close(at::softmax(bad, 1), Ref({2, 2}, {nan, nan, nan, nan}), dtype));
    // Very negative differences underflow to 0, not to garbage.
    const at::Tensor spread = make_tensor(Ref({2}, {0, -200}), dtype, device());
    EXPECT_TRUE(close(at::softmax(spread, 0), Ref({2}, {1, std::exp(-200.0)}), dtype,
                      Tol{1e-6, 1e-30}));
  }
}

TEST_P(NnSoftmax, DtypeArgumentConvertsFirst) {
  Ref r;
  const at::Tensor x = random_tensor({4, 6}, kFloat, {}, 3, true, &r);
  const at::Tensor y = at::softmax(x, 1, kDouble);
  EXPECT_EQ(y.scalar_type(), kDouble);
  EXPECT_TRUE(close(y, softmax_ref(r, 1, false), kDouble, Tol{1e-12, 1e-12}));
  const at::Tensor h = make_tensor(r, kHalf, device());
  const at::Tensor hy = h.log_softmax(0, kFloat);
  EXPECT_EQ(hy.scalar_type(), kFloat);
  EXPECT_TRUE(close(hy, softmax_ref(as_dtype(r, kHalf), 0, true), kFloat, tol_for(kFloat)));
}

TEST_P(NnSoftmax, HalfToFloatGivesFloat) {
  const Ref r = as_dtype(random_ref({3, 8}, kHalf, {}, 9), kHalf);
  const at::Tensor h = make_tensor(r, kHalf, device());
  const at::Tensor y = at::_softmax(h, 1, true);
  EXPECT_EQ(y.scalar_type(), kFloat);
  EXPECT_TRUE(close(y, softmax_ref(r, 1, false), kFloat, tol_for(kFloat)));
  const at::Tensor ly = at::_log_softmax(h, 0, true);
  EXPECT_TRUE(close(ly, softmax_ref(r, 0, true), kFloat, tol_for(kFloat)));
  // Its backward gives Half.
  const at::Tensor g = make_tensor(random_ref({3, 8}, kFloat, {}, 2), kFloat, device());
  const at::Tensor gi = at::_softmax_backward_data(g, y, 1, kHalf);
  EXPECT_EQ(gi.scalar_type(), kHalf);
  EXPECT_TRUE(close(gi, softmax_backward_ref(to_ref(g), to_ref(y), 1, false), kHalf));
  EXPECT_THAT(errorOf([&] { at::_softmax(make_tensor(r, kFloat, device()), 1, true); }),
              HasSubstr("conversion is supported for Half type only"));
}

TEST_P(NnSoftmax, OutVariants) {
  Ref r;
  const at::Tensor x = random_tensor({3, 4}, kFloat, {}, 21, false, &r);
  at::Tensor out = at::empty({0}, options(kFloat));
  at::_softmax_out(out, x, 1, false);  // resized
  EXPECT_TRUE(close(out, softmax_ref(r, 1, false), kFloat));
  at::Tensor strided = at::empty({4, 3}, options(kFloat)).t();
  at::_log_softmax_outf(x, 0, false, strided);
  EXPECT_TRUE(close(strided, softmax_ref(r, 0, true), kFloat));
  at::Tensor same = x.clone();
  at::_softmax_out(same, same, 0, false);  // in place through out=
  EXPECT_TRUE(close(same, softmax_ref(r, 0, false), kFloat));
  at::Tensor wrong = at::empty({3, 4}, options(kDouble));
  EXPECT_THAT(errorOf([&] { at::_softmax_out(wrong, x, 1, false); }),
              HasSubstr("expected out of dtype Float"));
}

TEST_P(NnSoftmax, BackwardMatchesReferenceAndFiniteDifferences) {
  for (const ScalarType dtype : {kFloat, kDouble, kBFloat16}) {
    for (const auto& [shape, dim] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
             {{3, 5}, 1}, {{3, 5}, 0}, {{2, 3, 4}, 1}, {{}, 0}, {{0, 4}, 1}}) {
      for (const bool log : {false, true}) {
        Ref xr, gr;
        const at::Tensor x = random_tensor(shape, dtype, {-2, 2}, 4, false, &xr);
        const at::Tensor g = random_tensor(shape, dtype, {-1, 1}, 8, true, &gr);
        const at::Tensor y = log ? at::_log_softmax(x, dim, false) : at::_softmax(x, dim, false);
        const at::Tensor gi = log ? at::_log_softmax_backward_data(g, y, dim, dtype)
                                  : at::_softmax_backward_data(g, y, dim, dtype);
        EXPECT_EQ(gi.scalar_type(), dtype);
        EXPECT_TRUE(close(gi, softmax_backward_ref(gr, to_ref(y), dim, log), dtype,
                          dtype == kBFloat16 ? Tol{3e-2, 2e-2} : Tol{1e-5, 1e-6}))
            << log << " " << c10::toString(dtype);
        if (dtype != kDouble) continue;
        const auto f = [dim = dim, log](const at::Tensor& t) {
          return log ? at::log_softmax(t, dim) : at::softmax(t, dim);
        };
        EXPECT_TRUE(check_finite_differences(f, x, g, gi)) << "log " << log;
      }
    }
  }
}

TEST_P(NnSoftmax, BadArgumentsAreRefused) {
  const at::Tensor x = make_tensor(Ref({2, 3}, {1, 2, 3, 4, 5, 6}), kFloat, device());
  EXPECT_THAT(errorOf([&] { at::softmax(x, 2); }),
              HasSubstr("dimension 2 is out of range for a 2-d tensor"));
  EXPECT_THAT(errorOf([&] { at::log_softmax(x, -3); }), HasSubstr("out of range"));
  const at::Tensor ints = make_tensor(Ref({2}, {1, 2}), kLong, device());
  EXPECT_THAT(errorOf([&] { at::softmax(ints, 0); }),
              HasSubstr("expected a floating point input"));
  EXPECT_THAT(errorOf([&] { at::_softmax_backward_data(x, x.t(), 1, kFloat); }),
              HasSubstr("must have the same shape"));
  EXPECT_THAT(errorOf([&] { at::_log_softmax_backward_data(x, x, 1, kDouble); }),
              HasSubstr("expected input_dtype to be grad_output's dtype"));
  EXPECT_THAT(errorOf([&] { at::softmax(at::Tensor(), 0); }), HasSubstr("undefined"));
}

}  // namespace
}  // namespace ember_conformance
