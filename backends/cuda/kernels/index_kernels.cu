// backends/cuda/kernels/index_kernels.cu — index_select (and embedding, which
// is index_select of rows) and embedding's backward. Indices are checked on
// the device (Note [CUDA index checks] in launch.h).
#include <cstdint>

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

unsigned grid_for(int64_t total) {
  const int64_t wanted = (total + kThreads - 1) / kThreads;
  return static_cast<unsigned>(wanted < 65535 * 8 ? wanted : 65535 * 8);
}

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
