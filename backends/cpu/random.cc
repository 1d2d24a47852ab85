// The CPU plugin's samplers: uniform_, normal_, random_, bernoulli_ and
// randperm. Element i (row-major) uses fixed stream words (documented per
// op in docs/ops/random.md); See Note [Ember's CPU random stream].
#include "backends/cpu/random.h"

#include <cmath>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "aten/RandomChecks.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/random_engine.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

using random::parallel_range;

constexpr double kTwoPi = 6.283185307179586476925286766559;
constexpr double kTwo32 = 4294967296.0;

// Runs fill(T* data, int64_t n) over self's elements in row-major order; a
// non-contiguous self is filled through a contiguous temporary.
template <typename T, typename Fill>
void fill_row_major(const at::Tensor& self, Fill&& fill) {
  if (self.is_contiguous()) {
    fill(static_cast<T*>(self.data_ptr()), self.numel());
    return;
  }
  at::Tensor tmp = empty_cpu(self.sizes(), self.scalar_type());
  fill(static_cast<T*>(tmp.data_ptr()), tmp.numel());
  copy_into(self, tmp);
}

// The largest T below `to` (for clamping a uniform sample that rounded up
// to `to`): at::native::largest_below, exact in T.
template <typename T>
T largest_below(double to) {
  return static_cast<T>(at::native::largest_below(c10::CppTypeToScalarType<T>::value, to));
}

// ---- uniform_ ---------------------------------------------------------------------

template <typename T>
void uniform_fill(T* out, int64_t n, double from, double to,
                  const at::PhiloxCpuState& s) {
  if constexpr (std::is_same_v<T, double>) {
    const double range = to - from;
    const double hi = from == to ? from : largest_below<double>(to);
    parallel_range(n, [&](int64_t begin, int64_t end) {
      random::for_each_unit<2>(s, begin, end, [&](int64_t i, const uint32_t* w) {
        out[i] = std::min(from + random::uniform53(w[0], w[1]) * range, hi);
      });
    });
  } else {
    const float f = static_cast<float>(from);
    const float range = static_cast<float>(to - from);
    const T hi = from == to ? T(f) : largest_below<T>(to);
    const float hi_f = static_cast<float>(hi);
    parallel_range(n, [&](int64_t begin, int64_t end) {
      random::for_each_unit<1>(s, begin, end, [&](int64_t i, const uint32_t* w) {
        const float v = f + random::uniform24(w[0]) * range;
        if constexpr (std::is_same_v<T, float>) {
          out[i] = std::min(v, hi_f);
        } else {
          const T x(v);
          out[i] = static_cast<float>(x) > hi_f ? hi : x;
        }
      });
    });
  }
}

// ---- normal_ ------------------------------------------------------------------------

// Box-Muller: unit u gives elements 2u (cosine) and 2u + 1 (sine).
template <typename T>
void normal_fill(T* out, int64_t n, double mean, double std,
                 const at::PhiloxCpuState& s) {
  const int64_t pairs = (n + 1) / 2;
  if constexpr (std::is_same_v<T, double>) {
    parallel_range(pairs, [&](int64_t begin, int64_t end) {
      random::for_each_unit<4>(s, begin, end, [&](int64_t u, const uint32_t* w) {
        const double r = std::sqrt(-2.0 * std::log(random::uniform53_open0(w[0], w[1])));
        const double theta = kTwoPi * random::uniform53(w[2], w[3]);
        out[2 * u] = mean + std * (r * std::cos(theta));
        if (2 * u + 1 < n) out[2 * u + 1] = mean + std * (r * std::sin(theta));
      });
    });
  } else {
    const float m = static_cast<float>(mean);
    const float sd = static_cast<float>(std);
    parallel_range(pairs, [&](int64_t begin, int64_t end) {
      random::for_each_run<2>(s, begin, end, [&](int64_t first, int64_t count,
                                                 const uint32_t* w) {
        float zc[2 * random::kBatchBlocks], zs[2 * random::kBatchBlocks];
        random::box_muller_float(w, count, zc, zs);
        const int64_t full = std::min(count, n / 2 - first);  // pairs with a sine slot
        T* o = out + 2 * first;
        for (int64_t k = 0; k < full; ++k) {
          o[2 * k] = T(m + sd * zc[k]);
          o[2 * k + 1] = T(m + sd * zs[k]);
        }
        if (full < count) o[2 * full] = T(m + sd * zc[full]);  // odd n: last cosine
      });
    });
  }
}

// ---- random_ ------------------------------------------------------------------------

// Integers from + [0, range) (range 0 means 2^64): one word per element when
// range <= 2^32, else two.
template <typename T>
void random_fill(T* out, int64_t n, int64_t from, uint64_t range,
                 const at::PhiloxCpuState& s) {
  const uint64_t base = static_cast<uint64_t>(from);
  auto store = [out](int64_t i, uint64_t v) {
    out[i] = convert<T>(static_cast<int64_t>(v));
  };
  if (range != 0 && range <= (uint64_t{1} << 32)) {
    parallel_range(n, [&](int64_t begin, int64_t end) {
      random::for_each_unit<1>(s, begin, end, [&](int64_t i, const uint32_t* w) {
        store(i, base + random::below32(w[0], range));
      });
    });
  } else {
    parallel_range(n, [&](int64_t begin, int64_t end) {
      random::for_each_unit<2>(s, begin, end, [&](int64_t i, const uint32_t* w) {
        store(i, base + random::below64(w[0], w[1], range));
      });
    });
  }
}

// Samples r's range into self.
at::Tensor& random_impl(at::Tensor& self, const at::native::RandomRange& r,
                        std::optional<at::Generator> generator) {
  const int64_t n = self.numel();
  if (n == 0) return self;
  const at::PhiloxCpuState s =
      random::reserve(generator, at::native::random_words(n, r.range));
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), "random_", [&] {
    fill_row_major<scalar_t>(self, [&](scalar_t* out, int64_t count) {
      random_fill(out, count, r.from, r.range, s);
    });
  });
  return self;
}

}  // namespace

at::Tensor& uniform_(at::Tensor& self, double from, double to,
                     std::optional<at::Generator> generator) {
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), "uniform_", [&] {
    static_cast<void>(sizeof(scalar_t));  // refuses non-floating dtypes
  });
  at::native::check_uniform_bounds(self.scalar_type(), from, to);
  const int64_t n = self.numel();
  if (n == 0) return self;
  const bool wide = self.scalar_type() == c10::kDouble;
  const at::PhiloxCpuState s =
      random::reserve(generator, static_cast<uint64_t>(n) * (wide ? 2 : 1));
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), "uniform_", [&] {
    fill_row_major<scalar_t>(self, [&](scalar_t* out, int64_t count) {
      uniform_fill(out, count, from, to, s);
    });
  });
  return self;
}

at::Tensor& normal_(at::Tensor& self, double mean, double std,
                    std::optional<at::Generator> generator) {
  // Refuses non-floating dtypes with the dispatcher's message.
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), "normal_",
                                [&] { static_cast<void>(sizeof(scalar_t)); });
  at::native::check_normal_std(std);
  const int64_t n = self.numel();
  if (n == 0) return self;
  const bool wide = self.scalar_type() == c10::kDouble;
  const uint64_t pairs = static_cast<uint64_t>((n + 1) / 2);
  const at::PhiloxCpuState s = random::reserve(generator, pairs * (wide ? 4 : 2));
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), "normal_", [&] {
    fill_row_major<scalar_t>(self, [&](scalar_t* out, int64_t count) {
      normal_fill(out, count, mean, std, s);
    });
  });
  return self;
}

at::Tensor& random_from(at::Tensor& self, int64_t from, std::optional<int64_t> to,
                        std::optional<at::Generator> generator) {
  return random_impl(self, at::native::random_range(self.scalar_type(), from, to),
                     std::move(generator));
}

at::Tensor& random_to(at::Tensor& self, int64_t to,
                      std::optional<at::Generator> generator) {
  return random_from(self, 0, to, std::move(generator));
}

at::Tensor& random_(at::Tensor& self, std::optional<at::Generator> generator) {
  return random_from(self, 0, std::nullopt, std::move(generator));
}

at::Tensor& bernoulli_float_(at::Tensor& self, double p,
                             std::optional<at::Generator> generator) {
  at::native::check_bernoulli_p(p);
  const int64_t n = self.numel();
  if (n == 0) return self;
  const at::PhiloxCpuState s = random::reserve(generator, static_cast<uint64_t>(n));
  // u = w / 2^32 < p, without rounding: w < p * 2^32.
  const double threshold = p * kTwo32;
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), "bernoulli_", [&] {
    fill_row_major<scalar_t>(self, [&](scalar_t* out, int64_t count) {
      parallel_range(count, [&](int64_t begin, int64_t end) {
        random::for_each_unit<1>(s, begin, end, [&](int64_t i, const uint32_t* w) {
          out[i] = convert<scalar_t>(static_cast<double>(w[0]) < threshold);
        });
      });
    });
  });
  return self;
}

at::Tensor& bernoulli_tensor_(at::Tensor& self, const at::Tensor& p,
                              std::optional<at::Generator> generator) {
  TORCH_CHECK(p.is_cpu(), "bernoulli_: p is on ", p.device(), " but self is on "
              "the CPU. Move p to the CPU.");
  at::native::check_bernoulli_p_tensor(self, p);
  const int64_t n = self.numel();
  if (n == 0) return self;
  at::Tensor probs = empty_cpu(self.sizes(), c10::kDouble, "bernoulli_");
  copy_into(probs, p);
  const double* pr = static_cast<const double*>(probs.data_ptr());
  for (int64_t i = 0; i < n; ++i) {
    if (!(pr[i] >= 0.0 && pr[i] <= 1.0)) {
      at::native::throw_bernoulli_probability(pr[i], i, self.sizes());
    }
  }
  const at::PhiloxCpuState s = random::reserve(generator, static_cast<uint64_t>(n));
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), "bernoulli_", [&] {
    fill_row_major<scalar_t>(self, [&](scalar_t* out, int64_t count) {
      parallel_range(count, [&](int64_t begin, int64_t end) {
        random::for_each_unit<1>(s, begin, end, [&](int64_t i, const uint32_t* w) {
          out[i] = convert<scalar_t>(static_cast<double>(w[0]) < pr[i] * kTwo32);
        });
      });
    });
  });
  return self;
}

at::Tensor& randperm_out(int64_t n, std::optional<at::Generator> generator,
                         at::Tensor& out) {
  at::native::check_randperm(n, out.scalar_type());
  resize_output(out, {n}, "randperm");
  if (n == 0) return out;
  std::vector<int64_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  // Fisher-Yates: step k swaps position i = n-1-k with j uniform in [0, i],
  // drawn from words 2k and 2k+1.
  const at::PhiloxCpuState s =
      random::reserve(generator, 2 * static_cast<uint64_t>(n - 1));
  random::for_each_unit<2>(s, 0, n - 1, [&](int64_t k, const uint32_t* w) {
    const int64_t i = n - 1 - k;
    const auto j = static_cast<int64_t>(
        random::below64(w[0], w[1], static_cast<uint64_t>(i) + 1));
    std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(j)]);
  });
  EMBER_DISPATCH_ALL_TYPES(out.scalar_type(), "randperm", [&] {
    fill_row_major<scalar_t>(out, [&](scalar_t* data, int64_t count) {
      for (int64_t i = 0; i < count; ++i) {
        data[i] = convert<scalar_t>(perm[static_cast<size_t>(i)]);
      }
    });
  });
  return out;
}

at::Tensor& rand_generator_out(c10::IntArrayRef size,
                               std::optional<at::Generator> generator,
                               at::Tensor& out) {
  resize_output(out, size, "rand");
  return uniform_(out, 0.0, 1.0, std::move(generator));
}

at::Tensor& rand_out(c10::IntArrayRef size, at::Tensor& out) {
  return rand_generator_out(size, std::nullopt, out);
}

at::Tensor& randn_generator_out(c10::IntArrayRef size,
                                std::optional<at::Generator> generator,
                                at::Tensor& out) {
  resize_output(out, size, "randn");
  return normal_(out, 0.0, 1.0, std::move(generator));
}

at::Tensor& randn_out(c10::IntArrayRef size, at::Tensor& out) {
  return randn_generator_out(size, std::nullopt, out);
}

at::Tensor& randint_low_generator_out(int64_t low, int64_t high, c10::IntArrayRef size,
                                      std::optional<at::Generator> generator,
                                      at::Tensor& out) {
  at::native::check_randint_bounds(low, high);
  resize_output(out, size, "randint");
  return random_from(out, low, high, std::move(generator));
}

at::Tensor& randint_low_out(int64_t low, int64_t high, c10::IntArrayRef size,
                            at::Tensor& out) {
  return randint_low_generator_out(low, high, size, std::nullopt, out);
}

at::Tensor& randint_generator_out(int64_t high, c10::IntArrayRef size,
                                  std::optional<at::Generator> generator,
                                  at::Tensor& out) {
  return randint_low_generator_out(0, high, size, std::move(generator), out);
}

at::Tensor& randint_out(int64_t high, c10::IntArrayRef size, at::Tensor& out) {
  return randint_low_generator_out(0, high, size, std::nullopt, out);
}

}  // namespace ember::cpu
