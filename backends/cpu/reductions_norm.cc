// The CPU plugin's norms (norm, linalg_vector_norm) and logsumexp; the
// loops are reductions_loops.h's, folding with the policies below (See the
// Ops contract in reductions_loops.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "aten/ReduceUtils.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/pointwise_math.h"
#include "backends/cpu/reductions.h"
#include "backends/cpu/reductions_loops.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

// ---- norms --------------------------------------------------------------------------

enum class NormKind { kZero, kOne, kTwo, kInf, kNegInf, kP };

template <typename T, NormKind kKind>
struct NormOps {
  using in_t = T;
  using acc_t = double;

  T* out;
  double p;

  static constexpr bool kSum = kKind != NormKind::kInf && kKind != NormKind::kNegInf;

  static double load(T x) { return static_cast<double>(static_cast<opmath_t<T>>(x)); }
  double term(T x) const {
    const double v = std::fabs(load(x));
    switch (kKind) {
      case NormKind::kZero: return v != 0 ? 1.0 : 0.0;  // NaN counts
      case NormKind::kOne: return v;
      case NormKind::kTwo: return v * v;
      case NormKind::kP: return std::pow(v, p);
      default: return v;
    }
  }
  static double fold(double a, double t) {
    if constexpr (kSum) {
      return a + t;
    } else if constexpr (kKind == NormKind::kInf) {
      return (t > a || std::isnan(t)) ? t : a;
    } else {
      return (t < a || std::isnan(t)) ? t : a;
    }
  }
  acc_t identity() const {
    if constexpr (kKind == NormKind::kInf) return 0;  // |x| >= 0
    if constexpr (kKind == NormKind::kNegInf) return std::numeric_limits<double>::infinity();
    return 0;
  }
  acc_t step(acc_t a, in_t x, int64_t) const { return fold(a, term(x)); }
  acc_t merge(acc_t a, acc_t b) const { return fold(a, b); }
  acc_t run(acc_t a, const in_t* p_, int64_t n, int64_t stride, int64_t) const {
    if (stride == 1) {
      // 32 lanes: four 512-bit vectors of doubles in flight (the 2-norm of
      // 16M floats: 2.27 ms with 8 lanes, about PyTorch's 2.2 ms; 1.66 ms),
      // fetched ahead as sum's (See Note [Sum prefetch]: one thread's
      // 2-norm of 16M floats 4.8 -> 2.6 ms on an Intel Xeon AVX-512).
      constexpr int kLanes = 32;
      acc_t s[kLanes];
      for (int k = 0; k < kLanes; ++k) s[k] = identity();
      int64_t i = 0;
      if constexpr (kWidensInVectors<T> && kSum && kKind != NormKind::kP) {
        i = widened_lanes(s, p_, n);
      }
      for (; i + kLanes <= n; i += kLanes) {
        prefetch_ahead(p_ + i, kLanes * sizeof(in_t));
        for (int k = 0; k < kLanes; ++k) s[k] = fold(s[k], term(p_[i + k]));
      }
      for (; i < n; ++i) s[0] = fold(s[0], term(p_[i]));
      for (int k = 0; k < kLanes; ++k) a = fold(a, s[k]);
      return a;
    }
    for (int64_t i = 0; i < n; ++i) a = fold(a, term(p_[i * stride]));
    return a;
  }
  // Half (the 0-, 1- and 2-norms): the runs of 32 at p folded
  // into the 32 double lanes s as term() and fold() would, 8 widened at a
  // time (See Note [Half sums in vectors] in reductions_sum_minmax.cc; the
  // 2-norm of 16M Half took 22 ms element by element, 1.6-1.8 ms so, on an
  // Intel Xeon AVX-512, 7.3 ms in the AVX2 build). Returns how many it
  // folded.
  static int64_t widened_lanes(double* s, const T* __restrict p, int64_t n) {
    typedef double double8 __attribute__((vector_size(64)));
    typedef uint32_t u32x8 __attribute__((vector_size(32)));
    double8 d[4];
    std::memcpy(d, s, sizeof d);
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
      prefetch_ahead(p + i, 32 * sizeof(T));  // See Note [Sum prefetch].
      for (int j = 0; j < 4; ++j) {
        float8 f = {};
        add_widened8(f, p + i + 8 * j);
        if constexpr (kKind == NormKind::kZero) {
          f = f != 0 ? float8{} + 1 : float8{};  // NaN counts, as term()
        } else if constexpr (kKind == NormKind::kOne) {
          u32x8 bits;  // |f|, in the float domain (the sign bit cleared)
          std::memcpy(&bits, &f, sizeof bits);
          bits &= 0x7fffffffu;
          std::memcpy(&f, &bits, sizeof f);
        }
#if defined(__AVX512F__)
        // One vcvtps2pd; GCC 12 splits __builtin_convertvector's into four
        // 128-bit ones (2-norm of 16M Half 2.9-3.1 ms, 1.6-1.8 ms with this;
        // sum 1.2-1.35). The unmasked form trips -Wmaybe-uninitialized in
        // GCC 12's header.
        const double8 x = _mm512_maskz_cvtps_pd(0xff, f);
#else
        const double8 x = __builtin_convertvector(f, double8);
#endif
        if constexpr (kKind == NormKind::kTwo) {
          d[j] += x * x;
        } else {
          d[j] += x;
        }
      }
    }
    std::memcpy(s, d, sizeof d);
    return i;
  }
  void write(int64_t offset, acc_t a) const {
    double r = a;
    if constexpr (kKind == NormKind::kTwo) r = std::sqrt(a);
    if constexpr (kKind == NormKind::kP) r = std::pow(a, 1.0 / p);
    out[offset] = static_cast<T>(r);
  }
};

at::Tensor vector_norm(const char* op, const at::Tensor& self, double p,
                       c10::OptionalIntArrayRef dims, bool keepdim,
                       std::optional<c10::ScalarType> dtype) {
  reduce_check_input(self, op);
  at::native::check_vector_norm_dtypes(self, dtype, op);
  const std::vector<bool> mask = reduce_dim_mask(self, dims, op);
  at::native::check_vector_norm_nonempty(self, mask, p, op);
  const bool inf = std::isinf(p);
  const c10::ScalarType out_type = dtype.value_or(self.scalar_type());
  const at::Tensor src = reduce_as_dtype(self, out_type, op);
  at::Tensor out = empty_cpu(reduce_shape(self, mask, keepdim), out_type, op);
  const ReduceGeometry g(src.sizes(), src.strides(), mask, /*coalesce_reduced=*/true);
  EMBER_DISPATCH_FLOATING_TYPES(out_type, op, [&] {
    auto* o = static_cast<scalar_t*>(out.data_ptr());
    const auto* in = static_cast<const scalar_t*>(src.data_ptr());
    if (p == 0) {
      reduce_kernel(g, in, NormOps<scalar_t, NormKind::kZero>{o, p});
    } else if (p == 1) {
      reduce_kernel(g, in, NormOps<scalar_t, NormKind::kOne>{o, p});
    } else if (p == 2) {
      reduce_kernel(g, in, NormOps<scalar_t, NormKind::kTwo>{o, p});
    } else if (inf && p > 0) {
      reduce_kernel(g, in, NormOps<scalar_t, NormKind::kInf>{o, p});
    } else if (inf) {
      reduce_kernel(g, in, NormOps<scalar_t, NormKind::kNegInf>{o, p});
    } else {
      reduce_kernel(g, in, NormOps<scalar_t, NormKind::kP>{o, p});
    }
  });
  return out;
}

double norm_order(const c10::Scalar& p, const char* op) {
  return at::native::vector_norm_order(p, op);
}

// ---- logsumexp ------------------------------------------------------------------------

// Note [Stable logsumexp]
// ~~~~~~~~~~~~~~~~~~~~~~~
// log(sum(exp(x))) = m + log(sum(exp(x - m))) for m = max(x): every exp is
// at most 1, so nothing overflows. The accumulator carries the running
// maximum and the sum scaled by it; a larger element rescales the sum.
// -inf elements add nothing (an all -inf or empty reduction is -inf), +inf
// gives +inf, NaN gives NaN.
struct LseAcc {
  double max;  // -inf: nothing but -inf folded in yet
  double sum;  // sum of exp(x - max) over the finite-max elements
  bool nan;
};

template <typename T>
struct LogSumExpOps {
  using in_t = T;
  using acc_t = LseAcc;

  T* out;

  static double load(T x) { return static_cast<double>(static_cast<opmath_t<T>>(x)); }
  static acc_t add_value(acc_t a, double v) {
    if (std::isnan(v)) {
      a.nan = true;
      return a;
    }
    if (v == -std::numeric_limits<double>::infinity()) return a;
    if (v > a.max) {
      // exp(-inf) is 0: the first element drops the empty sum.
      a.sum = (std::isinf(v) ? 0.0 : a.sum * std::exp(a.max - v)) + 1.0;
      a.max = v;
    } else if (v == a.max) {
      a.sum += 1.0;
    } else {
      a.sum += std::exp(v - a.max);
    }
    return a;
  }
  acc_t identity() const { return {-std::numeric_limits<double>::infinity(), 0.0, false}; }
  acc_t step(acc_t a, in_t x, int64_t) const { return add_value(a, load(x)); }
  acc_t merge(acc_t a, acc_t b) const {
    a.nan = a.nan || b.nan;
    if (b.sum == 0) return a;
    if (a.sum == 0) {
      b.nan = a.nan;
      return b;
    }
    if (b.max > a.max) std::swap(a.max, b.max), std::swap(a.sum, b.sum);
    if (std::isinf(a.max)) {  // +inf: only +inf elements count
      if (b.max == a.max) a.sum += b.sum;
      return a;
    }
    a.sum += b.sum * std::exp(b.max - a.max);
    return a;
  }
  acc_t run(acc_t a, const in_t* p, int64_t n, int64_t stride, int64_t) const {
    // Two passes per block while it is in cache: its maximum, then the sum
    // of exp(x - max); then one merge.
    constexpr int64_t kBlock = 1024;
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t len = std::min(kBlock, n - b);
      const in_t* q = p + b * stride;
      double m = -std::numeric_limits<double>::infinity();
      bool nan = false;
      for (int64_t i = 0; i < len; ++i) {
        const double v = load(q[i * stride]);
        nan = nan || std::isnan(v);
        m = v > m ? v : m;
      }
      if (nan || std::isinf(m)) {  // rare: the general fold handles them
        for (int64_t i = 0; i < len; ++i) a = add_value(a, load(q[i * stride]));
        continue;
      }
      // Float inputs exponentiate in float (every term is in (0, 1], so
      // float's relative precision carries over to the sum); double in double.
      using math_t = std::conditional_t<std::is_same_v<T, double>, double, float>;
      const math_t mm = static_cast<math_t>(m);
      double s = 0;
      if constexpr (std::is_same_v<T, float>) {
        if (stride == 1) {
          // Contiguous floats: the vectorizable exp of pointwise_math.h into
          // a buffer in cache, then the float block sum (Note [Float sums at
          // memory speed]); std::exp is a call per element (59 ms for 16M
          // floats, PyTorch 39 ms).
          float e[kBlock];
          for (int64_t i = 0; i < len; ++i) e[i] = math::exp(q[i] - mm);
          a = merge(a, {m, sum_float_block(e, len), false});
          continue;
        }
      }
      for (int64_t i = 0; i < len; ++i) {
        s += static_cast<double>(std::exp(static_cast<math_t>(load(q[i * stride])) - mm));
      }
      a = merge(a, {m, s, false});
    }
    return a;
  }
  void write(int64_t offset, acc_t a) const {
    double r;
    if (a.nan) {
      r = std::numeric_limits<double>::quiet_NaN();
    } else if (a.sum == 0) {
      r = -std::numeric_limits<double>::infinity();
    } else {
      r = a.max + std::log(a.sum);
    }
    out[offset] = static_cast<T>(r);
  }
};

}  // namespace

// ---- norms ------------------------------------------------------------------------------------

at::Tensor linalg_vector_norm(const at::Tensor& self, const c10::Scalar& ord,
                              c10::OptionalIntArrayRef dim, bool keepdim,
                              std::optional<c10::ScalarType> dtype) {
  const char* op = "linalg.vector_norm";
  return vector_norm(op, self, norm_order(ord, op), dim, keepdim, dtype);
}

at::Tensor& linalg_vector_norm_out(const at::Tensor& self, const c10::Scalar& ord,
                                   c10::OptionalIntArrayRef dim, bool keepdim,
                                   std::optional<c10::ScalarType> dtype, at::Tensor& out) {
  return reduce_write_out(out, linalg_vector_norm(self, ord, dim, keepdim, dtype),
                          "linalg.vector_norm");
}

at::Tensor norm_dim_dtype(const at::Tensor& self, const std::optional<c10::Scalar>& p,
                          c10::IntArrayRef dim, bool keepdim, c10::ScalarType dtype) {
  const double order = p.has_value() ? norm_order(*p, "norm") : 2.0;
  return vector_norm("norm", self, order, dim, keepdim, dtype);
}

at::Tensor norm_dim(const at::Tensor& self, const std::optional<c10::Scalar>& p,
                    c10::IntArrayRef dim, bool keepdim) {
  const double order = p.has_value() ? norm_order(*p, "norm") : 2.0;
  return vector_norm("norm", self, order, dim, keepdim, std::nullopt);
}

at::Tensor& norm_dtype_out(const at::Tensor& self, const std::optional<c10::Scalar>& p,
                           c10::IntArrayRef dim, bool keepdim, c10::ScalarType dtype,
                           at::Tensor& out) {
  return reduce_write_out(out, norm_dim_dtype(self, p, dim, keepdim, dtype), "norm");
}

at::Tensor& norm_out(const at::Tensor& self, const std::optional<c10::Scalar>& p,
                     c10::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  return reduce_write_out(out, norm_dim(self, p, dim, keepdim), "norm");
}

// ---- logsumexp ----------------------------------------------------------------------------------

at::Tensor logsumexp(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim) {
  const char* op = "logsumexp";
  reduce_check_input(self, op);
  const std::vector<bool> mask = reduce_dim_mask(self, dim, op);
  const c10::ScalarType out_type =
      c10::isFloatingType(self.scalar_type()) ? self.scalar_type() : c10::ScalarType::Float;
  const at::Tensor src = reduce_as_dtype(self, out_type, op);
  at::Tensor out = empty_cpu(reduce_shape(self, mask, keepdim), out_type, op);
  const ReduceGeometry g(src.sizes(), src.strides(), mask, /*coalesce_reduced=*/true);
  EMBER_DISPATCH_FLOATING_TYPES(out_type, op, [&] {
    reduce_kernel(g, static_cast<const scalar_t*>(src.data_ptr()),
                  LogSumExpOps<scalar_t>{static_cast<scalar_t*>(out.data_ptr())});
  });
  return out;
}

at::Tensor& logsumexp_out(const at::Tensor& self, c10::IntArrayRef dim, bool keepdim,
                          at::Tensor& out) {
  // Checked before computing, as before: an undefined out never reaches
  // the kernel.
  TORCH_CHECK(out.defined(), "logsumexp: the out tensor is undefined; pass a defined tensor.");
  return at::native::logsumexp_write_out(out, logsumexp(self, dim, keepdim));
}

}  // namespace ember::cpu
