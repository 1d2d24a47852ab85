// backends/cuda/CuDNN.cc — loading cuDNN (Note [cuDNN at run time]), its
// handles and the convolution descriptors.
#include "backends/cuda/CuDNN.h"

#include <dlfcn.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "backends/cuda/stream_ids.h"
#include "c10/core/DeviceGuard.h"
#include "c10/util/Exception.h"

namespace ember {
namespace cuda {
namespace cudnn {
namespace {

// The major version this plugin is compiled against (cudnn.h's).
constexpr size_t kMajor = CUDNN_MAJOR;

Library load() {
  Library lib;
  const char* env = std::getenv("EMBER_CUDNN");
  if (env != nullptr && std::strcmp(env, "0") == 0) {
    lib.reason = "disabled by EMBER_CUDNN=0";
    return lib;
  }
  const std::string file = "libcudnn.so." + std::to_string(kMajor);
  void* so = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (so == nullptr) {
    const char* err = dlerror();
    lib.reason = "cannot load " + file + ": " + (err != nullptr ? err : "unknown error") +
                 " (install cuDNN " + std::to_string(kMajor) +
                 " in the toolkit's lib64 or on LD_LIBRARY_PATH)";
    return lib;
  }
  std::string missing;
#define EMBER_CUDNN_RESOLVE(name)                                     \
  lib.name = reinterpret_cast<decltype(lib.name)>(dlsym(so, #name)); \
  if (lib.name == nullptr && missing.empty()) missing = #name;
  EMBER_CUDNN_RESOLVE(cudnnGetVersion)
  EMBER_CUDNN_RESOLVE(cudnnGetErrorString)
  EMBER_CUDNN_RESOLVE(cudnnCreate)
  EMBER_CUDNN_RESOLVE(cudnnSetStream)
  EMBER_CUDNN_RESOLVE(cudnnCreateTensorDescriptor)
  EMBER_CUDNN_RESOLVE(cudnnSetTensor4dDescriptor)
  EMBER_CUDNN_RESOLVE(cudnnGetTensor4dDescriptor)
  EMBER_CUDNN_RESOLVE(cudnnDestroyTensorDescriptor)
  EMBER_CUDNN_RESOLVE(cudnnCreateFilterDescriptor)
  EMBER_CUDNN_RESOLVE(cudnnSetFilter4dDescriptor)
  EMBER_CUDNN_RESOLVE(cudnnDestroyFilterDescriptor)
  EMBER_CUDNN_RESOLVE(cudnnCreateConvolutionDescriptor)
  EMBER_CUDNN_RESOLVE(cudnnSetConvolution2dDescriptor)
  EMBER_CUDNN_RESOLVE(cudnnSetConvolutionGroupCount)
  EMBER_CUDNN_RESOLVE(cudnnSetConvolutionMathType)
  EMBER_CUDNN_RESOLVE(cudnnDestroyConvolutionDescriptor)
  EMBER_CUDNN_RESOLVE(cudnnGetConvolution2dForwardOutputDim)
  EMBER_CUDNN_RESOLVE(cudnnGetConvolutionForwardAlgorithm_v7)
  EMBER_CUDNN_RESOLVE(cudnnConvolutionForward)
  EMBER_CUDNN_RESOLVE(cudnnGetConvolutionBackwardDataAlgorithm_v7)
  EMBER_CUDNN_RESOLVE(cudnnConvolutionBackwardData)
  EMBER_CUDNN_RESOLVE(cudnnGetConvolutionBackwardFilterAlgorithm_v7)
  EMBER_CUDNN_RESOLVE(cudnnConvolutionBackwardFilter)
#undef EMBER_CUDNN_RESOLVE
  if (!missing.empty()) {
    lib.reason = file + " has no " + missing;
    return lib;
  }
  lib.version = lib.cudnnGetVersion();
  if (lib.version / 10000 != kMajor) {
    lib.reason = file + " reports version " + std::to_string(lib.version) +
                 ", but the plugin was built for cuDNN " + std::to_string(kMajor);
    return lib;
  }
  lib.available = true;
  return lib;
}

// Per device: 0 not probed, 1 usable, 2 not (reason in probe_reason).
std::atomic<int> probed[kMaxCudaDevices];
std::mutex probe_mutex;
std::string probe_reason[kMaxCudaDevices];

cudnnHandle_t& thread_handle(c10::DeviceIndex device) {
  thread_local cudnnHandle_t handles[kMaxCudaDevices] = {};
  return handles[device];
}

}  // namespace

const Library& library() {
  static const Library lib = load();
  return lib;
}

void check(cudnnStatus_t status, const char* op, const char* what) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  const Library& lib = library();
  TORCH_CHECK(false, op, ": cuDNN ", what, " failed: ",
              lib.cudnnGetErrorString != nullptr ? lib.cudnnGetErrorString(status) : "",
              " (status ", static_cast<int>(status), ").");
}

bool usable(c10::Device device, std::string* why) {
  const Library& lib = library();
  if (!lib.available) {
    if (why != nullptr) *why = lib.reason;
    return false;
  }
  const c10::DeviceIndex index = device.index() < 0 ? 0 : device.index();
  TORCH_CHECK(index < kMaxCudaDevices, "cuDNN: device index ", index, " is past the ",
              kMaxCudaDevices, " devices the plugin supports.");
  int state = probed[index].load(std::memory_order_acquire);
  if (state == 0) {
    std::lock_guard<std::mutex> lock(probe_mutex);
    state = probed[index].load(std::memory_order_relaxed);
    if (state == 0) {
      try {
        c10::DeviceGuard guard(c10::Device(c10::kCUDA, index));
        cudnnHandle_t& h = thread_handle(index);
        if (h == nullptr) check(lib.cudnnCreate(&h), "cuDNN", "cudnnCreate");
        state = 1;
      } catch (const c10::Error& e) {
        probe_reason[index] = e.what_without_backtrace();
        state = 2;
      }
      probed[index].store(state, std::memory_order_release);
    }
  }
  if (state == 2 && why != nullptr) {
    std::lock_guard<std::mutex> lock(probe_mutex);
    *why = probe_reason[index];
  }
  return state == 1;
}

cudnnHandle_t handle(c10::Device device, const char* op) {
  TORCH_CHECK(device.index() >= 0 && device.index() < kMaxCudaDevices, op,
              ": cuDNN: no handle for device ", device, ".");
  cudnnHandle_t& h = thread_handle(device.index());
  if (h == nullptr) check(library().cudnnCreate(&h), op, "cudnnCreate");
  return h;
}

bool is_supported(c10::ScalarType type) {
  return type == c10::kFloat || type == c10::kHalf || type == c10::kBFloat16;
}

cudnnDataType_t data_type(c10::ScalarType type) {
  switch (type) {
    case c10::kFloat: return CUDNN_DATA_FLOAT;
    case c10::kHalf: return CUDNN_DATA_HALF;
    case c10::kBFloat16: return CUDNN_DATA_BFLOAT16;
    default: break;
  }
  TORCH_CHECK(false, "cuDNN: no convolution for dtype ", type,
              " (it has Float, Half and BFloat16).");
}

namespace {
int to_int(int64_t v, const char* op, const char* what) {
  TORCH_CHECK(v >= 0 && v <= INT_MAX, op, ": cuDNN takes ", what, " up to ", INT_MAX,
              ", but got ", v, ".");
  return static_cast<int>(v);
}
}  // namespace

ConvDescriptors::ConvDescriptors(const at::native::ConvGeometry& g, c10::ScalarType type,
                                 const char* op, bool nhwc) {
  try {
    init(g, type, op, nhwc);
  } catch (...) {
    release();
    throw;
  }
}

void ConvDescriptors::init(const at::native::ConvGeometry& g, c10::ScalarType type,
                           const char* op, bool nhwc) {
  const Library& lib = library();
  TORCH_CHECK(lib.available, op, ": cuDNN is not available: ", lib.reason, ".");
  const cudnnDataType_t dt = data_type(type);
  const cudnnTensorFormat_t format = nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  check(lib.cudnnCreateTensorDescriptor(&x), op, "cudnnCreateTensorDescriptor");
  check(lib.cudnnCreateFilterDescriptor(&w), op, "cudnnCreateFilterDescriptor");
  check(lib.cudnnCreateTensorDescriptor(&y), op, "cudnnCreateTensorDescriptor");
  check(lib.cudnnCreateConvolutionDescriptor(&conv), op, "cudnnCreateConvolutionDescriptor");
  const int n = to_int(g.N, op, "a batch");
  check(lib.cudnnSetTensor4dDescriptor(x, format, dt, n, to_int(g.Cx, op, "channels"),
                                       to_int(g.Hx, op, "a height"), to_int(g.Wx, op, "a width")),
        op, "cudnnSetTensor4dDescriptor (input)");
  check(lib.cudnnSetFilter4dDescriptor(w, dt, format, to_int(g.Cy, op, "channels"),
                                       to_int(g.Cx / g.G, op, "channels"),
                                       to_int(g.KH, op, "a kernel height"),
                                       to_int(g.KW, op, "a kernel width")),
        op, "cudnnSetFilter4dDescriptor");
  check(lib.cudnnSetTensor4dDescriptor(y, format, dt, n, to_int(g.Cy, op, "channels"),
                                       to_int(g.Hy, op, "a height"), to_int(g.Wy, op, "a width")),
        op, "cudnnSetTensor4dDescriptor (output)");
  check(lib.cudnnSetConvolution2dDescriptor(
            conv, to_int(g.ph, op, "padding"), to_int(g.pw, op, "padding"),
            to_int(g.sh, op, "a stride"), to_int(g.sw, op, "a stride"),
            to_int(g.dh, op, "a dilation"), to_int(g.dw, op, "a dilation"),
            CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        op, "cudnnSetConvolution2dDescriptor");
  check(lib.cudnnSetConvolutionGroupCount(conv, to_int(g.G, op, "groups")), op,
        "cudnnSetConvolutionGroupCount");
  math = type == c10::kFloat ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
  check(lib.cudnnSetConvolutionMathType(conv, math), op, "cudnnSetConvolutionMathType");
}

ConvDescriptors::~ConvDescriptors() { release(); }

void ConvDescriptors::release() {
  const Library& lib = library();
  if (x != nullptr) lib.cudnnDestroyTensorDescriptor(x);
  if (w != nullptr) lib.cudnnDestroyFilterDescriptor(w);
  if (y != nullptr) lib.cudnnDestroyTensorDescriptor(y);
  if (conv != nullptr) lib.cudnnDestroyConvolutionDescriptor(conv);
  x = y = nullptr;
  w = nullptr;
  conv = nullptr;
}

}  // namespace cudnn
}  // namespace cuda
}  // namespace ember
