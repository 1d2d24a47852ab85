// backends/cpu/conv_impl.h — the loops behind ember::cpu::convolution
// (conv.h), shared by conv.cc, conv_plain.cc and conv_onednn.cc. Internal
// to the CPU plugin.
//
// See Note [Convolution geometry] in aten/ConvUtils.h.
#pragma once

#include <cstdint>

#include "aten/ConvUtils.h"
#include "aten/Tensor.h"

namespace ember::cpu::conv_detail {

using ConvGeometry = at::native::ConvGeometry;

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
