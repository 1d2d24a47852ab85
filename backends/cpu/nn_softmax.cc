// softmax and log_softmax on the CPU (_softmax, _log_softmax, their .out
// variants and backward ops). See Note [Softmax loops].
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "aten/SoftmaxChecks.h"
#include "aten/WrapDimUtils.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/nn.h"
#include "backends/cpu/nn_utils.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

// Note [Softmax loops]
// ~~~~~~~~~~~~~~~~~~~~
// A contiguous input is seen as [outer, n, inner] around the softmax dim.
// With inner == 1 (the last dim, the common case) each row of n elements is
// processed alone in three passes: the max (eight independent lanes, so
// that the compiler can keep several maxima in flight), the sum of
// exp(x - max) (stored into the output for softmax, so that the last pass
// only scales), and the write. Subtracting the max keeps exp in range;
// log_softmax writes x - max - log(sum). With inner > 1 a block of up to
// kBlock neighbouring columns is processed together: each pass walks the n
// rows of the block, whose elements are contiguous, with one accumulator
// per column. Rows (or blocks) are split between threads.
constexpr int64_t kBlock = 256;

struct Shape3 {
  int64_t outer = 1, n = 1, inner = 1;
};

Shape3 shape3(const at::Tensor& t, int64_t dim) {
  Shape3 s;
  if (t.dim() == 0) return s;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d < dim) s.outer *= t.size(d);
    if (d > dim) s.inner *= t.size(d);
  }
  s.n = t.size(dim);
  return s;
}

template <typename in_t, typename out_t, bool kLog>
void softmax_row(const in_t* __restrict x, out_t* __restrict y, int64_t n) {
  using acc_t = opmath_t<in_t>;
  // `omp simd` reductions let GCC reassociate the max and the sum across
  // SIMD lanes (it may not otherwise, floating-point addition not being
  // associative).
  acc_t max = -std::numeric_limits<acc_t>::infinity();
#pragma omp simd reduction(max : max)
  for (int64_t i = 0; i < n; ++i) max = std::max(max, static_cast<acc_t>(x[i]));
  // A NaN anywhere makes the row NaN, as in PyTorch (the max may skip it,
  // the exp of it does not).
  constexpr bool kStoreExp = !kLog && std::is_same_v<out_t, acc_t>;
  acc_t sum = 0;
  if constexpr (kStoreExp) {
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i) {
      const acc_t e = nn::fast_exp(static_cast<acc_t>(x[i]) - max);
      y[i] = e;
      sum += e;
    }
  } else {
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i) sum += nn::fast_exp(static_cast<acc_t>(x[i]) - max);
  }
  if constexpr (kLog) {
    // (x - max) - log(sum): x - max is exact for nearby values, while
    // max + log(sum) would round at max's magnitude.
    const acc_t log_sum = std::log(sum);
    for (int64_t i = 0; i < n; ++i) {
      y[i] = static_cast<out_t>((static_cast<acc_t>(x[i]) - max) - log_sum);
    }
  } else if constexpr (kStoreExp) {
    const acc_t inv = acc_t(1) / sum;
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  } else {
    const acc_t inv = acc_t(1) / sum;
    for (int64_t i = 0; i < n; ++i) {
      y[i] = static_cast<out_t>(nn::fast_exp(static_cast<acc_t>(x[i]) - max) * inv);
    }
  }
}

// Short rows (n < kShortRow): a per-row loop would run mostly in its scalar
// tail, so rows are processed a group at a time, with the exps of the
// whole group in one vectorized loop over a buffer of kGroup elements.
constexpr int64_t kShortRow = 64;
constexpr int64_t kGroup = 4096;

template <typename in_t, typename out_t, bool kLog>
void softmax_short_rows(const in_t* x, out_t* y, int64_t rows, int64_t n) {
  using acc_t = opmath_t<in_t>;
  acc_t buf[kGroup];
  const int64_t group_rows = kGroup / n;
  for (int64_t r0 = 0; r0 < rows; r0 += group_rows) {
    const int64_t nr = std::min(group_rows, rows - r0);
    const in_t* __restrict xg = x + r0 * n;
    out_t* __restrict yg = y + r0 * n;
    for (int64_t r = 0; r < nr; ++r) {
      acc_t max = -std::numeric_limits<acc_t>::infinity();
      for (int64_t j = 0; j < n; ++j) max = std::max(max, static_cast<acc_t>(xg[r * n + j]));
      for (int64_t j = 0; j < n; ++j) buf[r * n + j] = static_cast<acc_t>(xg[r * n + j]) - max;
    }
    const int64_t count = nr * n;
    if constexpr (kLog) {
      acc_t e[kGroup];
#pragma omp simd
      for (int64_t k = 0; k < count; ++k) e[k] = nn::fast_exp(buf[k]);
      for (int64_t r = 0; r < nr; ++r) {
        acc_t sum = 0;
        for (int64_t j = 0; j < n; ++j) sum += e[r * n + j];
        const acc_t log_sum = std::log(sum);
        for (int64_t j = 0; j < n; ++j) {
          yg[r * n + j] = static_cast<out_t>(buf[r * n + j] - log_sum);
        }
      }
    } else {
#pragma omp simd
      for (int64_t k = 0; k < count; ++k) buf[k] = nn::fast_exp(buf[k]);
      for (int64_t r = 0; r < nr; ++r) {
        acc_t sum = 0;
        for (int64_t j = 0; j < n; ++j) sum += buf[r * n + j];
        const acc_t inv = acc_t(1) / sum;
        for (int64_t j = 0; j < n; ++j) yg[r * n + j] = static_cast<out_t>(buf[r * n + j] * inv);
      }
    }
  }
}

// Columns [c0, c0 + len) of one [n, inner] slab.
template <typename in_t, typename out_t, bool kLog>
void softmax_columns(const in_t* x, out_t* y, int64_t n, int64_t inner, int64_t len) {
  using acc_t = opmath_t<in_t>;
  acc_t m[kBlock], s[kBlock];
  for (int64_t j = 0; j < len; ++j) {
    m[j] = -std::numeric_limits<acc_t>::infinity();
    s[j] = 0;
  }
  for (int64_t r = 0; r < n; ++r) {
    const in_t* __restrict row = x + r * inner;
    for (int64_t j = 0; j < len; ++j) {
      const acc_t v = static_cast<acc_t>(row[j]);
      m[j] = v > m[j] ? v : m[j];
    }
  }
  for (int64_t r = 0; r < n; ++r) {
    const in_t* __restrict row = x + r * inner;
    for (int64_t j = 0; j < len; ++j) {
      s[j] += nn::fast_exp(static_cast<acc_t>(row[j]) - m[j]);
    }
  }
  for (int64_t j = 0; j < len; ++j) {
    s[j] = kLog ? std::log(s[j]) : acc_t(1) / s[j];
  }
  for (int64_t r = 0; r < n; ++r) {
    const in_t* __restrict row = x + r * inner;
    out_t* __restrict out = y + r * inner;
    for (int64_t j = 0; j < len; ++j) {
      const acc_t v = static_cast<acc_t>(row[j]);
      if constexpr (kLog) {
        out[j] = static_cast<out_t>((v - m[j]) - s[j]);
      } else {
        out[j] = static_cast<out_t>(nn::fast_exp(v - m[j]) * s[j]);
      }
    }
  }
}

template <typename in_t, typename out_t, bool kLog>
void softmax_kernel(const in_t* x, out_t* y, const Shape3& s) {
  if (s.n == 0) return;
  const int64_t work = s.outer * s.n * s.inner;
  if (s.inner == 1) {
    nn::parallel_for(s.outer, work, [&](int64_t begin, int64_t end) {
      if (s.n < kShortRow) {
        softmax_short_rows<in_t, out_t, kLog>(x + begin * s.n, y + begin * s.n, end - begin,
                                              s.n);
        return;
      }
      for (int64_t o = begin; o < end; ++o) {
        softmax_row<in_t, out_t, kLog>(x + o * s.n, y + o * s.n, s.n);
      }
    });
    return;
  }
  const int64_t blocks = (s.inner + kBlock - 1) / kBlock;
  nn::parallel_for(s.outer * blocks, work, [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t o = task / blocks, c0 = task % blocks * kBlock;
      const int64_t offset = o * s.n * s.inner + c0;
      softmax_columns<in_t, out_t, kLog>(x + offset, y + offset, s.n, s.inner,
                                         std::min(kBlock, s.inner - c0));
    }
  });
}

// Backward, over [outer, n, inner] like the forward:
//   softmax:     grad_in = y * (g - sum_j g_j y_j)
//   log_softmax: grad_in = g - exp(y) * sum_j g_j
template <typename g_t, typename out_t, bool kLog>
void softmax_backward_kernel(const g_t* g, const g_t* y, out_t* gi, const Shape3& s) {
  using acc_t = opmath_t<g_t>;
  if (s.n == 0) return;
  const int64_t work = s.outer * s.n * s.inner;
  const int64_t blocks = (s.inner + kBlock - 1) / kBlock;
  nn::parallel_for(s.outer * blocks, work, [&](int64_t begin, int64_t end) {
    acc_t dot[kBlock];
    for (int64_t task = begin; task < end; ++task) {
      const int64_t o = task / blocks, c0 = task % blocks * kBlock;
      const int64_t len = std::min(kBlock, s.inner - c0);
      const int64_t base = o * s.n * s.inner + c0;
      for (int64_t j = 0; j < len; ++j) dot[j] = 0;
      for (int64_t r = 0; r < s.n; ++r) {
        const g_t* __restrict gr = g + base + r * s.inner;
        const g_t* __restrict yr = y + base + r * s.inner;
        for (int64_t j = 0; j < len; ++j) {
          if constexpr (kLog) {
            dot[j] += static_cast<acc_t>(gr[j]);
          } else {
            dot[j] += static_cast<acc_t>(gr[j]) * static_cast<acc_t>(yr[j]);
          }
        }
      }
      for (int64_t r = 0; r < s.n; ++r) {
        const g_t* __restrict gr = g + base + r * s.inner;
        const g_t* __restrict yr = y + base + r * s.inner;
        out_t* __restrict out = gi + base + r * s.inner;
        for (int64_t j = 0; j < len; ++j) {
          const acc_t gv = static_cast<acc_t>(gr[j]), yv = static_cast<acc_t>(yr[j]);
          if constexpr (kLog) {
            out[j] = static_cast<out_t>(gv - std::exp(yv) * dot[j]);
          } else {
            out[j] = static_cast<out_t>(yv * (gv - dot[j]));
          }
        }
      }
    }
  });
}

// ---- argument checks and the shared bodies -----------------------------------------

// Checks the input and returns the wrapped dim and the result's dtype.
std::pair<int64_t, c10::ScalarType> check_forward(const at::Tensor& self, int64_t dim,
                                                  bool half_to_float, const char* op) {
  nn::check_defined(self, op, "input");
  nn::check_floating(self, op, "input");
  const c10::ScalarType dtype = at::native::softmax_result_dtype(self, half_to_float, op);
  const int64_t wrapped = at::maybe_wrap_dim(dim, self.dim(), op);
  return {wrapped, dtype};
}

template <bool kLog>
void forward_into(const at::Tensor& self, int64_t dim, bool half_to_float,
                  const at::Tensor& result, const char* op) {
  const at::Tensor x = nn::contiguous(self);
  const Shape3 s = shape3(x, dim);
  EMBER_DISPATCH_FLOATING_TYPES(x.scalar_type(), op, [&] {
    const scalar_t* in = static_cast<const scalar_t*>(x.data_ptr());
    if (half_to_float) {
      if constexpr (std::is_same_v<scalar_t, c10::Half>) {
        softmax_kernel<scalar_t, float, kLog>(in, static_cast<float*>(result.data_ptr()), s);
      }
    } else {
      softmax_kernel<scalar_t, scalar_t, kLog>(in, static_cast<scalar_t*>(result.data_ptr()),
                                               s);
    }
  });
}

template <bool kLog>
at::Tensor forward(const at::Tensor& self, int64_t dim, bool half_to_float, const char* op) {
  const auto [wrapped, dtype] = check_forward(self, dim, half_to_float, op);
  at::Tensor result = empty_cpu(self.sizes(), dtype, op);
  forward_into<kLog>(self, wrapped, half_to_float, result, op);
  return result;
}

template <bool kLog>
at::Tensor& forward_out(const at::Tensor& self, int64_t dim, bool half_to_float,
                        at::Tensor& out, const char* op) {
  const auto [wrapped, dtype] = check_forward(self, dim, half_to_float, op);
  nn::check_defined(out, op, "out");
  TORCH_CHECK(out.scalar_type() == dtype, op, ": expected out of dtype ", dtype,
              ", but got ", out.scalar_type(), ". Pass an out tensor of the result's dtype.");
  resize_output(out, self.sizes(), op);
  // Writing straight into out needs it contiguous and not sharing memory
  // with the input (rows are read again after being written).
  const bool shares = out.has_storage() && self.has_storage() &&
                      out.storage().data() == self.storage().data();
  if (out.is_contiguous() && !shares) {
    forward_into<kLog>(self, wrapped, half_to_float, out, op);
  } else {
    const at::Tensor tmp = empty_cpu(self.sizes(), dtype, op);
    forward_into<kLog>(self, wrapped, half_to_float, tmp, op);
    copy_into(out, tmp);
  }
  return out;
}

template <bool kLog>
at::Tensor backward(const at::Tensor& grad_output, const at::Tensor& output, int64_t dim,
                    c10::ScalarType input_dtype, const char* op) {
  nn::check_defined(grad_output, op, "grad_output");
  nn::check_defined(output, op, "output");
  nn::check_floating(grad_output, op, "grad_output");
  TORCH_CHECK(grad_output.sizes() == output.sizes(), op, ": grad_output and output "
              "must have the same shape, but got ", grad_output.sizes(), " and ",
              output.sizes(), ".");
  TORCH_CHECK(grad_output.scalar_type() == output.scalar_type(), op, ": grad_output "
              "and output must have the same dtype, but got ", grad_output.scalar_type(),
              " and ", output.scalar_type(), ".");
  const bool half_to_float =
      at::native::softmax_backward_half_to_float(grad_output, input_dtype, op);
  const int64_t wrapped = at::maybe_wrap_dim(dim, grad_output.dim(), op);
  const at::Tensor g = nn::contiguous(grad_output);
  const at::Tensor y = nn::contiguous(output);
  at::Tensor grad_input = empty_cpu(grad_output.sizes(), input_dtype, op);
  const Shape3 s = shape3(g, wrapped);
  EMBER_DISPATCH_FLOATING_TYPES(g.scalar_type(), op, [&] {
    const scalar_t* gp = static_cast<const scalar_t*>(g.data_ptr());
    const scalar_t* yp = static_cast<const scalar_t*>(y.data_ptr());
    if (half_to_float) {
      if constexpr (std::is_same_v<scalar_t, float>) {
        softmax_backward_kernel<float, c10::Half, kLog>(
            gp, yp, static_cast<c10::Half*>(grad_input.data_ptr()), s);
      }
    } else {
      softmax_backward_kernel<scalar_t, scalar_t, kLog>(
          gp, yp, static_cast<scalar_t*>(grad_input.data_ptr()), s);
    }
  });
  return grad_input;
}

}  // namespace

at::Tensor softmax_cpu(const at::Tensor& self, int64_t dim, bool half_to_float) {
  return forward<false>(self, dim, half_to_float, "softmax");
}

at::Tensor& softmax_out_cpu(const at::Tensor& self, int64_t dim, bool half_to_float,
                            at::Tensor& out) {
  return forward_out<false>(self, dim, half_to_float, out, "softmax");
}

at::Tensor log_softmax_cpu(const at::Tensor& self, int64_t dim, bool half_to_float) {
  return forward<true>(self, dim, half_to_float, "log_softmax");
}

at::Tensor& log_softmax_out_cpu(const at::Tensor& self, int64_t dim, bool half_to_float,
                                at::Tensor& out) {
  return forward_out<true>(self, dim, half_to_float, out, "log_softmax");
}

at::Tensor softmax_backward_cpu(const at::Tensor& grad_output, const at::Tensor& output,
                                int64_t dim, c10::ScalarType input_dtype) {
  return backward<false>(grad_output, output, dim, input_dtype, "_softmax_backward_data");
}

at::Tensor log_softmax_backward_cpu(const at::Tensor& grad_output, const at::Tensor& output,
                                    int64_t dim, c10::ScalarType input_dtype) {
  return backward<true>(grad_output, output, dim, input_dtype,
                        "_log_softmax_backward_data");
}

}  // namespace ember::cpu
