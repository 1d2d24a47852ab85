// Batch norm and layer norm on the CPU: native_batch_norm(_backward),
// native_layer_norm(_backward). Statistics are sums in blocks (Note [Norm
// sums in blocks]: vector partial sums in the opmath type, blocks added in
// double), with two passes (mean, then the mean of squared deviations),
// which stays accurate when the mean is large next to the spread; the
// element-wise parts compute in the opmath type (float for Float, Half and
// BFloat16, double for Double), as PyTorch's kernels do.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <vector>

#include "aten/NormDecompositions.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/nn.h"
#include "backends/cpu/nn_utils.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

// A small tensor's values as doubles (any dtype, any strides).
std::vector<double> as_doubles(const at::Tensor& t, const char* op) {
  at::Tensor d = empty_cpu({t.numel()}, c10::kDouble, op);
  copy_into(d, t.reshape({t.numel()}));
  const double* p = static_cast<const double*>(d.data_ptr());
  return std::vector<double>(p, p + t.numel());
}

// A tensor of `shape` and `dtype` holding `values`.
at::Tensor from_doubles(const std::vector<double>& values, c10::IntArrayRef shape,
                        c10::ScalarType dtype, const char* op) {
  at::Tensor d = empty_cpu(shape, c10::kDouble, op);
  if (!values.empty()) {
    std::memcpy(d.data_ptr(), values.data(), values.size() * sizeof(double));
  }
  if (dtype == c10::kDouble) return d;
  at::Tensor r = empty_cpu(shape, dtype, op);
  copy_into(r, d);
  return r;
}

// The dtype of statistics and parameter gradients for `input`'s dtype:
// float for Half and BFloat16, the input's otherwise.
c10::ScalarType stat_dtype(c10::ScalarType t) { return at::native::layer_norm_stat_dtype(t); }

// ---- batch norm ----------------------------------------------------------------------------

using BnShape = at::native::BatchNormShape;  // input seen as [n, c, s]

BnShape bn_shape(const at::Tensor& input, const char* op) {
  nn::check_defined(input, op, "input");
  return at::native::batch_norm_shape(input, op);
}

// Note [Norm sums in blocks]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// The statistics of batch norm and layer norm are sums over up to millions
// of elements. Each is taken in blocks of 1024 terms: inside a block, 64
// (float) or 32 (double) independent partial sums in the opmath type, which
// the compiler turns into vector adds; the blocks' totals add up in double.
// Float data is thus summed at float vector speed (the first version, with
// one double accumulator, ran layer norm over [4096, 512] 7x slower than
// oneDNN's primitive, and batch norm 1.3x) with the error of 64-term float
// sums, and no rounding error grows with the length of a row or channel.
// `term(j)` gives the j-th term in the opmath type.
//
// The mean is summed as x - x0 for the first element x0 of the channel or
// row (added back in double): summing large values directly in float loses
// their low bits (1e4 +- 1 gave means off by 1e-3). Deviations are then
// taken from the mean rounded to the opmath type, mean_a
// (x - mean_a is exact for x near the mean), and the rounding dm = mean -
// mean_a is put back through per-row constants computed in double:
// sum (x - mean)^2 = sum (x - mean_a)^2 - n dm^2, and the element-wise
// formulas subtract dm where they subtract the mean. Without that, float
// data whose mean is large next to its spread (1e4 +- 1) came out with
// errors of 1e-3 in the normalized values; tests/ops/nn_norm_test.cc
// checks this against the double kernel.
//
// Layer norm's rows fit in L1, so its cost is arithmetic: it takes both
// statistics in one pass (block_moments: sums of d = x - x0 and d^2, x0 the
// mean of the row's first 16 values, var = E[d^2] - E[d]^2), which brought
// [4096, 512] from 1.16x to 0.95x oneDNN's time. The one-pass variance
// cancels when x0 is far from the mean; when E[d]^2 > E[d^2] / 4 (the
// variance then amplifies rounding by more than 4/3) the row takes the
// two-pass variance instead.
constexpr int64_t kBlock = 1024;
// norm_lanes<A> partial sums fill two 256-bit vectors.
template <typename A>
constexpr int norm_lanes = std::is_same_v<A, float> ? 16 : 8;

template <typename A, typename F>
double block_sum(int64_t n, const F& term) {
  // 4 * kLanes partial sums make 8 independent vector additions in flight,
  // enough to hide their latency.
  constexpr int kLanes = norm_lanes<A>;
  double total = 0;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = std::min(n, start + kBlock);
    A acc[4 * kLanes] = {};
    int64_t j = start;
    for (; j + 4 * kLanes <= end; j += 4 * kLanes) {
      for (int k = 0; k < 4 * kLanes; ++k) acc[k] += term(j + k);
    }
    for (; j + kLanes <= end; j += kLanes) {
      for (int k = 0; k < kLanes; ++k) acc[k] += term(j + k);
    }
    for (; j < end; ++j) acc[0] += term(j);
    for (int width = 2 * kLanes; width > 0; width /= 2) {
      for (int k = 0; k < width; ++k) acc[k] += acc[k + width];
    }
    total += static_cast<double>(acc[0]);
  }
  return total;
}

// {sum v, sum v * v} over the n values value(j), in blocks as block_sum.
template <typename A, typename F>
std::pair<double, double> block_moments(int64_t n, const F& value) {
  constexpr int kLanes = norm_lanes<A>;
  double s1 = 0, s2 = 0;
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t end = std::min(n, start + kBlock);
    A a1[2 * kLanes] = {}, a2[2 * kLanes] = {};
    int64_t j = start;
    for (; j + 2 * kLanes <= end; j += 2 * kLanes) {
      for (int k = 0; k < 2 * kLanes; ++k) {
        const A v = value(j + k);
        a1[k] += v;
        a2[k] += v * v;
      }
    }
    for (; j < end; ++j) {
      const A v = value(j);
      a1[0] += v;
      a2[0] += v * v;
    }
    for (int width = kLanes; width > 0; width /= 2) {
      for (int k = 0; k < width; ++k) {
        a1[k] += a1[k + width];
        a2[k] += a2[k + width];
      }
    }
    s1 += static_cast<double>(a1[0]);
    s2 += static_cast<double>(a2[0]);
  }
  return {s1, s2};
}

// The sum over channel c of term(offset) for every offset (i * C + c) * S + k
// of an [N, C, S] tensor. Rows of at least 16 elements are summed with
// block_sum each; shorter ones (S = 1 for BatchNorm1d) as one block_sum
// over i whose term adds the row's few elements.
template <typename A, typename F>
double channel_sum(const BnShape& g, int64_t c, const F& term) {
  if (g.s >= 16) {
    double total = 0;
    for (int64_t i = 0; i < g.n; ++i) {
      const int64_t base = (i * g.c + c) * g.s;
      total += block_sum<A>(g.s, [&](int64_t k) { return term(base + k); });
    }
    return total;
  }
  return block_sum<A>(g.n, [&](int64_t i) {
    const int64_t base = (i * g.c + c) * g.s;
    A row = 0;
    for (int64_t k = 0; k < g.s; ++k) row += term(base + k);
    return row;
  });
}

// y = (x - mean) * alpha + beta over channel c, in the opmath type A.
// (Folding the mean into beta would save a subtraction but cancel
// catastrophically in float when the mean is large next to the spread.)
template <typename T, typename A>
void normalize_channel(const T* x, T* y, const BnShape& g, int64_t c, A mean, A alpha,
                       A beta) {
  for (int64_t i = 0; i < g.n; ++i) {
    const T* __restrict xr = x + (i * g.c + c) * g.s;
    T* __restrict yr = y + (i * g.c + c) * g.s;
    for (int64_t k = 0; k < g.s; ++k) {
      yr[k] = static_cast<T>((static_cast<A>(xr[k]) - mean) * alpha + beta);
    }
  }
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_batch_norm_cpu(
    const at::Tensor& input, const std::optional<at::Tensor>& weight,
    const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& running_mean,
    const std::optional<at::Tensor>& running_var, bool training, double momentum,
    double eps) {
  const char* op = "native_batch_norm";
  const BnShape g = bn_shape(input, op);
  at::native::check_batch_norm_forward(g, weight, bias, running_mean, running_var, training,
                                       op);
  const int64_t count = g.n * g.s;
  const at::Tensor x = nn::contiguous(input);
  std::vector<double> mean(static_cast<size_t>(g.c)), invstd(static_cast<size_t>(g.c));
  std::vector<double> var(static_cast<size_t>(g.c));
  const std::vector<double> w =
      nn::present(weight) ? as_doubles(*weight, op) : std::vector<double>(g.c, 1.0);
  const std::vector<double> b =
      nn::present(bias) ? as_doubles(*bias, op) : std::vector<double>(g.c, 0.0);
  at::Tensor out = empty_cpu(input.sizes(), input.scalar_type(), op);
  EMBER_DISPATCH_FLOATING_TYPES(input.scalar_type(), op, [&] {
    using A = opmath_t<scalar_t>;
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    scalar_t* yp = static_cast<scalar_t*>(out.data_ptr());
    if (!training) {
      mean = as_doubles(*running_mean, op);
      const std::vector<double> rv = as_doubles(*running_var, op);
      for (int64_t c = 0; c < g.c; ++c) invstd[c] = 1.0 / std::sqrt(rv[c] + eps);
    }
    // One pass over a channel's data for each statistic and one to
    // normalize it, while the channel is still in cache.
    nn::parallel_for(g.c, input.numel(), [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        if (training) {
          const A x0 = count > 0 ? static_cast<A>(xp[c * g.s]) : A(0);
          const double m = static_cast<double>(x0) +
                           channel_sum<A>(g, c, [&](int64_t o) {
                             return static_cast<A>(xp[o]) - x0;
                           }) / static_cast<double>(count);
          const A mc = static_cast<A>(m);
          const double dm = m - static_cast<double>(mc);
          const double sq = channel_sum<A>(g, c, [&](int64_t o) {
            const A d = static_cast<A>(xp[o]) - mc;
            return d * d;
          });
          mean[c] = m;
          var[c] = std::max(sq / static_cast<double>(count) - dm * dm, 0.0);
          invstd[c] = 1.0 / std::sqrt(var[c] + eps);
        }
        // y = (x - mean) * invstd * w + b
        //   = (x - mean_a) * alpha + (b - dm * alpha)
        const A mc = static_cast<A>(mean[c]);
        const double dm = mean[c] - static_cast<double>(mc);
        const double alpha = invstd[c] * w[c];
        normalize_channel(xp, yp, g, c, mc, static_cast<A>(alpha),
                          static_cast<A>(b[c] - dm * alpha));
      }
    });
  });
  const c10::ScalarType sdt = stat_dtype(input.scalar_type());
  if (!training) {
    return {out, empty_cpu({0}, sdt, op), empty_cpu({0}, sdt, op)};
  }
  // running = (1 - momentum) * running + momentum * batch statistic, with
  // the unbiased variance (count / (count - 1); NaN for a single value, as
  // in PyTorch).
  if (nn::present(running_mean)) {
    std::vector<double> rm = as_doubles(*running_mean, op);
    for (int64_t c = 0; c < g.c; ++c) rm[c] = (1 - momentum) * rm[c] + momentum * mean[c];
    copy_into(*running_mean,
              from_doubles(rm, running_mean->sizes(), running_mean->scalar_type(), op));
  }
  if (nn::present(running_var)) {
    std::vector<double> rv = as_doubles(*running_var, op);
    const double unbias = static_cast<double>(count) / static_cast<double>(count - 1);
    for (int64_t c = 0; c < g.c; ++c) {
      rv[c] = (1 - momentum) * rv[c] + momentum * var[c] * unbias;
    }
    copy_into(*running_var,
              from_doubles(rv, running_var->sizes(), running_var->scalar_type(), op));
  }
  return {out, from_doubles(mean, {g.c}, sdt, op), from_doubles(invstd, {g.c}, sdt, op)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_batch_norm_backward_cpu(
    const at::Tensor& grad_out, const at::Tensor& input,
    const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& running_mean,
    const std::optional<at::Tensor>& running_var, const std::optional<at::Tensor>& save_mean,
    const std::optional<at::Tensor>& save_invstd, bool train, double eps,
    const std::vector<bool>& output_mask) {
  const char* op = "native_batch_norm_backward";
  const BnShape g = bn_shape(input, op);
  nn::check_defined(grad_out, op, "grad_out");
  at::native::check_batch_norm_backward(grad_out, input, g, weight, running_mean, running_var,
                                        save_mean, save_invstd, train, output_mask, op);
  std::vector<double> mean, invstd;
  if (train) {
    mean = as_doubles(*save_mean, op);
    invstd = as_doubles(*save_invstd, op);
  } else {
    mean = as_doubles(*running_mean, op);
    invstd = as_doubles(*running_var, op);
    for (double& v : invstd) v = 1.0 / std::sqrt(v + eps);
  }
  const std::vector<double> w =
      nn::present(weight) ? as_doubles(*weight, op) : std::vector<double>(g.c, 1.0);
  const at::Tensor x = nn::contiguous(input);
  const at::Tensor dy = nn::contiguous(grad_out);
  at::Tensor grad_input =
      output_mask[0] ? empty_cpu(input.sizes(), input.scalar_type(), op) : at::Tensor();
  std::vector<double> sum_dy(static_cast<size_t>(g.c)), dot(static_cast<size_t>(g.c));
  const double count = static_cast<double>(g.n * g.s);
  EMBER_DISPATCH_FLOATING_TYPES(input.scalar_type(), op, [&] {
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    const scalar_t* gp = static_cast<const scalar_t*>(dy.data_ptr());
    scalar_t* gi = grad_input.defined() ? static_cast<scalar_t*>(grad_input.data_ptr())
                                        : nullptr;
    using A = opmath_t<scalar_t>;
    nn::parallel_for(g.c, input.numel(), [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        const A mc = static_cast<A>(mean[c]);
        const double dm = mean[c] - static_cast<double>(mc);
        const double s = channel_sum<A>(g, c, [&](int64_t o) { return static_cast<A>(gp[o]); });
        // sum dy * (x - mean) = sum dy * (x - mean_a) - dm * sum dy
        const double d = channel_sum<A>(g, c, [&](int64_t o) {
          return static_cast<A>(gp[o]) * (static_cast<A>(xp[o]) - mc);
        }) - dm * s;
        sum_dy[c] = s;
        dot[c] = d;
        if (gi == nullptr) continue;
        // Training: the batch statistics depend on x too, which removes the
        // gradient's mean and its projection on the normalized input.
        // (x - mean) is formed first: folding the mean into a constant
        // would cancel catastrophically when the mean is large next to the
        // spread.
        // With x - mean = (x - mean_a) - dm, dm * proj joins the shift.
        const double proj_d = train ? d * invstd[c] * invstd[c] / count : 0.0;
        const A scale = static_cast<A>(invstd[c] * w[c]);
        const A proj = static_cast<A>(proj_d);
        const A shift = static_cast<A>((train ? s / count : 0.0) - dm * proj_d);
        for (int64_t i = 0; i < g.n; ++i) {
          const int64_t base = (i * g.c + c) * g.s;
          const scalar_t* __restrict xr = xp + base;
          const scalar_t* __restrict dr = gp + base;
          scalar_t* __restrict out = gi + base;
          for (int64_t k = 0; k < g.s; ++k) {
            const A xc = static_cast<A>(xr[k]) - mc;
            out[k] = static_cast<scalar_t>((static_cast<A>(dr[k]) - shift - xc * proj) * scale);
          }
        }
      }
    });
  });
  const c10::ScalarType pdt =
      nn::present(weight) ? weight->scalar_type() : stat_dtype(input.scalar_type());
  at::Tensor grad_weight, grad_bias;
  if (output_mask[1]) {
    std::vector<double> gw(static_cast<size_t>(g.c));
    for (int64_t c = 0; c < g.c; ++c) gw[c] = dot[c] * invstd[c];
    grad_weight = from_doubles(gw, {g.c}, pdt, op);
  }
  if (output_mask[2]) grad_bias = from_doubles(sum_dy, {g.c}, pdt, op);
  return {grad_input, grad_weight, grad_bias};
}

// ---- layer norm ------------------------------------------------------------------------------

namespace {

struct LnShape {
  int64_t m, n;                    // rows, elements per row
  std::vector<int64_t> stat_shape;  // input's leading dims, then 1s
};

LnShape ln_shape(const at::Tensor& input, c10::IntArrayRef normalized_shape,
                 const std::optional<at::Tensor>& weight,
                 const std::optional<at::Tensor>& bias, const char* op) {
  nn::check_defined(input, op, "input");
  const at::native::LayerNormShape s =
      at::native::layer_norm_shape(input, normalized_shape, weight, bias, op);
  return {s.m, s.n, s.stat_shape};
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_layer_norm_cpu(
    const at::Tensor& input, c10::IntArrayRef normalized_shape,
    const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias,
    double eps) {
  const char* op = "native_layer_norm";
  const LnShape g = ln_shape(input, normalized_shape, weight, bias, op);
  const at::Tensor x = nn::contiguous(input);
  const std::vector<double> w = nn::present(weight) ? as_doubles(*weight, op)
                                                    : std::vector<double>();
  const std::vector<double> b = nn::present(bias) ? as_doubles(*bias, op)
                                                  : std::vector<double>();
  at::Tensor out = empty_cpu(input.sizes(), input.scalar_type(), op);
  std::vector<double> mean(static_cast<size_t>(g.m)), rstd(static_cast<size_t>(g.m));
  EMBER_DISPATCH_FLOATING_TYPES(input.scalar_type(), op, [&] {
    using A = opmath_t<scalar_t>;
    const std::vector<A> wa(w.begin(), w.end()), ba(b.begin(), b.end());
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    scalar_t* yp = static_cast<scalar_t*>(out.data_ptr());
    const A* wp = wa.empty() ? nullptr : wa.data();
    const A* bp = ba.empty() ? nullptr : ba.data();
    nn::parallel_for(g.m, input.numel(), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const scalar_t* __restrict xr = xp + r * g.n;
        scalar_t* __restrict yr = yp + r * g.n;
        // Statistics as Note [Norm sums in blocks] says.
        A x0 = 0;
        const int64_t head = std::min<int64_t>(g.n, 16);
        for (int64_t j = 0; j < head; ++j) x0 += static_cast<A>(xr[j]);
        x0 = head > 0 ? x0 / static_cast<A>(head) : A(0);
        const auto [s1, s2] =
            block_moments<A>(g.n, [&](int64_t j) { return static_cast<A>(xr[j]) - x0; });
        const double inv_n = 1.0 / static_cast<double>(g.n);
        const double md = s1 * inv_n;
        const double mu = static_cast<double>(x0) + md;
        const A mu_a = static_cast<A>(mu);
        const double dm = mu - static_cast<double>(mu_a);
        double var = s2 * inv_n - md * md;
        if (md * md > 0.25 * s2 * inv_n) {
          const double sq = block_sum<A>(g.n, [&](int64_t j) {
            const A d = static_cast<A>(xr[j]) - mu_a;
            return d * d;
          });
          var = sq * inv_n - dm * dm;
        }
        var = std::max(var, 0.0);
        const double rs = 1.0 / std::sqrt(var + eps);
        mean[r] = mu;
        rstd[r] = rs;
        // xhat = (x - mean) * rstd = (x - mean_a) * rstd - dm * rstd
        const A rs_a = static_cast<A>(rs), shift = static_cast<A>(-dm * rs);
        // One loop per combination of weight and bias, so that none tests a
        // pointer per element (which keeps GCC from vectorizing).
        const auto normalize = [&](auto with_w, auto with_b) {
          for (int64_t j = 0; j < g.n; ++j) {
            A v = (static_cast<A>(xr[j]) - mu_a) * rs_a + shift;
            if constexpr (decltype(with_w)::value) v *= wp[j];
            if constexpr (decltype(with_b)::value) v += bp[j];
            yr[j] = static_cast<scalar_t>(v);
          }
        };
        using yes = std::true_type;
        using no = std::false_type;
        if (wp && bp) {
          normalize(yes{}, yes{});
        } else if (wp) {
          normalize(yes{}, no{});
        } else if (bp) {
          normalize(no{}, yes{});
        } else {
          normalize(no{}, no{});
        }
      }
    });
  });
  const c10::ScalarType sdt = stat_dtype(input.scalar_type());
  return {out, from_doubles(mean, g.stat_shape, sdt, op),
          from_doubles(rstd, g.stat_shape, sdt, op)};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_layer_norm_backward_cpu(
    const at::Tensor& grad_out, const at::Tensor& input, c10::IntArrayRef normalized_shape,
    const at::Tensor& mean, const at::Tensor& rstd, const std::optional<at::Tensor>& weight,
    const std::optional<at::Tensor>& bias, const std::vector<bool>& output_mask) {
  const char* op = "native_layer_norm_backward";
  const LnShape g = ln_shape(input, normalized_shape, weight, bias, op);
  nn::check_defined(grad_out, op, "grad_out");
  nn::check_defined(mean, op, "mean");
  nn::check_defined(rstd, op, "rstd");
  at::native::check_layer_norm_backward(grad_out, input, mean, rstd, {g.m, g.n, g.stat_shape},
                                        output_mask, op);
  const std::vector<double> mu = as_doubles(mean, op);
  const std::vector<double> rs = as_doubles(rstd, op);
  const std::vector<double> w = nn::present(weight) ? as_doubles(*weight, op)
                                                    : std::vector<double>();
  const at::Tensor x = nn::contiguous(input);
  const at::Tensor dy = nn::contiguous(grad_out);
  at::Tensor grad_input =
      output_mask[0] ? empty_cpu(input.sizes(), input.scalar_type(), op) : at::Tensor();
  std::vector<double> gw(static_cast<size_t>(g.n), 0.0), gb(static_cast<size_t>(g.n), 0.0);
  EMBER_DISPATCH_FLOATING_TYPES(input.scalar_type(), op, [&] {
    using A = opmath_t<scalar_t>;
    const std::vector<A> wa(w.begin(), w.end());
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    const scalar_t* gp = static_cast<const scalar_t*>(dy.data_ptr());
    const A* wp = wa.empty() ? nullptr : wa.data();
    if (grad_input.defined()) {
      scalar_t* gi = static_cast<scalar_t*>(grad_input.data_ptr());
      // dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * w.
      nn::parallel_for(g.m, input.numel(), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const scalar_t* __restrict xr = xp + r * g.n;
          const scalar_t* __restrict dr = gp + r * g.n;
          scalar_t* __restrict out = gi + r * g.n;
          const A mu_a = static_cast<A>(mu[r]), rs_a = static_cast<A>(rs[r]);
          const double dm = mu[r] - static_cast<double>(mu_a);
          // Sums as Note [Norm sums in blocks] says; a loop per case of
          // weight, so that none tests the pointer per element.
          double sg, sgxc;
          if (wp) {
            sg = block_sum<A>(g.n, [&](int64_t j) { return static_cast<A>(dr[j]) * wp[j]; });
            sgxc = block_sum<A>(g.n, [&](int64_t j) {
              return static_cast<A>(dr[j]) * wp[j] * (static_cast<A>(xr[j]) - mu_a);
            });
          } else {
            sg = block_sum<A>(g.n, [&](int64_t j) { return static_cast<A>(dr[j]); });
            sgxc = block_sum<A>(g.n, [&](int64_t j) {
              return static_cast<A>(dr[j]) * (static_cast<A>(xr[j]) - mu_a);
            });
          }
          sgxc -= dm * sg;  // sum g * (x - mean), as in Note [Norm sums in blocks]
          const double inv_n = 1.0 / static_cast<double>(g.n);
          // mean(g * xhat) * rstd, the factor of (x - mean) = (x - mean_a) - dm,
          // and mean(g), which takes dm's part.
          const double k_d = sgxc * inv_n * rs[r] * rs[r];
          const A k = static_cast<A>(k_d);
          const A mean_g = static_cast<A>(sg * inv_n - dm * k_d);
          const auto write = [&](auto with_w) {
            for (int64_t j = 0; j < g.n; ++j) {
              A gv = static_cast<A>(dr[j]);
              if constexpr (decltype(with_w)::value) gv *= wp[j];
              out[j] = static_cast<scalar_t>(
                  rs_a * (gv - mean_g - (static_cast<A>(xr[j]) - mu_a) * k));
            }
          };
          if (wp) {
            write(std::true_type{});
          } else {
            write(std::false_type{});
          }
        }
      });
    }
    if (output_mask[1] || output_mask[2]) {
      // Column sums over the rows, in double; each thread takes a range of
      // columns.
      nn::parallel_for(g.n, input.numel(), [&](int64_t begin, int64_t end) {
        for (int64_t r = 0; r < g.m; ++r) {
          const scalar_t* __restrict xr = xp + r * g.n;
          const scalar_t* __restrict dr = gp + r * g.n;
          const double m = mu[r], s = rs[r];
          for (int64_t j = begin; j < end; ++j) {
            const double d = static_cast<double>(dr[j]);
            gw[j] += d * (static_cast<double>(xr[j]) - m) * s;
            gb[j] += d;
          }
        }
      });
    }
  });
  const c10::ScalarType pdt =
      nn::present(weight) ? weight->scalar_type() : stat_dtype(input.scalar_type());
  at::Tensor grad_weight =
      output_mask[1] ? from_doubles(gw, normalized_shape, pdt, op) : at::Tensor();
  at::Tensor grad_bias =
      output_mask[2] ? from_doubles(gb, normalized_shape, pdt, op) : at::Tensor();
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace ember::cpu
