// backends/cuda/kernels/sort_pairs.cuh — sort_pairs<K> (declared in
// sort.cuh) on CUB; included by the per-width files only.
#pragma once

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "backends/cuda/kernels/sort.cuh"

namespace ember {
namespace cuda {
namespace kernels {

template <typename K>
cudaError_t sort_pairs(const SortPass<K>& p, cudaStream_t stream) {
  size_t& bytes = *p.temp_bytes;
  if (!p.per_row) {
    return cub::DeviceSegmentedSort::StableSortPairs(
        p.temp, bytes, p.keys_in, p.keys_out, p.pos_in, p.pos_out, p.rows * p.n, p.rows,
        p.offsets, p.offsets + 1, stream);
  }
  if (p.temp == nullptr) {
    return cub::DeviceRadixSort::SortPairs(p.temp, bytes, p.keys_in, p.keys_out, p.pos_in,
                                           p.pos_out, p.n, 0, p.end_bit, stream);
  }
  for (int64_t r = 0; r < p.rows; ++r) {
    const cudaError_t err = cub::DeviceRadixSort::SortPairs(
        p.temp, bytes, p.keys_in + r * p.n, p.keys_out + r * p.n, p.pos_in,
        p.pos_out + r * p.n, p.n, 0, p.end_bit, stream);
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace kernels
}  // namespace cuda
}  // namespace ember
