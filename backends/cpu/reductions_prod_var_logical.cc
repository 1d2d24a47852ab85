// The CPU plugin's statistical and logical reductions: prod, var/std (and
// var_mean/std_mean), all, any; the loops are reductions_loops.h's, folding
// with the policies below (See the Ops contract in reductions_loops.h). Norms
// and logsumexp are in reductions_norm.cc, cumsum in reductions_scan.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "backends/cpu/dispatch.h"
#include "backends/cpu/reductions.h"
#include "backends/cpu/reductions_loops.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

// ---- prod ----------------------------------------------------------------------------

// Products of in_t elements converted to out_t (in_t is out_t, or an
// integral type multiplied into int64), accumulated as sums are (See Note
// [Sum accumulation]); bools as logical and.
template <typename in_t_, typename out_t>
struct ProdOps {
  using in_t = in_t_;
  using acc_t = sum_acc_t<out_t>;

  out_t* out;

  static acc_t load(in_t x) {
    if constexpr (std::is_same_v<acc_t, bool>) {
      return convert<bool>(x);
    } else if constexpr (is_reduced_float_v<out_t>) {
      return static_cast<float>(x);
    } else {
      return static_cast<acc_t>(convert<out_t>(x));
    }
  }
  static acc_t mul(acc_t a, acc_t b) {
    if constexpr (std::is_same_v<acc_t, bool>) {
      return a && b;
    } else {
      return a * b;
    }
  }
  acc_t identity() const { return acc_t(1); }
  acc_t step(acc_t a, in_t x, int64_t) const { return mul(a, load(x)); }
  acc_t merge(acc_t a, acc_t b) const { return mul(a, b); }
  acc_t run(acc_t a, const in_t* p, int64_t n, int64_t stride, int64_t) const {
    if (stride != 1) {
      for (int64_t i = 0; i < n; ++i) a = mul(a, load(p[i * stride]));
      return a;
    }
    // 32 lanes: four 512-bit vectors of doubles (sixteen 128-bit ones), so
    // the multiplications' latency is covered (8 lanes ran at 0.7x of
    // memory speed on 16M floats).
    constexpr int kLanes = 32;
    acc_t s[kLanes];
    for (int k = 0; k < kLanes; ++k) s[k] = acc_t(1);
    int64_t i = 0;
    if constexpr (std::is_same_v<in_t, float> && std::is_same_v<acc_t, double>) {
      // Note [Float products in float steps]: widening every float to
      // double cost 1.23x PyTorch's float product (16M floats: 1.66 ms vs
      // 1.35 ms). A group of kSteps floats per lane is multiplied in float
      // first, and its 32 partial products are used when each is a normal
      // float: then no step overflowed (inf stays inf, inf * 0 is NaN) or
      // underflowed to zero (zero stays zero), and each carries the error of
      // kSteps float roundings. A group with a zero, inf or NaN element, or
      // whose partial product left float's normal range, is multiplied in
      // double element by element. (A partial product that passed through
      // float's subnormal range and came back, which takes factors below
      // 2^-60 and above 2^60 in one lane of one group, keeps fewer bits.)
      // 16 steps: 1.33 ms; 8 steps: 1.50 ms (the double products dominate).
      constexpr int kSteps = 16;
      for (; i + kLanes * kSteps <= n; i += kLanes * kSteps) {
        float f[kLanes];
        for (int k = 0; k < kLanes; ++k) f[k] = 1.0f;
        for (int j = 0; j < kSteps; ++j) {
          // See Note [Sum prefetch] in reductions_sum_minmax.cc.
          prefetch_ahead(p + i + j * kLanes, kLanes * sizeof(float));
          for (int k = 0; k < kLanes; ++k) f[k] *= p[i + j * kLanes + k];
        }
        int32_t count = 0;  // normal partial products; integer lanes vectorize
        for (int k = 0; k < kLanes; ++k) {
          const float af = std::fabs(f[k]);
          count += (af >= std::numeric_limits<float>::min()) &
                   (af <= std::numeric_limits<float>::max());
        }
        if (count == kLanes) {
          for (int k = 0; k < kLanes; ++k) s[k] *= f[k];
        } else {
          for (int j = 0; j < kSteps; ++j) {
            for (int k = 0; k < kLanes; ++k) s[k] *= static_cast<double>(p[i + j * kLanes + k]);
          }
        }
      }
    }
    for (; i + kLanes <= n; i += kLanes) {
      for (int k = 0; k < kLanes; ++k) s[k] = mul(s[k], load(p[i + k]));
    }
    for (; i < n; ++i) s[0] = mul(s[0], load(p[i]));
    for (int k = 0; k < kLanes; ++k) a = mul(a, s[k]);
    return a;
  }
  void write(int64_t offset, acc_t a) const { out[offset] = static_cast<out_t>(a); }
};

at::Tensor prod_impl(const at::Tensor& self, const std::vector<bool>& mask, bool keepdim,
                     std::optional<c10::ScalarType> dtype) {
  const char* op = "prod";
  const c10::ScalarType in_type = self.scalar_type();
  const bool integral = c10::isIntegralType(in_type, /*includeBool=*/true);
  const c10::ScalarType out_type =
      dtype.value_or(integral ? c10::ScalarType::Long : in_type);
  at::Tensor out = empty_cpu(reduce_shape(self, mask, keepdim), out_type, op);
  const bool widen = out_type == c10::ScalarType::Long && integral;
  const at::Tensor src = widen ? self : reduce_as_dtype(self, out_type, op);
  const ReduceGeometry g(src.sizes(), src.strides(), mask, /*coalesce_reduced=*/true);
  EMBER_DISPATCH_ALL_TYPES(src.scalar_type(), op, [&] {
    const auto* in = static_cast<const scalar_t*>(src.data_ptr());
    if constexpr (std::is_integral_v<scalar_t> && !std::is_same_v<scalar_t, int64_t>) {
      if (widen) {
        reduce_kernel(g, in, ProdOps<scalar_t, int64_t>{out.data_ptr<int64_t>()});
        return;
      }
    }
    reduce_kernel(g, in, ProdOps<scalar_t, scalar_t>{static_cast<scalar_t*>(out.data_ptr())});
  });
  return out;
}

// ---- var and std ---------------------------------------------------------------------

// Note [Variance in one pass]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The accumulator is (count, mean, sum of squared deviations M2), in double.
// A contiguous run is folded a block at a time with two passes over the
// block while it is in L1 (its mean, then its M2 around that mean), and
// blocks and thread parts are merged with Chan et al.'s pairwise formula;
// single elements (the outer loop order) use Welford's update. Both avoid
// the cancellation of sum(x^2) - n * mean^2.
struct Moments {
  double n;
  double mean;
  double m2;
};

inline Moments merge_moments(const Moments& a, const Moments& b) {
  if (a.n == 0) return b;
  if (b.n == 0) return a;
  const double n = a.n + b.n;
  const double delta = b.mean - a.mean;
  return {n, a.mean + delta * (b.n / n), a.m2 + b.m2 + delta * delta * (a.n * b.n / n)};
}

template <typename T>
struct VarOps {
  using in_t = T;
  using acc_t = Moments;

  T* var;
  T* mean;   // may be null
  double divisor;  // max(0, N - correction)
  bool take_sqrt;

  static double load(T x) { return static_cast<double>(static_cast<opmath_t<T>>(x)); }
  acc_t identity() const { return {0, 0, 0}; }
  acc_t step(acc_t a, in_t x, int64_t) const {
    const double v = load(x);
    const double n = a.n + 1;
    const double delta = v - a.mean;
    const double m = a.mean + delta / n;
    return {n, m, a.m2 + delta * (v - m)};
  }
  acc_t merge(acc_t a, acc_t b) const { return merge_moments(a, b); }
  acc_t run(acc_t a, const in_t* p, int64_t n, int64_t stride, int64_t) const {
    constexpr int64_t kBlock = 1024;
    for (int64_t b = 0; b < n; b += kBlock) {
      const int64_t len = std::min(kBlock, n - b);
      const in_t* q = p + b * stride;
      double s[4] = {0, 0, 0, 0};
      int64_t i = 0;
      for (; i + 4 <= len; i += 4) {
        for (int k = 0; k < 4; ++k) s[k] += load(q[(i + k) * stride]);
      }
      for (; i < len; ++i) s[0] += load(q[i * stride]);
      const double m = ((s[0] + s[1]) + (s[2] + s[3])) / static_cast<double>(len);
      double d[4] = {0, 0, 0, 0};
      i = 0;
      for (; i + 4 <= len; i += 4) {
        for (int k = 0; k < 4; ++k) {
          const double e = load(q[(i + k) * stride]) - m;
          d[k] += e * e;
        }
      }
      for (; i < len; ++i) {
        const double e = load(q[i * stride]) - m;
        d[0] += e * e;
      }
      a = merge_moments(a, {static_cast<double>(len), m, (d[0] + d[1]) + (d[2] + d[3])});
    }
    return a;
  }
  void write(int64_t offset, acc_t a) const {
    if (var != nullptr) {
      const double v = a.n == 0 ? std::numeric_limits<double>::quiet_NaN() : a.m2 / divisor;
      var[offset] = static_cast<T>(take_sqrt ? std::sqrt(v) : v);
    }
    if (mean != nullptr) {
      mean[offset] =
          static_cast<T>(a.n == 0 ? std::numeric_limits<double>::quiet_NaN() : a.mean);
    }
  }
};

// var or std (and the mean when `mean_out` is given) of self over `dims`.
at::Tensor var_std(const char* op, bool take_sqrt, const at::Tensor& self,
                   c10::OptionalIntArrayRef dims, const std::optional<c10::Scalar>& correction,
                   bool keepdim, at::Tensor* mean_out) {
  reduce_check_input(self, op);
  at::native::check_var_dtype(self, op);
  const std::vector<bool> mask = reduce_dim_mask(self, dims, op);
  const double c = correction.has_value() ? correction->toDouble() : 1.0;
  const std::vector<int64_t> shape = reduce_shape(self, mask, keepdim);
  at::Tensor out = empty_cpu(shape, self.scalar_type(), op);
  if (mean_out != nullptr) *mean_out = empty_cpu(shape, self.scalar_type(), op);
  const ReduceGeometry g(self.sizes(), self.strides(), mask, /*coalesce_reduced=*/true);
  const double n = static_cast<double>(g.num_reduced);
  at::native::warn_var_dof(op, g.num_outputs, g.num_reduced, c);
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    VarOps<scalar_t> ops{static_cast<scalar_t*>(out.data_ptr()),
                         mean_out != nullptr ? static_cast<scalar_t*>(mean_out->data_ptr())
                                             : nullptr,
                         std::max(0.0, n - c), take_sqrt};
    // An empty reduction writes identity() (n = 0): NaN.
    reduce_kernel(g, static_cast<const scalar_t*>(self.data_ptr()), ops);
  });
  return out;
}

// ---- all and any --------------------------------------------------------------------------

template <typename T, typename out_t, bool kAll>
struct LogicalOps {
  using in_t = T;
  using acc_t = bool;

  out_t* out;

  static bool fold(bool a, bool b) { return kAll ? (a && b) : (a || b); }
  acc_t identity() const { return kAll; }
  acc_t step(acc_t a, in_t x, int64_t) const { return fold(a, convert<bool>(x)); }
  acc_t merge(acc_t a, acc_t b) const { return fold(a, b); }
  acc_t run(acc_t a, const in_t* p, int64_t n, int64_t stride, int64_t) const {
    if (stride == 1) {
      // Branch-free (vectorizes); stops early a block at a time.
      constexpr int64_t kBlock = 1024;
      for (int64_t b = 0; b < n && a == kAll; b += kBlock) {
        const int64_t len = std::min(kBlock, n - b);
        bool r = kAll;
        for (int64_t i = 0; i < len; ++i) r = fold(r, convert<bool>(p[b + i]));
        a = fold(a, r);
      }
      return a;
    }
    for (int64_t i = 0; i < n; ++i) a = fold(a, convert<bool>(p[i * stride]));
    return a;
  }
  void write(int64_t offset, acc_t a) const { out[offset] = static_cast<out_t>(a); }
};

template <bool kAll>
at::Tensor logical_reduce(const char* op, const at::Tensor& self,
                          const std::vector<bool>& mask, bool keepdim) {
  const c10::ScalarType out_type =
      self.scalar_type() == c10::ScalarType::Byte ? c10::ScalarType::Byte
                                                  : c10::ScalarType::Bool;
  at::Tensor out = empty_cpu(reduce_shape(self, mask, keepdim), out_type, op);
  const ReduceGeometry g(self.sizes(), self.strides(), mask, /*coalesce_reduced=*/true);
  EMBER_DISPATCH_ALL_TYPES(self.scalar_type(), op, [&] {
    const auto* in = static_cast<const scalar_t*>(self.data_ptr());
    if (out_type == c10::ScalarType::Byte) {
      reduce_kernel(g, in, LogicalOps<scalar_t, uint8_t, kAll>{out.data_ptr<uint8_t>()});
    } else {
      reduce_kernel(g, in, LogicalOps<scalar_t, bool, kAll>{out.data_ptr<bool>()});
    }
  });
  return out;
}


}  // namespace

// ---- prod -----------------------------------------------------------------------------------

at::Tensor prod(const at::Tensor& self, std::optional<c10::ScalarType> dtype) {
  reduce_check_input(self, "prod");
  return prod_impl(self, reduce_dim_mask(self, std::nullopt, "prod"), false, dtype);
}

at::Tensor prod_dim(const at::Tensor& self, int64_t dim, bool keepdim,
                    std::optional<c10::ScalarType> dtype) {
  reduce_check_input(self, "prod");
  return prod_impl(self, reduce_one_dim_mask(self, dim, "prod"), keepdim, dtype);
}

at::Tensor& prod_out(const at::Tensor& self, int64_t dim, bool keepdim,
                     std::optional<c10::ScalarType> dtype, at::Tensor& out) {
  TORCH_CHECK(out.defined(), "prod: the out tensor is undefined; pass a defined tensor.");
  return reduce_write_out(out, prod_dim(self, dim, keepdim, dtype.value_or(out.scalar_type())),
                          "prod");
}

// ---- var and std -----------------------------------------------------------------------------

at::Tensor var_correction(const at::Tensor& self, c10::OptionalIntArrayRef dim,
                          const std::optional<c10::Scalar>& correction, bool keepdim) {
  return var_std("var", false, self, dim, correction, keepdim, nullptr);
}

at::Tensor& var_correction_out(const at::Tensor& self, c10::OptionalIntArrayRef dim,
                               const std::optional<c10::Scalar>& correction, bool keepdim,
                               at::Tensor& out) {
  return reduce_write_out(out, var_correction(self, dim, correction, keepdim), "var");
}

at::Tensor& var_out(const at::Tensor& self, c10::OptionalIntArrayRef dim, bool unbiased,
                    bool keepdim, at::Tensor& out) {
  return var_correction_out(self, dim, at::native::unbiased_to_correction(unbiased), keepdim, out);
}

at::Tensor std_correction(const at::Tensor& self, c10::OptionalIntArrayRef dim,
                          const std::optional<c10::Scalar>& correction, bool keepdim) {
  return var_std("std", true, self, dim, correction, keepdim, nullptr);
}

at::Tensor& std_correction_out(const at::Tensor& self, c10::OptionalIntArrayRef dim,
                               const std::optional<c10::Scalar>& correction, bool keepdim,
                               at::Tensor& out) {
  return reduce_write_out(out, std_correction(self, dim, correction, keepdim), "std");
}

at::Tensor& std_out(const at::Tensor& self, c10::OptionalIntArrayRef dim, bool unbiased,
                    bool keepdim, at::Tensor& out) {
  return std_correction_out(self, dim, at::native::unbiased_to_correction(unbiased), keepdim, out);
}

std::tuple<at::Tensor, at::Tensor> var_mean_correction(
    const at::Tensor& self, c10::OptionalIntArrayRef dim,
    const std::optional<c10::Scalar>& correction, bool keepdim) {
  at::Tensor mean;
  at::Tensor var = var_std("var_mean", false, self, dim, correction, keepdim, &mean);
  return {var, mean};
}

std::tuple<at::Tensor, at::Tensor> std_mean_correction(
    const at::Tensor& self, c10::OptionalIntArrayRef dim,
    const std::optional<c10::Scalar>& correction, bool keepdim) {
  at::Tensor mean;
  at::Tensor std = var_std("std_mean", true, self, dim, correction, keepdim, &mean);
  return {std, mean};
}

// ---- all and any --------------------------------------------------------------------------

at::Tensor all(const at::Tensor& self) {
  reduce_check_input(self, "all");
  return logical_reduce<true>("all", self, reduce_dim_mask(self, std::nullopt, "all"), false);
}

at::Tensor all_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  reduce_check_input(self, "all");
  return logical_reduce<true>("all", self, reduce_one_dim_mask(self, dim, "all"), keepdim);
}

at::Tensor all_dims(const at::Tensor& self, c10::OptionalIntArrayRef dim, bool keepdim) {
  reduce_check_input(self, "all");
  return logical_reduce<true>("all", self, reduce_dim_mask(self, dim, "all"), keepdim);
}

at::Tensor& all_out(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& out) {
  return at::native::logical_write_out(out, all_dim(self, dim, keepdim), "all");
}

at::Tensor& all_all_out(const at::Tensor& self, at::Tensor& out) {
  return at::native::logical_write_out(out, all(self), "all");
}

at::Tensor any(const at::Tensor& self) {
  reduce_check_input(self, "any");
  return logical_reduce<false>("any", self, reduce_dim_mask(self, std::nullopt, "any"), false);
}

at::Tensor any_dim(const at::Tensor& self, int64_t dim, bool keepdim) {
  reduce_check_input(self, "any");
  return logical_reduce<false>("any", self, reduce_one_dim_mask(self, dim, "any"), keepdim);
}

at::Tensor any_dims(const at::Tensor& self, c10::OptionalIntArrayRef dim, bool keepdim) {
  reduce_check_input(self, "any");
  return logical_reduce<false>("any", self, reduce_dim_mask(self, dim, "any"), keepdim);
}

at::Tensor& any_out(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& out) {
  return at::native::logical_write_out(out, any_dim(self, dim, keepdim), "any");
}

at::Tensor& any_all_out(const at::Tensor& self, at::Tensor& out) {
  return at::native::logical_write_out(out, any(self), "any");
}

}  // namespace ember::cpu
