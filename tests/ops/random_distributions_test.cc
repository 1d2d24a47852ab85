// The random ops' distributions (statistics with bounds of several
// standard errors), their ranges and every error path.
#include "tests/ops/random_test_util.h"

namespace {

using namespace ember_random_test;

// ---- distributions ------------------------------------------------------------------------
// Bounds are 6 standard errors: a correct sampler fails one of them with
// probability below 1e-8 per check, and every stream here is fixed anyway.
constexpr double kSigmas = 6;

TEST(Uniform, MomentsAndRangeForEveryFloatingDtype) {
  for (auto dtype : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16}) {
    SCOPED_TRACE(c10::toString(dtype));
    const int64_t n = dtype == at::kFloat ? (1 << 20) : 200000;
    const double from = -3, to = 5;
    at::Tensor t = at::empty({n}, dtype);
    t.uniform_(from, to, make_gen(100));
    const auto v = values(t);
    for (double x : v) ASSERT_TRUE(x >= from && x < to) << x;
    const Moments m = moments(v);
    const double w = to - from;
    const double var = w * w / 12;
    // Rounding to Half/BFloat16 shifts values by up to half a spacing.
    const double rounding = dtype == at::kBFloat16 ? 0.02 : dtype == at::kHalf ? 0.002 : 0;
    EXPECT_NEAR(m.mean, (from + to) / 2, kSigmas * std::sqrt(var / n) + rounding);
    const double var_se = std::sqrt((std::pow(w, 4) / 80 - var * var) / n);
    EXPECT_NEAR(m.var, var, kSigmas * var_se + 4 * rounding);
  }
}

TEST(Uniform, StaysBelowToWhenRoundingWouldReachIt) {
  // With 24-bit uniforms every value in [1 - 2^-12, 1) rounds to 1 in Half.
  at::Tensor h = at::empty({1 << 16}, at::kHalf);
  h.uniform_(0, 1, make_gen(4));
  const auto v = values(h);
  EXPECT_LT(*std::max_element(v.begin(), v.end()), 1.0);
  EXPECT_GT(*std::max_element(v.begin(), v.end()), 0.99);
  at::Tensor same = at::empty({5}, at::kFloat);
  same.uniform_(2.5, 2.5);
  for (double x : values(same)) EXPECT_EQ(x, 2.5);
}

TEST(Uniform, RandIsUniformZeroOneWithOptions) {
  EXPECT_EQ(at::rand({2, 3}).scalar_type(), at::kFloat);
  at::Tensor d = at::rand({4}, at::TensorOptions().dtype(at::kDouble));
  EXPECT_EQ(d.scalar_type(), at::kDouble);
  EXPECT_EQ(d.sizes(), c10::IntArrayRef({4}));
  at::Tensor like = at::rand_like(d);
  EXPECT_EQ(like.scalar_type(), at::kDouble);
  for (double x : values(like)) EXPECT_TRUE(x >= 0 && x < 1);
}

TEST(Normal, MomentsForEveryFloatingDtype) {
  for (auto dtype : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16}) {
    SCOPED_TRACE(c10::toString(dtype));
    const int64_t n = dtype == at::kFloat ? (1 << 20) : 200000;
    const double mean = 1.5, std = 2;
    at::Tensor t = at::empty({n}, dtype);
    t.normal_(mean, std, make_gen(200));
    const Moments m = moments(values(t));
    const double rounding = dtype == at::kBFloat16 ? 0.02 : dtype == at::kHalf ? 0.002 : 0;
    EXPECT_NEAR(m.mean, mean, kSigmas * std / std::sqrt(n) + rounding);
    EXPECT_NEAR(m.var, std * std, kSigmas * std * std * std::sqrt(2.0 / n) + 4 * rounding);
  }
}

TEST(Normal, TailsAreGaussian) {
  // P(|z| > 2) = 0.0455 and P(|z| > 3) = 0.0027 for a standard normal.
  constexpr int64_t n = 1 << 20;
  const auto v = values(at::randn({n}, make_gen(31)));
  double over2 = 0, over3 = 0;
  for (double x : v) {
    over2 += std::abs(x) > 2;
    over3 += std::abs(x) > 3;
  }
  auto check_rate = [](double count, double p) {
    EXPECT_NEAR(count / n, p, kSigmas * std::sqrt(p * (1 - p) / n));
  };
  check_rate(over2, 0.0455003);
  check_rate(over3, 0.0026998);
}

TEST(Normal, FunctionalOverloads) {
  // normal(Tensor mean, float std): per-element means.
  at::Tensor mean = at::zeros({2, 50000});
  mean.select(0, 1).fill_(100);
  at::Tensor a = at::normal(mean, 3.0, make_gen(1));
  EXPECT_EQ(a.sizes(), mean.sizes());
  const Moments a0 = moments(values(a.select(0, 0)));
  const Moments a1 = moments(values(a.select(0, 1)));
  EXPECT_NEAR(a0.mean, 0, kSigmas * 3 / std::sqrt(50000.0));
  EXPECT_NEAR(a1.mean, 100, kSigmas * 3 / std::sqrt(50000.0));
  EXPECT_NEAR(a1.var, 9, kSigmas * 9 * std::sqrt(2.0 / 50000));
  // normal(float mean, Tensor std) and normal(Tensor, Tensor) broadcast.
  at::Tensor std = at::full({50000, 2}, 0.5);
  std.select(1, 1).fill_(0);
  at::Tensor b = at::normal(7.0, std, make_gen(2));
  EXPECT_NEAR(moments(values(b.select(1, 0))).var, 0.25,
              kSigmas * 0.25 * std::sqrt(2.0 / 50000));
  for (double x : values(b.select(1, 1))) ASSERT_EQ(x, 7);
  at::Tensor c = at::normal(at::full({3, 1}, 10.0), at::zeros({4}), make_gen(3));
  EXPECT_EQ(c.sizes(), c10::IntArrayRef({3, 4}));
  for (double x : values(c)) ASSERT_EQ(x, 10);
  // normal(float, float, size) with options.
  at::Tensor d = at::normal(-1, 0.5, {100000}, make_gen(4), at::kDouble);
  EXPECT_EQ(d.scalar_type(), at::kDouble);
  EXPECT_NEAR(moments(values(d)).mean, -1, kSigmas * 0.5 / std::sqrt(100000.0));
  EXPECT_EQ(at::normal(0, 1, {3}).sizes(), c10::IntArrayRef({3}));
}

TEST(Normal, RandnAndLikes) {
  at::Tensor x = at::randn({3, 4}, at::kBFloat16);
  EXPECT_EQ(x.scalar_type(), at::kBFloat16);
  EXPECT_EQ(at::randn_like(x).scalar_type(), at::kBFloat16);
  at::Tensor out = at::empty({0}, at::kDouble);
  at::randn_out(out, {5, 2}, make_gen(6));
  EXPECT_EQ(out.sizes(), c10::IntArrayRef({5, 2}));
  EXPECT_TRUE(same_bits(out, at::randn({5, 2}, make_gen(6), at::kDouble)));
  at::Tensor r = at::empty({0});
  at::rand_out(r, {7});
  EXPECT_EQ(r.numel(), 7);
}

TEST(Randint, RangeAndUniformCountsForIntegralDtypes) {
  for (auto dtype : {at::kLong, at::kInt, at::kShort, at::kChar, at::kByte}) {
    SCOPED_TRACE(c10::toString(dtype));
    const int64_t low = dtype == at::kByte ? 3 : -7, high = 13;
    const int64_t n = 300000;
    at::Tensor t = at::randint(low, high, {n}, make_gen(300),
                               at::TensorOptions().dtype(dtype));
    EXPECT_EQ(t.scalar_type(), dtype);
    std::vector<double> counts(static_cast<size_t>(high - low), 0);
    for (double x : values(t)) {
      ASSERT_TRUE(x >= low && x < high && x == std::floor(x)) << x;
      counts[static_cast<size_t>(x - low)] += 1;
    }
    const double p = 1.0 / static_cast<double>(high - low);
    for (double c : counts) EXPECT_NEAR(c, n * p, kSigmas * std::sqrt(n * p * (1 - p)));
  }
}

TEST(Randint, DefaultsToLongAndCoversWideRanges) {
  at::Tensor t = at::randint(10, {1000});
  EXPECT_EQ(t.scalar_type(), at::kLong);
  for (double x : values(t)) ASSERT_TRUE(x >= 0 && x < 10);
  // A range above 2^32 takes two words per element.
  const int64_t low = -(int64_t{1} << 40), high = int64_t{1} << 41;
  at::Tensor wide = at::randint(low, high, {200000}, make_gen(5));
  std::vector<double> v;
  for (int64_t x : std::vector<int64_t>(static_cast<int64_t*>(wide.data_ptr()),
                                        static_cast<int64_t*>(wide.data_ptr()) + 200000)) {
    ASSERT_TRUE(x >= low && x < high);
    v.push_back(static_cast<double>(x));
  }
  const double w = static_cast<double>(high - low);
  EXPECT_NEAR(moments(v).mean, (static_cast<double>(low) + high) / 2,
              kSigmas * w / std::sqrt(12.0 * 200000));
  // Floating and Bool dtypes hold integers too.
  for (double x : values(at::randint(-4, 4, {1000}, at::kHalf))) {
    ASSERT_TRUE(x >= -4 && x < 4 && x == std::floor(x));
  }
  const auto b = values(at::randint(0, 2, {1000}, at::kBool));
  EXPECT_GT(std::count(b.begin(), b.end(), 1.0), 400);
  EXPECT_GT(std::count(b.begin(), b.end(), 0.0), 400);
  at::Tensor like = at::randint_like(at::zeros({3, 3}, at::kInt), 5, 9);
  EXPECT_EQ(like.scalar_type(), at::kInt);
  for (double x : values(like)) ASSERT_TRUE(x >= 5 && x < 9);
  for (double x : values(at::randint_like(at::zeros({4}), 3))) ASSERT_TRUE(x >= 0 && x < 3);
  at::Tensor out = at::empty({0}, at::kShort);
  at::randint_out(out, 2, 6, {4, 4}, make_gen(1));
  EXPECT_EQ(out.sizes(), c10::IntArrayRef({4, 4}));
  EXPECT_TRUE(same_bits(out, at::randint(2, 6, {4, 4}, make_gen(1), at::kShort)));
}

TEST(Random, InPlaceVariantsCoverTheirRanges) {
  at::Tensor bytes = at::empty({100000}, at::kByte);
  bytes.random_(make_gen(1));
  auto v = values(bytes);
  EXPECT_EQ(*std::min_element(v.begin(), v.end()), 0);
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 255);
  at::Tensor f = at::empty({100000});
  f.random_(make_gen(2));
  v = values(f);
  EXPECT_GE(*std::min_element(v.begin(), v.end()), 0);
  EXPECT_LE(*std::max_element(v.begin(), v.end()), 1 << 24);
  EXPECT_GT(*std::max_element(v.begin(), v.end()), (1 << 24) * 0.99);
  at::Tensor to = at::empty({1000}, at::kInt);
  to.random_(5);
  for (double x : values(to)) ASSERT_TRUE(x >= 0 && x < 5);
  at::Tensor from = at::empty({1000}, at::kChar);
  from.random_(-100, std::optional<int64_t>());
  for (double x : values(from)) ASSERT_TRUE(x >= -100 && x <= 127);
  at::Tensor longs = at::empty({1000}, at::kLong);
  longs.random_(std::numeric_limits<int64_t>::min(), std::optional<int64_t>());  // 2^64 values
  v = values(longs);
  EXPECT_LT(*std::min_element(v.begin(), v.end()), -1e18);
  EXPECT_GT(*std::max_element(v.begin(), v.end()), 1e18);
}

TEST(Randperm, IsAPermutationForEachDtype) {
  for (auto dtype : {at::kLong, at::kInt, at::kFloat, at::kDouble, at::kShort}) {
    SCOPED_TRACE(c10::toString(dtype));
    at::Tensor p = at::randperm(1000, make_gen(7), dtype);
    EXPECT_EQ(p.scalar_type(), dtype);
    auto v = values(p);
    std::sort(v.begin(), v.end());
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(v[i], i);
  }
  EXPECT_EQ(at::randperm(5).scalar_type(), at::kLong);
  EXPECT_EQ(at::randperm(0).numel(), 0);
  EXPECT_EQ(values(at::randperm(1)), std::vector<double>{0});
  EXPECT_FALSE(same_bits(at::randperm(100, make_gen(1)), at::randperm(100, make_gen(2))));
  at::Tensor out = at::empty({3}, at::kInt);
  at::randperm_out(out, 10);
  EXPECT_EQ(out.numel(), 10);
}

TEST(Randperm, EveryElementLandsEverywhereEvenly) {
  // Over many permutations of 4, each value sits at each position 1/4 of
  // the time (an off-by-one Fisher-Yates fails this).
  constexpr int kTrials = 40000;
  at::Generator g = make_gen(3);
  std::vector<double> at0(4, 0);
  for (int t = 0; t < kTrials; ++t) at0[values(at::randperm(4, g))[0]] += 1;
  for (double c : at0) EXPECT_NEAR(c, kTrials / 4.0, kSigmas * std::sqrt(kTrials * 3.0 / 16));
}

TEST(Bernoulli, RatesForFloatAndTensorProbabilities) {
  constexpr int64_t n = 1 << 20;
  for (double p : {0.3, 0.001}) {
    at::Tensor t = at::empty({n}, at::kFloat);
    t.bernoulli_(p, make_gen(400));
    const auto v = values(t);
    const double ones = static_cast<double>(std::count(v.begin(), v.end(), 1.0));
    EXPECT_EQ(ones + static_cast<double>(std::count(v.begin(), v.end(), 0.0)), n);
    EXPECT_NEAR(ones / n, p, kSigmas * std::sqrt(p * (1 - p) / n));
  }
  for (double x : values(at::empty({1000}, at::kBool).bernoulli_(0.0))) ASSERT_EQ(x, 0);
  for (double x : values(at::empty({1000}, at::kInt).bernoulli_(1.0))) ASSERT_EQ(x, 1);
  // A probability per column, broadcast over rows.
  at::Tensor probs = at::zeros({3});
  probs.select(0, 1).fill_(1);
  probs.select(0, 2).fill_(0.25);
  at::Tensor t = at::empty({200000, 3}, at::kDouble);
  t.bernoulli_(probs, make_gen(5));
  for (double x : values(t.select(1, 0))) ASSERT_EQ(x, 0);
  for (double x : values(t.select(1, 1))) ASSERT_EQ(x, 1);
  EXPECT_NEAR(moments(values(t.select(1, 2))).mean, 0.25,
              kSigmas * std::sqrt(0.25 * 0.75 / 200000));
  // Functional forms: the input is the probability, or p is given.
  at::Tensor half = at::full({100000}, 0.5, at::kHalf);
  at::Tensor b = at::bernoulli(half, make_gen(6));
  EXPECT_EQ(b.scalar_type(), at::kHalf);
  EXPECT_NEAR(moments(values(b)).mean, 0.5, kSigmas * 0.5 / std::sqrt(100000.0));
  at::Tensor c = at::bernoulli(at::zeros({100000}, at::kDouble), 0.9);
  EXPECT_EQ(c.scalar_type(), at::kDouble);
  EXPECT_NEAR(moments(values(c)).mean, 0.9, kSigmas * 0.3 / std::sqrt(100000.0));
  EXPECT_TRUE(same_bits(at::bernoulli(half, make_gen(6)), b));
}

// ---- dropout ----------------------------------------------------------------------------------

TEST(Dropout, NativeDropoutScalesKeptElementsAndReturnsABoolMask) {
  for (auto dtype : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16}) {
    SCOPED_TRACE(c10::toString(dtype));
    const int64_t n = 200000;
    at::Tensor x = at::empty({n / 100, 100}, dtype).uniform_(1, 2, make_gen(1));
    const double p = 0.2;
    at::manual_seed(10);
    auto [out, mask] = at::native_dropout(x, p, true);
    EXPECT_EQ(mask.scalar_type(), at::kBool);
    EXPECT_EQ(out.scalar_type(), dtype);
    EXPECT_EQ(out.sizes(), x.sizes());
    const auto vx = values(x), vo = values(out), vm = values(mask);
    const double scale = 1 / (1 - p);
    const double tol = dtype == at::kBFloat16 ? 2e-2 : dtype == at::kHalf ? 2e-3 : 1e-6;
    double kept = 0;
    for (int64_t i = 0; i < n; ++i) {
      kept += vm[i];
      ASSERT_NEAR(vo[i], vm[i] * vx[i] * scale, tol * 3) << i;
    }
    EXPECT_NEAR(kept / n, 1 - p, kSigmas * std::sqrt(p * (1 - p) / n));
    // The backward multiplies by the same mask and scale.
    at::Tensor g = at::ones_like(x);
    at::Tensor gx = at::native_dropout_backward(g, mask, scale);
    const auto vg = values(gx);
    for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(vg[i], vm[i] * scale, tol * 2);
  }
}

TEST(Dropout, EvalModeAndExtremeProbabilities) {
  at::Tensor x = at::rand({4, 5});
  auto [out, mask] = at::native_dropout(x, 0.5, false);
  EXPECT_TRUE(same_bits(out, x));
  EXPECT_FALSE(out.is_same(x));
  for (double m : values(mask)) EXPECT_EQ(m, 1);
  auto [all, kept] = at::native_dropout(x, 0.0, true);
  EXPECT_TRUE(same_bits(all, x));
  auto [none, dropped] = at::native_dropout(x, 1.0, std::nullopt);
  for (double v : values(none)) EXPECT_EQ(v, 0);
  for (double m : values(dropped)) EXPECT_EQ(m, 0);
  // dropout returns its input when nothing is dropped.
  EXPECT_TRUE(at::dropout(x, 0.5, false).is_same(x));
  EXPECT_TRUE(at::dropout(x, 0.0, true).is_same(x));
  for (double v : values(at::dropout(x, 1.0, true))) EXPECT_EQ(v, 0);
  // Non-contiguous input, and the same numbers as native_dropout.
  at::Tensor xt = x.t();
  at::manual_seed(4);
  at::Tensor d = at::dropout(xt, 0.5, true);
  at::manual_seed(4);
  EXPECT_TRUE(same_bits(d, std::get<0>(at::native_dropout(xt.contiguous(), 0.5, true))));
  at::Tensor y = x.clone();
  at::manual_seed(4);
  at::dropout_(y, 0.5, true);
  at::manual_seed(4);
  EXPECT_TRUE(same_bits(y, at::dropout(x, 0.5, true)));
  auto [empty_out, empty_mask] = at::native_dropout(at::empty({0, 3}), 0.5, true);
  EXPECT_EQ(empty_out.sizes(), c10::IntArrayRef({0, 3}));
  EXPECT_EQ(empty_mask.scalar_type(), at::kBool);
}

// ---- errors -------------------------------------------------------------------------------------

TEST(RandomErrors, MessagesSayWhatWasExpected) {
  at::Tensor f = at::empty({3});
  EXPECT_THAT(errorOf([&] { f.uniform_(1, 0); }),
              HasSubstr("uniform_: expects to return a [from, to) range, but found "
                        "from=1 > to=0"));
  EXPECT_THAT(errorOf([&] { f.uniform_(0, INFINITY); }),
              HasSubstr("uniform_: expects finite bounds"));
  EXPECT_THAT(errorOf([&] { at::empty({3}, at::kHalf).uniform_(-60000, 60000); }),
              HasSubstr("uniform_: expects to - from <= 65504"));
  EXPECT_THAT(errorOf([&] { at::empty({3}, at::kLong).uniform_(0, 1); }),
              HasSubstr("uniform_: the CPU kernel is not implemented for dtype Long"));
  EXPECT_THAT(errorOf([&] { f.normal_(0, -1); }),
              HasSubstr("normal_: expects std >= 0.0, but found std -1"));
  EXPECT_THAT(errorOf([&] { at::empty({3}, at::kInt).normal_(); }),
              HasSubstr("normal_: the CPU kernel is not implemented for dtype Int"));
  EXPECT_THAT(errorOf([&] { at::normal(at::zeros({2}), -2.0); }),
              HasSubstr("normal: expects std >= 0.0, but found std -2"));
  EXPECT_THAT(errorOf([&] { at::normal(0.0, at::full({2}, -1.0)); }),
              HasSubstr("normal: expects all elements of std >= 0.0"));
  EXPECT_THAT(errorOf([&] { at::normal(at::zeros({2}), at::ones({3})); }),
              HasSubstr("normal: mean of shape [2] and std of shape [3] cannot be "
                        "broadcast"));
  EXPECT_THAT(errorOf([&] { f.bernoulli_(1.5); }),
              HasSubstr("bernoulli_: expects p to be in [0, 1], but got p=1.5"));
  EXPECT_THAT(errorOf([&] { f.bernoulli_(-0.1); }),
              HasSubstr("bernoulli_: expects p to be in [0, 1], but got p=-0.1"));
  EXPECT_THAT(errorOf([&] { at::bernoulli(at::full({2}, 2.0)); }),
              HasSubstr("bernoulli_: expects every probability in p to be in [0, 1], "
                        "but found 2"));
  EXPECT_THAT(errorOf([&] { f.bernoulli_(at::full({2}, 0.5)); }),
              HasSubstr("bernoulli_: p of shape [2] cannot be broadcast to self's "
                        "shape [3]"));
  EXPECT_THAT(errorOf([&] { f.bernoulli_(at::ones({3}, at::kLong)); }),
              HasSubstr("bernoulli_: expects p of a floating dtype, but got Long"));
  EXPECT_THAT(errorOf([&] { at::randint(5, 5, {3}); }),
              HasSubstr("randint: expects low < high, but got low=5 and high=5"));
  EXPECT_THAT(errorOf([&] { at::randint(0, {3}); }),
              HasSubstr("randint: expects low < high, but got low=0 and high=0"));
  EXPECT_THAT(errorOf([&] { at::randint(0, 300, {3}, at::kByte); }),
              HasSubstr("random_: the range [0, 300) does not fit dtype Byte, which "
                        "holds the integers [0, 255]"));
  EXPECT_THAT(errorOf([&] { at::randint(-5, 5, {3}, at::kHalf).random_(0, 5000); }),
              HasSubstr("does not fit dtype Half"));
  EXPECT_THAT(errorOf([&] { at::empty({3}, at::kLong).random_(4, 2); }),
              HasSubstr("random_: expects 'from' to be less than 'to', but got "
                        "from=4 >= to=2"));
  EXPECT_THAT(errorOf([&] { at::empty({3}, at::kByte).random_(300, std::optional<int64_t>()); }),
              HasSubstr("random_: expects 'from' to be at most 255"));
  EXPECT_THAT(errorOf([&] { at::randperm(-1); }),
              HasSubstr("randperm: n must be non-negative, but got n=-1"));
  EXPECT_THAT(errorOf([&] { at::randperm(300, at::kByte); }),
              HasSubstr("randperm: n=300 is too large for dtype Byte"));
  EXPECT_THAT(errorOf([&] { at::randperm(3, at::kBool); }),
              HasSubstr("randperm: dtype Bool cannot hold a permutation"));
  EXPECT_THAT(errorOf([&] { at::rand({-1}); }), HasSubstr("sizes must be non-negative"));
}

TEST(RandomErrors, DropoutProbabilityAndDtype) {
  at::Tensor x = at::rand({3});
  EXPECT_THAT(errorOf([&] { at::dropout(x, 1.5, true); }),
              HasSubstr("dropout: dropout probability has to be between 0 and 1, "
                        "but got 1.5"));
  EXPECT_THAT(errorOf([&] { at::dropout(x, -0.5, false); }),
              HasSubstr("dropout: dropout probability has to be between 0 and 1"));
  EXPECT_THAT(errorOf([&] { at::dropout_(x, 2, true); }),
              HasSubstr("dropout_: dropout probability has to be between 0 and 1"));
  EXPECT_THAT(errorOf([&] { at::native_dropout(x, -1, true); }),
              HasSubstr("native_dropout: dropout probability has to be between 0 "
                        "and 1, but got p=-1"));
  EXPECT_THAT(errorOf([&] { at::native_dropout(at::ones({3}, at::kLong), 0.5, true); }),
              HasSubstr("native_dropout: expects a floating-point input, but got "
                        "dtype Long"));
  EXPECT_THAT(errorOf([&] { at::native_dropout_backward(x, at::ones({3}), 2.0); }),
              HasSubstr("native_dropout_backward: expects a Bool mask"));
}

}  // namespace
