// The CPU generator and the random ops: the Philox stream against Random123's
// known answers and a serial recomputation, reproducibility (seeds, states,
// thread counts), statistics with bounds of several standard errors, ranges,
// and every error path.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <set>
#include <thread>
#include <vector>

#include <torch/torch.h>

#include "aten/PhiloxRNG.h"
#include "tests/ops/conformance.h"

namespace {

using ember_conformance::errorOf;
using ember_conformance::HasSubstr;

template <typename T>
std::vector<double> convert_all(const at::Tensor& c) {
  const T* p = static_cast<const T*>(c.data_ptr());
  std::vector<double> out(static_cast<size_t>(c.numel()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(static_cast<float>(p[i]));
  return out;
}

// Elements of a CPU tensor as doubles, row-major (large tensors read
// directly, which keeps the statistical tests fast under sanitizers).
std::vector<double> values(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  switch (c.scalar_type()) {
    case at::kFloat: return convert_all<float>(c);
    case at::kHalf: return convert_all<c10::Half>(c);
    case at::kBFloat16: return convert_all<c10::BFloat16>(c);
    default: return ember_conformance::to_ref(t).v;
  }
}

struct Moments {
  double mean;
  double var;
};

Moments moments(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  double sq = 0;
  for (double x : v) sq += (x - mean) * (x - mean);
  return {mean, sq / static_cast<double>(v.size() - 1)};
}

uint64_t offset_of(const at::Generator& g) {
  std::lock_guard<std::mutex> lock(g.mutex());
  return g.get<at::CPUGeneratorImpl>()->get_offset();
}

at::Generator make_gen(uint64_t seed) {
  return at::make_generator<at::CPUGeneratorImpl>(seed);
}

// Same shape, dtype and bytes (both read contiguously).
bool same_bits(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  const at::Tensor ca = a.contiguous();
  const at::Tensor cb = b.contiguous();
  return std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0;
}

// ---- Philox --------------------------------------------------------------------------

// Random123's known-answer vectors for philox4x32_10 (kat_vectors).
TEST(Philox, MatchesRandom123KnownAnswers) {
  EXPECT_EQ(at::philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (at::PhiloxBlock{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(at::philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                              {0xffffffffu, 0xffffffffu}),
            (at::PhiloxBlock{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(at::philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                              {0xa4093822u, 0x299f31d0u}),
            (at::PhiloxBlock{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

// ---- the generator ---------------------------------------------------------------------

TEST(CPUGenerator, SeedsAndReportsItsSeed) {
  at::Generator g = make_gen(123);
  std::lock_guard<std::mutex> lock(g.mutex());
  EXPECT_EQ(g.current_seed(), 123u);
  g.set_current_seed(7);
  EXPECT_EQ(g.current_seed(), 7u);
  const uint64_t s = g.seed();
  EXPECT_EQ(g.current_seed(), s);
  EXPECT_EQ(g.device(), c10::Device(c10::kCPU));
}

TEST(CPUGenerator, DefaultGeneratorIsSharedAndSeededByManualSeed) {
  const at::Generator& d = at::detail::getDefaultCPUGenerator();
  EXPECT_EQ(d, at::detail::getDefaultCPUGenerator());
  at::manual_seed(99);
  {
    std::lock_guard<std::mutex> lock(d.mutex());
    EXPECT_EQ(d.current_seed(), 99u);
  }
  EXPECT_EQ(offset_of(d), 0u);
  at::Tensor a = at::rand({10});
  EXPECT_EQ(offset_of(d), 3u);  // 10 words = 3 blocks
  torch::manual_seed(99);
  EXPECT_EQ(offset_of(d), 0u);
  EXPECT_TRUE(same_bits(a, at::rand({10})));
}

TEST(CPUGenerator, SameSeedSameStreamDifferentSeedDifferentStream) {
  at::Tensor a = at::randn({1000}, make_gen(5));
  at::Tensor b = at::randn({1000}, make_gen(5));
  at::Tensor c = at::randn({1000}, make_gen(6));
  EXPECT_TRUE(same_bits(a, b));
  const auto va = values(a);
  const auto vc = values(c);
  int64_t equal = 0;
  for (size_t i = 0; i < va.size(); ++i) equal += va[i] == vc[i];
  EXPECT_EQ(equal, 0);
  // Consecutive draws continue the stream instead of repeating it.
  at::Generator g = make_gen(5);
  at::Tensor first = at::randn({1000}, g);
  at::Tensor second = at::randn({1000}, g);
  EXPECT_TRUE(same_bits(first, a));
  EXPECT_FALSE(same_bits(first, second));
}

TEST(CPUGenerator, ExplicitGeneratorLeavesTheDefaultAlone) {
  at::manual_seed(3);
  at::Generator g = make_gen(3);
  at::Tensor from_g = at::rand({7}, g);
  EXPECT_EQ(offset_of(at::detail::getDefaultCPUGenerator()), 0u);
  EXPECT_TRUE(same_bits(from_g, at::rand({7})));
}

TEST(CPUGenerator, StateRoundTripsAndRestoresTheStream) {
  at::Generator g = make_gen(2024);
  at::rand({5}, g);
  at::Tensor state;
  {
    std::lock_guard<std::mutex> lock(g.mutex());
    state = g.get_state();
  }
  EXPECT_EQ(state.scalar_type(), c10::kByte);
  EXPECT_EQ(state.numel(), 16);
  at::Tensor x = at::randn({33}, g);
  at::Tensor y = at::randint(0, 1000, {9}, g);
  {
    std::lock_guard<std::mutex> lock(g.mutex());
    g.set_state(state);
  }
  EXPECT_TRUE(same_bits(x, at::randn({33}, g)));
  EXPECT_TRUE(same_bits(y, at::randint(0, 1000, {9}, g)));
  // The state lays out seed then offset, little-endian.
  const auto bytes = values(state);
  EXPECT_EQ(bytes[0], 2024 & 0xFF);
  EXPECT_EQ(bytes[1], 2024 >> 8);
  EXPECT_EQ(bytes[8], 2);  // rand({5}) took 2 blocks
  // A state applies to another generator too.
  at::Generator h = make_gen(1);
  {
    std::lock_guard<std::mutex> lock(h.mutex());
    h.set_state(state);
    EXPECT_EQ(h.current_seed(), 2024u);
  }
  EXPECT_TRUE(same_bits(x, at::randn({33}, h)));
}

TEST(CPUGenerator, SetStateRefusesForeignStates) {
  at::Generator g = make_gen(1);
  std::lock_guard<std::mutex> lock(g.mutex());
  EXPECT_THAT(errorOf([&] { g.set_state(at::zeros({16}, at::kFloat)); }),
              HasSubstr("expected a CPU tensor of dtype Byte"));
  EXPECT_THAT(errorOf([&] { g.set_state(at::zeros({5056}, at::kByte)); }),
              HasSubstr("expected a contiguous state of 16 bytes"));
  EXPECT_THAT(errorOf([&] { g.set_state(at::Tensor()); }),
              HasSubstr("the state tensor is undefined"));
}

TEST(CPUGenerator, CloneCopiesTheStateNotTheEngine) {
  at::Generator g = make_gen(77);
  at::rand({3}, g);
  at::Generator c;
  {
    std::lock_guard<std::mutex> lock(g.mutex());
    c = g.clone();
  }
  EXPECT_NE(c, g);
  EXPECT_TRUE(same_bits(at::rand({11}, g), at::rand({11}, c)));
}

TEST(CPUGenerator, ConcurrentDrawsReserveDisjointRanges) {
  at::Generator g = make_gen(8);
  constexpr int kThreads = 4;
  constexpr int kDraws = 200;
  std::vector<std::vector<double>> firsts(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kDraws; ++i) {
        firsts[t].push_back(values(at::rand({8}, g))[0]);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(offset_of(g), static_cast<uint64_t>(kThreads * kDraws * 2));
  std::set<double> distinct;
  for (const auto& f : firsts) distinct.insert(f.begin(), f.end());
  // 800 draws from 2^24 values: a repeat would be a 2% event; with disjoint
  // ranges there is almost surely none, with a shared range there would be
  // hundreds.
  EXPECT_GT(distinct.size(), static_cast<size_t>(kThreads * kDraws - 3));
}

TEST(CPUGenerator, WrongGeneratorTypeIsRefused) {
  struct OtherGenerator : c10::GeneratorImpl {
    OtherGenerator()
        : GeneratorImpl(c10::Device(c10::kCPU),
                        c10::DispatchKeySet(c10::DispatchKey::CPU)) {}
    void set_current_seed(uint64_t) override {}
    uint64_t current_seed() const override { return 0; }
    uint64_t seed() override { return 0; }
  };
  at::Generator other = at::make_generator<OtherGenerator>();
  EXPECT_THAT(errorOf([&] { at::rand({2}, other); }),
              HasSubstr("not the requested at::CPUGeneratorImpl"));
  std::lock_guard<std::mutex> lock(other.mutex());
  EXPECT_THAT(errorOf([&] { other.get_state(); }),
              HasSubstr("cannot save its state"));
}

// ---- the stream definition -------------------------------------------------------------

// Every element recomputed serially from Note [Ember's CPU random stream];
// 1M elements take the kernels' parallel path.
TEST(RandomStream, RandFloatIsTheDocumentedStream) {
  constexpr int64_t n = 1 << 20;
  at::Generator g = make_gen(42);
  {
    std::lock_guard<std::mutex> lock(g.mutex());
    g.get<at::CPUGeneratorImpl>()->set_offset(1000);
  }
  const auto v = values(at::rand({n}, g));
  EXPECT_EQ(offset_of(g), 1000u + n / 4);
  for (int64_t i = 0; i < n; ++i) {
    const float expected =
        static_cast<float>(at::philox_stream_word(42, 1000, i) >> 8) * 0x1p-24f;
    ASSERT_EQ(v[i], expected) << "element " << i;
  }
}

TEST(RandomStream, RandDoubleUses53BitsFromTwoWords) {
  constexpr int64_t n = 100003;
  const auto v = values(at::rand({n}, make_gen(9), at::kDouble));
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t x = (static_cast<uint64_t>(at::philox_stream_word(9, 0, 2 * i)) << 32) |
                       at::philox_stream_word(9, 0, 2 * i + 1);
    ASSERT_EQ(v[i], static_cast<double>(x >> 11) * 0x1p-53) << "element " << i;
  }
}

TEST(RandomStream, RandnFloatIsBoxMullerOnWordPairs) {
  constexpr int64_t n = 200001;  // odd: the last pair's sine is unused
  at::Generator g = make_gen(11);
  const auto v = values(at::randn({n}, g));
  EXPECT_EQ(offset_of(g), static_cast<uint64_t>((n + 1) / 2 * 2 + 3) / 4);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t pair = i / 2;
    const uint32_t w0 = at::philox_stream_word(11, 0, 2 * pair);
    const uint32_t w1 = at::philox_stream_word(11, 0, 2 * pair + 1);
    const double u1 = (static_cast<double>(w0 >> 8) + 1) * 0x1p-24;
    const double u2 = static_cast<double>(w1 >> 8) * 0x1p-24;
    const double r = std::sqrt(-2 * std::log(u1));
    const double theta = 2 * M_PI * u2;
    const double expected = i % 2 == 0 ? r * std::cos(theta) : r * std::sin(theta);
    ASSERT_NEAR(v[i], expected, 2e-5 * (1 + std::abs(expected))) << "element " << i;
  }
}

// Results depend on the element index only: one thread and two threads
// give the same bits. libgomp is already loaded by the CPU plugin.
TEST(RandomStream, SameValuesOnOneAndTwoThreads) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "libgomp is not TSan-instrumented, so a two-thread OpenMP team reports "
                  "false races; the default (uninstrumented) run covers this test.";
#endif
  at::rand({1});  // loads the plugin, and with it libgomp
  void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(gomp, nullptr) << "libgomp is not loaded: " << dlerror();
  auto set_threads = reinterpret_cast<void (*)(int)>(dlsym(gomp, "omp_set_num_threads"));
  auto get_threads = reinterpret_cast<int (*)()>(dlsym(gomp, "omp_get_max_threads"));
  ASSERT_NE(set_threads, nullptr);
  ASSERT_NE(get_threads, nullptr);
  const int saved = get_threads();
  // 2^18 elements: well above the parallel grain (32768).
  constexpr int64_t n = 1 << 18;
  auto draw = [](int threads_wanted, void (*set)(int)) {
    set(threads_wanted);
    std::vector<at::Tensor> r;
    r.push_back(at::rand({n}, make_gen(1)));
    r.push_back(at::randn({n}, make_gen(2), at::kDouble));
    r.push_back(at::randn({n + 1}, make_gen(2), at::kFloat));
    r.push_back(at::randint(-5, 1000000, {n}, make_gen(3)));
    r.push_back(at::empty({n}, at::kFloat).bernoulli_(0.3, make_gen(4)));
    r.push_back(at::empty({n}, at::kHalf).uniform_(-2, 2, make_gen(5)));
    at::manual_seed(6);
    r.push_back(std::get<1>(at::native_dropout(at::ones({n}), 0.5, true)));
    return r;
  };
  const auto one = draw(1, set_threads);
  const auto two = draw(2, set_threads);
  ASSERT_EQ(get_threads(), 2);
  set_threads(saved);
  for (size_t k = 0; k < one.size(); ++k) {
    EXPECT_TRUE(same_bits(one[k], two[k])) << "draw " << k;
  }
  dlclose(gomp);
}

// A non-contiguous tensor gets the values of its elements in row-major
// order, as a contiguous one would.
TEST(RandomStream, LayoutDoesNotChangeTheValues) {
  at::Tensor t = at::empty({4, 5}).t();  // [5, 4], column-major
  t.uniform_(0, 1, make_gen(17));
  EXPECT_TRUE(same_bits(t.contiguous(), at::rand({5, 4}, make_gen(17))));
  at::Tensor base = at::zeros({6, 8});
  at::Tensor sliced = base.slice(1, 0, 8, 2);  // [6, 4], stride 2
  sliced.normal_(0, 1, make_gen(18));
  EXPECT_TRUE(same_bits(sliced.contiguous(), at::randn({6, 4}, make_gen(18))));
  // The skipped columns are untouched.
  for (double x : values(base.slice(1, 1, 8, 2))) EXPECT_EQ(x, 0);
}

TEST(RandomStream, ZeroSizeDrawsNothingAndZeroDimDrawsOne) {
  at::Generator g = make_gen(1);
  EXPECT_EQ(at::rand({0, 3}, g).numel(), 0);
  EXPECT_EQ(at::randn({0}, g).numel(), 0);
  EXPECT_EQ(offset_of(g), 0u);
  at::Tensor s = at::rand({}, g);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(offset_of(g), 1u);
  const double x = s.item<float>();
  EXPECT_TRUE(x >= 0 && x < 1);
}

}  // namespace

namespace {

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
