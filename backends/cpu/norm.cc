// Batch norm and layer norm on the CPU: native_batch_norm(_backward),
// native_layer_norm(_backward). Statistics accumulate in double (float for
// Half and BFloat16 data is read as float and summed in double too), with
// two passes (mean, then the mean of squared deviations), which stays
// accurate when the mean is large next to the spread.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <vector>

#include "backends/cpu/dispatch.h"
#include "backends/cpu/nn.h"
#include "backends/cpu/nn_utils.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"
#include "registration/library.h"

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
c10::ScalarType stat_dtype(c10::ScalarType t) {
  return t == c10::kHalf || t == c10::kBFloat16 ? c10::kFloat : t;
}

// ---- batch norm ----------------------------------------------------------------------------

struct BnShape {
  int64_t n, c, s;  // input seen as [n, c, s]
};

BnShape bn_shape(const at::Tensor& input, const char* op) {
  nn::check_defined(input, op, "input");
  nn::check_floating(input, op, "input");
  TORCH_CHECK(input.dim() >= 2, op, ": expected an input of at least 2 dimensions "
              "(N, C, ...), but got a ", input.dim(), "-d input of shape ", input.sizes(),
              ".");
  int64_t s = 1;
  for (int64_t d = 2; d < input.dim(); ++d) s *= input.size(d);
  return {input.size(0), input.size(1), s};
}

void check_channels(const std::optional<at::Tensor>& t, int64_t c, const char* name,
                    const char* op) {
  if (!nn::present(t)) return;
  TORCH_CHECK(t->numel() == c, op, ": ", name, " should contain ", c, " elements not ",
              t->numel(), " (one per channel, input.size(1)).");
}

// Calls f(c, x_of_channel_c_at(i, k)) style loops: x[(i * C + c) * S + k].
template <typename T, typename F>
void for_channel(const T* x, const BnShape& g, int64_t c, const F& f) {
  for (int64_t i = 0; i < g.n; ++i) {
    const T* __restrict row = x + (i * g.c + c) * g.s;
    for (int64_t k = 0; k < g.s; ++k) f(i, k, static_cast<double>(row[k]));
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
  check_channels(weight, g.c, "weight", op);
  check_channels(bias, g.c, "bias", op);
  check_channels(running_mean, g.c, "running_mean", op);
  check_channels(running_var, g.c, "running_var", op);
  TORCH_CHECK(training || (nn::present(running_mean) && nn::present(running_var)), op,
              ": running_mean and running_var must be defined in evaluation mode "
              "(training=false); pass them, or use training=true.");
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
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    scalar_t* yp = static_cast<scalar_t*>(out.data_ptr());
    if (training) {
      nn::parallel_for(g.c, input.numel(), [&](int64_t begin, int64_t end) {
        for (int64_t c = begin; c < end; ++c) {
          double sum = 0;
          for_channel(xp, g, c, [&](int64_t, int64_t, double v) { sum += v; });
          const double m = sum / static_cast<double>(count);
          double sq = 0;
          for_channel(xp, g, c, [&](int64_t, int64_t, double v) { sq += (v - m) * (v - m); });
          mean[c] = m;
          var[c] = sq / static_cast<double>(count);
          invstd[c] = 1.0 / std::sqrt(var[c] + eps);
        }
      });
    } else {
      mean = as_doubles(*running_mean, op);
      const std::vector<double> rv = as_doubles(*running_var, op);
      for (int64_t c = 0; c < g.c; ++c) invstd[c] = 1.0 / std::sqrt(rv[c] + eps);
    }
    nn::parallel_for(g.c, input.numel(), [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        // y = (x - mean) * invstd * w + b = x * alpha + beta
        const double alpha = invstd[c] * w[c];
        const double beta = b[c] - mean[c] * alpha;
        for (int64_t i = 0; i < g.n; ++i) {
          const scalar_t* __restrict xr = xp + (i * g.c + c) * g.s;
          scalar_t* __restrict yr = yp + (i * g.c + c) * g.s;
          for (int64_t k = 0; k < g.s; ++k) {
            yr[k] = static_cast<scalar_t>(static_cast<double>(xr[k]) * alpha + beta);
          }
        }
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
  TORCH_CHECK(grad_out.sizes() == input.sizes(), op, ": grad_out and input must have "
              "the same shape, but got ", grad_out.sizes(), " and ", input.sizes(), ".");
  TORCH_CHECK(output_mask.size() == 3, op, ": output_mask must have 3 entries, but has ",
              output_mask.size(), ".");
  check_channels(weight, g.c, "weight", op);
  std::vector<double> mean, invstd;
  if (train) {
    TORCH_CHECK(nn::present(save_mean) && nn::present(save_invstd), op,
                ": save_mean and save_invstd must be defined in training mode; pass "
                "the ones native_batch_norm returned.");
    check_channels(save_mean, g.c, "save_mean", op);
    check_channels(save_invstd, g.c, "save_invstd", op);
    mean = as_doubles(*save_mean, op);
    invstd = as_doubles(*save_invstd, op);
  } else {
    TORCH_CHECK(nn::present(running_mean) && nn::present(running_var), op,
                ": running_mean and running_var must be defined in evaluation mode.");
    check_channels(running_mean, g.c, "running_mean", op);
    check_channels(running_var, g.c, "running_var", op);
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
    nn::parallel_for(g.c, input.numel(), [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        double s = 0, d = 0;
        for (int64_t i = 0; i < g.n; ++i) {
          const int64_t base = (i * g.c + c) * g.s;
          for (int64_t k = 0; k < g.s; ++k) {
            const double gv = static_cast<double>(gp[base + k]);
            s += gv;
            d += gv * (static_cast<double>(xp[base + k]) - mean[c]);
          }
        }
        sum_dy[c] = s;
        dot[c] = d;
        if (gi == nullptr) continue;
        const double scale = invstd[c] * w[c];
        // Training: the batch statistics depend on x too, which removes the
        // gradient's mean and its projection on the normalized input.
        const double proj = train ? d * invstd[c] * invstd[c] / count : 0.0;
        const double shift = train ? s / count : 0.0;
        for (int64_t i = 0; i < g.n; ++i) {
          const int64_t base = (i * g.c + c) * g.s;
          for (int64_t k = 0; k < g.s; ++k) {
            const double xc = static_cast<double>(xp[base + k]) - mean[c];
            gi[base + k] = static_cast<scalar_t>(
                (static_cast<double>(gp[base + k]) - shift - xc * proj) * scale);
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

// Note [Layer norm row sums]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// The sum over a row of f(x) in double, in 8 independent partial sums: with
// one accumulator every addition waits for the previous one, and layer
// norm over [4096, 512] ran 7x slower than oneDNN's
// (tools/bench:onednn_kernels_bench). The partial sums are vectorized and
// still accumulate in double.
template <typename T, typename F>
double row_sum(const T* __restrict x, int64_t n, const F& f) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (int k = 0; k < 8; ++k) acc[k] += f(static_cast<double>(x[j + k]));
  }
  double tail = 0;
  for (; j < n; ++j) tail += f(static_cast<double>(x[j]));
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])) +
         tail;
}

struct LnShape {
  int64_t m, n;                    // rows, elements per row
  std::vector<int64_t> stat_shape;  // input's leading dims, then 1s
};

LnShape ln_shape(const at::Tensor& input, c10::IntArrayRef normalized_shape,
                 const std::optional<at::Tensor>& weight,
                 const std::optional<at::Tensor>& bias, const char* op) {
  nn::check_defined(input, op, "input");
  nn::check_floating(input, op, "input");
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  TORCH_CHECK(nd >= 1, op, ": Expected normalized_shape to be at least 1-dimensional, "
              "i.e., containing at least one element, but got normalized_shape = ",
              normalized_shape);
  TORCH_CHECK(!nn::present(weight) || weight->sizes() == normalized_shape, op,
              ": Expected weight to be of same shape as normalized_shape, but got weight "
              "of shape ", weight->sizes(), " and normalized_shape = ", normalized_shape);
  TORCH_CHECK(!nn::present(bias) || bias->sizes() == normalized_shape, op,
              ": Expected bias to be of same shape as normalized_shape, but got bias of "
              "shape ", bias->sizes(), " and normalized_shape = ", normalized_shape);
  const int64_t ndim = input.dim();
  bool ok = ndim >= nd;
  for (int64_t i = 0; ok && i < nd; ++i) {
    ok = input.size(ndim - nd + i) == normalized_shape[static_cast<size_t>(i)];
  }
  if (!ok) {
    std::ostringstream expected;
    expected << "[*";
    for (const int64_t s : normalized_shape) expected << ", " << s;
    expected << "]";
    TORCH_CHECK(false, op, ": Given normalized_shape=", normalized_shape,
                ", expected input with shape ", expected.str(),
                ", but got input of size", input.sizes());
  }
  LnShape s{1, 1, {}};
  for (int64_t d = 0; d < ndim; ++d) {
    if (d < ndim - nd) {
      s.m *= input.size(d);
      s.stat_shape.push_back(input.size(d));
    } else {
      s.n *= input.size(d);
      s.stat_shape.push_back(1);
    }
  }
  return s;
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
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    scalar_t* yp = static_cast<scalar_t*>(out.data_ptr());
    const double* wp = w.empty() ? nullptr : w.data();
    const double* bp = b.empty() ? nullptr : b.data();
    nn::parallel_for(g.m, input.numel(), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const scalar_t* __restrict xr = xp + r * g.n;
        scalar_t* __restrict yr = yp + r * g.n;
        const double mu =
            row_sum(xr, g.n, [](double v) { return v; }) / static_cast<double>(g.n);
        const double sq = row_sum(xr, g.n, [mu](double v) { return (v - mu) * (v - mu); });
        const double rs = 1.0 / std::sqrt(sq / static_cast<double>(g.n) + eps);
        mean[r] = mu;
        rstd[r] = rs;
        // One loop per combination of weight and bias, so that none tests a
        // pointer per element (which keeps GCC from vectorizing).
        const auto normalize = [&](auto with_w, auto with_b) {
          for (int64_t j = 0; j < g.n; ++j) {
            double v = (static_cast<double>(xr[j]) - mu) * rs;
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
  TORCH_CHECK(grad_out.sizes() == input.sizes(), op, ": grad_out and input must have "
              "the same shape, but got ", grad_out.sizes(), " and ", input.sizes(), ".");
  TORCH_CHECK(mean.numel() == g.m && rstd.numel() == g.m, op, ": mean and rstd must "
              "have one element per normalized row (", g.m, "), but have ", mean.numel(),
              " and ", rstd.numel(), "; pass the ones native_layer_norm returned.");
  TORCH_CHECK(output_mask.size() == 3, op, ": output_mask must have 3 entries, but has ",
              output_mask.size(), ".");
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
    const scalar_t* xp = static_cast<const scalar_t*>(x.data_ptr());
    const scalar_t* gp = static_cast<const scalar_t*>(dy.data_ptr());
    const double* wp = w.empty() ? nullptr : w.data();
    if (grad_input.defined()) {
      scalar_t* gi = static_cast<scalar_t*>(grad_input.data_ptr());
      // dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * w.
      nn::parallel_for(g.m, input.numel(), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const scalar_t* __restrict xr = xp + r * g.n;
          const scalar_t* __restrict dr = gp + r * g.n;
          scalar_t* __restrict out = gi + r * g.n;
          double sg = 0, sgx = 0;
          for (int64_t j = 0; j < g.n; ++j) {
            const double gv = static_cast<double>(dr[j]) * (wp ? wp[j] : 1.0);
            sg += gv;
            sgx += gv * (static_cast<double>(xr[j]) - mu[r]) * rs[r];
          }
          const double inv_n = 1.0 / static_cast<double>(g.n);
          for (int64_t j = 0; j < g.n; ++j) {
            const double gv = static_cast<double>(dr[j]) * (wp ? wp[j] : 1.0);
            const double xhat = (static_cast<double>(xr[j]) - mu[r]) * rs[r];
            out[j] = static_cast<scalar_t>(rs[r] * (gv - sg * inv_n - xhat * sgx * inv_n));
          }
        }
      });
    }
    if (output_mask[1] || output_mask[2]) {
      for (int64_t r = 0; r < g.m; ++r) {
        const scalar_t* __restrict xr = xp + r * g.n;
        const scalar_t* __restrict dr = gp + r * g.n;
        for (int64_t j = 0; j < g.n; ++j) {
          const double d = static_cast<double>(dr[j]);
          gw[j] += d * (static_cast<double>(xr[j]) - mu[r]) * rs[r];
          gb[j] += d;
        }
      }
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

TORCH_LIBRARY_IMPL(aten, CPU, m) {
  m.impl("native_batch_norm", TORCH_FN(ember::cpu::native_batch_norm_cpu));
  m.impl("native_batch_norm_backward", TORCH_FN(ember::cpu::native_batch_norm_backward_cpu));
  m.impl("native_layer_norm", TORCH_FN(ember::cpu::native_layer_norm_cpu));
  m.impl("native_layer_norm_backward", TORCH_FN(ember::cpu::native_layer_norm_backward_cpu));
}
