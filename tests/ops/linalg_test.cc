// Conformance: matrix products (mm, bmm, addmm, matmul, mv, dot, outer,
// baddbmm, linear) against plain reference loops, across dtypes and layouts.
#include "tests/ops/conformance.h"

namespace ember_conformance {
namespace {

class Linalg : public OpTest {};
EMBER_INSTANTIATE_CONFORMANCE(Linalg);

// [b..., n, k] @ [b..., k, m] for refs whose batch dims already match.
Ref matmul_ref(const Ref& a, const Ref& b) {
  const size_t nd = a.shape.size();
  const int64_t n = a.shape[nd - 2], k = a.shape[nd - 1], m = b.shape[nd - 1];
  std::vector<int64_t> shape = a.shape;
  shape[nd - 1] = m;
  Ref out(shape, std::vector<double>(static_cast<size_t>(numel_of(shape))));
  const int64_t batches = numel_of(shape) / std::max<int64_t>(n * m, 1);
  for (int64_t bi = 0; bi < batches; ++bi) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) {
          acc += a.v[static_cast<size_t>(bi * n * k + i * k + p)] *
                 b.v[static_cast<size_t>(bi * k * m + p * m + j)];
        }
        out.v[static_cast<size_t>(bi * n * m + i * m + j)] = acc;
      }
    }
  }
  return out;
}

// Tolerance for sums of k products of values in [-3, 3], rounded in dtype.
Tol product_tol(ScalarType dt) {
  switch (dt) {
    case kHalf: return {4e-3, 4e-2};
    case kBFloat16: return {2e-2, 2e-1};
    case kFloat: return {1e-5, 1e-4};
    case kDouble: return {1e-12, 1e-11};
    default: return {0, 0};
  }
}

TEST_P(Linalg, MmAcrossDtypesAndLayouts) {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kInt, kLong, kChar}) {
    for (const Case& a : layouts({5, 7}, dt, device(), {}, 11)) {
      for (const Case& b : layouts({7, 3}, dt, device(), {}, 12)) {
        SCOPED_TRACE(std::string(c10::toString(dt)) + " " + a.name + " @ " + b.name);
        EXPECT_TRUE(close(at::mm(a.tensor, b.tensor), matmul_ref(a.ref, b.ref), dt,
                          product_tol(dt)));
      }
    }
  }
  const at::Tensor e = at::empty({0, 4}, options(kFloat));
  EXPECT_EQ(at::mm(e, at::empty({4, 2}, options(kFloat))).sizes().vec(),
            (std::vector<int64_t>{0, 2}));
  const at::Tensor z = at::mm(at::empty({2, 0}, options(kDouble)),
                              at::empty({0, 3}, options(kDouble)));
  EXPECT_TRUE(close(z, Ref({2, 3}, std::vector<double>(6, 0)), kDouble));
  const at::Tensor flags = make_tensor(Ref({2, 2}, {1, 0, 0, 1}), kBool, device());
  EXPECT_THAT(errorOf([&] { at::mm(flags, flags); }), HasSubstr("Bool matrices"));
  EXPECT_THAT(errorOf([&] { at::mm(at::empty({2, 3}, options(kFloat)),
                                   at::empty({4, 5}, options(kFloat))); }),
              HasSubstr("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"));
}

TEST_P(Linalg, MatmulBroadcastsBatchDims) {
  const Ref a = random_ref({2, 1, 3, 4}, kFloat, {}, 21);
  const Ref b = random_ref({5, 4, 2}, kFloat, {}, 22);
  const at::Tensor out = at::matmul(make_tensor(a, kFloat, device()),
                                    make_tensor(b, kFloat, device()));
  // Reference: broadcast both to [2, 5, ...] and multiply.
  const Ref ab = broadcast_to(a, {2, 5, 3, 4});
  const Ref bb = broadcast_to(b, {2, 5, 4, 2});
  EXPECT_TRUE(close(out, matmul_ref(ab, bb), kFloat, product_tol(kFloat)));
  // 1-d operands: prepended/appended dims are removed again.
  const Ref v = random_ref({4}, kFloat, {}, 23);
  const at::Tensor mv = at::matmul(make_tensor(a, kFloat, device()),
                                   make_tensor(v, kFloat, device()));
  EXPECT_EQ(mv.sizes().vec(), (std::vector<int64_t>{2, 1, 3}));
  EXPECT_THAT(errorOf([&] { at::matmul(at::empty({}, options(kFloat)),
                                       at::empty({3}, options(kFloat))); }),
              HasSubstr("at least 1 dimension"));
}

TEST_P(Linalg, MvDotOuter) {
  for (ScalarType dt : {kFloat, kDouble, kLong}) {
    for (const Case& m : layouts({4, 6}, dt, device(), {}, 31)) {
      for (const Case& v : layouts({6}, dt, device(), {}, 32)) {
        SCOPED_TRACE(std::string(c10::toString(dt)) + " " + m.name + " " + v.name);
        const Ref want = matmul_ref(m.ref, Ref({6, 1}, v.ref.v));
        EXPECT_TRUE(close(at::mv(m.tensor, v.tensor), Ref({4}, want.v), dt,
                          product_tol(dt)));
        EXPECT_TRUE(close(m.tensor.mv(v.tensor), Ref({4}, want.v), dt, product_tol(dt)));
      }
    }
    const Ref x = random_ref({9}, dt, {}, 33), y = random_ref({9}, dt, {}, 34);
    double acc = 0;
    for (size_t i = 0; i < 9; ++i) acc += x.v[i] * y.v[i];
    const at::Tensor d = at::dot(make_tensor(x, dt, device()), make_tensor(y, dt, device()));
    EXPECT_TRUE(close(d, Ref({}, {acc}), dt, product_tol(dt)));
    const Ref z = random_ref({3}, dt, {}, 35);
    Ref outer({9, 3}, std::vector<double>(27));
    for (int64_t i = 0; i < 9; ++i) {
      for (int64_t j = 0; j < 3; ++j) outer.at({i, j}) = x.v[size_t(i)] * z.v[size_t(j)];
    }
    EXPECT_TRUE(close(at::outer(make_tensor(x, dt, device()), make_tensor(z, dt, device())),
                      outer, dt));
  }
  // outer promotes like mul.
  EXPECT_EQ(at::outer(at::ones({2}, options(kInt)), at::ones({2}, options(kFloat)))
                .scalar_type(), kFloat);
  const at::Tensor f3 = at::ones({3}, options(kFloat));
  EXPECT_THAT(errorOf([&] { at::dot(f3, at::ones({4}, options(kFloat))); }),
              HasSubstr("inconsistent tensor size"));
  EXPECT_THAT(errorOf([&] { at::dot(f3, at::ones({3}, options(kDouble))); }),
              HasSubstr("same dtype"));
  EXPECT_THAT(errorOf([&] { at::mv(at::ones({2, 4}, options(kFloat)), f3); }),
              HasSubstr("size mismatch, got matrix 2x4 and vector 3"));
}

TEST_P(Linalg, AddmmAndBaddbmmScaleAndBroadcastSelf) {
  for (ScalarType dt : {kFloat, kDouble}) {
    const Ref a = random_ref({2, 3, 4}, dt, {}, 41), b = random_ref({2, 4, 5}, dt, {}, 42);
    const Ref s = random_ref({5}, dt, {}, 43);
    const Ref prod = matmul_ref(a, b);
    for (auto [beta, alpha] : {std::pair<double, double>{1, 1}, {0.5, 2}, {0, 1}}) {
      SCOPED_TRACE(c10::str(dt, " beta=", beta, " alpha=", alpha));
      // Init-captures: C++17 lambdas cannot capture a structured binding.
      const Ref want = zip(prod, s, [beta = beta, alpha = alpha](double p, double x) {
        return alpha * p + beta * x;
      });
      EXPECT_TRUE(close(at::baddbmm(make_tensor(s, dt, device()), make_tensor(a, dt, device()),
                                    make_tensor(b, dt, device()), beta, alpha),
                        want, dt, product_tol(dt)));
      const Ref a0({3, 4}, std::vector<double>(a.v.begin(), a.v.begin() + 12));
      const Ref b0({4, 5}, std::vector<double>(b.v.begin(), b.v.begin() + 20));
      const Ref want2 = zip(matmul_ref(a0, b0), s, [beta = beta, alpha = alpha](double p, double x) {
        return alpha * p + beta * x;
      });
      EXPECT_TRUE(close(at::addmm(make_tensor(s, dt, device()), make_tensor(a0, dt, device()),
                                  make_tensor(b0, dt, device()), beta, alpha),
                        want2, dt, product_tol(dt)));
    }
  }
  // beta == 0 ignores self, NaN included.
  const at::Tensor nan = at::full({2, 2, 2}, NAN, options(kFloat));
  const at::Tensor one = at::ones({2, 2, 2}, options(kFloat));
  EXPECT_TRUE(close(at::baddbmm(nan, one, one, 0), Ref({2, 2, 2}, std::vector<double>(8, 2)),
                    kFloat));
  EXPECT_THAT(errorOf([&] { at::baddbmm(at::ones({3, 2, 2}, options(kFloat)), one, one); }),
              HasSubstr("baddbmm: shapes [3, 2, 2] and [2, 2, 2] cannot be broadcast"));
}

TEST_P(Linalg, LinearOnBatchedInput) {
  const Ref x = random_ref({2, 3, 4}, kFloat, {}, 51), w = random_ref({5, 4}, kFloat, {}, 52);
  const Ref bias = random_ref({5}, kFloat, {}, 53);
  Ref wt({4, 5}, std::vector<double>(20));
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 4; ++j) wt.at({j, i}) = w.at({i, j});
  }
  const Ref want = zip(matmul_ref(Ref({6, 4}, x.v), wt), bias,
                       [](double p, double b) { return p + b; });
  const at::Tensor y = at::linear(make_tensor(x, kFloat, device()),
                                  make_tensor(w, kFloat, device()),
                                  make_tensor(bias, kFloat, device()));
  EXPECT_TRUE(close(y.reshape({6, 5}), Ref({6, 5}, want.v), kFloat, product_tol(kFloat)));
}

}  // namespace
}  // namespace ember_conformance
