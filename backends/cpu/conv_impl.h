// backends/cpu/conv_impl.h — the loops behind ember::cpu::convolution
// (conv.h), shared by conv.cc, conv_plain.cc and conv_onednn.cc. Internal
// to the CPU plugin.
//
// Note [Convolution geometry]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Every routine here computes one direct, 2-d, grouped convolution
//   Y[n, o, i, j] = sum over c in o's group, kh, kw of
//       X[n, c, i*sh - ph + kh*dh, j*sw - pw + kw*dw] * W[o, c mod Cx/G, kh, kw]
// with X [N, Cx, Hx, Wx], W [Cy, Cx/G, KH, KW] and Y [N, Cy, Hy, Wy]; taps
// outside X read zero. Its three products are forward (X, W -> Y),
// backward_data (dY, W -> dX) and backward_weights (X, dY -> dW). A
// transposed convolution is the same geometry read the other way: its input
// is Y, its output X and its weight W (PyTorch's [Cin, Cout/G, KH, KW]), so
// its forward is backward_data, and its gradients are forward (input) and
// backward_weights with X and dY swapped in meaning.
#pragma once

#include <cstdint>

#include "aten/Tensor.h"

namespace ember::cpu::conv_detail {

struct ConvGeometry {
  int64_t N = 0, G = 1;
  int64_t Cx = 0, Hx = 0, Wx = 0;  // X: the direct convolution's input
  int64_t Cy = 0, Hy = 0, Wy = 0;  // Y: its output
  int64_t KH = 0, KW = 0;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};

// ---- plain loops (conv_plain.cc), T float or double --------------------------
// Contiguous NCHW buffers. Outputs are overwritten, not accumulated into.
template <typename T>
void plain_forward(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* y);
template <typename T>
void plain_backward_data(const ConvGeometry& g, const T* dy, const T* w, T* dx);
template <typename T>
void plain_backward_weights(const ConvGeometry& g, const T* x, const T* dy, T* dw);

// ---- oneDNN (conv_onednn.cc), float32 ---------------------------------------
// X, Y, dX and dY are 4-d tensors with positive strides (NCHW or NHWC
// layouts run without copies); W and dW contiguous [Cy, Cx/G, KH, KW];
// bias and dbias contiguous [Cy] or undefined. Outputs are overwritten.
// Each returns false, writing nothing, if oneDNN has no implementation for
// the case (See Note [oneDNN refusals] in conv_onednn.cc).
bool onednn_forward(const ConvGeometry& g, const at::Tensor& x, const at::Tensor& w,
                    const at::Tensor& bias, const at::Tensor& y);
bool onednn_backward_data(const ConvGeometry& g, const at::Tensor& dy,
                          const at::Tensor& w, const at::Tensor& dx);
bool onednn_backward_weights(const ConvGeometry& g, const at::Tensor& x,
                             const at::Tensor& dy, const at::Tensor& dw,
                             const at::Tensor& dbias);
// Both of the above in one call, reordering dY once.
bool onednn_backward(const ConvGeometry& g, const at::Tensor& x, const at::Tensor& dy,
                     const at::Tensor& w, const at::Tensor& dx, const at::Tensor& dw,
                     const at::Tensor& dbias);

}  // namespace ember::cpu::conv_detail
