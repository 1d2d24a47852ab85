// 2-d max, average and adaptive average pooling on the CPU, and their
// backwards: argument checks with PyTorch's rules for the output size, and
// one plain loop per (n, c) plane (See pool.h).
#include "backends/cpu/pool.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "aten/Functions.h"
#include "aten/PoolUtils.h"
#include "backends/cpu/dispatch.h"
#include "backends/cpu/parallel_loops.h"
#include "c10/util/Exception.h"

namespace ember::cpu {
namespace {

// Planes of `plane_cost` element visits each, split among the threads in
// contiguous runs (See Note [One thread count for every loop]). `f` must
// not throw.
template <typename F>
void parallel_planes(int64_t planes, int64_t plane_cost, const F& f) {
  parallel_for(planes, planes * plane_cost, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) f(p);
  });
}

bool is_channels_last(const at::Tensor& t) {
  if (t.dim() != 4 || t.is_contiguous() || t.size(1) < 2) return false;
  const int64_t C = t.size(1), W = t.size(3), H = t.size(2);
  return t.stride(1) == 1 && t.stride(3) == C && (H == 1 || t.stride(2) == W * C) &&
         (t.size(0) == 1 || t.stride(0) == H * W * C);
}

// The result of a plane loop (computed contiguous) in the layout PyTorch
// gives: channels-last when the input is.
at::Tensor in_layout_of(const at::Tensor& result, const at::Tensor& input) {
  if (!is_channels_last(input)) return result;
  at::Tensor out = at::empty(result.sizes(), result.options(), c10::MemoryFormat::ChannelsLast);
  out.copy_(result);
  return out;
}

using Integers = at::native::PoolIntegers;
using Pool = at::native::PoolGeometry;
using at::native::pool_geometry;

void check_grad(const at::Tensor& grad, const at::Tensor& self,
                const std::vector<int64_t>& shape, const char* op) {
  at::native::check_pool_grad(grad, self, shape, op);
}

// The taps k in [*k0, *k1) of a window starting at `start` (step d) that
// fall inside [0, in).
inline void taps(int64_t start, int64_t d, int64_t k, int64_t in, int64_t* k0, int64_t* k1) {
  *k0 = start >= 0 ? 0 : (-start + d - 1) / d;
  *k1 = std::min(k, in - start > 0 ? (in - start + d - 1) / d : 0);
  if (*k0 > *k1) *k0 = *k1;
}

// ---- max pooling ---------------------------------------------------------------

// A row of outputs at a time, one window tap at a time across the row: the
// inner loop is branch-free (random data makes a compare-and-branch
// unpredictable) and runs along memory. Per output, taps are visited in
// row-major window order, so the first maximum wins ties; the first valid
// tap is always taken, so an all -inf window names its first element.
template <typename T>
void max_pool_planes(const Pool& p, const T* in, T* out, int64_t* ind) {
  using acc_t = opmath_t<T>;
  parallel_planes(p.planes, p.OH * p.OW * p.kH * p.kW, [&](int64_t plane) {
    thread_local std::vector<acc_t> row_buffer;
    row_buffer.resize(static_cast<size_t>(p.OW));
    acc_t* best = row_buffer.data();
    const T* x = in + plane * p.H * p.W;
    for (int64_t oh = 0; oh < p.OH; ++oh) {
      T* y = out + (plane * p.OH + oh) * p.OW;
      int64_t* yi = ind + (plane * p.OH + oh) * p.OW;
      // A window with no element: -inf, or the lowest integer.
      std::fill(best, best + p.OW, lowest_value<acc_t>());
      std::fill(yi, yi + p.OW, int64_t{-1});
      const int64_t h0 = oh * p.sH - p.pH;
      int64_t kh0, kh1;
      taps(h0, p.dH, p.kH, p.H, &kh0, &kh1);
      for (int64_t kh = kh0; kh < kh1; ++kh) {
        const int64_t row = (h0 + kh * p.dH) * p.W;
        for (int64_t kw = 0; kw < p.kW; ++kw) {
          const int64_t off = kw * p.dW - p.pW;
          // Outputs ow whose tap ow * sW + off lies inside the row.
          const int64_t first = off >= 0 ? 0 : (-off + p.sW - 1) / p.sW;
          const int64_t last = std::min(p.OW, p.W - off > 0 ? (p.W - off - 1) / p.sW + 1 : 0);
          // Locals: stores through yi could otherwise alias `p`'s fields.
          const T* xr = x + row + off;
          const int64_t base = row + off, step = p.sW;
          for (int64_t ow = first; ow < last; ++ow) {
            const acc_t v = static_cast<acc_t>(xr[ow * step]);
            const int64_t cur = yi[ow];
            const bool take = (v > best[ow]) | is_nan(v) | (cur < 0);
            best[ow] = take ? v : best[ow];
            yi[ow] = take ? base + ow * step : cur;
          }
        }
      }
      for (int64_t ow = 0; ow < p.OW; ++ow) y[ow] = static_cast<T>(best[ow]);
    }
  });
}

// Note [2x2 max pooling]
// ~~~~~~~~~~~~~~~~~~~~~~
// The pooling of nearly every CNN (kernel 2, stride 2, no padding or
// dilation, every window inside the input) gets its own loop: per output,
// the four taps in row-major order with the general loop's rule (the first
// is taken; a later one replaces it when greater or NaN), written as
// selects the compiler vectorizes across the output row. The general loop
// spends most of its time on per-tap bookkeeping at this size: at the CNN
// shapes of DESIGN.md it took 2.0 and 1.2 ms (tools/bench:nn_bench). The
// rows are shorter than a vector loop's minimum length, so they run padded
// to 16 windows (below): 1.63 / 1.16 ms before that, 0.35 / 0.22 ms after,
// Zen 4, 1 thread; the CNN train step 12.9 -> 10.9 ms.
bool is_plain_2x2(const Pool& p) {
  return p.kH == 2 && p.kW == 2 && p.sH == 2 && p.sW == 2 && p.pH == 0 && p.pW == 0 &&
         p.dH == 1 && p.dW == 1 && 2 * p.OH <= p.H && 2 * p.OW <= p.W;
}

// The maxima of n 2x2 windows whose rows start at r0 and r1, and which tap
// (0-3, row-major) won each. A function of its own so that its pointers are
// __restrict parameters: as locals of the planes' loop GCC did not vectorize
// it (scalar code with a branch per tap, 1.2-1.7 ms per pool of the CNN).
template <typename T, typename acc_t>
void max_2x2_taps(const T* __restrict r0, const T* __restrict r1, acc_t* __restrict best,
                  int32_t* __restrict tap, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    acc_t m = static_cast<acc_t>(r0[2 * j]);
    int32_t k = 0;
    const acc_t b = static_cast<acc_t>(r0[2 * j + 1]);
    const acc_t c = static_cast<acc_t>(r1[2 * j]);
    const acc_t d = static_cast<acc_t>(r1[2 * j + 1]);
    // The general loop's rule: a later tap replaces the best when greater
    // or NaN.
    bool take = (b > m) | is_nan(b);
    m = take ? b : m;
    k = take ? 1 : k;
    take = (c > m) | is_nan(c);
    m = take ? c : m;
    k = take ? 2 : k;
    take = (d > m) | is_nan(d);
    m = take ? d : m;
    k = take ? 3 : k;
    best[j] = m;
    tap[j] = k;
  }
}

template <typename T>
void max_pool_2x2_planes(const Pool& p, const T* in, T* out, int64_t* ind) {
  using acc_t = opmath_t<T>;
  // Per chunk of an output row: first the maxima and which tap won (int32
  // lanes beside float values, so the selects have one width), then the
  // int64 positions from the taps.
  constexpr int64_t kChunk = 256;
  constexpr int64_t kPad = 16;  // a multiple of every vector length; divides kChunk
  const T* end = in + p.planes * p.H * p.W;
  parallel_planes(p.planes, p.OH * p.OW * 4, [&](int64_t plane) {
    const int64_t W = p.W, OW = p.OW, OH = p.OH, H = p.H;
    const T* x = in + plane * H * W;
    acc_t best[kChunk];
    int32_t tap[kChunk];
    for (int64_t oh = 0; oh < OH; ++oh) {
      const int64_t top = 2 * oh * W;
      T* __restrict y = out + (plane * OH + oh) * OW;
      int64_t* __restrict yi = ind + (plane * OH + oh) * OW;
      for (int64_t c0 = 0; c0 < OW; c0 += kChunk) {
        const int64_t n = std::min(kChunk, OW - c0);
        const T* r0 = x + top + 2 * c0;
        const T* r1 = r0 + W;
        // Rows are short (7 to 28 outputs in the CNNs), below a 16-lane
        // vector loop's length: computed in whole multiples of 16 windows,
        // the loop runs only vector iterations (the scalar remainder had a
        // branch per tap, mispredicted on real data). The extra windows read
        // the rows that follow, inside the input, and are not written; only
        // where that would pass the input's end are the rows copied out.
        const int64_t padded = (n + kPad - 1) / kPad * kPad;
        if (r1 + 2 * padded <= end) {
          max_2x2_taps<T, acc_t>(r0, r1, best, tap, padded);
        } else {
          T rows[2][2 * kChunk] = {};
          std::copy(r0, r0 + 2 * n, rows[0]);
          std::copy(r1, r1 + 2 * n, rows[1]);
          max_2x2_taps<T, acc_t>(rows[0], rows[1], best, tap, padded);
        }
        for (int64_t j = 0; j < n; ++j) {
          y[c0 + j] = static_cast<T>(best[j]);
          yi[c0 + j] = top + 2 * (c0 + j) + (tap[j] & 1) + (tap[j] >> 1) * W;
        }
      }
    }
  });
}

// ---- average pooling -------------------------------------------------------------

// Note [Integer average pooling]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// As PyTorch's CPU kernels, avg_pool2d and avg_pool2d_backward take Long
// inputs and compute in int64: a window's sum divided by its divisor with
// C++ integer division (truncated toward zero: the average of {-1, -2} is
// -1), and in the backward each output cell's gradient divided the same way
// before it is added to every input of its window.

// The divisor of output cell (oh, ow) and its clipped window.
struct AvgWindow {
  int64_t h0, h1, w0, w1;
  double divisor;
};

inline AvgWindow avg_window(const Pool& p, int64_t oh, int64_t ow, bool count_include_pad,
                            std::optional<int64_t> divisor_override) {
  int64_t h0 = oh * p.sH - p.pH, w0 = ow * p.sW - p.pW;
  int64_t h1 = std::min(h0 + p.kH, p.H + p.pH), w1 = std::min(w0 + p.kW, p.W + p.pW);
  const int64_t padded_area = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, p.H), w1 = std::min(w1, p.W);
  double divisor;
  if (divisor_override.has_value()) {
    divisor = static_cast<double>(*divisor_override);
  } else if (count_include_pad) {
    divisor = static_cast<double>(padded_area);
  } else {
    divisor = static_cast<double>((h1 - h0) * (w1 - w0));
  }
  return {h0, h1, w0, w1, divisor};
}

template <typename T>
void avg_pool_planes(const Pool& p, const T* in, T* out, bool count_include_pad,
                     std::optional<int64_t> divisor_override) {
  parallel_planes(p.planes, p.OH * p.OW * p.kH * p.kW, [&](int64_t plane) {
    const T* x = in + plane * p.H * p.W;
    T* y = out + plane * p.OH * p.OW;
    for (int64_t oh = 0; oh < p.OH; ++oh) {
      for (int64_t ow = 0; ow < p.OW; ++ow) {
        const AvgWindow a = avg_window(p, oh, ow, count_include_pad, divisor_override);
        T value = static_cast<T>(0);
        // An empty window (only possible in the padding) gives 0, as PyTorch.
        if (a.h0 < a.h1 && a.w0 < a.w1) {
          if constexpr (std::is_integral_v<T>) {
            int64_t sum = 0;
            for (int64_t h = a.h0; h < a.h1; ++h) {
              for (int64_t w = a.w0; w < a.w1; ++w) sum += x[h * p.W + w];
            }
            value = static_cast<T>(sum / static_cast<int64_t>(a.divisor));
          } else {
            double sum = 0;
            for (int64_t h = a.h0; h < a.h1; ++h) {
              for (int64_t w = a.w0; w < a.w1; ++w) sum += static_cast<double>(x[h * p.W + w]);
            }
            value = static_cast<T>(sum / a.divisor);
          }
        }
        y[oh * p.OW + ow] = value;
      }
    }
  });
}

template <typename T>
void avg_pool_backward_planes(const Pool& p, const T* grad, T* gin, bool count_include_pad,
                              std::optional<int64_t> divisor_override) {
  parallel_planes(p.planes, p.OH * p.OW * p.kH * p.kW, [&](int64_t plane) {
    const T* g = grad + plane * p.OH * p.OW;
    T* gx = gin + plane * p.H * p.W;
    std::fill(gx, gx + p.H * p.W, static_cast<T>(0));
    for (int64_t oh = 0; oh < p.OH; ++oh) {
      for (int64_t ow = 0; ow < p.OW; ++ow) {
        const AvgWindow a = avg_window(p, oh, ow, count_include_pad, divisor_override);
        if constexpr (std::is_integral_v<T>) {
          const T share = static_cast<T>(g[oh * p.OW + ow] / static_cast<int64_t>(a.divisor));
          for (int64_t h = a.h0; h < a.h1; ++h) {
            for (int64_t w = a.w0; w < a.w1; ++w) gx[h * p.W + w] += share;
          }
        } else {
          const double share = static_cast<double>(g[oh * p.OW + ow]) / a.divisor;
          for (int64_t h = a.h0; h < a.h1; ++h) {
            for (int64_t w = a.w0; w < a.w1; ++w) {
              gx[h * p.W + w] = static_cast<T>(static_cast<double>(gx[h * p.W + w]) + share);
            }
          }
        }
      }
    }
  });
}

// ---- adaptive average pooling ------------------------------------------------------

inline int64_t adaptive_start(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
inline int64_t adaptive_end(int64_t o, int64_t out, int64_t in) {
  return ((o + 1) * in + out - 1) / out;
}

template <typename T>
void adaptive_planes(const Pool& p, const T* in, T* out) {
  parallel_planes(p.planes, p.H * p.W + p.OH * p.OW, [&](int64_t plane) {
    const T* x = in + plane * p.H * p.W;
    T* y = out + plane * p.OH * p.OW;
    for (int64_t oh = 0; oh < p.OH; ++oh) {
      const int64_t h0 = adaptive_start(oh, p.OH, p.H), h1 = adaptive_end(oh, p.OH, p.H);
      for (int64_t ow = 0; ow < p.OW; ++ow) {
        const int64_t w0 = adaptive_start(ow, p.OW, p.W), w1 = adaptive_end(ow, p.OW, p.W);
        double sum = 0;
        for (int64_t h = h0; h < h1; ++h) {
          for (int64_t w = w0; w < w1; ++w) sum += static_cast<double>(x[h * p.W + w]);
        }
        y[oh * p.OW + ow] = static_cast<T>(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
      }
    }
  });
}

template <typename T>
void adaptive_backward_planes(const Pool& p, const T* grad, T* gin) {
  parallel_planes(p.planes, p.H * p.W + p.OH * p.OW, [&](int64_t plane) {
    const T* g = grad + plane * p.OH * p.OW;
    T* gx = gin + plane * p.H * p.W;
    std::fill(gx, gx + p.H * p.W, static_cast<T>(0));
    for (int64_t oh = 0; oh < p.OH; ++oh) {
      const int64_t h0 = adaptive_start(oh, p.OH, p.H), h1 = adaptive_end(oh, p.OH, p.H);
      for (int64_t ow = 0; ow < p.OW; ++ow) {
        const int64_t w0 = adaptive_start(ow, p.OW, p.W), w1 = adaptive_end(ow, p.OW, p.W);
        const double share = static_cast<double>(g[oh * p.OW + ow]) /
                             static_cast<double>((h1 - h0) * (w1 - w0));
        for (int64_t h = h0; h < h1; ++h) {
          for (int64_t w = w0; w < w1; ++w) {
            gx[h * p.W + w] = static_cast<T>(static_cast<double>(gx[h * p.W + w]) + share);
          }
        }
      }
    }
  });
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> max_pool2d_with_indices(
    const at::Tensor& self, c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
    c10::IntArrayRef padding, c10::IntArrayRef dilation, bool ceil_mode) {
  const char* op = "max_pool2d";
  const Pool p = pool_geometry(self, kernel_size, stride, padding, dilation, ceil_mode, op,
                               Integers::kAll);
  const at::Tensor x = self.contiguous();
  at::Tensor out = at::empty(p.out_shape, self.options());
  at::Tensor ind = at::empty(p.out_shape, self.options().dtype(c10::ScalarType::Long));
  EMBER_DISPATCH_ALL_TYPES_BUT_BOOL(self.scalar_type(), op, [&] {
    const scalar_t* in = static_cast<const scalar_t*>(x.data_ptr());
    scalar_t* o = static_cast<scalar_t*>(out.data_ptr());
    int64_t* i = static_cast<int64_t*>(ind.data_ptr());
    if (is_plain_2x2(p)) {
      max_pool_2x2_planes<scalar_t>(p, in, o, i);
    } else {
      max_pool_planes<scalar_t>(p, in, o, i);
    }
  });
  return {in_layout_of(out, self), in_layout_of(ind, self)};
}

at::Tensor max_pool2d_with_indices_backward(
    const at::Tensor& grad_output, const at::Tensor& self, c10::IntArrayRef kernel_size,
    c10::IntArrayRef stride, c10::IntArrayRef padding, c10::IntArrayRef dilation,
    bool ceil_mode, const at::Tensor& indices) {
  const char* op = "max_pool2d_with_indices_backward";
  const Pool p = pool_geometry(self, kernel_size, stride, padding, dilation, ceil_mode, op);
  check_grad(grad_output, self, p.out_shape, op);
  at::native::check_max_pool_indices(indices, p.out_shape, op);
  const at::Tensor g = grad_output.contiguous(), idx = indices.contiguous();
  at::Tensor gin = at::empty(self.sizes(), self.options());
  const int64_t* ip = static_cast<const int64_t*>(idx.data_ptr());
  const int64_t plane_in = p.H * p.W, plane_out = p.OH * p.OW;
  // An index outside its plane is skipped, not written (it would write out
  // of bounds), and reported once the loop is done (a loop cannot throw);
  // -1 marks a window with no input element and is skipped silently.
  std::atomic<int64_t> bad_position{-1};
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    const scalar_t* gp = static_cast<const scalar_t*>(g.data_ptr());
    scalar_t* out = static_cast<scalar_t*>(gin.data_ptr());
    parallel_planes(p.planes, plane_out + plane_in, [&](int64_t plane) {
      scalar_t* gx = out + plane * plane_in;
      std::fill(gx, gx + plane_in, static_cast<scalar_t>(0));
      const scalar_t* gy = gp + plane * plane_out;
      const int64_t* iy = ip + plane * plane_out;
      for (int64_t j = 0; j < plane_out; ++j) {
        const int64_t at = iy[j];
        if (at >= 0 && at < plane_in) {
          gx[at] = static_cast<scalar_t>(static_cast<opmath_t<scalar_t>>(gx[at]) +
                                         static_cast<opmath_t<scalar_t>>(gy[j]));
        } else if (at != -1) {
          // Relaxed: the parallel region ends with a barrier, which orders
          // this store before the load below; any one bad position will do.
          int64_t none = -1;
          bad_position.compare_exchange_strong(none, plane * plane_out + j,
                                               std::memory_order_relaxed);
        }
      }
    });
  });
  const int64_t bad = bad_position.load();
  if (bad >= 0) at::native::throw_max_pool_index(op, ip[bad], bad, p);
  return in_layout_of(gin, self);
}

at::Tensor avg_pool2d(const at::Tensor& self, c10::IntArrayRef kernel_size,
                      c10::IntArrayRef stride, c10::IntArrayRef padding, bool ceil_mode,
                      bool count_include_pad, std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d";
  const Pool p = pool_geometry(self, kernel_size, stride, padding, {1}, ceil_mode, op,
                               Integers::kLong);
  at::native::check_avg_divisor(divisor_override, op);
  const at::Tensor x = self.contiguous();
  at::Tensor out = at::empty(p.out_shape, self.options());
  if (self.scalar_type() == c10::ScalarType::Long) {
    avg_pool_planes<int64_t>(p, x.data_ptr<int64_t>(), out.data_ptr<int64_t>(),
                             count_include_pad, divisor_override);
  } else {
    EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
      avg_pool_planes<scalar_t>(p, static_cast<const scalar_t*>(x.data_ptr()),
                                static_cast<scalar_t*>(out.data_ptr()), count_include_pad,
                                divisor_override);
    });
  }
  return in_layout_of(out, self);
}

at::Tensor avg_pool2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                               c10::IntArrayRef kernel_size, c10::IntArrayRef stride,
                               c10::IntArrayRef padding, bool ceil_mode,
                               bool count_include_pad,
                               std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool2d_backward";
  const Pool p = pool_geometry(self, kernel_size, stride, padding, {1}, ceil_mode, op,
                               Integers::kLong);
  at::native::check_avg_divisor(divisor_override, op);
  check_grad(grad_output, self, p.out_shape, op);
  const at::Tensor g = grad_output.contiguous();
  at::Tensor gin = at::empty(self.sizes(), self.options());
  if (self.scalar_type() == c10::ScalarType::Long) {
    avg_pool_backward_planes<int64_t>(p, g.data_ptr<int64_t>(), gin.data_ptr<int64_t>(),
                                      count_include_pad, divisor_override);
  } else {
    EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
      avg_pool_backward_planes<scalar_t>(p, static_cast<const scalar_t*>(g.data_ptr()),
                                         static_cast<scalar_t*>(gin.data_ptr()),
                                         count_include_pad, divisor_override);
    });
  }
  return in_layout_of(gin, self);
}

namespace {

Pool adaptive_geometry(const at::Tensor& self, c10::IntArrayRef output_size,
                       const char* op) {
  return at::native::adaptive_pool_geometry(self, output_size, op);
}

}  // namespace

at::Tensor _adaptive_avg_pool2d(const at::Tensor& self, c10::IntArrayRef output_size) {
  const char* op = "adaptive_avg_pool2d";
  const Pool p = adaptive_geometry(self, output_size, op);
  const at::Tensor x = self.contiguous();
  at::Tensor out = at::empty(p.out_shape, self.options());
  if (out.numel() == 0) return out;
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    adaptive_planes<scalar_t>(p, static_cast<const scalar_t*>(x.data_ptr()),
                              static_cast<scalar_t*>(out.data_ptr()));
  });
  return in_layout_of(out, self);
}

at::Tensor _adaptive_avg_pool2d_backward(const at::Tensor& grad_output,
                                         const at::Tensor& self) {
  const char* op = "adaptive_avg_pool2d_backward";
  const Pool p = at::native::adaptive_pool_backward_geometry(grad_output, self, op);
  const at::Tensor g = grad_output.contiguous();
  at::Tensor gin = at::empty(self.sizes(), self.options());
  EMBER_DISPATCH_FLOATING_TYPES(self.scalar_type(), op, [&] {
    if (p.OH == 0 || p.OW == 0) {
      gin.zero_();
      return;
    }
    adaptive_backward_planes<scalar_t>(p, static_cast<const scalar_t*>(g.data_ptr()),
                                       static_cast<scalar_t*>(gin.data_ptr()));
  });
  return in_layout_of(gin, self);
}

}  // namespace ember::cpu
