// Plain convolution loops (See Note [Convolution geometry]): float64, and
// float32 where oneDNN is not used (transposed and empty cases). Each output
// plane (or weight row) belongs to one thread, so nothing is shared; the
// innermost loop runs along a row and vectorizes at stride 1.
#include <algorithm>
#include <cstdint>

#include "backends/cpu/conv_impl.h"
#include "backends/cpu/parallel_loops.h"

namespace ember::cpu::conv_detail {
namespace {

// Work units of `unit_cost` multiply-adds each, handed out one at a time
// (units near the borders have fewer taps) to the team of Note [One thread
// count for every loop]. `f` must not throw.
template <typename F>
void parallel_units(int64_t units, int64_t unit_cost, const F& f) {
  const int threads = parallel_threads(units * unit_cost, units);
  if (threads > 1) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int64_t u = 0; u < units; ++u) f(u);
  } else {
    for (int64_t u = 0; u < units; ++u) f(u);
  }
}

// The output positions o in [*lo, *hi) whose tap o * s + off lies in
// [0, in), with o < out.
inline void tap_range(int64_t off, int64_t s, int64_t in, int64_t out, int64_t* lo,
                      int64_t* hi) {
  const int64_t first = off >= 0 ? 0 : (-off + s - 1) / s;
  const int64_t last = in - 1 - off >= 0 ? (in - 1 - off) / s + 1 : 0;
  *hi = std::min(last, out);
  *lo = std::min(first, *hi);
}

}  // namespace

template <typename T>
void plain_forward(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* y) {
  const int64_t Cxg = g.Cx / g.G, Cyg = g.Cy / g.G;
  const int64_t plane_y = g.Hy * g.Wy, plane_x = g.Hx * g.Wx, taps = g.KH * g.KW;
  parallel_units(g.N * g.Cy, plane_y * Cxg * taps, [&](int64_t u) {
    const int64_t n = u / g.Cy, o = u % g.Cy, grp = o / Cyg;
    T* yp = y + u * plane_y;
    std::fill(yp, yp + plane_y, bias ? bias[o] : T(0));
    for (int64_t c = 0; c < Cxg; ++c) {
      const T* xp = x + (n * g.Cx + grp * Cxg + c) * plane_x;
      const T* wp = w + (o * Cxg + c) * taps;
      for (int64_t kh = 0; kh < g.KH; ++kh) {
        const int64_t offh = kh * g.dh - g.ph;
        int64_t oh0, oh1;
        tap_range(offh, g.sh, g.Hx, g.Hy, &oh0, &oh1);
        for (int64_t kw = 0; kw < g.KW; ++kw) {
          const int64_t offw = kw * g.dw - g.pw;
          int64_t ow0, ow1;
          tap_range(offw, g.sw, g.Wx, g.Wy, &ow0, &ow1);
          const T wv = wp[kh * g.KW + kw];
          for (int64_t oh = oh0; oh < oh1; ++oh) {
            const T* xr = xp + (oh * g.sh + offh) * g.Wx + offw;
            T* yr = yp + oh * g.Wy;
            if (g.sw == 1) {
              for (int64_t ow = ow0; ow < ow1; ++ow) yr[ow] += wv * xr[ow];
            } else {
              for (int64_t ow = ow0; ow < ow1; ++ow) yr[ow] += wv * xr[ow * g.sw];
            }
          }
        }
      }
    }
  });
}

template <typename T>
void plain_backward_data(const ConvGeometry& g, const T* dy, const T* w, T* dx) {
  const int64_t Cxg = g.Cx / g.G, Cyg = g.Cy / g.G;
  const int64_t plane_y = g.Hy * g.Wy, plane_x = g.Hx * g.Wx, taps = g.KH * g.KW;
  parallel_units(g.N * g.Cx, plane_y * Cyg * taps, [&](int64_t u) {
    const int64_t n = u / g.Cx, c = u % g.Cx, grp = c / Cxg, cc = c % Cxg;
    T* xp = dx + u * plane_x;
    std::fill(xp, xp + plane_x, T(0));
    for (int64_t o = grp * Cyg; o < (grp + 1) * Cyg; ++o) {
      const T* yp = dy + (n * g.Cy + o) * plane_y;
      const T* wp = w + (o * Cxg + cc) * taps;
      for (int64_t kh = 0; kh < g.KH; ++kh) {
        const int64_t offh = kh * g.dh - g.ph;
        int64_t oh0, oh1;
        tap_range(offh, g.sh, g.Hx, g.Hy, &oh0, &oh1);
        for (int64_t kw = 0; kw < g.KW; ++kw) {
          const int64_t offw = kw * g.dw - g.pw;
          int64_t ow0, ow1;
          tap_range(offw, g.sw, g.Wx, g.Wy, &ow0, &ow1);
          const T wv = wp[kh * g.KW + kw];
          for (int64_t oh = oh0; oh < oh1; ++oh) {
            T* xr = xp + (oh * g.sh + offh) * g.Wx + offw;
            const T* yr = yp + oh * g.Wy;
            if (g.sw == 1) {
              for (int64_t ow = ow0; ow < ow1; ++ow) xr[ow] += wv * yr[ow];
            } else {
              for (int64_t ow = ow0; ow < ow1; ++ow) xr[ow * g.sw] += wv * yr[ow];
            }
          }
        }
      }
    }
  });
}

template <typename T>
void plain_backward_weights(const ConvGeometry& g, const T* x, const T* dy, T* dw) {
  const int64_t Cxg = g.Cx / g.G, Cyg = g.Cy / g.G;
  const int64_t plane_y = g.Hy * g.Wy, plane_x = g.Hx * g.Wx, taps = g.KH * g.KW;
  parallel_units(g.Cy, g.N * plane_y * Cxg * taps, [&](int64_t o) {
    const int64_t grp = o / Cyg;
    for (int64_t cc = 0; cc < Cxg; ++cc) {
      for (int64_t kh = 0; kh < g.KH; ++kh) {
        const int64_t offh = kh * g.dh - g.ph;
        int64_t oh0, oh1;
        tap_range(offh, g.sh, g.Hx, g.Hy, &oh0, &oh1);
        for (int64_t kw = 0; kw < g.KW; ++kw) {
          const int64_t offw = kw * g.dw - g.pw;
          int64_t ow0, ow1;
          tap_range(offw, g.sw, g.Wx, g.Wy, &ow0, &ow1);
          double acc = 0;
          for (int64_t n = 0; n < g.N; ++n) {
            const T* xp = x + (n * g.Cx + grp * Cxg + cc) * plane_x;
            const T* yp = dy + (n * g.Cy + o) * plane_y;
            for (int64_t oh = oh0; oh < oh1; ++oh) {
              const T* xr = xp + (oh * g.sh + offh) * g.Wx + offw;
              const T* yr = yp + oh * g.Wy;
              T row = 0;
              if (g.sw == 1) {
                for (int64_t ow = ow0; ow < ow1; ++ow) row += xr[ow] * yr[ow];
              } else {
                for (int64_t ow = ow0; ow < ow1; ++ow) row += xr[ow * g.sw] * yr[ow];
              }
              acc += row;
            }
          }
          dw[(o * Cxg + cc) * taps + kh * g.KW + kw] = static_cast<T>(acc);
        }
      }
    }
  });
}

template void plain_forward<float>(const ConvGeometry&, const float*, const float*,
                                   const float*, float*);
template void plain_forward<double>(const ConvGeometry&, const double*, const double*,
                                    const double*, double*);
template void plain_backward_data<float>(const ConvGeometry&, const float*, const float*,
                                         float*);
template void plain_backward_data<double>(const ConvGeometry&, const double*,
                                          const double*, double*);
template void plain_backward_weights<float>(const ConvGeometry&, const float*,
                                            const float*, float*);
template void plain_backward_weights<double>(const ConvGeometry&, const double*,
                                             const double*, double*);

}  // namespace ember::cpu::conv_detail
