// The CPU generator and its stream: Philox against Random123's known
// answers, seeds and states, and the documented stream recomputed serially
// (also across thread counts, strides and sizes).
#include "tests/ops/random_test_util.h"

namespace {

using namespace ember_random_test;

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
#if defined(__SANITIZE_ADDRESS__)
#define EMBER_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMBER_TEST_UNDER_ASAN 1
#endif
#endif
#if defined(EMBER_TEST_UNDER_ASAN)
  GTEST_SKIP() << "LeakSanitizer crashes at exit while libgomp's workers are parked "
                  "(.bazelrc's asan config asks for one OpenMP thread); the default run "
                  "covers this test.";
#endif
  // Through at::set_num_threads: the plugin applies that setting to OpenMP
  // before each parallel loop, so a program's own omp_set_num_threads would
  // not change the team (tests/aten/parallel_test.cc).
  const int saved = at::get_num_threads();
  // 2^18 elements: well above the parallel grain (32768).
  constexpr int64_t n = 1 << 18;
  auto draw = [](int threads) {
    at::set_num_threads(threads);
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
  const auto one = draw(1);
  const auto two = draw(2);
  ASSERT_EQ(at::get_num_threads(), 2);
  at::set_num_threads(saved);
  for (size_t k = 0; k < one.size(); ++k) {
    EXPECT_TRUE(same_bits(one[k], two[k])) << "draw " << k;
  }
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
