// backends/cuda/kernels/index_kernels.cu — index_select (and embedding, which
// is index_select of rows) and embedding's backward. Indices are checked on
// the device (Note [CUDA index checks] in launch.h).
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "backends/cuda/kernels/element_ops.cuh"
#include "backends/cuda/kernels/loops.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ int64_t read_index(const void* index, bool is_int32, int64_t i) {
  return is_int32 ? static_cast<const int32_t*>(index)[i]
                  : static_cast<const int64_t*>(index)[i];
}

// One thread per output element; W is a word of the element's size.
template <typename W>
__global__ void index_select_kernel(IndexSelect a) {
  const int64_t total = a.pre * a.count * a.post;
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += stride) {
    const int64_t q = i % a.post;
    const int64_t b = (i / a.post) % a.count;
    const int64_t p = i / (a.post * a.count);
    const int64_t v = read_index(a.index, a.index_is_int32, b);
    if (v < 0 || v >= a.size) {
      atomicMin(a.bad_position, static_cast<unsigned long long>(b));
      continue;
    }
    static_cast<W*>(a.dst)[i] = static_cast<const W*>(a.src)[(p * a.size + v) * a.post + q];
  }
}

// The index check alone, for a selection with no elements to move.
__global__ void check_select_indices(IndexSelect a) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < a.count;
       b += stride) {
    const int64_t v = read_index(a.index, a.index_is_int32, b);
    if (v < 0 || v >= a.size) atomicMin(a.bad_position, static_cast<unsigned long long>(b));
  }
}

// Checks every index (also when rows are empty) and counts them for
// scale_grad_by_freq.
__global__ void check_and_count_indices(EmbeddingBackward a) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n;
       i += stride) {
    const int64_t v = read_index(a.index, a.index_is_int32, i);
    if (v < 0 || v >= a.num_weights) {
      atomicMin(a.bad_position, static_cast<unsigned long long>(i));
    } else if (a.counts != nullptr) {
      atomicAdd(&a.counts[v], 1ull);
    }
  }
}

template <typename T>
__global__ void embedding_backward_kernel(EmbeddingBackward a) {
  const int64_t total = a.n * a.dim;
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += stride) {
    const int64_t i = k / a.dim, j = k % a.dim;
    const int64_t v = read_index(a.index, a.index_is_int32, i);
    if (v < 0 || v >= a.num_weights || v == a.padding_idx) continue;  // bad: checked above
    T g = static_cast<const T*>(a.grad)[k];
    if (a.counts != nullptr) g /= static_cast<T>(a.counts[v]);
    atomicAdd(static_cast<T*>(a.grad_weight) + v * a.dim + j, g);
  }
}

// Offsets (in elements) of index, self and other for row-major position p
// of the index's shape; self's offset leaves out `dim`.
struct Offsets {
  int64_t index = 0, self = 0, other = 0;
};
__device__ __forceinline__ Offsets offsets_of(const GatherScatter& a, int64_t p) {
  Offsets o;
  for (int d = a.ndim - 1; d >= 0; --d) {
    const int64_t c = p % a.sizes[d];
    p /= a.sizes[d];
    o.index += c * a.index_strides[d];
    o.other += c * a.other_strides[d];
    if (d != a.dim) o.self += c * a.self_strides[d];
  }
  return o;
}

__global__ void gather_check_kernel(GatherScatter a) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < a.numel;
       p += stride) {
    const int64_t v = a.index[offsets_of(a, p).index];
    if (v < 0 || v >= a.self_dim_size) atomicMin(a.bad_position, static_cast<unsigned long long>(p));
  }
}

template <typename W>
__global__ void gather_kernel(GatherScatter a) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < a.numel;
       p += stride) {
    const Offsets o = offsets_of(a, p);
    const int64_t v = a.index[o.index];
    static_cast<W*>(a.other)[o.other] =
        static_cast<const W*>(a.self)[o.self + v * a.self_strides[a.dim]];
  }
}

template <typename W>
__global__ void scatter_assign_kernel(GatherScatter a) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  W value;
  memcpy(&value, &a.value_bits, sizeof(W));
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < a.numel;
       p += stride) {
    const Offsets o = offsets_of(a, p);
    const int64_t v = a.index[o.index];
    static_cast<W*>(a.self)[o.self + v * a.self_strides[a.dim]] =
        a.other != nullptr ? static_cast<const W*>(a.other)[o.other] : value;
  }
}

// *address = scatter_combine(*address, x, add) atomically (element_ops.cuh:
// the CPU's combine). The hardware's atomicAdd where it is that operation
// (Float, Double, Int and Long add), else a compare-and-swap loop on the
// element's bits; an element narrower than 4 bytes is swapped within its
// aligned 32-bit word (which lies in the tensor's allocation: the caching
// allocator hands out 512-byte multiples, as cudaMalloc does).
template <typename T>
__device__ __forceinline__ void atomic_combine(T* address, T x, bool add) {
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value ||
                std::is_same<T, int32_t>::value) {
    if (add) {
      atomicAdd(address, x);
      return;
    }
  }
  if constexpr (std::is_same<T, int64_t>::value) {
    if (add) {
      atomicAdd(reinterpret_cast<unsigned long long*>(address),
                static_cast<unsigned long long>(x));
      return;
    }
  }
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    using Word = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
    Word* word = reinterpret_cast<Word*>(address);
    Word old = *word, assumed;
    do {
      assumed = old;
      T current;
      memcpy(&current, &assumed, sizeof(T));
      const T next = scatter_combine(current, x, add);
      Word bits;
      memcpy(&bits, &next, sizeof(T));
      old = atomicCAS(word, assumed, bits);
    } while (old != assumed);
  } else {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2, "1 or 2 bytes: within a 32-bit word");
    constexpr unsigned kBits = sizeof(T) == 1 ? 0xffu : 0xffffu;
    const uintptr_t at = reinterpret_cast<uintptr_t>(address);
    unsigned* word = reinterpret_cast<unsigned*>(at & ~uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(at & 3) * 8;  // little-endian
    unsigned old = *word, assumed;
    do {
      assumed = old;
      const unsigned current_bits = (assumed >> shift) & kBits;
      T current;
      memcpy(&current, &current_bits, sizeof(T));
      const T next = scatter_combine(current, x, add);
      unsigned next_bits = 0;
      memcpy(&next_bits, &next, sizeof(T));
      old = atomicCAS(word, assumed, (assumed & ~(kBits << shift)) | (next_bits << shift));
    } while (old != assumed);
  }
}

template <typename T>
__global__ void scatter_reduce_kernel(GatherScatter a) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  T value;
  memcpy(&value, &a.value_bits, sizeof(T));
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < a.numel;
       p += stride) {
    const Offsets o = offsets_of(a, p);
    const int64_t v = a.index[o.index];
    const T x = a.other != nullptr ? static_cast<const T*>(a.other)[o.other] : value;
    atomic_combine(static_cast<T*>(a.self) + o.self + v * a.self_strides[a.dim], x, a.reduce == 1);
  }
}

unsigned grid_for(int64_t total) { return grid_stride_blocks(total, kThreads); }

}  // namespace

std::string launch_index_select(const IndexSelect& a, void* stream) {
  const int64_t total = a.pre * a.count * a.post;
  if (a.count == 0) return "";
  const auto s = static_cast<cudaStream_t>(stream);
  if (total == 0) {
    check_select_indices<<<grid_for(a.count), kThreads, 0, s>>>(a);
    return launch_status();
  }
  switch (a.element_size) {
    case 1: index_select_kernel<uint8_t><<<grid_for(total), kThreads, 0, s>>>(a); break;
    case 2: index_select_kernel<uint16_t><<<grid_for(total), kThreads, 0, s>>>(a); break;
    case 4: index_select_kernel<uint32_t><<<grid_for(total), kThreads, 0, s>>>(a); break;
    case 8: index_select_kernel<uint64_t><<<grid_for(total), kThreads, 0, s>>>(a); break;
    default: return "index_select: no kernel for elements of this size";
  }
  return launch_status();
}

std::string launch_gather_check(const GatherScatter& a, void* stream) {
  if (a.numel == 0) return "";
  gather_check_kernel<<<grid_for(a.numel), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(a);
  return launch_status();
}

std::string launch_gather(const GatherScatter& a, void* stream) {
  if (a.numel == 0) return "";
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned grid = grid_for(a.numel);
  switch (a.element_size) {
    case 1: gather_kernel<uint8_t><<<grid, kThreads, 0, s>>>(a); break;
    case 2: gather_kernel<uint16_t><<<grid, kThreads, 0, s>>>(a); break;
    case 4: gather_kernel<uint32_t><<<grid, kThreads, 0, s>>>(a); break;
    case 8: gather_kernel<uint64_t><<<grid, kThreads, 0, s>>>(a); break;
    default: return "gather: no kernel for elements of this size";
  }
  return launch_status();
}

std::string launch_scatter(const GatherScatter& a, void* stream) {
  if (a.numel == 0) return "";
  const auto s = static_cast<cudaStream_t>(stream);
  const unsigned grid = grid_for(a.numel);
  if (a.reduce == 0) {
    switch (a.element_size) {
      case 1: scatter_assign_kernel<uint8_t><<<grid, kThreads, 0, s>>>(a); break;
      case 2: scatter_assign_kernel<uint16_t><<<grid, kThreads, 0, s>>>(a); break;
      case 4: scatter_assign_kernel<uint32_t><<<grid, kThreads, 0, s>>>(a); break;
      case 8: scatter_assign_kernel<uint64_t><<<grid, kThreads, 0, s>>>(a); break;
      default: return "scatter: no kernel for elements of this size";
    }
    return launch_status();
  }
  return dispatch_dtype(a.dtype, [&](auto t) {
    scatter_reduce_kernel<decltype(t)><<<grid, kThreads, 0, s>>>(a);
    return launch_status();
  });
}

std::string launch_embedding_backward(const EmbeddingBackward& a, void* stream) {
  const int64_t total = a.n * a.dim;
  if (a.n == 0) return "";
  const auto s = static_cast<cudaStream_t>(stream);
  check_and_count_indices<<<grid_for(a.n), kThreads, 0, s>>>(a);
  const std::string status = launch_status();
  if (!status.empty()) return status;
  if (total == 0) return "";
  switch (a.dtype) {
    case Dtype::kFloat: embedding_backward_kernel<float><<<grid_for(total), kThreads, 0, s>>>(a); break;
    case Dtype::kDouble: embedding_backward_kernel<double><<<grid_for(total), kThreads, 0, s>>>(a); break;
    default: return "embedding_dense_backward: floating dtypes only";
  }
  return launch_status();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
