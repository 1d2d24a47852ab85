// backends/cuda/kernels/copy_fill_kernels.cu — copy_ between CUDA tensors
// (any pair of the ten dtypes, strided; convert<> in dtypes.cuh) and fill_ (a bit pattern of the
// element's size, so one kernel per element size serves every dtype).
#include "backends/cuda/kernels/loops.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

template <typename D, typename S>
struct CopyOp {
  __device__ void operator()(char* const* p) const {
    *reinterpret_cast<D*>(p[0]) = convert<D>(*reinterpret_cast<const S*>(p[1]));
  }
};

template <typename T>
struct FillOp {
  T value;
  __device__ void operator()(char* const* p) const {
    *reinterpret_cast<T*>(p[0]) = value;
  }
};

}  // namespace

std::string launch_copy(const Iteration& it, Dtype dst, Dtype src, void* stream) {
  return dispatch_dtype(dst, [&](auto d) {
    return dispatch_dtype(src, [&](auto s) {
      return launch_elementwise<2>(it, CopyOp<decltype(d), decltype(s)>{}, stream);
    });
  });
}

std::string launch_fill(const Iteration& it, int size, uint64_t bits, void* stream) {
  switch (size) {
    case 1: return launch_elementwise<1>(it, FillOp<uint8_t>{static_cast<uint8_t>(bits)}, stream);
    case 2: return launch_elementwise<1>(it, FillOp<uint16_t>{static_cast<uint16_t>(bits)}, stream);
    case 4: return launch_elementwise<1>(it, FillOp<uint32_t>{static_cast<uint32_t>(bits)}, stream);
    case 8: return launch_elementwise<1>(it, FillOp<uint64_t>{bits}, stream);
  }
  return "fill: unsupported element size " + std::to_string(size);
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
