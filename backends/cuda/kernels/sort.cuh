// backends/cuda/kernels/sort.cuh — the CUB half of the CUDA sort (Note
// [CUDA sort] in launch.h): sort_pairs<K> orders unsigned keys of one width
// with their int32 positions. Defined in sort_pairs.cuh and compiled once
// per key width (sort_pairs_u8.cu ... sort_pairs_u64.cu, in parallel: CUB's
// sorts are the slowest templates of the plugin to compile); sort_kernels.cu
// sees only this declaration.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace ember {
namespace cuda {
namespace kernels {

// One ordering of `rows` rows of `n` keys. per_row: a DeviceRadixSort of
// each row in turn, all reading the positions 0..n-1 at pos_in (n of them);
// else one DeviceSegmentedSort (stable) over every row, pos_in holding
// rows*n positions and offsets the rows+1 row starts. Only the low
// `end_bit` bits of a key are compared on the per-row path. With
// temp == nullptr, stores in *temp_bytes the scratch CUB needs and sorts
// nothing (the pointers may then be null).
template <typename K>
struct SortPass {
  void* temp = nullptr;
  size_t* temp_bytes = nullptr;
  const K* keys_in = nullptr;
  K* keys_out = nullptr;
  const int32_t* pos_in = nullptr;
  int32_t* pos_out = nullptr;
  const int64_t* offsets = nullptr;
  int64_t rows = 0, n = 0;
  int end_bit = 8 * sizeof(K);
  bool per_row = true;
};

template <typename K>
cudaError_t sort_pairs(const SortPass<K>& p, cudaStream_t stream);

extern template cudaError_t sort_pairs<uint8_t>(const SortPass<uint8_t>&, cudaStream_t);
extern template cudaError_t sort_pairs<uint16_t>(const SortPass<uint16_t>&, cudaStream_t);
extern template cudaError_t sort_pairs<uint32_t>(const SortPass<uint32_t>&, cudaStream_t);
extern template cudaError_t sort_pairs<uint64_t>(const SortPass<uint64_t>&, cudaStream_t);

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
