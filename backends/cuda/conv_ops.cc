// backends/cuda/conv_ops.cc — convolution and convolution_backward on CUDA
// through cuDNN (Note [CUDA convolutions]), and ember_cuda::cudnn_is_available,
// which torch::cuda::cudnn_is_available() asks.
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "aten/ConvDecompositions.h"
#include "aten/ConvUtils.h"
#include "aten/Functions.h"
#include "aten/Tensor.h"
#include "backends/cuda/CUDAGuardImpl.h"
#include "backends/cuda/CUDAIterator.h"
#include "backends/cuda/CuDNN.h"
#include "c10/core/DeviceGuard.h"
#include "c10/util/Exception.h"
#include "registration/library.h"

namespace ember {
namespace cuda {
namespace {

using at::native::ConvGeometry;
using at::native::ConvPlan;

// Note [CUDA convolutions]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// Each of a convolution's three products (Note [Convolution geometry] in
// aten/ConvUtils.h: forward, backward_data, backward_weights) is one cuDNN
// call on dense NCHW tensors (NHWC when the input or the weight is channels
// last: then the results are channels last too, as PyTorch's), with the
// algorithm cuDNN's heuristics rank first (cudnnGet*Algorithm_v7, as
// PyTorch with benchmark=False) among those that succeed, do not need
// tensor cores where the math is FMA (Float: no TF32; the descriptor keeps
// CUDNN_FMA_MATH), whose workspace the
// caching allocator can give and that cuDNN then runs (one that returns
// CUDNN_STATUS_NOT_SUPPORTED makes way for the next); the workspace is
// freed after the call is queued (the allocator reuses it only in stream
// order). A transposed convolution is the same three products read the
// other way. The bias is added, and its gradient summed, by the plugin's
// own kernels. Where cuDNN is not usable (Note [cuDNN at run time]), the
// input is Double, empty, or has more than INT_MAX elements, or no
// algorithm qualifies, Float and Double take the core's decomposition
// (aten/ConvDecompositions.h); Half and BFloat16 need cuDNN.

// The thread's cuDNN handle on `device`, on its current stream.
cudnnHandle_t handle_on_current_stream(c10::Device device, const char* op) {
  cudnnHandle_t h = cudnn::handle(device, op);
  const auto stream = static_cast<cudaStream_t>(current_stream(device));
  cudnn::check(cudnn::library().cudnnSetStream(h, stream), op, "cudnnSetStream");
  return h;
}

// Whether `t` (4-d) is dense channels last (NHWC) and not also dense NCHW.
bool channels_last(const at::Tensor& t) {
  if (t.dim() != 4 || t.is_contiguous()) return false;
  const int64_t c = t.size(1), h = t.size(2), w = t.size(3);
  return t.stride(1) == 1 && t.stride(3) == c && t.stride(2) == w * c &&
         t.stride(0) == h * w * c;
}

// `t` dense in the layout of a call: NCHW, or NHWC with `nhwc`.
at::Tensor dense(const at::Tensor& t, bool nhwc) {
  if (!nhwc) return t.contiguous();
  return channels_last(t) ? t : t.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
}

// A new [n, c, h, w] tensor in the layout of a call.
at::Tensor empty_in(int64_t n, int64_t c, int64_t h, int64_t w, c10::ScalarType type,
                    c10::Device device, bool nhwc, const char* op) {
  if (!nhwc) return empty_cuda({n, c, h, w}, type, device, op);
  return empty_cuda({n, h, w, c}, type, device, op).permute({0, 3, 1, 2});
}

int64_t numel4(int64_t a, int64_t b, int64_t c, int64_t d) { return a * b * c * d; }

// Whether cuDNN takes this convolution; *why says why not.
bool cudnn_takes(const ConvGeometry& g, c10::ScalarType type, c10::Device device,
                 std::string* why) {
  if (!cudnn::is_supported(type)) {
    *why = "cuDNN convolutions here take Float, Half and BFloat16";
    return false;
  }
  if (g.N == 0 || g.Cx == 0 || g.Cy == 0) {
    *why = "an empty batch or channel dimension";
    return false;
  }
  const int64_t most = std::max({numel4(g.N, g.Cx, g.Hx, g.Wx), numel4(g.N, g.Cy, g.Hy, g.Wy),
                                 numel4(g.Cy, g.Cx / g.G, g.KH, g.KW)});
  if (most > INT_MAX) {
    *why = "a tensor of more than INT_MAX elements";
    return false;
  }
  return cudnn::usable(device, why);
}

// The math the chosen algorithm runs with: FMA stays FMA (Float: no TF32
// even where an algorithm reports the default math), else the algorithm's.
void set_math(const cudnn::ConvDescriptors& d, cudnnMathType_t chosen, const char* op) {
  cudnn::check(cudnn::library().cudnnSetConvolutionMathType(
                   d.conv, d.math == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : chosen),
               op, "cudnnSetConvolutionMathType");
}

// Runs `run(algo, workspace, bytes)` with the algorithms of `perfs` in
// cuDNN's order (Note [CUDA convolutions]): skips those that failed the
// heuristics, need tensor cores under FMA math or a workspace the allocator
// cannot give, and those cuDNN then says it does not support; true once one
// ran, false when none did. Other cuDNN errors throw.
template <typename Perf, typename Run>
bool run_first_that_works(const Perf* perfs, int count, const cudnn::ConvDescriptors& d,
                          c10::Device device, const char* op, const char* what, Run&& run) {
  for (int i = 0; i < count; ++i) {
    if (perfs[i].status != CUDNN_STATUS_SUCCESS) continue;
    if (d.math == CUDNN_FMA_MATH && (perfs[i].mathType == CUDNN_TENSOR_OP_MATH ||
                                     perfs[i].mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)) {
      continue;
    }
    at::Tensor workspace;
    try {
      workspace = empty_cuda({static_cast<int64_t>(perfs[i].memory > 0 ? perfs[i].memory : 1)},
                             c10::kByte, device, op);
    } catch (const c10::OutOfMemoryError&) {
      continue;  // a later algorithm may need less
    }
    set_math(d, perfs[i].mathType, op);
    const cudnnStatus_t status = run(perfs[i].algo, workspace.data_ptr(), perfs[i].memory);
    if (status == CUDNN_STATUS_SUCCESS) return true;
    if (status == CUDNN_STATUS_NOT_SUPPORTED) continue;
    cudnn::check(status, op, what);
  }
  return false;
}

// The three products (Note [Convolution geometry]) differ only in cuDNN's
// calls and the result's shape; each is a Product for run_product:
//   query(lib, h, d, perfs, &count)  cuDNN's ranked algorithms
//   run(lib, h, d, algo, ws, bytes, a, b, out)  the product of a and b
//   shape(g)  the result's [n, c, h, w]

// Y = X (*) W: a = X, b = W.
struct Forward {
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  using Algo = cudnnConvolutionFwdAlgo_t;
  static constexpr int kAlgos = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  static constexpr const char* kQuery = "cudnnGetConvolutionForwardAlgorithm_v7";
  static constexpr const char* kRun = "cudnnConvolutionForward";
  static cudnnStatus_t query(const cudnn::Library& lib, cudnnHandle_t h,
                             const cudnn::ConvDescriptors& d, Perf* perfs, int* count) {
    return lib.cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, kAlgos, count,
                                                      perfs);
  }
  static cudnnStatus_t run(const cudnn::Library& lib, cudnnHandle_t h,
                           const cudnn::ConvDescriptors& d, Algo algo, void* ws, size_t bytes,
                           const void* a, const void* b, void* out) {
    const float one = 1, zero = 0;
    return lib.cudnnConvolutionForward(h, &one, d.x, a, d.w, b, d.conv, algo, ws, bytes, &zero,
                                       d.y, out);
  }
  static std::array<int64_t, 4> shape(const ConvGeometry& g) { return {g.N, g.Cy, g.Hy, g.Wy}; }
};

// dX from dY and W: a = dY, b = W.
struct BackwardData {
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  using Algo = cudnnConvolutionBwdDataAlgo_t;
  static constexpr int kAlgos = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
  static constexpr const char* kQuery = "cudnnGetConvolutionBackwardDataAlgorithm_v7";
  static constexpr const char* kRun = "cudnnConvolutionBackwardData";
  static cudnnStatus_t query(const cudnn::Library& lib, cudnnHandle_t h,
                             const cudnn::ConvDescriptors& d, Perf* perfs, int* count) {
    return lib.cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d.w, d.y, d.conv, d.x, kAlgos,
                                                           count, perfs);
  }
  static cudnnStatus_t run(const cudnn::Library& lib, cudnnHandle_t h,
                           const cudnn::ConvDescriptors& d, Algo algo, void* ws, size_t bytes,
                           const void* a, const void* b, void* out) {
    const float one = 1, zero = 0;
    return lib.cudnnConvolutionBackwardData(h, &one, d.w, b, d.y, a, d.conv, algo, ws, bytes,
                                            &zero, d.x, out);
  }
  static std::array<int64_t, 4> shape(const ConvGeometry& g) { return {g.N, g.Cx, g.Hx, g.Wx}; }
};

// dW from X and dY: a = X, b = dY.
struct BackwardWeights {
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  using Algo = cudnnConvolutionBwdFilterAlgo_t;
  static constexpr int kAlgos = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
  static constexpr const char* kQuery = "cudnnGetConvolutionBackwardFilterAlgorithm_v7";
  static constexpr const char* kRun = "cudnnConvolutionBackwardFilter";
  static cudnnStatus_t query(const cudnn::Library& lib, cudnnHandle_t h,
                             const cudnn::ConvDescriptors& d, Perf* perfs, int* count) {
    return lib.cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, d.x, d.y, d.conv, d.w, kAlgos,
                                                             count, perfs);
  }
  static cudnnStatus_t run(const cudnn::Library& lib, cudnnHandle_t h,
                           const cudnn::ConvDescriptors& d, Algo algo, void* ws, size_t bytes,
                           const void* a, const void* b, void* out) {
    const float one = 1, zero = 0;
    return lib.cudnnConvolutionBackwardFilter(h, &one, d.x, a, d.y, b, d.conv, algo, ws, bytes,
                                              &zero, d.w, out);
  }
  static std::array<int64_t, 4> shape(const ConvGeometry& g) {
    return {g.Cy, g.Cx / g.G, g.KH, g.KW};
  }
};

// One product of a and b (in the call's layout) on a's device and type;
// nullopt when no algorithm qualifies (Note [CUDA convolutions]).
template <typename Product>
std::optional<at::Tensor> run_product(const ConvGeometry& g, const at::Tensor& a_in,
                                      const at::Tensor& b_in, bool nhwc, const char* op) {
  const cudnn::Library& lib = cudnn::library();
  const c10::Device device = a_in.device();
  c10::DeviceGuard guard(device);
  const at::Tensor a = dense(a_in, nhwc), b = dense(b_in, nhwc);
  cudnn::ConvDescriptors d(g, a.scalar_type(), op, nhwc);
  cudnnHandle_t h = handle_on_current_stream(device, op);
  typename Product::Perf perfs[Product::kAlgos];
  int count = 0;
  cudnn::check(Product::query(lib, h, d, perfs, &count), op, Product::kQuery);
  const std::array<int64_t, 4> s = Product::shape(g);
  at::Tensor out = empty_in(s[0], s[1], s[2], s[3], a.scalar_type(), device, nhwc, op);
  const bool ran = run_first_that_works(
      perfs, count, d, device, op, Product::kRun,
      [&](typename Product::Algo algo, void* ws, size_t bytes) {
        return Product::run(lib, h, d, algo, ws, bytes, a.data_ptr(), b.data_ptr(),
                            out.data_ptr());
      });
  if (!ran) return std::nullopt;
  return out;
}

// Half and BFloat16 have no decomposition to fall back on.
void require_cudnn_for_half(c10::ScalarType type, const std::string& why, const char* op) {
  TORCH_CHECK(type != c10::kHalf && type != c10::kBFloat16, op, ": a ", type,
              " convolution on CUDA needs cuDNN, which cannot take this call (", why,
              "). Convert the input and weight to float32 with .to(torch::kFloat).");
}

at::Tensor squeezed(const at::Tensor& t, bool one_d) { return one_d ? t.squeeze(2) : t; }

at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight,
                       const std::optional<at::Tensor>& bias, c10::IntArrayRef stride,
                       c10::IntArrayRef padding, c10::IntArrayRef dilation, bool transposed,
                       c10::IntArrayRef output_padding, int64_t groups) {
  const char* op = "convolution";
  const ConvPlan p = at::native::conv_plan(input, weight, bias, stride, padding, dilation,
                                           transposed, output_padding, groups, op,
                                           /*half_types=*/true);
  const ConvGeometry& g = p.g;
  std::string why;
  std::optional<at::Tensor> out;
  if (cudnn_takes(g, input.scalar_type(), input.device(), &why)) {
    const bool nhwc = channels_last(p.input) || channels_last(p.weight);
    // A transposed convolution's output is the direct one's input gradient.
    out = transposed ? run_product<BackwardData>(g, p.input, p.weight, nhwc, op)
                     : run_product<Forward>(g, p.input, p.weight, nhwc, op);
    if (!out) why = "no cuDNN algorithm qualifies";
  }
  if (!out) {
    require_cudnn_for_half(input.scalar_type(), why, op);
    return at::native::convolution_decomposed(input, weight, bias, stride, padding, dilation,
                                              transposed, output_padding, groups);
  }
  if (bias.has_value() && bias->defined()) {
    out->add_(bias->reshape({1, transposed ? g.Cx : g.Cy, 1, 1}));
  }
  return squeezed(*out, p.one_d);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight,
    c10::OptionalIntArrayRef bias_sizes, c10::IntArrayRef stride, c10::IntArrayRef padding,
    c10::IntArrayRef dilation, bool transposed, c10::IntArrayRef output_padding, int64_t groups,
    const std::vector<bool>& output_mask) {
  const char* op = "convolution_backward";
  at::native::check_conv_output_mask(output_mask, op);
  const ConvPlan p = at::native::conv_plan(input, weight, std::nullopt, stride, padding,
                                           dilation, transposed, output_padding, groups, op,
                                           /*half_types=*/true);
  at::native::check_conv_grad(grad_output, input, p, bias_sizes, op);
  const ConvGeometry& g = p.g;
  const at::Tensor go = p.one_d ? grad_output.unsqueeze(2) : grad_output;
  std::string why;
  bool done = cudnn_takes(g, input.scalar_type(), input.device(), &why);
  std::optional<at::Tensor> grad_input, grad_weight;
  const bool nhwc = channels_last(p.input) || channels_last(p.weight);
  if (done && !transposed) {
    if (output_mask[0]) {
      done = (grad_input = run_product<BackwardData>(g, go, p.weight, nhwc, op)).has_value();
    }
    if (done && output_mask[1]) {
      done = (grad_weight = run_product<BackwardWeights>(g, p.input, go, nhwc, op)).has_value();
    }
  } else if (done) {
    // Note [Convolution geometry]: grad_output plays X, input plays Y.
    if (output_mask[0]) {
      done = (grad_input = run_product<Forward>(g, go, p.weight, nhwc, op)).has_value();
    }
    if (done && output_mask[1]) {
      done = (grad_weight = run_product<BackwardWeights>(g, go, p.input, nhwc, op)).has_value();
    }
  }
  if (!done) {
    if (why.empty()) why = "no cuDNN algorithm qualifies";
    require_cudnn_for_half(input.scalar_type(), why, op);
    return at::native::convolution_backward_decomposed(grad_output, input, weight, bias_sizes,
                                                       stride, padding, dilation, transposed,
                                                       output_padding, groups, output_mask);
  }
  at::Tensor gi, gw, gb;
  if (grad_input) gi = squeezed(*grad_input, p.one_d);
  if (grad_weight) gw = squeezed(*grad_weight, p.one_d);
  if (output_mask[2]) gb = at::sum(go, c10::IntArrayRef({0, 2, 3}));
  return {gi, gw, gb};
}

// Whether cuDNN takes convolutions here: it loaded and works on some CUDA
// device, not only cuda:0 (false, never a throw, where there is no device
// or no cuDNN).
bool cudnn_is_available() {
  for (int i = 0; i < deviceCount(); ++i) {
    try {
      if (cudnn::usable(c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(i)))) return true;
    } catch (const c10::Error&) {
      // this device does not take it; another may
    }
  }
  return false;
}

}  // namespace

TORCH_LIBRARY(ember_cuda, m) {
  m.def("cudnn_is_available() -> bool", &cudnn_is_available);
}

TORCH_LIBRARY_IMPL(aten, CUDA, m) {
  m.impl("convolution", TORCH_FN(convolution));
  m.impl("convolution_backward", TORCH_FN(convolution_backward));
}

}  // namespace cuda
}  // namespace ember
