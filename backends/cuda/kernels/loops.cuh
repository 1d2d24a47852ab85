// backends/cuda/kernels/loops.cuh — the elementwise launch of every
// pointwise kernel: one thread per element, grid-stride, addresses from
// the Iteration in 32-bit arithmetic (See Note [CUDA offset calculator] and
// Note [CUDA 32-bit indexing]) or, when every operand is contiguous, from the
// index directly.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/cuda/kernels/dtypes.cuh"
#include "backends/cuda/kernels/launch.h"
#include "backends/cuda/kernels/offsets.cuh"

namespace ember {
namespace cuda {
namespace kernels {

// The operands' element addresses for linear index i: a CPU scalar's is
// the copy of its value in `scalars` (Note [CUDA offset calculator]), the
// others' from 32-bit offsets (Note [CUDA 32-bit indexing]).
template <int NOps>
__device__ __forceinline__ void element_ptrs(const Strided32<NOps>& it, uint32_t i,
                                             uint64_t* scalars, char** ptrs) {
  int32_t off[NOps];
  it.offsets(i, off);
#pragma unroll
  for (int k = 0; k < NOps; ++k) ptrs[k] = it.data[k] + off[k];
#pragma unroll
  for (int k = 1; k < NOps; ++k) {
    if ((it.scalar_mask >> k) & 1u) ptrs[k] = reinterpret_cast<char*>(&scalars[k]);
  }
}

// f(char* const* ptrs) is called once per element with each operand's
// element address.
template <int NOps, typename F>
__global__ void elementwise_kernel(Strided32<NOps> it, F f) {
  uint64_t scalars[NOps];
#pragma unroll
  for (int k = 0; k < NOps; ++k) scalars[k] = it.scalars[k];
  // i + stride stays below 2^32: i < numel < 2^31, stride < 2^28.
  const uint32_t stride = blockDim.x * gridDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < it.numel; i += stride) {
    char* ptrs[NOps];
    element_ptrs<NOps>(it, i, scalars, ptrs);
    f(ptrs);
  }
}

// Note [Vectorized elementwise loop]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// When every operand is contiguous, of the element type T and 16-byte
// aligned, each thread moves 16 bytes of every operand per step (float4-
// sized loads and stores: 4 floats, 2 doubles or int64s): f runs on the
// elements in registers. One element per thread reached 0.73x the card's
// device-to-device copy bandwidth for a 16M-float add on an H100; 16-byte
// accesses are what the memory system needs to approach it. The elements
// past the last whole vector are done one per thread. Dense operands that
// are not aligned run the same kernel one element per thread; either way
// the kernel takes the small Dense parameter rather than the Iteration.
template <typename T>
struct alignas(16) Vec16 {
  static constexpr int kN = 16 / sizeof(T);
  T v[kN];
};

// The operands of a dense launch: NOps base pointers and the element count
// (a small kernel parameter; the Iteration is about 570 bytes), and the
// values of CPU scalar operands, which every element reads.
template <int NOps>
struct Dense {
  char* data[NOps];
  int64_t numel;
  unsigned scalar_mask;
  uint64_t scalars[NOps];
};

template <int NOps, typename T, bool Vectorize, typename F>
__global__ void dense_kernel(Dense<NOps> d, F f) {
  using V = Vec16<T>;
  constexpr int kN = Vectorize ? V::kN : 1;
  uint64_t scalars[NOps];
#pragma unroll
  for (int k = 0; k < NOps; ++k) scalars[k] = d.scalars[k];
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int64_t done = 0;
  if constexpr (Vectorize) {
    V splat[NOps];  // the scalars, in every lane
#pragma unroll
    for (int k = 1; k < NOps; ++k) {
#pragma unroll
      for (int j = 0; j < kN; ++j) splat[k].v[j] = *reinterpret_cast<const T*>(&scalars[k]);
    }
    const int64_t nvec = d.numel / kN;
    for (int64_t v = first; v < nvec; v += stride) {
      V regs[NOps];
#pragma unroll
      for (int k = 1; k < NOps; ++k) {
        regs[k] = ((d.scalar_mask >> k) & 1u) ? splat[k]
                                               : reinterpret_cast<const V*>(d.data[k])[v];
      }
#pragma unroll
      for (int j = 0; j < kN; ++j) {
        char* ptrs[NOps];
#pragma unroll
        for (int k = 0; k < NOps; ++k) ptrs[k] = reinterpret_cast<char*>(&regs[k].v[j]);
        f(ptrs);
      }
      reinterpret_cast<V*>(d.data[0])[v] = regs[0];
    }
    done = nvec * kN;
  }
  for (int64_t i = done + first; i < d.numel; i += stride) {
    char* ptrs[NOps];
#pragma unroll
    for (int k = 0; k < NOps; ++k) {
      ptrs[k] = ((d.scalar_mask >> k) & 1u)
                    ? reinterpret_cast<char*>(&scalars[k])
                    : d.data[k] + i * static_cast<int64_t>(sizeof(T));
    }
    f(ptrs);
  }
}

// "" for cudaSuccess, else cudart's reason and the error's name: the status
// string every kernels:: entry point returns.
inline std::string error_status(cudaError_t err) {
  if (err == cudaSuccess) return "";
  return std::string(cudaGetErrorString(err)) + " (" + cudaGetErrorName(err) + ")";
}

inline std::string launch_status() { return error_status(cudaGetLastError()); }

// Blocks of `threads` for a grid-stride loop over `total` items: enough to
// give each item a thread, at most 65535 * 8 (threads then take several).
inline unsigned grid_stride_blocks(int64_t total, int threads) {
  const int64_t wanted = (total + threads - 1) / threads;
  return static_cast<unsigned>(wanted < 65535 * 8 ? wanted : 65535 * 8);
}

template <int NOps, typename F>
std::string launch_elementwise(const Iteration& it, F f, void* stream) {
  if (it.numel == 0) return "";
  if (!fits_32bit_indexing(it)) {
    std::vector<Iteration> pieces;
    split_for_32bit_indexing(it, kMax32BitIndex, &pieces);
    for (const Iteration& piece : pieces) {
      const std::string status = launch_elementwise<NOps>(piece, f, stream);
      if (!status.empty()) return status;
    }
    return "";
  }
  constexpr int kThreads = 256;
  const unsigned blocks = grid_stride_blocks(it.numel, kThreads);
  elementwise_kernel<NOps><<<blocks, kThreads, 0,
                             static_cast<cudaStream_t>(stream)>>>(strided32<NOps>(it), f);
  return launch_status();
}

// launch_elementwise for operands that are all of type T (CPU scalars too,
// converted to T by the iterator): the vectorized
// loop where it applies (Note [Vectorized elementwise loop]), else the
// general one.
template <int NOps, typename T, typename F>
std::string launch_elementwise_typed(const Iteration& it, F f, void* stream) {
  if (it.numel == 0) return "";
  bool dense = it.contiguous, aligned = true;
  Dense<NOps> d;
  d.numel = it.numel;
  d.scalar_mask = it.scalar_mask;
  for (int k = 0; k < NOps; ++k) {
    d.data[k] = it.data[k];
    d.scalars[k] = it.scalars[k];
    if ((it.scalar_mask >> k) & 1u) continue;
    dense = dense && it.strides[k][0] == static_cast<int64_t>(sizeof(T));
    aligned = aligned && reinterpret_cast<uintptr_t>(it.data[k]) % 16 == 0;
  }
  if (!dense) return launch_elementwise<NOps>(it, f, stream);
  constexpr int kThreads = 256;
  const int64_t per_block = int64_t{kThreads} * (aligned ? Vec16<T>::kN : 1);
  const int64_t wanted = (it.numel + per_block - 1) / per_block;
  const int blocks = static_cast<int>(wanted < 65535 * 8 ? wanted : 65535 * 8);
  const auto s = static_cast<cudaStream_t>(stream);
  if (aligned) {
    dense_kernel<NOps, T, true><<<blocks, kThreads, 0, s>>>(d, f);
  } else {
    dense_kernel<NOps, T, false><<<blocks, kThreads, 0, s>>>(d, f);
  }
  return launch_status();
}

// Calls f(T{}) for the C++ type of `dtype`, any of the ten.
template <typename F>
std::string dispatch_dtype(Dtype dtype, F&& f) {
  switch (dtype) {
    case Dtype::kFloat: return f(float{});
    case Dtype::kDouble: return f(double{});
    case Dtype::kLong: return f(int64_t{});
    case Dtype::kInt: return f(int32_t{});
    case Dtype::kBool: return f(bool{});
    case Dtype::kShort: return f(int16_t{});
    case Dtype::kChar: return f(int8_t{});
    case Dtype::kByte: return f(uint8_t{});
    case Dtype::kHalf: return f(Half{});
    case Dtype::kBFloat16: return f(BFloat16{});
  }
  return "unknown dtype";
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
