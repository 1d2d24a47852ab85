// The CUDA random kernels' blocks (backends/cuda/kernels/random_ops.cuh) run
// on the host over every block of a result, with the launch parameters the
// CUDA host code passes (random::*_args), against the CPU plugin's samplers
// given the same seed and offset: the same stream range reserved, and the
// same values bit for bit (Note [CUDA random numbers equal the CPU's]). The
// CPU plugin is its default build here (EMBER_CPU_CAPABILITY=default in the
// BUILD file): its AVX2/AVX-512 builds contract into FMAs, the GPU kernels
// (--fmad=false) and this host build do not.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

#include <ATen/ATen.h>

#include "aten/CPUGeneratorImpl.h"
#include "aten/FactoryChecks.h"
#include "aten/PhiloxRNG.h"
#include "aten/RandomChecks.h"
#include "c10/util/BFloat16.h"
#include "c10/util/Half.h"
#include "backends/cuda/kernels/random_ops.cuh"
#include "backends/cuda/kernels/range_ops.cuh"

namespace {

namespace k = ember::cuda::kernels;
namespace r = ember::cuda::kernels::random;
using c10::ScalarType;

constexpr uint64_t kSeeds[] = {0, 67280421310721ull, (1ull << 63) + 5};
constexpr uint64_t kOffsets[] = {0, 7, ~uint64_t{0} - 1};  // the last wraps
constexpr int64_t kSizes[] = {1, 2, 3, 4, 5, 7, 33, 1001};

k::Dtype kernel_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Float: return k::Dtype::kFloat;
    case ScalarType::Double: return k::Dtype::kDouble;
    case ScalarType::Long: return k::Dtype::kLong;
    case ScalarType::Int: return k::Dtype::kInt;
    default: return k::Dtype::kBool;
  }
}

// What the kernel writes for `a`: random_block over every block, on the
// host, into a new CPU tensor of n elements.
at::Tensor run_blocks(k::RandomArgs a, ScalarType dtype, int64_t n, uint64_t seed,
                      uint64_t offset) {
  at::Tensor out = at::empty({n}, at::TensorOptions().dtype(dtype));
  a.dtype = kernel_dtype(dtype);
  a.n = n;
  a.seed = seed;
  a.offset = offset;
  a.out = out.data_ptr();
  for (int64_t b = 0; b < r::blocks_for(a); ++b) {
    switch (a.dtype) {
      case k::Dtype::kFloat: r::random_block<float>(a, b); break;
      case k::Dtype::kDouble: r::random_block<double>(a, b); break;
      case k::Dtype::kLong: r::random_block<int64_t>(a, b); break;
      case k::Dtype::kInt: r::random_block<int32_t>(a, b); break;
      case k::Dtype::kBool: r::random_block<bool>(a, b); break;
      default: ADD_FAILURE() << "the random kernels have the core five dtypes only"; return out;
    }
  }
  return out;
}

bool same_bits(const at::Tensor& a, const at::Tensor& b) {
  return a.scalar_type() == b.scalar_type() && a.numel() == b.numel() &&
         std::memcmp(a.data_ptr(), b.data_ptr(), static_cast<size_t>(a.nbytes())) == 0;
}

// The CPU op `sample(t, g)` on a fresh tensor from a generator at (seed,
// offset), against the blocks for `a`: same values, same blocks reserved.
template <typename Sample>
void expect_cpu_equal(const char* what, const k::RandomArgs& a, ScalarType dtype,
                      Sample&& sample) {
  for (uint64_t seed : kSeeds) {
    for (uint64_t offset : kOffsets) {
      for (int64_t n : kSizes) {
        SCOPED_TRACE(::testing::Message() << what << " " << dtype << " seed " << seed
                                          << " offset " << offset << " n " << n);
        at::Generator g = at::make_generator<at::CPUGeneratorImpl>(seed);
        g.get<at::CPUGeneratorImpl>()->set_offset(offset);
        at::Tensor cpu = at::empty({n}, at::TensorOptions().dtype(dtype));
        sample(cpu, g);
        const at::Tensor host = run_blocks(a, dtype, n, seed, offset);
        EXPECT_TRUE(same_bits(host, cpu)) << "blocks:\n" << host << "\nCPU:\n" << cpu;
        k::RandomArgs sized = a;
        sized.dtype = kernel_dtype(dtype);
        sized.n = n;
        EXPECT_EQ(g.get<at::CPUGeneratorImpl>()->get_offset() - offset,
                  static_cast<uint64_t>(r::blocks_for(sized)));
      }
    }
  }
}

TEST(RandomBlocks, PhiloxIsTheCoresPhilox) {
  for (uint64_t seed : kSeeds) {
    for (uint64_t counter : {uint64_t{0}, uint64_t{1}, uint64_t{1} << 32, ~uint64_t{0}}) {
      uint32_t w[4];
      r::philox_block(seed, counter, w);
      const at::PhiloxBlock want = at::philox_stream_block(seed, counter, 0);
      for (int j = 0; j < 4; ++j) EXPECT_EQ(w[j], want[static_cast<size_t>(j)]);
    }
  }
}

TEST(RandomBlocks, UniformIsTheCpus) {
  for (ScalarType dt : {ScalarType::Float, ScalarType::Double}) {
    const bool wide = dt == ScalarType::Double;
    for (const auto& [from, to] : std::vector<std::pair<double, double>>{
             {0, 1}, {-2.5, 3.25}, {5, 5}, {1e6, 1e6 + 1}, {-1e-3, 0}}) {
      expect_cpu_equal("uniform_", r::uniform_args(from, to, wide), dt,
                       [from = from, to = to](at::Tensor& t, at::Generator& g) {
                         t.uniform_(from, to, g);
                       });
    }
  }
  // A sample that rounds up to `to` is clamped below it: every value of a
  // range with few floats stays inside.
  const at::Tensor narrow =
      run_blocks(r::uniform_args(1.0, 1.0000001, false), ScalarType::Float, 4096, 1, 0);
  EXPECT_TRUE(narrow.lt(1.0000001).all().item<bool>());
}

TEST(RandomBlocks, NormalIsTheCpus) {
  for (ScalarType dt : {ScalarType::Float, ScalarType::Double}) {
    for (const auto& [mean, std] :
         std::vector<std::pair<double, double>>{{0, 1}, {3, 0.5}, {-1e4, 2}, {1, 0}}) {
      expect_cpu_equal("normal_", r::normal_args(mean, std), dt,
                       [mean = mean, std = std](at::Tensor& t, at::Generator& g) {
                         t.normal_(mean, std, g);
                       });
    }
  }
}

TEST(RandomBlocks, RandomIsTheCpus) {
  struct Case {
    ScalarType dtype;
    int64_t from;
    std::optional<int64_t> to;
  };
  const std::vector<Case> cases = {
      {ScalarType::Long, 0, 10},
      {ScalarType::Long, -5, int64_t{1} << 40},  // a range past 2^32: two words
      {ScalarType::Long, 0, std::nullopt},       // up to 2^63 - 1
      {ScalarType::Long, std::numeric_limits<int64_t>::lowest(), std::nullopt},  // 2^64
      {ScalarType::Int, -100, 100},
      {ScalarType::Int, 0, std::nullopt},
      {ScalarType::Bool, 0, std::nullopt},
      {ScalarType::Float, 0, std::nullopt},  // up to 2^24
      {ScalarType::Double, -7, 1000},
  };
  for (const Case& c : cases) {
    const at::native::RandomRange range = at::native::random_range(c.dtype, c.from, c.to);
    expect_cpu_equal("random_", r::random_args(range.from, range.range), c.dtype,
                     [&c](at::Tensor& t, at::Generator& g) { t.random_(c.from, c.to, g); });
  }
}

// Note [Random numbers of the other dtypes on CUDA] (random_ops.cc): a
// Half, BFloat16 or small-integer result is its carrier's blocks (Float or
// Long) converted, and for uniform_ clamped below `to` by
// at::native::largest_below: bit for bit the CPU's values, and the same
// number of blocks reserved.
TEST(RandomBlocks, OtherDtypesAreTheirCarriersConverted) {
  struct Case {
    const char* what;
    ScalarType dtype;
    k::RandomArgs args;  // built for the carrier
    std::function<void(at::Tensor&, at::Generator&)> cpu;
    double clamp_below_to;  // uniform_'s `to`, or NaN
  };
  const double none = std::numeric_limits<double>::quiet_NaN();
  std::vector<Case> cases;
  for (ScalarType dt : {ScalarType::Half, ScalarType::BFloat16}) {
    for (const auto& [from, to] : std::vector<std::pair<double, double>>{
             {0, 1}, {-2.5, 3.25}, {0, 0.3}, {1, 1.001}}) {
      cases.push_back({"uniform_", dt, r::uniform_args(from, to, false),
                       [from = from, to = to](at::Tensor& t, at::Generator& g) {
                         t.uniform_(from, to, g);
                       },
                       to});
    }
    cases.push_back({"normal_", dt, r::normal_args(1.5, 3),
                     [](at::Tensor& t, at::Generator& g) { t.normal_(1.5, 3, g); }, none});
    cases.push_back({"bernoulli_", dt, r::bernoulli_args(0.3),
                     [](at::Tensor& t, at::Generator& g) { t.bernoulli_(0.3, g); }, none});
  }
  for (ScalarType dt : {ScalarType::Half, ScalarType::BFloat16, ScalarType::Short,
                        ScalarType::Char, ScalarType::Byte}) {
    for (const auto& [from, to] : std::vector<std::pair<int64_t, std::optional<int64_t>>>{
             {0, std::nullopt}, {3, 90}}) {
      const at::native::RandomRange range = at::native::random_range(dt, from, to);
      cases.push_back({"random_", dt, r::random_args(range.from, range.range),
                       [from = from, to = to](at::Tensor& t, at::Generator& g) {
                         t.random_(from, to, g);
                       },
                       none});
    }
  }
  for (const Case& c : cases) {
    const ScalarType carrier =
        c10::isReducedFloatingType(c.dtype) ? ScalarType::Float : ScalarType::Long;
    for (uint64_t seed : kSeeds) {
      for (int64_t n : kSizes) {
        SCOPED_TRACE(::testing::Message() << c.what << " " << c.dtype << " seed " << seed
                                          << " n " << n);
        at::Generator g = at::make_generator<at::CPUGeneratorImpl>(seed);
        g.get<at::CPUGeneratorImpl>()->set_offset(7);
        at::Tensor cpu = at::empty({n}, at::TensorOptions().dtype(c.dtype));
        c.cpu(cpu, g);
        at::Tensor host = run_blocks(c.args, carrier, n, seed, 7).to(c.dtype);
        if (!std::isnan(c.clamp_below_to)) {
          host.clamp_max_(at::native::largest_below(c.dtype, c.clamp_below_to));
        }
        EXPECT_TRUE(same_bits(host, cpu)) << "blocks:\n" << host << "\nCPU:\n" << cpu;
        k::RandomArgs sized = c.args;
        sized.dtype = kernel_dtype(carrier);
        sized.n = n;
        EXPECT_EQ(g.get<at::CPUGeneratorImpl>()->get_offset() - 7,
                  static_cast<uint64_t>(r::blocks_for(sized)));
      }
    }
  }
}

// The next value of a floating dtype above v (which it holds).
double next_up(ScalarType dt, double v) {
  auto step = [](uint16_t b) -> uint16_t {
    if (b & 0x8000u) return (b & 0x7FFFu) == 0 ? uint16_t{1} : static_cast<uint16_t>(b - 1);
    return static_cast<uint16_t>(b + 1);
  };
  switch (dt) {
    case ScalarType::Double: return std::nextafter(v, INFINITY);
    case ScalarType::Float: return std::nextafter(static_cast<float>(v), INFINITY);
    case ScalarType::Half:
      return static_cast<float>(
          c10::Half(step(c10::Half(static_cast<float>(v)).x), c10::Half::from_bits()));
    default:
      return static_cast<float>(c10::BFloat16(step(c10::BFloat16(static_cast<float>(v)).x),
                                              c10::BFloat16::from_bits()));
  }
}

// largest_below: below `to`, held exactly, and the next value of the dtype
// up is not below `to`.
TEST(RandomBlocks, LargestBelowIsTheDtypesPredecessorOfTo) {
  for (ScalarType dt : {ScalarType::Half, ScalarType::BFloat16, ScalarType::Float,
                        ScalarType::Double}) {
    for (double to : {1.0, 0.3, -0.3, 1e-6, 0.0, 2048.5, 3.0}) {
      const double hi = at::native::largest_below(dt, to);
      EXPECT_LT(hi, to) << dt << " " << to;
      const at::Tensor t = at::full({1}, hi, at::TensorOptions().dtype(dt));
      EXPECT_EQ(t.item<double>(), hi) << dt << " " << to;  // exact in the dtype
      EXPECT_GE(next_up(dt, hi), to) << dt << " " << to;
    }
  }
}

TEST(RandomBlocks, BernoulliIsTheCpus) {
  for (ScalarType dt :
       {ScalarType::Float, ScalarType::Double, ScalarType::Long, ScalarType::Int, ScalarType::Bool}) {
    for (double p : {0.0, 0.3, 0.5, 1.0}) {
      expect_cpu_equal("bernoulli_", r::bernoulli_args(p), dt,
                       [p](at::Tensor& t, at::Generator& g) { t.bernoulli_(p, g); });
    }
  }
  // Per-element probabilities (the CUDA host code passes them as doubles).
  const at::Tensor probs = at::linspace(0, 1, 1001).to(at::kDouble);
  for (ScalarType dt : {ScalarType::Float, ScalarType::Bool}) {
    for (uint64_t seed : kSeeds) {
      at::Generator g = at::make_generator<at::CPUGeneratorImpl>(seed);
      at::Tensor cpu = at::empty({1001}, at::TensorOptions().dtype(dt));
      cpu.bernoulli_(probs, g);
      const at::Tensor host =
          run_blocks(r::bernoulli_tensor_args(probs.data_ptr<double>()), dt, 1001, seed, 0);
      EXPECT_TRUE(same_bits(host, cpu)) << dt << " seed " << seed;
    }
  }
}

TEST(RandomBlocks, DropoutIsTheCpus) {
  for (ScalarType dt : {ScalarType::Float, ScalarType::Double}) {
    for (double p : {0.0, 0.25, 0.9, 1.0}) {
      for (int64_t n : kSizes) {
        SCOPED_TRACE(::testing::Message() << dt << " p " << p << " n " << n);
        at::Tensor x = at::linspace(-3, 3, n).to(dt);
        x.select(0, 0).fill_(std::numeric_limits<double>::quiet_NaN());  // stays NaN if dropped
        at::manual_seed(11);
        at::detail::getDefaultCPUGenerator().get<at::CPUGeneratorImpl>()->set_offset(5);
        const auto [out, mask] = at::native_dropout(x, p, true);
        at::Tensor host_mask = at::empty({n}, at::TensorOptions().dtype(at::kBool));
        const at::Tensor host =
            run_blocks(r::dropout_args(p, x.data_ptr(), host_mask.data_ptr<bool>()), dt, n,
                       11, 5);
        EXPECT_TRUE(same_bits(host, out)) << host << "\n" << out;
        EXPECT_TRUE(same_bits(host_mask, mask)) << host_mask << "\n" << mask;
      }
    }
  }
}

// Dropout of Half and BFloat16: the Float blocks over the input in float,
// converted once (Note [Random numbers of the other dtypes on CUDA]): the
// CPU's output and mask bit for bit.
TEST(RandomBlocks, DropoutOfHalfIsItsFloatCarrierConverted) {
  for (ScalarType dt : {ScalarType::Half, ScalarType::BFloat16}) {
    for (double p : {0.25, 0.9}) {
      for (int64_t n : kSizes) {
        SCOPED_TRACE(::testing::Message() << dt << " p " << p << " n " << n);
        at::Tensor x = at::linspace(-3, 3, n).to(dt);
        x.select(0, 0).fill_(std::numeric_limits<double>::quiet_NaN());
        at::manual_seed(11);
        at::detail::getDefaultCPUGenerator().get<at::CPUGeneratorImpl>()->set_offset(5);
        const auto [out, mask] = at::native_dropout(x, p, true);
        const at::Tensor xf = x.to(ScalarType::Float).contiguous();
        at::Tensor host_mask = at::empty({n}, at::TensorOptions().dtype(at::kBool));
        const at::Tensor host =
            run_blocks(r::dropout_args(p, xf.data_ptr(), host_mask.data_ptr<bool>()),
                       ScalarType::Float, n, 11, 5)
                .to(dt);
        EXPECT_TRUE(same_bits(host, out)) << host << "\n" << out;
        EXPECT_TRUE(same_bits(host_mask, mask)) << host_mask << "\n" << mask;
      }
    }
  }
}

// arange and linspace: range_element over every element against the CPU's
// arange_out/linspace_out, bit for bit, with the parameters
// backends/cuda/range_ops.cc passes.
template <typename T>
at::Tensor run_range(k::RangeArgs a, ScalarType dtype, int64_t n) {
  at::Tensor out = at::empty({n}, at::TensorOptions().dtype(dtype));
  a.n = n;
  for (int64_t i = 0; i < n; ++i) out.data_ptr<T>()[i] = ember::cuda::kernels::range::range_element<T>(a, i);
  return out;
}

at::Tensor run_range_any(const k::RangeArgs& a, ScalarType dtype, int64_t n) {
  switch (dtype) {
    case ScalarType::Float: return run_range<float>(a, dtype, n);
    case ScalarType::Double: return run_range<double>(a, dtype, n);
    case ScalarType::Long: return run_range<int64_t>(a, dtype, n);
    default: return run_range<int32_t>(a, dtype, n);
  }
}

TEST(RangeElements, ArangeIsTheCpus) {
  struct Case {
    double start, end, step;
  };
  for (ScalarType dt : {ScalarType::Float, ScalarType::Double}) {
    for (const Case& c : std::vector<Case>{{0, 10, 1}, {-1, 1, 0.1}, {5, -3.3, -0.7},
                                           {1e6, 1e6 + 1, 1.0 / 3}}) {
      SCOPED_TRACE(::testing::Message() << dt << " " << c.start << " " << c.end << " " << c.step);
      at::Tensor cpu = at::empty({0}, at::TensorOptions().dtype(dt));
      at::arange_out(cpu, c.start, c.end, c.step);
      k::RangeArgs a;
      a.op = k::RangeOp::kArangeFloating;
      a.start = c.start;
      a.step = c.step;
      EXPECT_EQ(cpu.numel(), at::native::arange_length(c.start, c.end, c.step, dt));
      EXPECT_TRUE(same_bits(run_range_any(a, dt, cpu.numel()), cpu)) << cpu;
    }
  }
  for (ScalarType dt : {ScalarType::Long, ScalarType::Int}) {
    at::Tensor cpu = at::empty({0}, at::TensorOptions().dtype(dt));
    at::arange_out(cpu, -7, 100, 3);
    k::RangeArgs a;
    a.op = k::RangeOp::kArangeIntegral;
    a.first = static_cast<uint64_t>(int64_t{-7});
    a.delta = 3;
    EXPECT_TRUE(same_bits(run_range_any(a, dt, cpu.numel()), cpu)) << dt;
  }
}

TEST(RangeElements, LinspaceIsTheCpus) {
  for (ScalarType dt : {ScalarType::Float, ScalarType::Double, ScalarType::Long, ScalarType::Int}) {
    for (int64_t steps : {1, 2, 3, 10, 101}) {
      for (const auto& [start, end] :
           std::vector<std::pair<double, double>>{{0, 1}, {-3.5, 7.25}, {100, -100}, {1e7, 1e7 + 3}, {0.1, 0.7}}) {
        SCOPED_TRACE(::testing::Message() << dt << " steps " << steps << " " << start << " " << end);
        at::Tensor cpu = at::empty({0}, at::TensorOptions().dtype(dt));
        at::linspace_out(cpu, start, end, steps);
        k::RangeArgs a;
        a.op = k::RangeOp::kLinspace;
        // As range_ops.cc: the bounds converted to the dtype first.
        const bool integral = dt == ScalarType::Long || dt == ScalarType::Int;
        a.start = integral ? static_cast<double>(static_cast<int64_t>(start))
                  : dt == ScalarType::Float ? static_cast<double>(static_cast<float>(start)) : start;
        a.end = integral ? static_cast<double>(static_cast<int64_t>(end))
                : dt == ScalarType::Float ? static_cast<double>(static_cast<float>(end)) : end;
        EXPECT_TRUE(same_bits(run_range_any(a, dt, steps), cpu)) << cpu;
      }
    }
  }
}

// Broken on purpose, the comparison fails: a different offset gives other
// numbers (the test is not comparing a value with itself).
TEST(RandomBlocks, AnotherOffsetGivesOtherNumbers) {
  at::Generator g = at::make_generator<at::CPUGeneratorImpl>(3);
  at::Tensor cpu = at::empty({64});
  cpu.uniform_(0, 1, g);
  EXPECT_FALSE(same_bits(run_blocks(r::uniform_args(0, 1, false), ScalarType::Float, 64, 3, 1),
                         cpu));
  EXPECT_TRUE(same_bits(run_blocks(r::uniform_args(0, 1, false), ScalarType::Float, 64, 3, 0),
                        cpu));
}

// arange and linspace of Half, BFloat16 and the small integers: their
// carrier's elements (Float or Long, kernel_carrier), converted once, with
// linspace's ends converted to the dtype first as range_ops.cc's
// converted(): the CPU's values bit for bit.
TEST(RangeElements, OtherDtypesAreTheirCarriersConverted) {
  auto to_dtype = [](double v, ScalarType dt) -> double {
    switch (dt) {
      case ScalarType::Half: return static_cast<float>(c10::Half(static_cast<float>(v)));
      case ScalarType::BFloat16: return static_cast<float>(c10::BFloat16(static_cast<float>(v)));
      case ScalarType::Short: return static_cast<int16_t>(v);
      case ScalarType::Char: return static_cast<int8_t>(v);
      default: return static_cast<uint8_t>(v);
    }
  };
  for (ScalarType dt : {ScalarType::Half, ScalarType::BFloat16, ScalarType::Short,
                        ScalarType::Char, ScalarType::Byte}) {
    SCOPED_TRACE(::testing::Message() << dt);
    const bool floating = c10::isFloatingType(dt);
    const ScalarType carrier = floating ? ScalarType::Float : ScalarType::Long;
    at::Tensor cpu = at::empty({0}, at::TensorOptions().dtype(dt));
    k::RangeArgs a;
    if (floating) {
      at::arange_out(cpu, -1.3, 2.9, 0.1);
      a.op = k::RangeOp::kArangeFloating;
      a.start = -1.3;
      a.step = 0.1;
    } else {
      at::arange_out(cpu, 2, 100, 3);
      a.op = k::RangeOp::kArangeIntegral;
      a.first = 2;
      a.delta = 3;
    }
    EXPECT_TRUE(same_bits(run_range_any(a, carrier, cpu.numel()).to(dt), cpu)) << cpu;
    for (int64_t steps : {1, 2, 10, 101}) {
      SCOPED_TRACE(::testing::Message() << "linspace steps " << steps);
      at::linspace_out(cpu, 0.3, 97.7, steps);
      k::RangeArgs l;
      l.op = k::RangeOp::kLinspace;
      l.start = to_dtype(0.3, dt);
      l.end = to_dtype(97.7, dt);
      EXPECT_TRUE(same_bits(run_range_any(l, carrier, steps).to(dt), cpu)) << cpu;
    }
  }
}

}  // namespace
