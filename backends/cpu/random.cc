// The CPU plugin's samplers: uniform_, normal_, random_, bernoulli_ and
// randperm. Element i (row-major) uses fixed stream words (documented per
// op in docs/ops/random.md); See Note [Ember's CPU random stream].
#include "backends/cpu/random.h"

#include <cmath>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

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

// The digits of the mantissa: the floating dtype holds every integer up to
// 2^digits exactly.
template <typename T>
constexpr int mantissa_digits() {
  if constexpr (std::is_same_v<T, c10::Half>) return 11;
  if constexpr (std::is_same_v<T, c10::BFloat16>) return 8;
  return std::numeric_limits<T>::digits;
}

// The integers a dtype holds exactly: [lowest, highest].
template <typename T>
std::pair<int64_t, int64_t> integer_bounds() {
  if constexpr (std::is_same_v<T, bool>) {
    return {0, 1};
  } else if constexpr (std::is_integral_v<T>) {
    return {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()};
  } else {
    const int64_t m = int64_t{1} << mantissa_digits<T>();
    return {-m, m};
  }
}

// The largest T below `to` (for clamping a uniform sample that rounded up
// to `to`).
template <typename T>
T largest_below(double to) {
  if constexpr (std::is_same_v<T, double>) {
    return std::nextafter(to, -std::numeric_limits<double>::infinity());
  } else if constexpr (std::is_same_v<T, float>) {
    float t = static_cast<float>(to);
    if (static_cast<double>(t) >= to) {
      t = std::nextafter(t, -std::numeric_limits<float>::infinity());
    }
    return t;
  } else {
    T x(static_cast<float>(to));
    while (static_cast<double>(static_cast<float>(x)) >= to) {
      // One step toward -infinity on the 16-bit pattern.
      const uint16_t bits = x.x;
      const uint16_t next = (bits & 0x7FFFu) == 0 ? uint16_t{0x8001}
                            : (bits & 0x8000u) == 0 ? static_cast<uint16_t>(bits - 1)
                                                    : static_cast<uint16_t>(bits + 1);
      x = T(next, T::from_bits());
    }
    return x;
  }
}

template <typename T>
double largest_finite() {
  if constexpr (std::is_same_v<T, c10::Half>) return 65504.0;
  if constexpr (std::is_same_v<T, c10::BFloat16>) return 3.3895313892515355e38;
  return static_cast<double>(std::numeric_limits<T>::max());
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

uint64_t random_words(int64_t n, uint64_t range) {
  const uint64_t per = range != 0 && range <= (uint64_t{1} << 32) ? 1 : 2;
  return per * static_cast<uint64_t>(n);
}

// Samples [from, to_inclusive] into self after checking that the dtype
// holds both ends.
at::Tensor& random_impl(at::Tensor& self, int64_t from, int64_t to_inclusive,
                        const char* to_text, std::optional<at::Generator> generator) {
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), "random_", [&] {
    const auto bounds = integer_bounds<scalar_t>();
    TORCH_CHECK(from >= bounds.first && to_inclusive <= bounds.second,
                "random_: the range [", from, ", ", to_text, ") does not fit dtype ",
                self.scalar_type(), ", which holds the integers [", bounds.first,
                ", ", bounds.second, "]. Pass bounds inside that range or use a "
                "wider dtype.");
  });
  const int64_t n = self.numel();
  if (n == 0) return self;
  const uint64_t range =
      static_cast<uint64_t>(to_inclusive) - static_cast<uint64_t>(from) + 1;
  const at::PhiloxCpuState s = random::reserve(generator, random_words(n, range));
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), "random_", [&] {
    fill_row_major<scalar_t>(self, [&](scalar_t* out, int64_t count) {
      random_fill(out, count, from, range, s);
    });
  });
  return self;
}

int64_t default_to_inclusive(c10::ScalarType dtype) {
  return EMBER_DISPATCH_ALL_TYPES(dtype, "random_", [&] {
    return integer_bounds<scalar_t>().second;
  });
}

std::string exclusive_text(int64_t to) { return std::to_string(to); }

}  // namespace

at::Tensor& uniform_(at::Tensor& self, double from, double to,
                     std::optional<at::Generator> generator) {
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), "uniform_", [&] {
    TORCH_CHECK(std::isfinite(from) && std::isfinite(to),
                "uniform_: expects finite bounds, but got from=", from, " and to=",
                to, ". Pass finite numbers.");
    TORCH_CHECK(from <= to, "uniform_: expects to return a [from, to) range, but "
                "found from=", from, " > to=", to, ". Pass from <= to.");
    TORCH_CHECK(to - from <= largest_finite<scalar_t>(), "uniform_: expects "
                "to - from <= ", largest_finite<scalar_t>(), " (the largest ",
                self.scalar_type(), "), but found to=", to, " and from=", from,
                ". Pass a narrower range.");
  });
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
  TORCH_CHECK(std >= 0.0, "normal_: expects std >= 0.0, but found std ", std,
              ". Pass a non-negative standard deviation.");
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
  if (to.has_value()) {
    TORCH_CHECK(from < *to, "random_: expects 'from' to be less than 'to', but "
                "got from=", from, " >= to=", *to, ". Pass from < to.");
    return random_impl(self, from, *to - 1, exclusive_text(*to).c_str(), generator);
  }
  const int64_t to_inclusive = default_to_inclusive(self.scalar_type());
  TORCH_CHECK(from <= to_inclusive, "random_: expects 'from' to be at most ",
              to_inclusive, " (the largest value of dtype ", self.scalar_type(),
              "), but got from=", from, ". Pass a smaller from.");
  const std::string text = std::to_string(to_inclusive) + " + 1";
  return random_impl(self, from, to_inclusive, text.c_str(), generator);
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
  TORCH_CHECK(p >= 0.0 && p <= 1.0, "bernoulli_: expects p to be in [0, 1], "
              "but got p=", p, ". Pass a probability.");
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
  TORCH_CHECK(c10::isFloatingType(p.scalar_type()), "bernoulli_: expects p of a "
              "floating dtype, but got ", p.scalar_type(), ". Convert p to Float "
              "or Double.");
  const int64_t nd = self.dim();
  bool broadcasts = p.dim() <= nd;
  for (int64_t i = 0; broadcasts && i < p.dim(); ++i) {
    const int64_t ps = p.size(p.dim() - 1 - i);
    broadcasts = ps == 1 || ps == self.size(nd - 1 - i);
  }
  TORCH_CHECK(broadcasts, "bernoulli_: p of shape ", p.sizes(), " cannot be "
              "broadcast to self's shape ", self.sizes(), ". Pass p of a shape "
              "that broadcasts to self.");
  const int64_t n = self.numel();
  if (n == 0) return self;
  at::Tensor probs = empty_cpu(self.sizes(), c10::kDouble, "bernoulli_");
  copy_into(probs, p);
  const double* pr = static_cast<const double*>(probs.data_ptr());
  for (int64_t i = 0; i < n; ++i) {
    TORCH_CHECK(pr[i] >= 0.0 && pr[i] <= 1.0, "bernoulli_: expects every "
                "probability in p to be in [0, 1], but found ", pr[i],
                " (element ", i, " of p broadcast to ", self.sizes(), "). Pass "
                "probabilities.");
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
  TORCH_CHECK(n >= 0, "randperm: n must be non-negative, but got n=", n, ".");
  TORCH_CHECK(out.scalar_type() != c10::kBool, "randperm: dtype Bool cannot "
              "hold a permutation. Pass an integral or floating dtype such as "
              "Long.");
  EMBER_DISPATCH_ALL_TYPES(out.scalar_type(), "randperm", [&] {
    const int64_t highest = integer_bounds<scalar_t>().second;
    TORCH_CHECK(n == 0 || n - 1 <= highest, "randperm: n=", n, " is too large "
                "for dtype ", out.scalar_type(), ", which holds the integers up "
                "to ", highest, ". Pass a wider dtype such as Long.");
  });
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
  TORCH_CHECK(low < high, "randint: expects low < high, but got low=", low,
              " and high=", high, ". Pass a high greater than low (high is "
              "excluded).");
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
