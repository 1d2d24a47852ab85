// backends/cuda/CuDNN.h — cuDNN 9 for the CUDA plugin, loaded at run time
// (Note [cuDNN at run time]): the library's functions, the calling thread's
// handle, descriptors as owners, and the convolution descriptors of a
// ConvGeometry (aten/ConvUtils.h).
//
//   if (ember::cuda::cudnn::library().available) {
//     ember::cuda::cudnn::ConvDescriptors d(geometry, c10::kFloat);
//     ...
//   }
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <string>

#include "aten/ConvUtils.h"
#include "c10/core/Device.h"
#include "c10/core/ScalarType.h"

namespace ember {
namespace cuda {
namespace cudnn {

// Note [cuDNN at run time]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// cuDNN is a separate product from the toolkit: a machine with the driver
// and cuBLAS may not have it. The plugin therefore does not link it: the
// first convolution dlopen()s libcudnn.so.9 (found through the plugin's
// rpath, the toolkit's lib64) and resolves the functions below. Where it is
// missing, older than 9, or disabled with EMBER_CUDNN=0, `available` is
// false with the reason, torch::cuda::cudnn_is_available() says false, and
// convolutions take the core's decomposition (aten/ConvDecompositions.h) as
// before. The descriptor functions need no device, so CI checks the
// descriptors against the geometry (tests/backends/cuda/cudnn_test.cc);
// cudnnCreate needs one.
struct Library {
  bool available = false;
  std::string reason;  // why not, when not available
  size_t version = 0;  // cudnnGetVersion(), e.g. 91900
#define EMBER_CUDNN_FN(name) decltype(&::name) name = nullptr;
  EMBER_CUDNN_FN(cudnnGetVersion)
  EMBER_CUDNN_FN(cudnnGetErrorString)
  EMBER_CUDNN_FN(cudnnCreate)
  EMBER_CUDNN_FN(cudnnSetStream)
  EMBER_CUDNN_FN(cudnnCreateTensorDescriptor)
  EMBER_CUDNN_FN(cudnnSetTensor4dDescriptor)
  EMBER_CUDNN_FN(cudnnGetTensor4dDescriptor)  // the tests read the layout back
  EMBER_CUDNN_FN(cudnnDestroyTensorDescriptor)
  EMBER_CUDNN_FN(cudnnCreateFilterDescriptor)
  EMBER_CUDNN_FN(cudnnSetFilter4dDescriptor)
  EMBER_CUDNN_FN(cudnnDestroyFilterDescriptor)
  EMBER_CUDNN_FN(cudnnCreateConvolutionDescriptor)
  EMBER_CUDNN_FN(cudnnSetConvolution2dDescriptor)
  EMBER_CUDNN_FN(cudnnSetConvolutionGroupCount)
  EMBER_CUDNN_FN(cudnnSetConvolutionMathType)
  EMBER_CUDNN_FN(cudnnDestroyConvolutionDescriptor)
  EMBER_CUDNN_FN(cudnnGetConvolution2dForwardOutputDim)
  EMBER_CUDNN_FN(cudnnGetConvolutionForwardAlgorithm_v7)
  EMBER_CUDNN_FN(cudnnConvolutionForward)
  EMBER_CUDNN_FN(cudnnGetConvolutionBackwardDataAlgorithm_v7)
  EMBER_CUDNN_FN(cudnnConvolutionBackwardData)
  EMBER_CUDNN_FN(cudnnGetConvolutionBackwardFilterAlgorithm_v7)
  EMBER_CUDNN_FN(cudnnConvolutionBackwardFilter)
#undef EMBER_CUDNN_FN
};

// The library, loaded on the first call (thread-safe; never unloaded).
const Library& library();

// Throws c10::Error "<op>: cuDNN <what> failed: <cuDNN's message>." unless
// `status` is CUDNN_STATUS_SUCCESS.
void check(cudnnStatus_t status, const char* op, const char* what);

// Whether convolutions on `device` go through cuDNN: the library is
// available and a handle could be made there (once per device; the first
// failure is remembered with its reason in *why when given).
bool usable(c10::Device device, std::string* why = nullptr);

// The calling thread's handle on `device` (current: the caller holds a
// DeviceGuard); the caller sets its stream (cudnnSetStream). Made on first
// use, never destroyed (as the cuBLAS handles, backends/cuda/blas.cc).
cudnnHandle_t handle(c10::Device device, const char* op);

// cuDNN's data type for a tensor of `type`: Float, Half and BFloat16
// (throws for the others; the caller checked is_supported).
cudnnDataType_t data_type(c10::ScalarType type);
bool is_supported(c10::ScalarType type);

// The descriptors of one convolution (Note [Convolution geometry]): X
// [N, Cx, Hx, Wx], W [Cy, Cx/G, KH, KW], Y [N, Cy, Hy, Wy], all dense NCHW
// of `type`, or all dense NHWC (channels last) with `nhwc`;
// cross-correlation with the geometry's padding, stride, dilation and
// groups, computed in float. Float computes with FMA only (no TF32, as the
// CPU and as the plugin's cuBLAS matmuls); Half and BFloat16 may use tensor
// cores. Throws c10::Error naming `op` where cuDNN refuses a value (a
// dimension above INT_MAX included).
class ConvDescriptors {
 public:
  ConvDescriptors(const at::native::ConvGeometry& g, c10::ScalarType type, const char* op,
                  bool nhwc = false);
  ~ConvDescriptors();
  ConvDescriptors(const ConvDescriptors&) = delete;
  ConvDescriptors& operator=(const ConvDescriptors&) = delete;

  cudnnTensorDescriptor_t x = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnTensorDescriptor_t y = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;  // what the algorithms must use

 private:
  void init(const at::native::ConvGeometry& g, c10::ScalarType type, const char* op, bool nhwc);
  void release();
};

}  // namespace cudnn
}  // namespace cuda
}  // namespace ember
