// backends/cuda/kernels/sort_kernels.cu — sort and topk (Note [CUDA sort]
// in launch.h): the keys kernel, the workspace's layout, CUB's ordering
// (sort.cuh) and the gather of the first k.
#include <cstdint>
#include <string>
#include <type_traits>

#include "backends/cuda/kernels/loops.cuh"
#include "backends/cuda/kernels/sort.cuh"
#include "backends/cuda/kernels/sort_keys.cuh"

namespace ember {
namespace cuda {
namespace kernels {
namespace {

constexpr int kThreads = 256;
// Rows at least this long are sorted one DeviceRadixSort each; shorter ones
// in one DeviceSegmentedSort (which gives a long row a single block).
constexpr int64_t kPerRowLength = int64_t{1} << 17;

// keys[i] of in[i]; positions in the row, for the first `positions` items.
template <typename T, typename K>
__global__ void make_keys(const T* in, K* keys, int32_t* pos, int64_t total,
                          int64_t positions, int64_t n, bool descending) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += stride) {
    keys[i] = sort_key(in[i], descending);
    if (i < positions) pos[i] = static_cast<int32_t>(i % n);
  }
}

__global__ void row_offsets(int64_t* offsets, int64_t rows, int64_t n) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r <= rows;
       r += stride) {
    offsets[r] = r * n;
  }
}

// values/indices (rows x k) from the first k sorted positions of each row;
// W is a word of the element's size.
template <typename W>
__global__ void gather_first(const W* in, const int32_t* sorted, W* values, int64_t* indices,
                             int64_t rows, int64_t n, int64_t k) {
  const int64_t total = rows * k;
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += stride) {
    const int64_t r = i / k, j = i % k;
    const int64_t p = sorted[r * n + j];
    values[i] = in[r * n + p];
    indices[i] = p;
  }
}

size_t aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

// Where each buffer lives in the workspace.
struct Layout {
  size_t keys_in = 0, keys_out = 0, pos_in = 0, pos_out = 0, offsets = 0, temp = 0;
  size_t temp_bytes = 0, total = 0;
};

template <typename K>
SortPass<K> pass_of(const SortArgs& a) {
  SortPass<K> p;
  p.rows = a.rows;
  p.n = a.n;
  p.per_row = a.rows == 1 || a.n >= kPerRowLength;
  p.end_bit = a.dtype == Dtype::kBool ? 1 : static_cast<int>(8 * sizeof(K));
  return p;
}

// The bytes of scratch CUB's ordering of `a` needs (asked once, by
// sort_workspace_bytes).
template <typename K>
std::string cub_bytes_of(const SortArgs& a, size_t* bytes) {
  SortPass<K> p = pass_of<K>(a);
  p.temp_bytes = bytes;
  return error_status(sort_pairs<K>(p, nullptr));
}

// The workspace's layout for `a`, with `cub_bytes` of CUB's scratch.
template <typename K>
Layout layout_of(const SortArgs& a, size_t cub_bytes) {
  Layout l;
  const bool per_row = pass_of<K>(a).per_row;
  const size_t total = static_cast<size_t>(a.rows * a.n);
  size_t at = 0;
  auto place = [&](size_t* where, size_t bytes) {
    *where = at;
    at += aligned(bytes);
  };
  place(&l.keys_in, total * sizeof(K));
  place(&l.keys_out, total * sizeof(K));
  place(&l.pos_in, (per_row ? static_cast<size_t>(a.n) : total) * sizeof(int32_t));
  place(&l.pos_out, total * sizeof(int32_t));
  place(&l.offsets, per_row ? 0 : static_cast<size_t>(a.rows + 1) * sizeof(int64_t));
  l.temp_bytes = cub_bytes;
  place(&l.temp, l.temp_bytes);
  l.total = at;
  return l;
}

// Calls f(T{}, K{}) for the element type and key type of a.dtype.
template <typename F>
std::string with_key_type(Dtype dtype, F&& f) {
  return dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    return f(t, typename SortKey<T>::type{});
  });
}

template <typename T, typename K>
std::string run(const SortArgs& a, cudaStream_t stream) {
  Layout l = layout_of<K>(a, a.cub_bytes);
  if (a.workspace_bytes < l.total) return "sort: the workspace is smaller than asked for";
  char* w = static_cast<char*>(a.workspace);
  SortPass<K> p = pass_of<K>(a);
  p.temp = w + l.temp;
  p.temp_bytes = &l.temp_bytes;
  p.keys_in = reinterpret_cast<K*>(w + l.keys_in);
  p.keys_out = reinterpret_cast<K*>(w + l.keys_out);
  p.pos_in = reinterpret_cast<int32_t*>(w + l.pos_in);
  p.pos_out = reinterpret_cast<int32_t*>(w + l.pos_out);
  p.offsets = p.per_row ? nullptr : reinterpret_cast<int64_t*>(w + l.offsets);
  const int64_t total = a.rows * a.n;
  make_keys<T, K><<<grid_stride_blocks(total, kThreads), kThreads, 0, stream>>>(
      static_cast<const T*>(a.in), const_cast<K*>(p.keys_in), const_cast<int32_t*>(p.pos_in),
      total, p.per_row ? a.n : total, a.n, a.descending);
  std::string status = launch_status();
  if (!status.empty()) return status;
  if (!p.per_row) {
    row_offsets<<<grid_stride_blocks(a.rows + 1, kThreads), kThreads, 0, stream>>>(
        const_cast<int64_t*>(p.offsets), a.rows, a.n);
    status = launch_status();
    if (!status.empty()) return status;
  }
  status = error_status(sort_pairs<K>(p, stream));
  if (!status.empty()) return status;
  using W = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t,
                         std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  static_assert(sizeof(W) == sizeof(T), "a word of the element's size");
  gather_first<W><<<grid_stride_blocks(a.rows * a.k, kThreads), kThreads, 0, stream>>>(
      static_cast<const W*>(a.in), p.pos_out, static_cast<W*>(a.values), a.indices, a.rows,
      a.n, a.k);
  return launch_status();
}

}  // namespace

std::string sort_workspace_bytes(SortArgs* a) {
  a->workspace_bytes = 0;
  a->cub_bytes = 0;
  if (a->rows == 0 || a->n == 0 || a->k == 0) return "";
  if (a->n > kMaxSortRow) return "sort: rows longer than 2^31 - 1 elements";
  return with_key_type(a->dtype, [&](auto, auto key) {
    using K = decltype(key);
    const std::string status = cub_bytes_of<K>(*a, &a->cub_bytes);
    if (status.empty()) a->workspace_bytes = layout_of<K>(*a, a->cub_bytes).total;
    return status;
  });
}

std::string launch_sort(const SortArgs& a, void* stream) {
  if (a.rows == 0 || a.n == 0 || a.k == 0) return "";
  if (a.n > kMaxSortRow) return "sort: rows longer than 2^31 - 1 elements";
  return with_key_type(a.dtype, [&](auto t, auto key) {
    return run<decltype(t), decltype(key)>(a, static_cast<cudaStream_t>(stream));
  });
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
